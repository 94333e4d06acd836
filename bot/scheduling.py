"""Scheduled battles: the reminders (durable timers), the link to /prebattle and /postbattle,
and the battle's Discord Guild Scheduled Event (docs/arbitrator.md, "Scheduling a battle").

What is stored changes in the caller's transaction; the Discord event is changed after the
commit (an HTTP call never runs inside a transaction). A Discord refusal leaves the
battle as agreed, without its event, and is said in the log and to the players.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import discord

from bot.render import clip, safe
from bot.storage import (
    CalendarSettings,
    ScheduledBattle,
    ScheduleStatus,
    Transaction,
)
from bot.storage.timers import Timer, epoch
from bot.timers import MESSAGE_LIMIT, before_timer, late_line, on_timer
from bot.ui.times import stamp
from rules.errors import NotFound
from rules.models import Gang

log = logging.getLogger(__name__)

REMINDER = "battle-reminder"
EVENT_CHANGE = "event-change"
EventChange = Literal["start", "end", "cancel"]
# A timer due at this time fires on the worker's next pass, whatever the clock says.
AT_ONCE = datetime(2000, 1, 1, tzinfo=UTC)
EVENT_NAME_MAX = 100  # Discord's length of a scheduled event's name
EVENT_DESCRIPTION_MAX = 1000
LOCATION_MAX = 100


def matchup(gangs: Sequence[Gang], territory: str | None = None, *, bold: bool = True) -> str:
    """"**A** vs **B**", with the Territory at stake."""
    names = [safe(g.name) if bold else g.name for g in gangs]
    line = " vs ".join(f"**{n}**" if bold else n for n in names)
    if territory:
        line += f" for {safe(territory) if bold else territory}"
    return line


async def gangs_of(tx: Transaction, battle: ScheduledBattle) -> list[Gang]:
    """The battle's gangs still in the campaign (a gang deleted since is left out)."""
    return gangs_among(battle, await tx.gangs_without_rosters(battle.campaign_id, None))


def gangs_among(battle: ScheduledBattle, found: Mapping[str, Gang]) -> list[Gang]:
    """:func:`gangs_of` from the campaign's gangs read once (for a list of battles)."""
    return [found[gang_id] for gang_id in battle.gang_ids if gang_id in found]


# --------------------------------------------------------------------------- reminders


def _prefix(battle_id: str) -> str:
    return f"reminder:{battle_id}:"


async def cancel_reminders(tx: Transaction, battle_id: str) -> None:
    for timer in await tx.list_timers(_prefix(battle_id)):
        await tx.cancel_timer(timer.key)


async def set_reminders(tx: Transaction, battle: ScheduledBattle, settings: CalendarSettings,
                        now: datetime) -> list[datetime]:
    """A timer for each lead time of ``settings`` still ahead of ``now`` (those of an
    earlier time forgotten); when they are due."""
    await cancel_reminders(tx, battle.id)
    assert battle.starts_at is not None
    due: list[datetime] = []
    for minutes in sorted(set(settings.reminder_minutes), reverse=True):
        at = battle.starts_at - timedelta(minutes=minutes)
        if at > now:
            await tx.set_timer(f"{_prefix(battle.id)}{minutes}", REMINDER, at, {
                "campaign": battle.campaign_id, "battle": battle.id,
                "starts": epoch(battle.starts_at)})
            due.append(at)
    return due


@on_timer(REMINDER)
async def _remind(tx: Transaction, timer: Timer, late: timedelta | None) -> None:
    try:
        battle = await tx.get_scheduled_battle(timer.args["campaign"], timer.args["battle"])
    except NotFound:
        return  # the battle (or its campaign) is gone: nothing to remind of
    starts = battle.starts_at
    if (battle.status is not ScheduleStatus.AGREED or starts is None
            or epoch(starts) != timer.args["starts"] or battle.channel_id is None):
        return  # called off, moved or started since: that reminder is owed no more
    gangs = await gangs_of(tx, battle)
    if len(gangs) < len(battle.gang_ids):
        return  # a gang of it was deleted: that battle will not be played
    owners = sorted({g.owner for g in gangs})
    content = (f"{late_line(timer.due_at, late)}Reminder: {matchup(gangs, battle.territory)}"
               f" starts {stamp(starts)} ({stamp(starts, 'R')}). "
               + " ".join(f"<@{owner}>" for owner in owners))
    # Keyed by the start too: a battle moved and agreed again is reminded again.
    await tx.owe_message_unanswered(f"{timer.key}:{int(epoch(starts))}", battle.channel_id, {
        "content": clip(content, MESSAGE_LIMIT),
        "allowed_mentions": {"parse": [], "users": owners},
    }, link={"kind": "reminder", "campaign": battle.campaign_id})


# --------------------------------------------------------------------------- battles


async def link_battle(tx: Transaction, campaign_id: str, gang_ids: Sequence[str],
                      battle_id: str, *, started_too: bool = False) -> ScheduledBattle | None:
    """The scheduled battle of exactly these gangs (the soonest), marked started as
    ``battle_id``; its reminders are owed no more. None when there is none.

    ``/prebattle`` links one still to come; ``/postbattle start`` of a battle it records
    itself (no ``battle:``) also one its ``/prebattle`` started (``started_too``), so that
    the end of that sequence ends the scheduled battle."""
    scheduled = await scheduled_of(tx, campaign_id, gang_ids, started_too=started_too)
    return None if scheduled is None else await mark_started(tx, scheduled, battle_id)


async def mark_started(tx: Transaction, scheduled: ScheduledBattle,
                       battle_id: str) -> ScheduledBattle:
    """``scheduled`` (found by :func:`scheduled_of`) started as ``battle_id``."""
    await cancel_reminders(tx, scheduled.id)
    return await tx.update_scheduled_battle(scheduled.model_copy(
        update={"status": ScheduleStatus.STARTED, "battle_id": battle_id}))


async def scheduled_of(tx: Transaction, campaign_id: str, gang_ids: Sequence[str], *,
                       started_too: bool = False) -> ScheduledBattle | None:
    """The scheduled battle of exactly these gangs still to come (the soonest; with
    ``started_too``, also one its /prebattle started), or None."""
    return scheduled_among(await tx.scheduled_battles(campaign_id), gang_ids,
                           started_too=started_too)


def scheduled_among(battles: Sequence[ScheduledBattle], gang_ids: Sequence[str], *,
                    started_too: bool = False) -> ScheduledBattle | None:
    """:func:`scheduled_of` among the campaign's scheduled ``battles`` (soonest first),
    read already."""
    wanted = {ScheduleStatus.OPEN, ScheduleStatus.PROPOSED, ScheduleStatus.AGREED}
    if started_too:
        wanted.add(ScheduleStatus.STARTED)
    for scheduled in battles:
        if scheduled.status in wanted and set(scheduled.gang_ids) == set(gang_ids):
            return scheduled
    return None


async def complete_battle(tx: Transaction, campaign_id: str, battle_id: str) -> None:
    """The battle's post-battle sequence ended (its report delivered, in ``tx``): its
    scheduled battle is completed, and the end of its Discord event owed."""
    for scheduled in await tx.scheduled_battles(campaign_id):
        if scheduled.battle_id == battle_id and scheduled.status is ScheduleStatus.STARTED:
            await tx.update_scheduled_battle(
                scheduled.model_copy(update={"status": ScheduleStatus.COMPLETED}))
            await change_event_later(tx, scheduled, "end")


# --------------------------------------------------------------------------- Discord events


async def change_event_later(tx: Transaction, battle: ScheduledBattle,
                             status: EventChange) -> None:
    """Owe a change of ``battle``'s Discord event: a timer in ``tx`` whose preparer makes
    it once the transaction is committed (a transaction talks to no one), and again after
    a restart until it fired. For what runs in a transaction alone: a challenge lapsing
    at a cycle's end, a battle's report delivered."""
    if battle.event_id is not None:
        await tx.set_timer(f"{EVENT_CHANGE}:{status}:{battle.id}", EVENT_CHANGE, AT_ONCE,
                           {"event": battle.event_id, "status": status})


@before_timer(EVENT_CHANGE)
async def _change_event(client: Any, timer: Timer) -> dict[str, Any]:
    if isinstance(client, discord.Client):
        await change_event(client, timer.guild_id, int(timer.args["event"]),
                           status=timer.args["status"])
    return {}


@on_timer(EVENT_CHANGE)
async def _event_changed(tx: Transaction, timer: Timer, late: timedelta | None) -> None:
    """Nothing to store: the preparer did the work; firing marks it done."""
    del tx, timer, late


async def make_event(client: discord.Client, guild_id: int, battle: ScheduledBattle,
                     gangs: Sequence[Gang], settings: CalendarSettings) -> int | None:
    """Create the battle's Guild Scheduled Event (EXTERNAL, at the campaign's channel), or
    move the one it has; its id, None when Discord refused (logged)."""
    assert battle.starts_at is not None
    ends = battle.starts_at + timedelta(minutes=settings.event_minutes)
    guild = client.get_guild(guild_id)
    if guild is None:
        return None
    channel = guild.get_channel(battle.channel_id or 0)
    where = clip(f"#{channel.name}" if channel is not None else guild.name, LOCATION_MAX)
    name = clip(matchup(gangs, bold=False), EVENT_NAME_MAX)
    description = clip("A Necromunda battle of the campaign"
                       + (f", for {battle.territory}" if battle.territory else "")
                       + ". Played and recorded with /prebattle and /postbattle.",
                       EVENT_DESCRIPTION_MAX)
    try:
        if battle.event_id is not None:
            event = await guild.fetch_scheduled_event(battle.event_id)
            await event.edit(start_time=battle.starts_at, end_time=ends)
            return battle.event_id
        made = await guild.create_scheduled_event(
            name=name, start_time=battle.starts_at, end_time=ends, description=description,
            entity_type=discord.EntityType.external, location=where,
            privacy_level=discord.PrivacyLevel.guild_only)
    except discord.HTTPException:
        log.exception("scheduling: Discord refused the event of %s", battle.id)
        return None
    return made.id


async def change_event(client: discord.Client, guild_id: int, event_id: int | None, *,
                       status: EventChange) -> None:
    """Start, end or cancel the event (``status``), where Discord allows it from the
    event's status now; a refusal is logged and changes nothing stored."""
    guild = client.get_guild(guild_id)
    if event_id is None or guild is None:
        return
    try:
        event = await guild.fetch_scheduled_event(event_id)
        if status == "start" and event.status is discord.EventStatus.scheduled:
            await event.start()
        elif status == "end" and event.status is discord.EventStatus.active:
            await event.end()
        elif status == "cancel" and event.status is discord.EventStatus.scheduled:
            await event.cancel()
        elif status == "cancel" and event.status is discord.EventStatus.active:
            await event.end()
    except discord.HTTPException:
        log.exception("scheduling: Discord refused to %s event %s", status, event_id)
