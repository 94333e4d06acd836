"""A second ``python -m bot`` command beside a running bot, as an operator would type it.

The commands these tests start are meant to be refused at once (another process holds
the database or the shard) or to finish quickly (a backup); one still running after
REFUSED_WITHIN seconds started for real, and fails the test.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from demo.arena import TOKEN

REFUSED_WITHIN = 30.0


@dataclass
class Finished:
    code: int
    stdout: str
    stderr: str


async def bot_command(
    *args: str, config: Path, workdir: Path, env: Mapping[str, str] | None = None
) -> Finished:
    """``python -m bot <args> --config <config>`` run to its end in ``workdir``, with the
    arena's token and ``env`` added to this process's environment."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, "--config", str(config), cwd=workdir,
        env={**os.environ, **(env or {}), "MUNDA_DISCORD_TOKEN": TOKEN},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), REFUSED_WITHIN)
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
        pytest.fail(f"'{' '.join(args)}' was still running after {REFUSED_WITHIN} s:\n"
                    f"{err.decode(errors='replace')[-2000:]}")
    assert process.returncode is not None
    return Finished(process.returncode, out.decode(errors="replace"),
                    err.decode(errors="replace"))
