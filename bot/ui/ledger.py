"""How the ledger reads in a channel: events grouped by action, and change lines as embeds.

The storage layer hands back :class:`~bot.storage.LedgerEvent` rows newest
first; one action (a rules result or a roster edit) wrote several of them at
once. Here they are grouped back into their actions, each with a header
naming who did it (``<@id>`` mention text: the bot sends with mentions off,
so nobody is pinged) and when (a Discord timestamp, shown in each reader's
own time zone), and each event becomes one line: rolls with faces and
purpose, changes as before → after, notes and undos as they were written.
Events brought in by /campaign import are history of another campaign: their
header says so (from which campaign, imported when) and names nobody, since
a file's word on who rolled what is no record of anything done here.

Rolls and changes read exactly as they do when a command answers
(:mod:`bot.render`), so the ledger and the live answer never disagree. All
functions are pure except :func:`send_lines`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import discord

from bot.render import change_line, roll_line, safe
from bot.storage import LedgerEvent
from bot.ui import lines_embeds, send_embeds
from rules.models import Gang
from rules.world import Change, World, diff_worlds

# Discord allows 4096 characters in an embed description; a little room is
# kept so a page never sits exactly on the limit.
BULLET = "•"


@dataclass(frozen=True)
class ActionGroup:
    """The events one action wrote, oldest first, with what the header shows."""

    action_id: int | None
    actor: str
    at: datetime
    clause: str
    battle_id: str | None
    step: str | None
    events: tuple[LedgerEvent, ...]
    imported_from: str | None = None
    imported_at: datetime | None = None


def group_events(events: Sequence[LedgerEvent]) -> list[ActionGroup]:
    """Group newest-first events by action, keeping the newest action first.

    Events of one action are stored together, so they are neighbours in the
    list. Imported events have no action; neighbours with the same actor,
    time and clause are taken as one.
    """
    groups: list[list[LedgerEvent]] = []
    for event in events:
        if groups and _same_action(groups[-1][-1], event):
            groups[-1].append(event)
        else:
            groups.append([event])
    return [_group(group) for group in groups]


def _group(newest_first: list[LedgerEvent]) -> ActionGroup:
    first = newest_first[0]
    return ActionGroup(
        action_id=first.action_id,
        actor=first.actor,
        at=first.at,
        clause=first.clause,
        battle_id=first.battle_id,
        step=first.step,
        # Within one action the order it was written in is the reading order.
        events=tuple(reversed(newest_first)),
        imported_from=first.imported_from,
        imported_at=first.imported_at,
    )


def _same_action(a: LedgerEvent, b: LedgerEvent) -> bool:
    if a.action_id is not None or b.action_id is not None:
        return a.action_id == b.action_id
    return (a.actor, a.at, a.clause, a.imported_from) == (
        b.actor, b.at, b.clause, b.imported_from
    )


def actor_text(actor: str) -> str:
    """A Discord user id as mention text; anything else (imports, the system) escaped."""
    if actor.isascii() and actor.isdigit() and len(actor) <= 20:
        return f"<@{actor}>"
    return safe(actor, 40)


def when_text(at: datetime, style: str = "f") -> str:
    """A Discord timestamp: every reader sees it in their own time zone (``d``: date only)."""
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return f"<t:{int(moment.timestamp())}:{style}>"


def event_line(event: LedgerEvent) -> str | None:
    """One event as one line, or None for bookkeeping nobody needs to read."""
    if event.kind == "roll":
        dice = event.roll
        return roll_line(dice) if dice is not None else None
    if event.kind == "change":
        change = event.change
        return change_line(change) if change is not None else None
    text = safe(event.text or "", 300)
    if event.kind == "undo":
        return f"↩️ {text}"
    return f"📝 {text}" if text else None


def group_header(group: ActionGroup, titles: Mapping[int, str] | None = None) -> str:
    """``**#12 Hire a fighter** (PB-6B.1) · <@id> · <t:…:f>``, with the battle if any
    (and ``↩️ undone`` after the title once a later action undid it)."""
    if group.imported_from is not None:
        return imported_header(group)
    title = (titles or {}).get(group.action_id) if group.action_id is not None else None
    number = f"#{group.action_id} " if group.action_id is not None else ""
    label = f"**{number}{safe(title, 80)}** ({safe(group.clause, 20)})" if title else (
        f"**{number}{safe(group.clause, 20)}**"
    )
    parts = [label, actor_text(group.actor), when_text(group.at)]
    if any(event.undone for event in group.events):
        # Undone rolls stay in the ledger, so a re-roll after an undo is never silent.
        parts.insert(1, "↩️ undone")
    return " · ".join(parts + _battle_part(group))


def imported_header(group: ActionGroup) -> str:
    """``📥 **Imported** from *Scrap Hollow* on <t:…:d> · PB-1 · dated <t:…:f> in the file``."""
    when = "" if group.imported_at is None else f" on {when_text(group.imported_at, 'd')}"
    parts = [
        f"📥 **Imported** from *{safe(group.imported_from or '', 60)}*{when}",
        safe(group.clause, 20),
        f"dated {when_text(group.at)} in the file",
    ]
    return " · ".join(parts + _battle_part(group))


def _battle_part(group: ActionGroup) -> list[str]:
    """``battle b1, 4`` for an action of a battle's sequence; nothing otherwise."""
    if not group.battle_id:
        return []
    step = f", {safe(group.step, 30)}" if group.step else ""
    return [f"battle {safe(group.battle_id, 64)}{step}"]


def ledger_lines(
    events: Sequence[LedgerEvent], titles: Mapping[int, str] | None = None
) -> list[str]:
    """Every event as text: a header per action, then its events as bullets."""
    lines: list[str] = []
    for group in group_events(events):
        body = [line for event in group.events if (line := event_line(event)) is not None]
        if not body:
            continue
        lines.append(group_header(group, titles))
        lines += [f"{BULLET} {line}" for line in body]
    return lines


def ledger_embeds(
    events: Sequence[LedgerEvent],
    *,
    title: str,
    titles: Mapping[int, str] | None = None,
    empty: str = "Nothing has been recorded yet.",
) -> list[discord.Embed]:
    """The ledger as embeds within Discord's limits, newest action first."""
    # The limit counts events, so the oldest action shown may be cut short.
    footer = f"The latest {len(events)} events, newest first" if events else "Newest first"
    return lines_embeds(title, ledger_lines(events, titles), empty=empty, footer=footer)


def gang_change_lines(before: Gang, after: Gang) -> list[str]:
    """What a roster edit changed, as the ledger will show it."""
    return change_lines(diff_worlds(World.of([before]), World.of([after])))


def change_lines(changes: Sequence[Change]) -> list[str]:
    return [line for change in changes if (line := change_line(change)) is not None]


async def send_lines(
    interaction: discord.Interaction, title: str, lines: Sequence[str], *, empty: str = ""
) -> None:
    """Answer publicly with ``lines`` under ``title``, paged over as many embeds as needed."""
    await send_embeds(interaction, lines_embeds(title, lines, empty=empty or "Nothing changed."))
