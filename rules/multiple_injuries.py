"""Multiple Injuries rolled at the table: how many extra results a result gives.

A Lasting Injury result such as Multiple Injuries gives more results (its
effect's expression: "D3", "2", ...). Players who roll at the table enter the
first result and then its extra ones; these functions say how many extra
results the first one allows, how many are still to come, and whether a list
is complete. The Wrap-up (rules/wrapup.py) and the report panel
(bot/battle/panel.py) both ask here, so they count alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.dice import parse
from rules.ruleset import InjuryEffect, InjuryEffectKind, InjuryEntry, InjuryTable


def more_rolls(entry: InjuryEntry) -> InjuryEffect | None:
    """The effect of a result that gives more results (Multiple Injuries), if it is one."""
    return next((e for e in entry.effects if e.kind is InjuryEffectKind.MULTIPLE), None)


def entry_named(table: InjuryTable, name: str) -> InjuryEntry | None:
    """The table's result of this name (case and outer spaces aside), if there is one."""
    wanted = name.strip().casefold()
    return next((e for e in table.entries if e.name.casefold() == wanted), None)


def extra_results(effect: InjuryEffect) -> tuple[int, int]:
    """The fewest and the most extra results ``effect`` gives: "2" is 2 to 2, "D3" 1 to 3,
    "2D6" 2 to 12, "D3x2" 2 to 6, "D66" 11 to 66."""
    expression = (effect.expression or "1").strip()
    if expression.isdigit():
        return int(expression), int(expression)
    dice = parse(expression)
    if dice.d66:
        return 11, 66
    return dice.count * dice.multiplier, dice.count * dice.sides * dice.multiplier


def results_left(table: InjuryTable, names: Sequence[str]) -> int | None:
    """How many more extra results the entered list may take; None when its first result
    gives none (a new pick then replaces it)."""
    first = entry_named(table, names[0]) if names else None
    more = more_rolls(first) if first is not None else None
    if more is None:
        return None
    return max(0, extra_results(more)[1] - (len(names) - 1))


def fewest_extra(entries: Sequence[InjuryEntry]) -> int:
    """The fewest extra results the list's first result gives (0 when it gives none).

    The Wrap-up accepts fewer extra results than the dice could give (the
    player rolled low), but not fewer than the dice's least: with none at all,
    say, nothing would be applied, which no roll can do.
    """
    more = more_rolls(entries[0]) if entries else None
    return extra_results(more)[0] if more is not None else 0


def is_complete(entries: Sequence[InjuryEntry]) -> bool:
    """Whether the list holds at least as many extra results as its first one gives."""
    return not entries or len(entries) - 1 >= fewest_extra(entries)
