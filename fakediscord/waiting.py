"""Wake-ups for code that waits on the fake's state.

Every mutation calls :meth:`Notifier.notify`; waiters re-check a predicate each
time. Predicates are cheap, so this is simpler and less error-prone than one
future per awaited thing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TypeVar

from fakediscord.errors import WaitTimeout

T = TypeVar("T")


class Notifier:
    def __init__(self) -> None:
        self._event: asyncio.Event | None = None

    def notify(self) -> None:
        if self._event is not None:
            self._event.set()
            self._event = None

    async def wait_for(self, check: Callable[[], T | None], *, timeout: float, what: str) -> T:
        """Return the first truthy ``check()`` result; raise WaitTimeout naming ``what``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = check()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise WaitTimeout(f"timed out after {timeout:.1f}s waiting for {what}")
            if self._event is None:
                self._event = asyncio.Event()
            event = self._event
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)
