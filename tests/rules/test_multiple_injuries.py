"""Multiple Injuries rolled at the table: extra results counted from the effect's dice."""

from __future__ import annotations

import pytest

from rules.data import default_ruleset
from rules.multiple_injuries import (
    entry_named,
    extra_results,
    fewest_extra,
    is_complete,
    more_rolls,
    results_left,
)
from rules.ruleset import InjuryEffect, InjuryEffectKind, InjuryEntry

TABLE = default_ruleset().fighter_injuries


def _entry(name: str) -> InjuryEntry:
    found = entry_named(TABLE, name)
    assert found is not None
    return found


@pytest.mark.parametrize(("expression", "span"), [
    (None, (1, 1)), ("2", (2, 2)), (" 3 ", (3, 3)), ("D3", (1, 3)), ("2D6", (2, 12)),
    ("D3x2", (2, 6)), ("D66", (11, 66)),
])
def test_extra_results_reads_the_effects_dice(expression: str | None,
                                              span: tuple[int, int]) -> None:
    effect = InjuryEffect(kind=InjuryEffectKind.MULTIPLE, expression=expression)
    assert extra_results(effect) == span


def test_a_result_is_found_by_name_whatever_its_case_and_spaces() -> None:
    assert _entry("  multiple INJURIES ").name == "Multiple Injuries"
    assert entry_named(TABLE, "Papercut") is None


def test_only_multiple_injuries_gives_more_rolls() -> None:
    more = more_rolls(_entry("Multiple Injuries"))
    assert more is not None and more.expression == "D3"
    assert more_rolls(_entry("Lesson Learned")) is None


def test_results_left_counts_down_from_the_dice_most() -> None:
    assert results_left(TABLE, []) is None
    assert results_left(TABLE, ["Lesson Learned"]) is None  # a new pick replaces it
    assert results_left(TABLE, ["Multiple Injuries"]) == 3
    assert results_left(TABLE, ["Multiple Injuries", "Lesson Learned"]) == 2
    assert results_left(TABLE, ["Multiple Injuries", *["Lesson Learned"] * 4]) == 0


def test_multiple_injuries_wants_at_least_the_dice_least() -> None:
    multiple, lesson = _entry("Multiple Injuries"), _entry("Lesson Learned")
    assert fewest_extra([multiple]) == 1
    assert not is_complete([multiple])
    assert is_complete([multiple, lesson])
    assert fewest_extra([lesson]) == 0 and is_complete([lesson])
    assert fewest_extra([]) == 0 and is_complete([])
