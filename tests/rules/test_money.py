"""Credits arithmetic: every percentage rounds up to the nearest 5."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import InvalidRequest
from rules.money import percent_of, round_up_to_5


@pytest.mark.parametrize(
    ("credits", "percent", "expected"),
    [(115, 50, 60), (110, 25, 30), (100, 25, 25), (101, 10, 15), (0, 50, 0), (95, 10, 10)],
)
def test_percent_rounds_up_to_5(credits: int, percent: int, expected: int) -> None:
    assert percent_of(credits, percent) == expected


def test_round_up_to_5_boundaries() -> None:
    assert round_up_to_5(115) == 115
    assert round_up_to_5(116) == 120
    assert round_up_to_5(0) == 0


def test_negative_amounts_refused() -> None:
    with pytest.raises(InvalidRequest):
        round_up_to_5(-5)
    with pytest.raises(InvalidRequest):
        percent_of(-10, 50)


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=100))
def test_percent_is_smallest_multiple_of_5_not_below_exact(credits: int, percent: int) -> None:
    result = percent_of(credits, percent)
    assert result % 5 == 0
    assert result * 100 >= credits * percent
    assert (result - 5) * 100 < credits * percent
