"""Pure work of a large write or read (decoding, comparing, building rows) in a worker thread.

At the import bounds (200 fighters with every list full, a Trading Post of 2000
items) each of these steps is tens of milliseconds of Python; on the event
loop's thread they add up and every server waits. In a worker thread the
interpreter hands the loop its turn every 5 ms (between two bytecodes; one C call
still runs to its end).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

# Fighters (with their lists) above which a write's pure work runs off the loop;
# below it a thread's start costs more than the work.
LARGE_ROSTER = 60
# Characters of stored JSON above which validating it runs off the loop: about 300
# Trading Post items, 4 ms (2000 items are 350,000 characters and 30 ms).
LARGE_TEXT = 50_000


def is_large(fighter_counts: Iterable[int]) -> bool:
    return sum(fighter_counts) > LARGE_ROSTER


def is_long(texts: Iterable[str | None]) -> bool:
    return sum(len(text) for text in texts if text is not None) > LARGE_TEXT


async def off_loop_if(
    large: bool, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """``function(*args, **kwargs)``, in a worker thread when ``large`` (and on the event
    loop's thread: a transaction run whole on the database thread is off it already)."""
    if large and _on_the_loop():
        return await asyncio.to_thread(function, *args, **kwargs)
    return function(*args, **kwargs)


def _on_the_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
