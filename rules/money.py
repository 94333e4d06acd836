"""Credits arithmetic: every percentage rounds up to the nearest 5."""

from __future__ import annotations

from rules.errors import InvalidRequest


def round_up_to_5(credits: int) -> int:
    """Round a non-negative amount up to the next multiple of 5 (115 -> 115, 116 -> 120)."""
    if credits < 0:
        raise InvalidRequest("An amount of credits cannot be negative.")
    return -(-credits // 5) * 5


def percent_of(credits: int, percent: int) -> int:
    """``percent``% of ``credits``, rounded up to the nearest 5 (50% of 115 is 60).

    Exact integer arithmetic: 25% of 110 is 27.5, which rounds up to 30.
    """
    if percent < 0:
        raise InvalidRequest("A percentage cannot be negative.")
    if credits < 0:
        raise InvalidRequest("An amount of credits cannot be negative.")
    # ceil(credits * percent / 100) then up to 5; ceil first keeps 27.5 -> 28 -> 30.
    exact_ceiling = -(-credits * percent // 100)
    return round_up_to_5(exact_ceiling)
