"""The storage benchmark still runs (a tiny smoke run; no timing is checked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "storage_bench.py"


def test_benchmark_smoke_run(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--campaigns", "3", "--runs", "3",
         "--path", str(tmp_path / "bench.sqlite3")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "apply post-battle step" in done.stdout
