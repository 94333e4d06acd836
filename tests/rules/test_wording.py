"""The English of results: possessives of names ending in s, and counts of one."""

from __future__ import annotations

from rules.wording import count, possessive


def test_possessives() -> None:
    assert possessive("Vex") == "Vex's"
    assert possessive("The Slag Lords") == "The Slag Lords'"
    assert possessive("BOSS") == "BOSS'"


def test_counts() -> None:
    assert count(1, "enemy", "enemies") == "1 enemy"
    assert [count(n, "fighter") for n in (0, 2)] == ["0 fighters", "2 fighters"]
