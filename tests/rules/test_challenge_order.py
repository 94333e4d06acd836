"""The challenge order: random in the first cycle, by ascending Gang Rating after."""

from __future__ import annotations

from rules.challenge_order import MAX_ROLL_OFFS, Entrant, draw_order
from rules.dice import ScriptedRoller

A, B, C = Entrant("a", "Ash", 900), Entrant("b", "Bone", 700), Entrant("c", "Cinder", 900)


def test_first_cycle_highest_roll_first_and_ties_roll_off_openly() -> None:
    # Ash 3, Bone 5, Cinder 3: Bone first; Ash and Cinder roll off 2 against 6.
    drawn = draw_order([A, B, C], by_rating=False, roller=ScriptedRoller([3, 5, 3, 2, 6]))
    assert drawn.order == ["b", "c", "a"]
    assert [r.total for r in drawn.rolls] == [3, 5, 3, 2, 6]
    assert "(again): Ash" in drawn.rolls[3].purpose


def test_later_cycles_lowest_rating_first_equal_ratings_roll_off() -> None:
    drawn = draw_order([A, B, C], by_rating=True, roller=ScriptedRoller([1, 4]))
    assert drawn.order == ["b", "c", "a"]
    assert len(drawn.rolls) == 2 and "equal Gang Rating" in drawn.rolls[0].purpose


def test_no_dice_when_ratings_differ() -> None:
    roller = ScriptedRoller([])
    assert draw_order([A, B], by_rating=True, roller=roller).order == ["b", "a"]
    assert roller.used == 0


def test_roll_offs_that_keep_tying_stop_and_say_so() -> None:
    drawn = draw_order([A, C], by_rating=False,
                       roller=ScriptedRoller([4] * (2 * MAX_ROLL_OFFS)))
    assert drawn.order == ["a", "c"]
    assert "kept tying" in drawn.notes[0]
