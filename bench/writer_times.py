"""Run the bot (``python bench/writer_times.py OUT -m bot run ...``) and report how long
its writer lock was waited for and held (bot.storage.repository's WRITER_LOCK).

On SIGUSR1 and at exit the figures so far are written to OUT as JSON (replaced
whole), so bench/bot_bench.py can take them before and after the drive and
leave start-up out. With BENCH_UVLOOP=1 in the environment the bot runs on uvloop's
event loop instead of asyncio's (bot_bench --uvloop, to measure it). Not a benchmark
itself: bot_bench starts the bot this way.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import signal
import sys
from dataclasses import asdict
from pathlib import Path
from types import FrameType


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] != "-m":
        raise SystemExit("usage: writer_times.py OUT -m MODULE [ARG ...]")
    out, module = Path(sys.argv[1]), sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    from bot.storage.repository import WRITER_LOCK

    def write() -> None:
        partial = out.with_suffix(".partial")
        partial.write_text(json.dumps(asdict(WRITER_LOCK)), encoding="utf-8")
        os.replace(partial, out)

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        write()

    if os.environ.get("BENCH_UVLOOP") == "1":
        import asyncio

        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    signal.signal(signal.SIGUSR1, on_signal)
    atexit.register(write)
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
