"""The pictures benchmark runs as a user runs it: figures printed, none checked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_benchmark_prints_a_line_per_picture() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "pictures_bench.py"), "--runs", "1",
         "--fighters", "40"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("roster card, 40 fighters (") for line in lines)
    assert any(line.startswith("campaign chart") for line in lines)
    assert any(line.startswith("battle card") for line in lines)
