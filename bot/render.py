"""Turn rules results into text lines, apart from the rules themselves.

Like a dice engine's stringifiers: the rules say what was rolled and what
changed; this module alone decides how that reads in a channel. Output is
plain Discord-flavoured markdown with every user-supplied name escaped, so a
gang called ``**@everyone**`` reads as typed and pings nobody.
"""

from __future__ import annotations

from typing import Any

from discord.utils import escape_markdown, escape_mentions

from rules.dice import DiceRoll
from rules.world import Change, RuleResult

# Ledger paths that are bookkeeping, not news for players.
_QUIET_PATHS = frozenset({"escorted_to_doc", "rescue_chance_given"})


def safe(text: str, limit: int = 100) -> str:
    """Escape markdown and mentions in user-supplied text and cap its length."""
    clipped = text if len(text) <= limit else text[: limit - 1] + "…"
    return escape_mentions(escape_markdown(clipped))


def roll_line(dice: DiceRoll) -> str:
    faces = ", ".join(str(face) for face in dice.faces) or "no dice"
    return f"🎲 {safe(dice.purpose, 120)}: {dice.expression} → [{faces}] = **{dice.total}**"


def change_line(change: Change) -> str | None:
    """One change as a sentence, or None for bookkeeping nobody needs to read."""
    name = safe(change.subject_name)
    if change.path in _QUIET_PATHS:
        return None
    if change.path in ("fighters", "vehicles", "stash_vehicles", ""):
        if change.before is None:
            return f"➕ {name} joins the roster" if change.path == "fighters" else f"➕ {name}"
        if change.after is None:
            return f"➖ {name} leaves the roster"
    if change.path.startswith(("stash[", "equipment[", "upgrades[")):
        container = change.path.split("[", 1)[0]
        where = "the Stash" if container == "stash" else name
        item = _item_name(change.after if change.after is not None else change.before)
        verb = "➕" if change.before is None else "➖" if change.after is None else "✏️"
        preposition = "to" if change.before is None else "from"
        if verb == "✏️":
            return f"✏️ {item} on {where}: {_value(change.before)} → {_value(change.after)}"
        return f"{verb} {item} {preposition} {where}"
    label = change.path.replace("profile.", "").replace("_", " ")
    return f"{name}: {label} {_value(change.before)} → {_value(change.after)}"


def _item_name(value: Any) -> str:
    if isinstance(value, dict) and "name" in value:
        return safe(str(value["name"]))
    return "item"


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(safe(str(v), 40) for v in value) or "none"
    if isinstance(value, dict):
        return safe(str(value.get("name", "…")))
    return safe(str(value), 60)


def result_lines(result: RuleResult) -> list[str]:
    """Everything a result says, in reading order: notes, rolls, then changes."""
    lines = [safe(note, 300) for note in result.notes]
    lines += [roll_line(dice) for dice in result.rolls]
    lines += [line for change in result.changes if (line := change_line(change)) is not None]
    return lines


def paginate(lines: list[str], limit: int = 4000) -> list[str]:
    """Join lines into pages no longer than ``limit`` characters, never splitting a line.

    A single line longer than a page is cut, since Discord would refuse it.
    """
    pages: list[str] = []
    current = ""
    for line in lines:
        line = line if len(line) <= limit else line[: limit - 1] + "…"
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pages.append(current)
            current = line
        else:
            current = candidate
    if current or not pages:
        pages.append(current)
    return pages
