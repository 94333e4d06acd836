"""The order in which gangs make their challenges in a cycle, drawn openly with dice.

Dominion (dominion-campaign/2-setting-up-the-campaign.md): in the first cycle
challenges are made in a random order; in later cycles in ascending order of
Gang Rating, and gangs of the same Gang Rating roll off, the winner first.

How the bot draws "a random order": every gang rolls a D6 and the highest goes
first; gangs that rolled the same roll off again among themselves, and so on.
Every die is kept and shown: nothing is re-rolled unseen. A roll-off that ties
more than ``MAX_ROLL_OFFS`` times in a row (a one in millions chance with fair
dice) leaves those gangs in the order they joined the campaign, and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import groupby

from rules.dice import DiceRoll, Roller, roll

MAX_ROLL_OFFS = 10


@dataclass(frozen=True)
class Entrant:
    gang_id: str
    name: str
    rating: int


@dataclass
class DrawnOrder:
    order: list[str] = field(default_factory=list)
    rolls: list[DiceRoll] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def draw_order(entrants: Sequence[Entrant], *, by_rating: bool, roller: Roller) -> DrawnOrder:
    """The challenge order: random (first cycle) or by ascending Gang Rating with roll-offs."""
    drawn = DrawnOrder()
    if by_rating:
        ranked = sorted(entrants, key=lambda e: e.rating)
        groups = [list(g) for _, g in groupby(ranked, key=lambda e: e.rating)]
        purpose = "challenge order roll-off, equal Gang Rating"
    else:
        groups = [list(entrants)]
        purpose = "challenge order"
    for group in groups:
        drawn.order += [e.gang_id for e in _roll_off(group, roller, drawn, purpose, 0)]
    return drawn


def _roll_off(
    group: list[Entrant], roller: Roller, drawn: DrawnOrder, purpose: str, depth: int
) -> list[Entrant]:
    if len(group) < 2:
        return group
    if depth >= MAX_ROLL_OFFS:
        drawn.notes.append("Roll-offs kept tying: " + ", ".join(e.name for e in group)
                           + " go in the order they joined.")
        return group
    faces: list[tuple[int, Entrant]] = []
    again = " (again)" if depth else ""
    for entrant in group:
        dice = roll(roller, "D6", f"{purpose}{again}: {entrant.name}")
        drawn.rolls.append(dice)
        faces.append((dice.total, entrant))
    faces.sort(key=lambda pair: -pair[0])
    ordered: list[Entrant] = []
    for _, tied in groupby(faces, key=lambda pair: pair[0]):
        ordered += _roll_off([e for _, e in tied], roller, drawn, purpose, depth + 1)
    return ordered
