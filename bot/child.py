"""One child process of the bot's own: the pool both workers (file reading, drawing) use.

A child has a GIL and a heap of its own, so work that holds the GIL for long
stretches (validating a whole campaign file, drawing with matplotlib) never
stalls the event loop, and what the work imports (matplotlib and its fonts
are about 60 MB) stays out of the bot's own process.

The child is started with ``spawn`` (``fork`` is unsafe in a threaded asyncio
program, and ``spawn`` leaves no fork server behind), and exits with the bot:
on shutdown, and within half a second when the bot is killed (it watches its
parent, since it would otherwise wait for ever on its task queue).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

# How often the child checks that the bot is still there.
PARENT_CHECK_SECONDS = 0.5


def one_child() -> ProcessPoolExecutor:
    """A pool of one spawned child that leaves with this process."""
    return ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn"),
        initializer=leave_with_parent, initargs=(os.getpid(),),
    )


def leave_with_parent(parent: int) -> None:
    """In the child: exit as soon as the bot is gone (killed, it cannot say so)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
