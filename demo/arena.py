"""An arena: the project's fake Discord and the real bot process, side by side.

End-to-end tests, the newcomer's demo and the benchmarks all need the same
thing: a fake Discord on 127.0.0.1, a fresh folder with a config file and a
database, and the unmodified bot started as its own process
(``python -m bot run``) pointed at the fake through its configuration. The
bot can be stopped politely (SIGTERM), killed (SIGKILL, to test crashes) and
started again on the same database.

An arena may also run a bot holding some of Discord's shards (``shard_count``,
``shard_ids``): several arenas on one fake Discord are several bot processes,
each given the same PostgreSQL database (``database_url``; docs/deploying.md, "Shards").
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from pathlib import Path

from bot.shards import ShardSet
from fakediscord import Driver, FakeDiscord

TOKEN = "arena-token"
READY_TIMEOUT = 30.0


class BotExited(RuntimeError):
    """The bot process ended while the arena was waiting for it."""


class Arena:
    def __init__(
        self,
        fake: FakeDiscord,
        workdir: Path,
        *,
        log_level: str = "INFO",
        env: Mapping[str, str] | None = None,
        python_args: Sequence[str] = (),
        shard_count: int = 1,
        shard_ids: Sequence[int] | None = None,
        name: str = "bot",
        database_url: str | None = None,
    ) -> None:
        self.fake = fake
        # Several bots in one folder (``name``: "shard-1", ...) keep their own config and log.
        self.name = name
        # The bot's shards: its config says them, and its start waits for each to connect.
        self.shards = ShardSet.of(shard_count, shard_ids)
        self._shard_ids = None if shard_ids is None else sorted(shard_ids)
        # Extra environment for the bot process: MUNDA_<SECTION>_<KEY> settings.
        self.env = dict(env or {})
        # Interpreter options before "-m bot run", e.g. ("-m", "cProfile", "-o", path)
        # to profile the bot (the benchmarks do).
        self.python_args = list(python_args)
        self.workdir = workdir
        self.config_path = workdir / ("config.toml" if name == "bot" else f"config-{name}.toml")
        self.database_path = workdir / "munda-arbitrator.db"
        # A PostgreSQL database instead of the SQLite file (several arenas may share one).
        self.database_url = database_url
        self.log_path = workdir / f"{name}.log"
        self.log_level = log_level
        self.process: asyncio.subprocess.Process | None = None

    @property
    def driver(self) -> Driver:
        return self.fake.driver(timeout=10.0)

    def write_config(self) -> None:
        shards = ""
        if self.shards.count != 1:
            shards += f"shard_count = {self.shards.count}\n"
        if self._shard_ids is not None:
            shards += f"shard_ids = {self._shard_ids}\n"
        url = f'url = "{self.database_url}"\n' if self.database_url else ""
        self.config_path.write_text(
            "[discord]\n"
            f'api_base = "{self.fake.base_url}"\n'
            f"{shards}"
            "[database]\n"
            f'path = "{self.database_path.name}"\n'
            f"{url}"
            "backup_interval_hours = 0\n"
            "[logging]\n"
            f'level = "{self.log_level}"\n',
            encoding="utf-8",
        )

    async def start_bot(self, env: Mapping[str, str] | None = None, *,
                        ready_timeout: float = READY_TIMEOUT) -> None:
        """Start the bot process and wait until each of its shards has identified and
        (the process holding shard 0) it has synced its commands (at most
        ``ready_timeout`` seconds).

        ``env`` adds variables for this start only (e.g. ``MUNDA_FAILPOINTS``, see
        bot/failpoints.py); the arena's own ``env`` applies to every start.
        """
        gateway = self.fake.gateway
        earlier = set(gateway.sessions)
        synced = self.fake.commands.sync_count
        wanted = {(shard_id, self.shards.count) for shard_id in self.shards.ids}
        syncs = self.shards.syncs_commands

        def ready() -> bool:
            # Sessions identified since this start: a killed bot's may linger, resumable.
            fresh = {s.shard for s in gateway.sessions.values()
                     if s.id not in earlier and s.connection is not None}
            return wanted <= fresh and (not syncs or self.fake.commands.sync_count > synced)

        env = {**self.env, **(env or {}), "MUNDA_DISCORD_TOKEN": TOKEN}
        self.process = await launch(
            *self.python_args, "-m", "bot", "run", "--config", str(self.config_path),
            log=self.log_path, env=env, cwd=self.workdir)
        what = f"the bot process to connect {self.shards}" + (
            " and sync its commands" if syncs else "")
        await until_ready(self.process, self.fake.world.notifier.wait_for(
            ready, timeout=ready_timeout, what=what), name="the bot", log=self.log_path)

    async def stop_bot(self, *, kill: bool = False, timeout: float = 15.0) -> int | None:
        """SIGTERM (clean shutdown) or SIGKILL (a crash); returns the exit code."""
        process, self.process = self.process, None
        if process is None:
            return None
        return await stop_process(process, kill=kill, timeout=timeout)

    async def restart_bot(
        self, *, kill: bool = False, env: Mapping[str, str] | None = None
    ) -> None:
        await self.stop_bot(kill=kill)
        await self.start_bot(env)

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.log_path, lines)


# The bot's process and any other a benchmark or a test starts beside the fake Discord
# (bench/baseline_bot.py, the fake's own sample bot) are started, awaited and stopped
# the same way: these.


async def launch(
    *args: str, log: Path, env: Mapping[str, str] | None = None, cwd: Path | None = None,
) -> asyncio.subprocess.Process:
    """``python <args>``, unbuffered, with ``env`` over this process's environment, its
    output and errors appended to ``log`` and nothing on its input."""
    with log.open("ab") as out:
        return await asyncio.create_subprocess_exec(
            sys.executable, *args, cwd=cwd,
            env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
            stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out,
        )


async def until_ready(
    process: asyncio.subprocess.Process, ready: Awaitable[object], *, name: str, log: Path,
) -> None:
    """Wait for ``ready``, unless ``process`` ends first: then :class:`BotExited`, with
    its exit code and the end of its ``log`` (a crash at start-up shows at once, not as
    a time-out)."""
    waiting = asyncio.ensure_future(ready)
    exited = asyncio.ensure_future(process.wait())
    done, _ = await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
    if exited in done:
        waiting.cancel()
        raise BotExited(f"{name} exited with {exited.result()}:\n{log_tail(log)}")
    exited.cancel()
    waiting.result()


async def stop_process(
    process: asyncio.subprocess.Process, *, kill: bool = False, timeout: float = 15.0,
) -> int:
    """SIGTERM (a clean shutdown) or SIGKILL (a crash), then its exit code; a process still
    running ``timeout`` seconds after SIGTERM is killed."""
    if process.returncode is not None:
        return process.returncode
    process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
    try:
        return await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        process.kill()
        return await process.wait()


def log_tail(log: Path, lines: int = 40) -> str:
    if not log.exists():
        return "(no log)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@contextlib.asynccontextmanager
async def open_arena(
    workdir: Path, *, fake: FakeDiscord | None = None, log_level: str = "INFO",
    start: bool = True, env: Mapping[str, str] | None = None,
    shard_count: int = 1, shard_ids: Sequence[int] | None = None,
) -> AsyncIterator[Arena]:
    """A running fake Discord (the demo world unless ``fake`` is given) and bot process.

    ``env`` adds environment variables for the bot process (configuration
    overrides such as ``MUNDA_IMPORTING_YAKTRIBE_HOST``); ``shard_count`` and
    ``shard_ids`` are the bot's shards (default: the one shard of one).
    """
    fake = fake or FakeDiscord.demo(token=TOKEN)
    await fake.start()
    arena = Arena(fake, workdir, log_level=log_level, env=env, shard_count=shard_count,
                  shard_ids=shard_ids)
    arena.write_config()
    try:
        if start:
            await arena.start_bot()
        yield arena
    finally:
        await arena.stop_bot()
        await fake.stop()
