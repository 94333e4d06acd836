"""/schedule: two players agree when their gangs fight; the bot makes the Discord event and
reminds them (docs/player.md and docs/arbitrator.md, "Scheduling a battle").

Who may do what:
- ``propose``: the player of the proposing gang (or an Arbitrator on their behalf);
- the proposal's Accept and Propose another buttons: the players of the other gang(s)
  only; its Call off button, and ``cancel``: a player of the battle or an Arbitrator;
- ``settings`` with changes: Arbitrators; ``list`` and ``settings`` alone: anyone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.call import Call, Scope
from bot.cog import BotCog, adds
from bot.errors import Refused
from bot.options import CampaignName, GangName, TerritoryName, TimeZoneName
from bot.render import safe
from bot.scheduling import (
    cancel_reminders,
    change_event,
    change_event_later,
    gangs_among,
    gangs_of,
    make_event,
    matchup,
    set_reminders,
)
from bot.slash import slash
from bot.storage import CalendarSettings, ScheduledBattle, ScheduleStatus
from bot.storage.timers import epoch
from bot.ui.routes import Click, Id, Int, button, custom_id, route, view
from bot.ui.times import EXAMPLE, read_time, stamp, zone
from rules.errors import InvalidRequest
from rules.models import Gang

ACCEPT, COUNTER, COUNTER_TIME, CALL_OFF = "sch-accept", "sch-counter", "sch-time", "sch-off"
REMINDERS_MAX = 5  # lead times an Arbitrator may set
LEAD_MAX_MINUTES = 14 * 24 * 60  # two weeks
# What players type: a time ("2026-03-14 19:30", a pasted <t:...:F>), lead times.
TypedTime = app_commands.Range[str, 1, 40]
LeadTimes = app_commands.Range[str, 1, 60]
WHEN_HELP = f"when: YYYY-MM-DD HH:MM in the campaign's time zone (e.g. {EXAMPLE}), or a " \
            "Discord timestamp"


def _now(call: Call) -> datetime:
    """The bot's clock (MundaBot.clock): the time a proposal is checked against."""
    return call.interaction.client.clock.now()


def proposal_view(battle: ScheduledBattle) -> discord.ui.View:
    assert battle.starts_at is not None
    starts = int(epoch(battle.starts_at))
    return view(
        button(ACCEPT, battle.campaign_id, battle.id, starts, label="Accept",
               style=discord.ButtonStyle.success),
        button(COUNTER, battle.campaign_id, battle.id, starts, label="Propose another time"),
        button(CALL_OFF, battle.campaign_id, battle.id, starts, label="Call off",
               style=discord.ButtonStyle.danger),
    )


def proposal_text(battle: ScheduledBattle, gangs: list[Gang]) -> str:
    assert battle.starts_at is not None
    by = next(g for g in gangs if g.id == battle.proposed_by)
    others = [g for g in gangs if g.id != battle.proposed_by]
    return (f"**{safe(by.name)}** proposes a time for {matchup(gangs, battle.territory)}: "
            f"{stamp(battle.starts_at)} ({stamp(battle.starts_at, 'R')}). "
            + " ".join(f"<@{g.owner}>" for g in others)
            + ": accept, or propose another time.")


async def _propose(s: Scope, proposer: Gang, battle: ScheduledBattle, text: str,
                   now: datetime, channel_id: int | None) -> tuple[ScheduledBattle, list[Gang]]:
    """Store ``text`` (a time) as ``proposer``'s proposal for ``battle``."""
    if not battle.status.active:
        raise InvalidRequest("That battle was played or called off already.")
    settings = await s.tx.calendar_settings(s.campaign.id)
    starts = read_time(text, settings.time_zone, now)
    # A new time un-agrees an agreed battle: its reminders wait for the new agreement.
    await cancel_reminders(s.tx, battle.id)
    stored = await s.tx.update_scheduled_battle(battle.model_copy(update={
        "status": ScheduleStatus.PROPOSED, "starts_at": starts, "proposed_by": proposer.id,
        "channel_id": channel_id or battle.channel_id}))
    gangs = await gangs_of(s.tx, stored)
    await s.tx.add_note(s.campaign.id, f"{proposer.name} proposed to fight "
                        f"{matchup(gangs, stored.territory, bold=False)} at "
                        f"{starts.isoformat(timespec='minutes')}", actor=s.by)
    return stored, gangs


def _answering(s: Scope, battle: ScheduledBattle, gangs: list[Gang]) -> Gang:
    """The gang of the clicking player that did not make the proposal, or a refusal."""
    for gang in gangs:
        if gang.id != battle.proposed_by and gang.owner == s.by:
            return gang
    others = ", ".join(safe(g.name) for g in gangs if g.id != battle.proposed_by)
    raise Refused(f"Only the player of {others} can answer this proposal.")


async def _current(s: Scope, battle_id: str, starts: int) -> ScheduledBattle:
    battle = await s.tx.get_scheduled_battle(s.campaign.id, battle_id)
    if (battle.status is not ScheduleStatus.PROPOSED or battle.starts_at is None
            or int(epoch(battle.starts_at)) != starts):
        raise Refused("This proposal was answered, replaced or called off already: see the "
                      "latest one (/schedule list).")
    return battle


@route(ACCEPT, Id("campaign"), Id("battle"), Int("starts"))
async def accept(click: Click, campaign: str, battle: str, starts: int) -> None:
    call = Call.of(click.interaction)
    now = _now(call)
    async with call.write_in(campaign) as s:
        proposal = await _current(s, battle, starts)
        gangs = await gangs_of(s.tx, proposal)
        _answering(s, proposal, gangs)
        if len(gangs) < len(proposal.gang_ids):
            raise InvalidRequest("A gang of this battle has left the campaign; call it off.")
        if proposal.starts_at is None or proposal.starts_at <= now:
            raise InvalidRequest("That time has passed already: propose another one.")
        agreed = await s.tx.update_scheduled_battle(
            proposal.model_copy(update={"status": ScheduleStatus.AGREED}))
        settings = await s.tx.calendar_settings(campaign)
        reminders = await set_reminders(s.tx, agreed, settings, now)
        await s.tx.add_note(campaign, "Battle agreed: " + matchup(
            gangs, agreed.territory, bold=False) + f" at {agreed.starts_at}", actor=s.by)
    call.interaction.client.timers.kick()
    assert agreed.starts_at is not None
    lines = [f"Agreed: {matchup(gangs, agreed.territory)} at {stamp(agreed.starts_at)} "
             f"({stamp(agreed.starts_at, 'R')})."]
    lines.append("Reminders: " + (", ".join(stamp(r, "f") for r in reminders)
                                  if reminders else "none (too close to the start)") + ".")
    await click.interaction.response.edit_message(content="\n".join(lines), view=None)
    event_id = await make_event(call.interaction.client, call.guild_id, agreed, gangs, settings)
    if event_id is None:
        await call.interaction.followup.send(
            "Discord did not make the server event for this battle (the bot needs the "
            "Create Events permission); the battle stays agreed and reminders are set.")
        return
    if event_id != agreed.event_id:
        async with call.write_in(campaign) as s:
            current = await s.tx.get_scheduled_battle(campaign, battle)
            current = await s.tx.update_scheduled_battle(
                current.model_copy(update={"event_id": event_id}))
            if current.status is ScheduleStatus.CANCELLED:
                # Called off while its event was being made: the event goes too.
                await change_event_later(s.tx, current, "cancel")
        call.interaction.client.timers.kick()


@route(COUNTER, Id("campaign"), Id("battle"), Int("starts"))
async def counter(click: Click, campaign: str, battle: str, starts: int) -> None:
    call = Call.of(click.interaction)
    async with call.read_in(campaign) as s:
        proposal = await _current(s, battle, starts)
        _answering(s, proposal, await gangs_of(s.tx, proposal))
        settings = await s.tx.calendar_settings(campaign)
    modal = discord.ui.Modal(title="Propose another time", timeout=600,
                             custom_id=custom_id(COUNTER_TIME, campaign, battle, starts))
    modal.add_item(discord.ui.TextInput(
        label=f"When ({settings.time_zone[:30]})", placeholder=EXAMPLE, min_length=4,
        max_length=40, custom_id="when"))
    await click.interaction.response.send_modal(modal)


@route(COUNTER_TIME, Id("campaign"), Id("battle"), Int("starts"))
async def counter_time(click: Click, campaign: str, battle: str, starts: int) -> None:
    call = Call.of(click.interaction)
    typed = click.values[0] if click.values else ""
    async with call.write_in(campaign) as s:
        proposal = await _current(s, battle, starts)
        proposer = _answering(s, proposal, await gangs_of(s.tx, proposal))
        stored, gangs = await _propose(s, proposer, proposal, typed, _now(call),
                                       call.interaction.channel_id)
    await call.say(proposal_text(stored, gangs), view=proposal_view(stored))
    message = click.interaction.message
    if message is not None:
        await message.edit(content=f"{message.content}\n-# Answered with another time.",
                           view=None)


@route(CALL_OFF, Id("campaign"), Id("battle"), Int("starts"))
async def call_off(click: Click, campaign: str, battle: str, starts: int) -> None:
    call = Call.of(click.interaction)
    async with call.write_in(campaign) as s:
        found = await s.tx.get_scheduled_battle(campaign, battle)
        gangs = await gangs_of(s.tx, found)
        cancelled = await _cancel(s, found, gangs)
    await click.interaction.response.edit_message(
        content=f"Called off by {call.mention}: {matchup(gangs, cancelled.territory)}.",
        view=None)
    await change_event(call.interaction.client, call.guild_id, cancelled.event_id,
                       status="cancel")


async def _cancel(s: Scope, battle: ScheduledBattle, gangs: list[Gang]) -> ScheduledBattle:
    if not (any(g.owner == s.by for g in gangs) or s.is_arbitrator):
        raise Refused("Only a player of this battle, or an Arbitrator, can call it off.")
    if not battle.status.active:
        raise InvalidRequest("That battle was played or called off already.")
    await cancel_reminders(s.tx, battle.id)
    cancelled = await s.tx.update_scheduled_battle(
        battle.model_copy(update={"status": ScheduleStatus.CANCELLED}))
    await s.tx.add_note(s.campaign.id, "Battle called off: "
                        + matchup(gangs, battle.territory, bold=False), actor=s.by)
    return cancelled


async def _between(s: Scope, first: Gang, second: Gang) -> ScheduledBattle | None:
    for battle in await s.tx.scheduled_battles(s.campaign.id, active_only=True):
        if set(battle.gang_ids) == {first.id, second.id}:
            return battle
    return None


def settings_lines(chosen: CalendarSettings) -> list[str]:
    leads = ", ".join(_lead(m) for m in sorted(chosen.reminder_minutes, reverse=True))
    return [f"Time zone for typed times: **{chosen.time_zone}**",
            f"Reminders before a battle: {leads or 'none'}",
            f"Length of the Discord event: {_lead(chosen.event_minutes)}"]


def _lead(minutes: int) -> str:
    if minutes % 60:
        return f"{minutes} min"
    hours = minutes // 60
    return f"{hours} h"


def read_leads(text: str) -> tuple[int, ...]:
    """"24h, 1h, 30m" (or "none") as minutes."""
    if text.strip().lower() in ("none", "0", "-"):
        return ()
    leads: list[int] = []
    for part in text.replace(" ", "").lower().split(","):
        number, unit = part.rstrip("hm"), part[len(part.rstrip("hm")):] or "h"
        if not number.isdigit() or unit not in ("h", "m"):
            raise InvalidRequest("Give the reminders as lead times, such as 24h, 1h or 30m, "
                                 "separated by commas (or none).")
        minutes = int(number) * (60 if unit == "h" else 1)
        if not 1 <= minutes <= LEAD_MAX_MINUTES:
            raise InvalidRequest("A reminder comes 1 minute to 14 days before the battle.")
        leads.append(minutes)
    if len(set(leads)) > REMINDERS_MAX:
        raise InvalidRequest(f"At most {REMINDERS_MAX} reminders before a battle.")
    return tuple(sorted(set(leads), reverse=True))


class ScheduleCog(BotCog, commands.GroupCog, group_name="schedule",
                  group_description="Agree when a battle is played"):
    @slash("propose", "Propose when your gang fights another (the other player answers)",
           gang="your gang", opponent="the gang you fight", when=WHEN_HELP,
           territory="the Territory at stake, if any")
    async def propose(self, call: Call, gang: GangName, opponent: GangName, when: TypedTime,
                      territory: TerritoryName | None = None,
                      campaign: CampaignName | None = None) -> None:
        async with call.write(campaign) as s:
            mine = await s.own_gang(gang)
            theirs = await s.gang(opponent)
            if mine.id == theirs.id:
                raise InvalidRequest("A gang does not fight itself: name another gang.")
            battle = await _between(s, mine, theirs) or await s.tx.create_scheduled_battle(
                s.campaign.id, [mine.id, theirs.id], territory[:100] if territory else None,
                None)
            stored, gangs = await _propose(s, mine, battle, when, self.bot.clock.now(),
                                           call.interaction.channel_id)
        await call.say(proposal_text(stored, gangs), view=proposal_view(stored))

    @slash("list", "The campaign's battles to come: agreed, proposed or waiting for a time")
    async def list_(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as s:
            battles = await s.tx.scheduled_battles(s.campaign.id, active_only=True)
            everyone = await s.tx.gangs_without_rosters(s.campaign.id, None) if battles else {}
            lines = []
            for battle in battles:
                gangs = gangs_among(battle, everyone)
                when = (f"{stamp(battle.starts_at)} ({stamp(battle.starts_at, 'R')})"
                        if battle.starts_at else "no time yet")
                lines.append(f"• {matchup(gangs, battle.territory)}: {when}, "
                             f"{battle.status.value}")
        await call.answer("Battles to come", lines or ["No battle is scheduled."])

    @slash("cancel", "Call off the battle between two gangs (a player of it or an Arbitrator)",
           gang="one gang of the battle", opponent="the other gang")
    async def cancel(self, call: Call, gang: GangName, opponent: GangName,
                     campaign: CampaignName | None = None) -> None:
        async with call.write(campaign) as s:
            first, second = await s.gang(gang), await s.gang(opponent)
            battle = await _between(s, first, second)
            if battle is None:
                raise InvalidRequest(f"No battle of {safe(first.name)} and "
                                     f"{safe(second.name)} is scheduled.")
            cancelled = await _cancel(s, battle, [first, second])
        await call.say(f"Called off by {call.mention}: {matchup([first, second])}.")
        await change_event(self.bot, call.guild_id, cancelled.event_id, status="cancel")

    @slash("settings", "Show or change how battles are scheduled (changes: Arbitrators)",
           time_zone="the IANA time zone players type times in (e.g. Europe/London)",
           reminders="lead times of the reminders, e.g. 24h, 1h (or none)",
           event_hours="how long the Discord event of a battle lasts, in hours (1-24)")
    async def settings(self, call: Call, time_zone: TimeZoneName | None = None,
                       reminders: LeadTimes | None = None,
                       event_hours: app_commands.Range[int, 1, 24] | None = None,
                       campaign: CampaignName | None = None) -> None:
        if time_zone is None and reminders is None and event_hours is None:
            async with call.read(campaign) as s:
                shown = await s.tx.calendar_settings(s.campaign.id)
            await call.answer("Scheduling", settings_lines(shown))
            return
        async with call.write(campaign) as s:
            chosen = await s.tx.calendar_settings(s.campaign.id)
            s.require_arbitrator()
            changes: dict[str, Any] = {}
            if time_zone is not None:
                changes["time_zone"] = zone(time_zone.strip()).key
            if reminders is not None:
                changes["reminder_minutes"] = read_leads(reminders)
            if event_hours is not None:
                if not 1 <= event_hours <= 24:
                    raise InvalidRequest("The event lasts 1 to 24 hours.")
                changes["event_minutes"] = event_hours * 60
            chosen = chosen.model_copy(update=changes)
            await s.tx.set_calendar_settings(s.campaign.id, chosen)
            await s.tx.add_note(s.campaign.id, "Scheduling settings changed: "
                                + "; ".join(settings_lines(chosen)).replace("**", ""),
                                actor=s.by)
        await call.answer("Scheduling settings saved", settings_lines(chosen))


setup = adds(ScheduleCog)
