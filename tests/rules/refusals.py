"""The check every refused rules call shares: the right error, and the world left as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rules.errors import RulesError
from rules.world import World


def refused(
    error: type[RulesError], before: World, call: Callable[[], Any], match: str | None = None
) -> RulesError:
    """Assert that ``call`` raises ``error`` and leaves ``before`` as it was."""
    snapshot = before.model_copy(deep=True)
    with pytest.raises(error, match=match) as caught:
        call()
    assert before == snapshot
    return caught.value
