"""Gangs already decoded, by the stored rows they were decoded from.

Decoding a gang's rows (pydantic validation of every fighter, item and name)
costs about 1.6 ms for 15 fighters, and a post-battle click decodes the same
two gangs again and again: their rows change only when a step changes them.
:func:`bot.storage.roster.gang_from_rows` is a pure function of the rows, so
a gang decoded from rows equal to earlier ones is the gang decoded then; a
copy of it (:func:`rules.copying.deep_copy`, about 0.3 ms) is handed out, so
that no caller changes what another gets. Keyed by a digest of the rows'
values, the newest :data:`KEPT` kept (docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rules.copying import deep_copy
from rules.models import Gang

# A few hundred gangs: the two of each sequence in progress at once (100 of them in
# the benchmark), about 120 KB each with a whole roster.
KEPT = 512


class DecodedGangs:
    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._gangs: OrderedDict[bytes, Gang] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def decoded(self, parts: Sequence[Iterable[Iterable[Any]]],
                decode: Callable[[], Gang]) -> Gang:
        """A gang of its own decoded from rows with these values (``parts``: lists of
        rows), by ``decode`` unless it was decoded from equal rows before."""
        key = hashlib.blake2b(
            repr([[tuple(row) for row in part] for part in parts]).encode(), digest_size=16
        ).digest()
        known = self._gangs.get(key)
        if known is not None:
            self.hits += 1
            self._gangs.move_to_end(key)
            return deep_copy(known)
        self.misses += 1
        gang = decode()
        self._gangs[key] = deep_copy(gang)
        if len(self._gangs) > self.kept:
            self._gangs.popitem(last=False)
        return gang


DECODED = DecodedGangs()
