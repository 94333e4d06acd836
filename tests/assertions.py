"""Checks the tests share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rules.world import World


@contextmanager
def unchanged(world: World) -> Iterator[None]:
    """The block must leave ``world`` exactly as it was: a refusal changes nothing.

    Put it before ``pytest.raises``, so the refusal is caught first and the world compared
    after it.
    """
    before = world.model_copy(deep=True)
    yield
    assert world == before
