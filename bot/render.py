"""Turn rules results into text lines, apart from the rules themselves.

Like a dice engine's stringifiers: the rules say what was rolled and what
changed; this module alone decides how that reads in a channel. Output is
plain Discord-flavoured markdown with every user-supplied name escaped, so a
gang called ``**@everyone**`` reads as typed and pings nobody.

Every function takes ``plain=True`` for a terminal (the offline demo): the
same words without markdown escapes or bold, since a terminal would show the
backslashes and asterisks literally. Control characters are dropped there
instead, so a name cannot move the cursor or recolour the terminal.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from discord.utils import escape_markdown, escape_mentions

from rules.dice import DiceRoll
from rules.world import Change, RuleResult

# Ledger paths that are bookkeeping, not news for players.
_QUIET_PATHS = frozenset({"escorted_to_doc", "rescue_chance_given"})
# Paths whose values are gang ids: players know gangs by name, not by storage id.
_GANG_ID_PATHS = frozenset({"controller", "captured_by"})


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, marking the cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def safe(text: str, limit: int = 100, *, plain: bool = False) -> str:
    """Escape markdown and mentions in user-supplied text, keep it on one line and cap
    its length.

    One line: a text a player or a file gave (a ledger row of an imported campaign, a
    skill of an imported gang) never starts a line of its own, where markdown would
    read it as a header, a quote or a list. ``plain`` text is for a terminal: nothing
    is escaped, control characters go.
    """
    clipped = clip(one_line(text), limit)
    if plain:
        return "".join(ch for ch in clipped if unicodedata.category(ch) != "Cc")
    return escape_mentions(escape_markdown(clipped))


def one_line(text: str) -> str:
    """``text`` with every line break (``\\n``, ``\\r``, U+2028...) made a space."""
    return " ".join(text.splitlines()) if not text.isprintable() else text


def roll_line(dice: DiceRoll, *, plain: bool = False) -> str:
    faces = ", ".join(str(face) for face in dice.faces) or "no dice"
    total = str(dice.total) if plain else f"**{dice.total}**"
    purpose = safe(dice.purpose, 120, plain=plain)
    # The expression of an imported roll is the file's text, like its purpose.
    return f"🎲 {purpose}: {safe(dice.expression, 40, plain=plain)} → [{faces}] = {total}"


def change_line(
    change: Change, *, plain: bool = False, gang_names: Mapping[str, str] | None = None
) -> str | None:
    """One change as a sentence, or None for bookkeeping nobody needs to read.

    ``gang_names`` (gang id -> name) names the gangs a value refers to; an id
    it lacks is shown as it is.
    """
    name = safe(change.subject_name, plain=plain)
    if change.path in _QUIET_PATHS:
        return None
    if change.path in _GANG_ID_PATHS and gang_names:
        change = change.model_copy(
            update={
                "before": gang_names.get(str(change.before), change.before),
                "after": gang_names.get(str(change.after), change.after),
            }
        )
    if change.path in ("fighters", "vehicles", "stash_vehicles", ""):
        if change.before is None:
            return f"➕ {name} joins the roster" if change.path == "fighters" else f"➕ {name}"
        if change.after is None:
            return f"➖ {name} leaves the roster"
    if change.path.startswith(("stash[", "equipment[", "upgrades[")):
        container = change.path.split("[", 1)[0]
        where = "the Stash" if container == "stash" else name
        item = _item_name(change.after if change.after is not None else change.before, plain)
        verb = "➕" if change.before is None else "➖" if change.after is None else "✏️"
        preposition = "to" if change.before is None else "from"
        if verb == "✏️":
            before, after = _value(change.before, plain), _value(change.after, plain)
            return f"✏️ {item} on {where}: {before} → {after}"
        return f"{verb} {item} {preposition} {where}"
    # An imported row's path is the file's text: escaped like any other.
    label = safe(change.path.replace("profile.", "").replace("_", " "), 60, plain=plain)
    before, after = _value(change.before, plain), _value(change.after, plain)
    if before == after:
        # Only an unnamed detail changed (an advancement's chosen characteristic);
        # the line that matters says it, and "X → X" would only puzzle.
        return None
    return f"{name}: {label} {before} → {after}"


def _item_name(value: Any, plain: bool = False) -> str:
    if isinstance(value, dict) and "name" in value:
        return safe(str(value["name"]), plain=plain)
    return "item"


def _value(value: Any, plain: bool = False) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        # Records (advancements, items) read by their names, not as dumped dicts.
        shown = (v.get("name", "…") if isinstance(v, dict) else v for v in value)
        return ", ".join(safe(str(v), 40, plain=plain) for v in shown) or "none"
    if isinstance(value, dict):
        return safe(str(value.get("name", "…")), plain=plain)
    return safe(str(value), 60, plain=plain)


def result_lines(result: RuleResult, *, plain: bool = False) -> list[str]:
    """Everything a result says, in reading order: notes, rolls, then changes."""
    lines = [safe(note, 300, plain=plain) for note in result.notes]
    lines += [roll_line(dice, plain=plain) for dice in result.rolls]
    names = {gang_id: gang.name for gang_id, gang in result.world.gangs.items()}
    lines += [
        line
        for change in result.changes
        if (line := change_line(change, plain=plain, gang_names=names)) is not None
    ]
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
