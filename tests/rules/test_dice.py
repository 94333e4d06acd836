"""The dice engine: expressions, records, seeded replay and guards against absurd rolls."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import (
    MAX_DICE,
    ScriptedRoller,
    SecureRoller,
    SeededRoller,
    parse,
    reward_dice,
    roll,
    roll_flat_or_dice,
)
from rules.errors import InvalidRequest

EXPRESSIONS = ["D3", "D6", "2D6", "D66", "3D6", "D3x10", "D6x10", "2D6x10", "D6x5", "4D6x10"]


@pytest.mark.parametrize(
    ("expression", "faces", "total"),
    [
        ("D6", [4], 4),
        ("2D6", [3, 5], 8),
        ("D66", [5, 6], 56),
        ("D3x10", [5], 30),  # a D3 is a D6 halved: 5 -> 3
        ("D3", [1], 1),
        ("D6x5", [3], 15),
        ("2D6x10", [6, 6], 120),
        ("3D6", [1, 2, 3], 6),
    ],
)
def test_expression_totals(expression: str, faces: list[int], total: int) -> None:
    result = roll(ScriptedRoller(faces), expression, "test")
    assert result.total == total
    assert result.expression == parse(expression).canonical


def test_roll_records_faces_and_purpose() -> None:
    result = roll(ScriptedRoller([2, 6]), "2d6", "availability roll")
    assert result.faces == (2, 6)
    assert result.purpose == "availability roll"
    assert result.expression == "2D6"
    assert result.has_face(6)
    assert not result.is_double


def test_d66_natural_is_two_digits() -> None:
    result = roll(ScriptedRoller([1, 1]), "D66", "lasting injury")
    assert result.natural == 11
    assert result.is_double


@pytest.mark.parametrize("bad", ["", "D7", "2D", "0D6", "21D6", "D6x0", "2D66", "D6+1", "x" * 40,
                                 "D6x10000", "DROP TABLE"])
def test_bad_expressions_are_refused_readably(bad: str) -> None:
    with pytest.raises(InvalidRequest) as error:
        parse(bad)
    assert error.value.message
    assert len(error.value.message) < 200


def test_reward_dice_never_roll_more_than_four() -> None:
    roller = ScriptedRoller([6, 6, 6, 6, 6])
    result = reward_dice(roller, 5, "scenario rewards")
    assert len(result.faces) == 4
    assert result.total == 240
    assert roller.remaining == 1


def test_reward_dice_zero_and_negative() -> None:
    assert reward_dice(ScriptedRoller([]), 0, "none").total == 0
    with pytest.raises(InvalidRequest):
        reward_dice(ScriptedRoller([]), -1, "negative")


def test_flat_income_needs_no_dice() -> None:
    assert roll_flat_or_dice(ScriptedRoller([]), "0", "income") == 0
    dice = roll_flat_or_dice(ScriptedRoller([4]), "D6x10", "income")
    assert not isinstance(dice, int)
    assert dice.total == 40


def test_scripted_roller_refuses_to_invent_faces() -> None:
    roller = ScriptedRoller([3])
    roll(roller, "D6", "one")
    with pytest.raises(AssertionError):
        roll(roller, "D6", "two")
    with pytest.raises(AssertionError):
        ScriptedRoller([7]).face(6)


@given(st.sampled_from(EXPRESSIONS), st.integers())
def test_totals_stay_within_bounds(expression: str, seed: int) -> None:
    parsed = parse(expression)
    result = roll(SeededRoller(seed), expression, "property")
    if parsed.d66:
        assert 11 <= result.total <= 66
        assert all(1 <= face <= 6 for face in result.faces)
    else:
        assert len(result.faces) == parsed.count
        assert all(1 <= face <= parsed.sides for face in result.faces)
        assert result.total == sum(result.faces) * parsed.multiplier


@given(st.sampled_from(EXPRESSIONS), st.integers())
def test_same_seed_same_rolls(expression: str, seed: int) -> None:
    first = [roll(SeededRoller(seed), expression, "a") for _ in range(3)]
    second = [roll(SeededRoller(seed), expression, "a") for _ in range(3)]
    assert first == second


def test_secure_roller_covers_every_face() -> None:
    roller = SecureRoller()
    seen = {roller.face(6) for _ in range(600)}
    assert seen == {1, 2, 3, 4, 5, 6}


@given(st.integers(min_value=1, max_value=MAX_DICE))
def test_count_limit_inclusive(count: int) -> None:
    assert parse(f"{count}D6").count == count


# --------------------------------------------------------------------------- as players write them


@pytest.mark.parametrize(
    ("expression", "faces", "canonical", "total"),
    [
        ("2D6+1", [3, 5], "2D6+1", 9),
        ("D6-1", [1], "D6-1", 0),
        ("d3x10+5", [5], "D3x10+5", 35),  # the D3 shows 3
        ("D66-10", [4, 1], "D66-10", 31),
        ("2D6 + D3 + 1", [6, 6, 2], "2D6+D3+1", 14),  # the D3 shows 1
        ("D6x10-D6", [4, 2], "D6x10-D6", 38),
        ("3 + D6", [2], "3+D6", 5),
    ],
)
def test_players_expressions_with_modifiers(
    expression: str, faces: list[int], canonical: str, total: int
) -> None:
    roller = ScriptedRoller(faces)
    result = roll(roller, expression, "as written")
    assert (result.expression, result.total) == (canonical, total)
    assert len(result.faces) == len(faces) and roller.remaining == 0


@pytest.mark.parametrize(("bad", "near", "match"), [
    ("2D6+", "2D6+1", "not a dice expression"),
    ("2D6 1", "2D6 + 1", "not a dice expression"),
    ("D6++1", "D6+1", "not a dice expression"),
    ("D7+1", "D6+1", "not a dice expression"),
    ("5", "5+D6", "which dice"),
    ("5+3", "5+3+D3", "which dice"),
    ("D6+1001", "D6+1000", "at most 1000"),
    ("D6+D6+D6+D6+D6+D6+D6", "D6+D6+D6+D6+D6+D6", "at most 6 terms"),
    ("10D6+10D6+D6", "10D6+10D6", f"between 1 and {MAX_DICE} dice"),
    ("D6x10000+1", "D6x1000+1", "multiplier"),
    ("D6+" + "1" * 40, "D6+" + "1" * 3, "too long"),
])
def test_absurd_player_expressions_are_refused_before_rolling(
    bad: str, near: str, match: str
) -> None:
    roller = ScriptedRoller([])
    with pytest.raises(InvalidRequest, match=match):
        roll(roller, bad, "refused")
    assert roller.used == 0
    # The nearest sensible expression rolls.
    assert roll(SeededRoller(1), near, "accepted").faces


@given(st.lists(st.sampled_from(["D6", "2D6", "D3", "D3x10", "1", "4"]), min_size=1, max_size=3),
       st.integers())
def test_modified_totals_are_the_terms_added(terms: list[str], seed: int) -> None:
    expression = "+".join(["D6", *terms])
    result = roll(SeededRoller(seed), expression, "property")
    again = SeededRoller(seed)
    expected = sum(roll(again, term, "term").total if "D" in term else int(term)
                   for term in ["D6", *terms])
    assert result.total == expected
