"""An arena: the project's fake Discord and the real bot process, side by side.

End-to-end tests, the newcomer's demo and the benchmarks all need the same
thing: a fake Discord on 127.0.0.1, a fresh folder with a config file and a
database, and the unmodified bot started as its own process
(``python -m bot run``) pointed at the fake through its configuration. The
bot can be stopped politely (SIGTERM), killed (SIGKILL, to test crashes) and
started again on the same database.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

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
    ) -> None:
        self.fake = fake
        # Extra environment for the bot process: MUNDA_<SECTION>_<KEY> settings.
        self.env = dict(env or {})
        # Interpreter options before "-m bot run", e.g. ("-m", "cProfile", "-o", path)
        # to profile the bot (the benchmarks do).
        self.python_args = list(python_args)
        self.workdir = workdir
        self.config_path = workdir / "config.toml"
        self.database_path = workdir / "munda-arbitrator.db"
        self.log_path = workdir / "bot.log"
        self.log_level = log_level
        self.process: asyncio.subprocess.Process | None = None

    @property
    def driver(self) -> Driver:
        return self.fake.driver(timeout=10.0)

    def write_config(self) -> None:
        self.config_path.write_text(
            "[discord]\n"
            f'api_base = "{self.fake.base_url}"\n'
            "[database]\n"
            f'path = "{self.database_path.name}"\n'
            "backup_interval_hours = 0\n"
            "[logging]\n"
            f'level = "{self.log_level}"\n',
            encoding="utf-8",
        )

    async def start_bot(self, env: Mapping[str, str] | None = None) -> None:
        """Start the bot process and wait until it has identified and synced its commands.

        ``env`` adds variables for this start only (e.g. ``MUNDA_FAILPOINTS``, see
        bot/failpoints.py); the arena's own ``env`` applies to every start.
        """
        identified = self.fake.gateway.identify_count
        synced = self.fake.commands.sync_count
        env = {
            **os.environ, **self.env, **(env or {}), "MUNDA_DISCORD_TOKEN": TOKEN,
            "PYTHONUNBUFFERED": "1",
        }
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, *self.python_args, "-m", "bot", "run",
                "--config", str(self.config_path),
                cwd=self.workdir, env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=log, stderr=log,
            )
        waiting = asyncio.ensure_future(self.fake.world.notifier.wait_for(
            lambda: self.fake.gateway.identify_count > identified
            and self.fake.gateway.is_connected()
            and self.fake.commands.sync_count > synced,
            timeout=READY_TIMEOUT, what="the bot process to connect and sync its commands",
        ))
        exited = asyncio.ensure_future(self.process.wait())
        done, _ = await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            waiting.cancel()
            raise BotExited(f"the bot exited with {exited.result()}:\n{self.log_tail()}")
        exited.cancel()
        waiting.result()

    async def stop_bot(self, *, kill: bool = False, timeout: float = 15.0) -> int | None:
        """SIGTERM (clean shutdown) or SIGKILL (a crash); returns the exit code."""
        process, self.process = self.process, None
        if process is None or process.returncode is not None:
            return None if process is None else process.returncode
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            return await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            process.kill()
            return await process.wait()

    async def restart_bot(
        self, *, kill: bool = False, env: Mapping[str, str] | None = None
    ) -> None:
        await self.stop_bot(kill=kill)
        await self.start_bot(env)

    def log_tail(self, lines: int = 40) -> str:
        if not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


@contextlib.asynccontextmanager
async def open_arena(
    workdir: Path, *, fake: FakeDiscord | None = None, log_level: str = "INFO",
    start: bool = True, env: Mapping[str, str] | None = None,
) -> AsyncIterator[Arena]:
    """A running fake Discord (the demo world unless ``fake`` is given) and bot process.

    ``env`` adds environment variables for the bot process (configuration
    overrides such as ``MUNDA_IMPORTING_YAKTRIBE_HOST``).
    """
    fake = fake or FakeDiscord.demo(token=TOKEN)
    await fake.start()
    arena = Arena(fake, workdir, log_level=log_level, env=env)
    arena.write_config()
    try:
        if start:
            await arena.start_bot()
        yield arena
    finally:
        await arena.stop_bot()
        await fake.stop()
