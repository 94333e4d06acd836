"""Small pieces of English the results are written with."""

from __future__ import annotations

from collections.abc import Sequence


def possessive(name: str) -> str:
    """``Vex`` -> ``Vex's``; ``The Slag Lords`` -> ``The Slag Lords'`` (not ``Lords's``)."""
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def first_of(names: Sequence[str], shown: int = 8) -> str:
    """``a, b, c``; past ``shown`` names, ``a, b, ... and 70 more``: a list a short
    message can hold whatever the rule data holds."""
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


def count(number: int, singular: str, plural: str | None = None) -> str:
    """``1 enemy``, ``2 enemies``, ``0 enemies``."""
    return f"{number} {singular if number == 1 else (plural or singular + 's')}"
