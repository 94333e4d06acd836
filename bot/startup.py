"""Start-up against services that may not be there yet: Discord and the database.

A configuration error fails the same way every time, so the launcher stops at
once (exit code 2). A service that cannot be reached (no network, the database
server down or starting, Discord having an outage) may be back in a minute, so
it is tried again with growing pauses, one log line per try and no traceback,
until it answers or a signal asks the process to stop (docs/hosting.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Iterator
from typing import TypeVar

import aiohttp

from bot.config import ConfigError, DiscordSettings
from bot.storage.errors import DatabaseUnreachable

log = logging.getLogger("bot")

T = TypeVar("T")

# Seconds between tries: doubling from the first, never longer than the last.
FIRST_PAUSE = 1.0
LONGEST_PAUSE = 60.0
DISCORD_TIMEOUT = aiohttp.ClientTimeout(total=20)


class Unreachable(Exception):
    """A service the bot needs did not answer; ``message`` says which and why, in one line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TokenRefused(ConfigError):
    """Discord answered that the token is not a bot's token."""


def pauses() -> Iterator[float]:
    pause = FIRST_PAUSE
    while True:
        yield pause
        pause = min(pause * 2, LONGEST_PAUSE)


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__


class Shutdown:
    """SIGTERM and SIGINT, caught for the whole start-up and run: a signal ends the
    pause between tries, cancels a try under way, or closes the running bot."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self._on_ask: list[Callable[[], None]] = []
        self._loop = asyncio.get_running_loop()

    def install(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                self._loop.add_signal_handler(sig, self.ask)

    def uninstall(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                self._loop.remove_signal_handler(sig)

    def ask(self) -> None:
        if self.asked.is_set():
            return
        log.info("shutting down")
        self.asked.set()
        for hook in self._on_ask:
            hook()

    def on_ask(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` when a signal comes (at once if one already came)."""
        self._on_ask.append(hook)
        if self.asked.is_set():
            hook()

    def forget(self, hook: Callable[[], None]) -> None:
        if hook in self._on_ask:
            self._on_ask.remove(hook)

    async def pause(self, seconds: float) -> bool:
        """Wait ``seconds``; True when a signal came first."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.asked.wait(), seconds)
        return self.asked.is_set()

    async def unless_asked(self, work: Awaitable[T]) -> tuple[bool, T | None]:
        """Run ``work`` unless a signal comes first: (True, result), or (False, None)
        with ``work`` cancelled."""
        task = asyncio.ensure_future(work)
        asked = asyncio.ensure_future(self.asked.wait())
        try:
            await asyncio.wait({task, asked}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            asked.cancel()
        if task.done():
            return True, task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Unreachable, DatabaseUnreachable):
            await task
        return False, None


async def until_reached(attempt: Callable[[], Awaitable[T]], shutdown: Shutdown) -> T | None:
    """``attempt()`` again after each Unreachable, with growing pauses and one log line
    per try, until it returns (its result) or a signal comes (None)."""
    waits = pauses()
    tries = 0
    while not shutdown.asked.is_set():
        tries += 1
        try:
            finished, result = await shutdown.unless_asked(attempt())
        except (Unreachable, DatabaseUnreachable) as error:
            pause = next(waits)
            log.warning("%s; trying again in %g s (try %d)", error, pause, tries)
            if await shutdown.pause(pause):
                return None
            continue
        return result if finished else None
    return None


async def reach_discord(settings: DiscordSettings, token: str) -> None:
    """Ask Discord who the token is, as logging in does: Unreachable when nothing
    answers (or Discord answers that it is in trouble), TokenRefused for a 401."""
    where = settings.api_base
    try:
        async with aiohttp.ClientSession(timeout=DISCORD_TIMEOUT) as session, \
                session.get(f"{where}/users/@me",
                            headers={"Authorization": f"Bot {token}"}) as answer:
            status = answer.status
    except (aiohttp.ClientError, OSError) as error:
        raise Unreachable(f"could not reach Discord at {where}: {one_line(error)}") from None
    if status == 401:
        raise TokenRefused("Discord refused the bot token (401 Unauthorized): check "
                           "MUNDA_DISCORD_TOKEN, or [discord] token in the config file.")
    if status == 429 or status >= 500:
        raise Unreachable(f"Discord at {where} answered {status}")
    if status >= 400:
        # Not the token and not an outage: a wrong api_base, most likely.
        raise ConfigError(f"Discord at {where} answered {status} to /users/@me: check "
                          "[discord] api_base.")
