"""Objects decoded from stored rows, kept by every value of the row they came from.

A click reads its campaign's row (and its gangs' names and owners) every time, so
nothing stale can be served: a row changed since is another key, and the same row
gives back the very object built from it before. Only for objects nobody changes
once they are handed out (they are shared by every reader of that row), and only
for rows of short texts: the longest rows are built every time, which bounds the
memory held to about ``entries * max_chars`` characters of keys.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

V = TypeVar("V")


class KeptByRow(Generic[V]):
    """A bounded, least recently used map from a row's values to what was built from it.

    Reader threads share it (the lock keeps a look-up and an eviction apart).
    """

    def __init__(self, entries: int, max_chars: int) -> None:
        self.entries = entries
        self.max_chars = max_chars
        self._kept: OrderedDict[tuple[Hashable, ...], V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, values: Iterable[Hashable], build: Callable[[], V]) -> V:
        """The object built from a row with these ``values``; ``build()`` makes it the
        first time (or every time, for a row too long to keep)."""
        key = tuple(values)
        try:
            with self._lock:
                found = self._kept.get(key)
                if found is not None:
                    self._kept.move_to_end(key)
                    return found
        except TypeError:  # a value that cannot be a key (a driver's list): not kept
            return build()
        built = build()
        if _chars(key) <= self.max_chars:
            with self._lock:
                self._kept[key] = built
                if len(self._kept) > self.entries:
                    self._kept.popitem(last=False)
        return built

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


def _chars(key: tuple[Hashable, ...]) -> int:
    return sum(len(value) for value in key if isinstance(value, (str, bytes)))
