"""Small pieces of English the results are written with."""

from __future__ import annotations


def possessive(name: str) -> str:
    """``Vex`` -> ``Vex's``; ``The Slag Lords`` -> ``The Slag Lords'`` (not ``Lords's``)."""
    return f"{name}'" if name.endswith(("s", "S")) else f"{name}'s"


def count(number: int, singular: str, plural: str | None = None) -> str:
    """``1 enemy``, ``2 enemies``, ``0 enemies``."""
    return f"{number} {singular if number == 1 else (plural or singular + 's')}"
