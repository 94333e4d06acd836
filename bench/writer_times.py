"""Run the bot (``python bench/writer_times.py OUT -m bot run ...``) and report how long
its writer lock was waited for and held (bot.storage.repository's WRITER_LOCK), how many
SQL statements SQLite ran and how many round trips to aiosqlite's threads were made
(figures that the machine's load does not change). On PostgreSQL there is no writer lock
(its figures stay 0); the statements are those asyncpg sent and each is one round trip
to the server (a batch of ``executemany`` is one round trip, each row a statement).

On SIGUSR1 and at exit the figures so far are written to OUT as JSON (replaced
whole), so bench/bot_bench.py can take them before and after the drive and
leave start-up out. With BENCH_UVLOOP=1 in the environment the bot runs on uvloop's
event loop instead of asyncio's (bot_bench --uvloop, to measure it). Not a benchmark
itself: bot_bench starts the bot this way.
"""

from __future__ import annotations

import atexit
import cProfile
import json
import os
import re
import runpy
import signal
import sqlite3
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from types import FrameType
from typing import Any


class Counts:
    """SQL statements run (every connection, any thread) and round trips to aiosqlite's
    threads (each ``await`` on a connection is one)."""

    def __init__(self) -> None:
        self.statements = 0
        self.round_trips = 0
        self.by_text: Counter[str] = Counter()  # the statement's start, numbers left out
        # Round trips by where they were made from: the outermost function of the bot's
        # own code on the stack (a command, a button, the outbox's worker...).
        self.by_caller: Counter[str] = Counter()
        # Walking the stack costs CPU of its own: only when asked (bot_bench --sql).
        self.callers = os.environ.get("BENCH_CALLERS") == "1"
        # CPU seconds the database threads spent on each call (SQLite's work), by the
        # call's statement (its start) or, for a function run there, the function's name.
        self.db_cpu = 0.0
        self.db_cpu_by_text: Counter[str] = Counter()
        self._lock = threading.Lock()

    def statement(self, sql: str) -> None:
        with self._lock:
            self.statements += 1
            self.by_text[_shape(sql)] += 1

    def timed(self, fn: Any, args: tuple[Any, ...]) -> Any:
        """``fn`` measured in the CPU time of the thread that runs it."""
        what = _shape(args[0]) if args and isinstance(args[0], str) else getattr(
            getattr(fn, "func", fn), "__name__", "?")  # a partial's function

        def run(*inner: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return fn(*inner, **kwargs)
            finally:
                spent = time.thread_time() - started
                with self._lock:
                    self.db_cpu += spent
                    self.db_cpu_by_text[what] += spent

        return run

    def install(self) -> None:
        import aiosqlite.core

        connect = sqlite3.connect
        queue = aiosqlite.core.Connection._execute

        def counted_connect(*args: Any, **kwargs: Any) -> Any:
            conn = connect(*args, **kwargs)
            conn.set_trace_callback(self.statement)
            return conn

        async def counted_execute(conn: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.round_trips += 1
            return await queue(conn, self.timed(fn, args), *args, **kwargs)

        setattr(sqlite3, "connect", counted_connect)  # noqa: B010 (patching, on purpose)
        setattr(aiosqlite.core.Connection, "_execute", counted_execute)  # noqa: B010
        self.install_postgres()

    def install_postgres(self) -> None:
        """Count what asyncpg sends: its public calls each make one round trip (BEGIN
        and COMMIT, and the reset when a connection goes back to the pool, included)."""
        import asyncpg

        def counted(name: str) -> None:
            original = getattr(asyncpg.Connection, name)

            async def call(conn: Any, query: str, *args: Any, **kwargs: Any) -> Any:
                self.round_trips += 1
                if self.callers:
                    self.by_caller[_caller()] += 1
                self.statement(query)
                return await original(conn, query, *args, **kwargs)

            setattr(asyncpg.Connection, name, call)

        for name in ("execute", "fetch", "fetchrow", "fetchval"):
            counted(name)
        many = asyncpg.Connection.executemany

        async def counted_many(conn: Any, query: str, args: Any, **kwargs: Any) -> Any:
            rows = list(args)
            self.round_trips += 1
            if self.callers:
                self.by_caller[_caller()] += 1
            for _ in rows:
                self.statement(query)
            return await many(conn, query, rows, **kwargs)

        setattr(asyncpg.Connection, "executemany", counted_many)  # noqa: B010


class KindProfiles:
    """With BENCH_PROFILE_KINDS=DIR (bot_bench --profile, one sequence): a cProfile of
    the event loop's thread per kind of interaction. On SIGUSR2 the bot reads the next
    interaction's kind from DIR/kind.next ("<count> <kind>"), profiles into that kind's
    profile from then on and answers with the count in DIR/kind.ack; at exit each
    profile is written to DIR/<kind>.prof."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.profiles: dict[str, cProfile.Profile] = {}
        self.current: cProfile.Profile | None = None

    def switch(self, _signum: int, _frame: FrameType | None) -> None:
        count, kind = (self.folder / "kind.next").read_text(encoding="utf-8").split(" ", 1)
        if self.current is not None:
            self.current.disable()
        partial = self.folder / "kind.ack.partial"
        partial.write_text(count, encoding="utf-8")
        os.replace(partial, self.folder / "kind.ack")  # not in the profile: ours, not the bot's
        # CPU of this thread, not the wall clock: a loaded machine would count its waits.
        self.current = self.profiles.setdefault(kind, cProfile.Profile(time.thread_time))
        self.current.enable()

    def dump(self) -> None:
        if self.current is not None:
            self.current.disable()
        for kind, profile in self.profiles.items():
            profile.dump_stats(self.folder / f"{kind_file(kind)}.prof")


def kind_file(kind: str) -> str:
    """A file name for a kind of interaction ("/postbattle start", "pb:confirm")."""
    return re.sub(r"[^A-Za-z0-9]+", "-", kind).strip("-")


_OWN_CODE = (f"{os.sep}bot{os.sep}", f"{os.sep}cogs{os.sep}")


def _caller() -> str:
    """Where a round trip came from, in the calling task (a coroutine's stack runs back
    through the coroutines awaiting it): the outermost function of the bot's own code
    and the innermost one outside the storage modules (the storage's caller)."""
    frame: FrameType | None = sys._getframe(2)
    outer = inner = "?"
    while frame is not None:
        code = frame.f_code
        if code.co_filename.endswith(f"asyncio{os.sep}events.py"):
            break  # the event loop running the task: the task's own stack ends here
        if any(part in code.co_filename for part in _OWN_CODE):
            module = code.co_filename.rsplit(os.sep, 2)
            outer = f"{module[-2]}/{module[-1]}:{code.co_name}"
            if inner == "?" and f"{os.sep}storage{os.sep}" not in code.co_filename:
                inner = outer
        frame = frame.f_back
    return outer if inner == outer else f"{outer} > {inner}"


_NUMBERS = re.compile(r"\b\d+\b|'[^']*'")


def _shape(sql: str) -> str:
    return _NUMBERS.sub("#", " ".join(sql.split())[:90])


def main() -> None:
    if len(sys.argv) < 4 or sys.argv[2] != "-m":
        raise SystemExit("usage: writer_times.py OUT -m MODULE [ARG ...]")
    out, module = Path(sys.argv[1]), sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    from bot.storage.repository import WRITER_LOCK

    counts = Counts()
    counts.install()

    def write() -> None:
        partial = out.with_suffix(".partial")
        figures = {**asdict(WRITER_LOCK), "statements": counts.statements,
                   "round_trips": counts.round_trips, "by_text": dict(counts.by_text),
                   "by_caller": dict(counts.by_caller),
                   "db_cpu": counts.db_cpu, "db_cpu_by_text": dict(counts.db_cpu_by_text)}
        partial.write_text(json.dumps(figures), encoding="utf-8")
        os.replace(partial, out)

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        write()

    if os.environ.get("BENCH_UVLOOP") == "1":
        import asyncio

        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    signal.signal(signal.SIGUSR1, on_signal)
    atexit.register(write)
    if os.environ.get("BENCH_PROFILE_KINDS"):
        profiles = KindProfiles(Path(os.environ["BENCH_PROFILE_KINDS"]))
        signal.signal(signal.SIGUSR2, profiles.switch)
        atexit.register(profiles.dump)
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
