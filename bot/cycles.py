"""The campaign's calendar in the bot: each change stored, written in the ledger and posted.

Every change to the calendar (a cycle started, ended, extended or planned; a
challenge made, passed, answered) runs in the caller's ONE write transaction:
the rules function decides (rules/cycles.py, rules/challenges.py), the ledger
gets an action with its dice and notes (:meth:`Transaction.apply`), the
calendar is saved after it (so an undo of that action puts it back), and the
posts it owes are written to the outbox in the same transaction. Nothing lives
in memory: a bot killed at any point either did all of it or none of it, and
the outbox posts what was committed once each.

How the calendar drives the rest of the campaign (docs/arbitrator.md, "The campaign week"):

- the open cycle's end is a durable timer of kind ``"cycle-end"`` (bot/cycle_end.py),
  set, moved or cancelled with every change of the calendar (:func:`record`,
  :func:`undo_calendar`); it calls :func:`end_cycle`, which is idempotent;
- an accepted challenge is a scheduled battle without a time (:func:`accepted`), called
  off when its challenge no longer stands (lapsed, or its acceptance undone);
- the first cycle of a Downtime phase opens each gang's Downtime (:func:`phase_opened`),
  in threads of the campaign channel made before the transaction (:func:`downtime_places`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime

import discord

from bot.battle.owed import body
from bot.downtime.clicks import downtime_thread
from bot.downtime.engine import gangs_to_open, open_downtime
from bot.downtime.render import thread_name
from bot.errors import Refused
from bot.render import safe
from bot.rulesets import ruleset_for
from bot.scheduling import cancel_reminders, change_event_later
from bot.storage import Campaign, ScheduledBattle, ScheduleStatus, Transaction
from bot.timers import post_later
from bot.ui.cycles import (
    answer_buttons,
    challenge_line,
    cycle_embeds,
    standings_embeds,
    territory_count_line,
)
from bot.ui.report_pictures import StandingsRecipe
from rules.campaign_types import CampaignPhase, find_type
from rules.challenge_order import DrawnOrder, Entrant
from rules.cycles import (
    Calendar,
    Challenge,
    ChallengeStatus,
    Cycle,
    close_current,
    new_calendar,
    open_next,
)
from rules.dice import Roller
from rules.models import Battle, Gang, Territory
from rules.names import same_name
from rules.standings import races, standings
from rules.world import RuleResult, World

CYCLE_CLAUSE = "CAMPAIGN-CYCLE"
CHALLENGE_CLAUSE = "CAMPAIGN-CHALLENGE"
# The ledger clauses an Arbitrator's /campaign cycle undo takes back.
CALENDAR_CLAUSES = frozenset({CYCLE_CLAUSE, CHALLENGE_CLAUSE})
CYCLE_END = "cycle-end"
# Who the ledger names for what the calendar did by itself at its due time.
CALENDAR_ACTOR = "calendar"


async def stored_calendar(tx: Transaction, campaign: Campaign) -> tuple[Calendar, int]:
    """The campaign's calendar and its revision, or a refusal saying how to start one."""
    found = await tx.get_calendar(campaign.id)
    if found is None:
        raise Refused(f"{campaign.name} has no cycles yet: an Arbitrator starts the first "
                      "with /campaign cycle start.")
    return found


async def record(
    tx: Transaction, campaign: Campaign, calendar: Calendar, revision: int, *, actor: str,
    clause: str, title: str, notes: Sequence[str] = (), drawn: DrawnOrder | None = None,
    result: RuleResult | None = None,
) -> int:
    """One change of the calendar: its ledger action (``result`` when it changed gangs or
    Territories, else its dice and notes alone), then the calendar saved after it.
    Returns the action's id (the keys of the posts it owes are made of it)."""
    if result is None:
        result = RuleResult(clause=clause, title=title, world=World(),
                            rolls=drawn.rolls if drawn else [],
                            notes=[*notes, *(drawn.notes if drawn else [])])
    action = await tx.apply_id(campaign.id, result, actor=actor)
    await tx.save_calendar(campaign.id, calendar, revision=revision)
    await follow_calendar(tx, campaign, calendar)
    return action


async def follow_calendar(
    tx: Transaction, campaign: Campaign, calendar: Calendar, *, now: datetime | None = None
) -> None:
    """What hangs on the calendar, made to match it: the open cycle's end timer, and the
    scheduled battles of its challenges. ``now``: after an undo, a reopened cycle whose
    end has passed gets no timer (it would end again at once); the Arbitrator extends
    or ends it."""
    prefix = f"{CYCLE_END}:{campaign.id}:"
    current = calendar.current
    keep = None
    if current is not None and current.ends_at is not None and (
            now is None or current.ends_at > now):
        keep = f"{prefix}{current.number}"
    for timer in await tx.list_timers(prefix):
        if timer.key != keep:
            await tx.cancel_timer(timer.key)
    if keep is not None and current is not None and current.ends_at is not None:
        await tx.set_timer(keep, CYCLE_END, current.ends_at,
                           {"campaign": campaign.id, "cycle": current.number})
    # Only an undo brings a called-off battle back: in a forward change, an accepted
    # challenge's battle called off is one its players called off (/schedule cancel).
    await _follow_challenges(tx, campaign, calendar, reopen=now is not None)


async def _follow_challenges(tx: Transaction, campaign: Campaign, calendar: Calendar, *,
                             reopen: bool) -> None:
    """A challenge's scheduled battle waits while the challenge is accepted; it is called
    off once the challenge lapsed or its acceptance was undone, and (``reopen``) waits
    again, without its time, when an undo makes the challenge accepted again."""
    standing = {challenge_key(campaign, c): c.status for c in calendar.challenges}
    for scheduled in await tx.scheduled_battles(campaign.id):
        key = scheduled.challenge_key
        if key is None or not key.startswith(f"challenge:{campaign.id}:"):
            continue  # a battle the players scheduled themselves
        status = standing.get(key)  # None: the challenge itself was undone
        if scheduled.status.active and status is not ChallengeStatus.ACCEPTED:
            await cancel_reminders(tx, scheduled.id)
            await change_event_later(tx, scheduled, "cancel")
            await tx.update_scheduled_battle(scheduled.model_copy(
                update={"status": ScheduleStatus.CANCELLED, "event_id": None}))
        elif reopen and scheduled.status is ScheduleStatus.CANCELLED and \
                status is ChallengeStatus.ACCEPTED:
            await tx.update_scheduled_battle(scheduled.model_copy(update={
                "status": ScheduleStatus.OPEN, "starts_at": None, "proposed_by": None}))


async def owe_embeds(
    tx: Transaction, calendar: Calendar, key: str, embeds: Sequence[discord.Embed],
    *, chart: StandingsRecipe | None = None, late: str = "",
) -> None:
    """Owe ``embeds``, a message each; ``chart``: the rating chart the last one carries;
    ``late``: the words the first one begins with when it comes late."""
    for page, embed in enumerate(embeds):
        last = page == len(embeds) - 1
        await tx.owe_message_unanswered(
            f"{key}:{page}", calendar.channel_id,
            body(embed=embed, content=late if page == 0 else None),
            link=chart.link() if chart is not None and last else None)


async def start_campaign(
    tx: Transaction, campaign: Campaign, type_name: str, channel_id: int, now: datetime,
    roller: Roller, *, actor: str, ends_at: datetime | None = None,
) -> Cycle:
    """Start the campaign's first cycle; refused if it has a calendar already."""
    if await tx.get_calendar(campaign.id) is not None:
        raise Refused(f"{campaign.name} has started its cycles already; see /campaign "
                      "cycle show.")
    campaign_type = find_type(ruleset_for(campaign).campaign_types, type_name)
    return await _open(tx, campaign, new_calendar(campaign_type, channel_id), 0, now, roller,
                       actor=actor, ends_at=ends_at, title_more=f" ({campaign_type.name})")


async def _open(
    tx: Transaction, campaign: Campaign, calendar: Calendar, revision: int, now: datetime,
    roller: Roller, *, actor: str, ends_at: datetime | None = None, notes: Sequence[str] = (),
    title_more: str = "", preface: Sequence[discord.Embed] = (),
    chart: StandingsRecipe | None = None, late: str = "",
    places: Mapping[str, int] | None = None,
) -> Cycle:
    """Open the next cycle; ``preface``: posts owed before its own (the standings of the
    cycle that just ended); ``places``: the gangs' Downtime threads, if it opens one.
    A cycle planned to start later is posted at its start (a timed post)."""
    gangs = await tx.list_gangs(campaign.id)
    entrants = [Entrant(g.id, g.name, g.rating) for g in gangs]
    opened, cycle, drawn = open_next(calendar, entrants, now, roller, ends_at=ends_at)
    phase = opened.phase(cycle)
    title = f"Cycle {cycle.number} begins: {phase.name}{title_more}"
    order = [f"Challenge order: {', '.join(g.name for g in _in_order(gangs, cycle.order))}."] \
        if cycle.order else []
    action = await record(tx, campaign, opened, revision, actor=actor, clause=CYCLE_CLAUSE,
                          title=title, notes=[*notes, *order], drawn=drawn)
    names, ratings = {g.id: g.name for g in gangs}, {g.id: g.rating for g in gangs}
    extra: list[str] = []
    if cycle.number == 1:
        # The type's count is of Territories fought over: Settlements are each gang's own.
        held = sum(t.can_be_staked for t in await tx.list_territories(campaign.id))
        extra += filter(None, [territory_count_line(opened.campaign_type, len(gangs), held)])
    await owe_embeds(tx, opened, f"cycle:{campaign.id}:{action}:end", preface, chart=chart,
                     late=late)
    starting = cycle_embeds(campaign.name, opened, cycle, names, ratings, drawn.rolls, extra)
    key = f"cycle:{campaign.id}:{action}:start"
    if cycle.starts_at > now:
        for page, embed in enumerate(starting):
            await post_later(tx, f"{key}:{page}", opened.channel_id, body(embed=embed),
                             cycle.starts_at, campaign=campaign.id)
    else:
        await owe_embeds(tx, opened, key, starting, late=late)
    await phase_opened(tx, campaign, opened, cycle, phase, actor=actor, places=places,
                       action=action)
    return cycle


def opens_downtime(calendar: Calendar) -> CampaignPhase | None:
    """The Downtime phase that ending the open cycle opens by itself, if it does."""
    current = calendar.current
    if current is None or current.number >= calendar.campaign_type.total_cycles:
        return None
    index, in_phase = calendar.campaign_type.place_of(current.number + 1)
    phase = calendar.campaign_type.phases[index]
    return phase if in_phase == 1 and phase.opens_downtime_by_itself else None


async def downtime_gangs(tx: Transaction, campaign: Campaign, calendar: Calendar) -> list[Gang]:
    """The gangs whose Downtime ending the open cycle opens (none when it opens none, or
    cannot: :func:`phase_opened` then says why in the channel)."""
    if opens_downtime(calendar) is None:
        return []
    try:
        return await gangs_to_open(tx, campaign)
    except Refused:
        return []


async def downtime_places(client: discord.Client, channel_id: int,
                          gangs: Sequence[Gang]) -> dict[str, int]:
    """A thread of the campaign channel for each gang's Downtime, made before the write
    transaction (which talks to no one). A gang without one (Discord refused it) has its
    steps in the channel itself; an open thread of its name is used again."""
    if not gangs:
        return {}
    try:
        channel = client.get_channel(channel_id) or await client.fetch_channel(channel_id)
    except discord.HTTPException:
        return {}
    # A thread of that name still open is taken again: made by an attempt that died
    # before its commit (a timer fires again after a crash), it would be a duplicate.
    open_threads = {t.name: t.id for t in getattr(channel, "threads", [])
                    if isinstance(t, discord.Thread) and not t.archived}
    places: dict[str, int] = {}
    for gang in gangs:
        thread = open_threads.get(thread_name(gang.name)) or \
            await downtime_thread(channel, gang.name)
        if thread is not None:
            places[gang.id] = thread
    return places


async def phase_opened(
    tx: Transaction, campaign: Campaign, calendar: Calendar, cycle: Cycle,
    phase: CampaignPhase, *, actor: str, action: int,
    places: Mapping[str, int] | None = None,
) -> None:
    """A cycle opened. The first of a phase whose type says Downtime opens each gang's
    Downtime as /campaign downtime open does, on the phase's credits, in ``places`` (the
    gangs' threads) or the campaign channel. A Downtime the bot cannot open (no credits
    in the sources, a skirmish campaign, a gang still in its last Downtime) is said in the
    channel for the Arbitrator to open by hand. ``action``: the cycle's opening in the
    ledger (its notice's key: the same cycle opened again after an undo says it again)."""
    if not phase.downtime or cycle.in_phase != 1:
        return
    key = f"cycle:{campaign.id}:{action}:downtime"
    if phase.recruitment_credits is None:
        await tx.owe_message_unanswered(key, calendar.channel_id, body(content=(
            "Downtime begins. No source gives its Fresh Recruitment credits: an Arbitrator "
            "opens each gang's Downtime with `/campaign downtime open credits:...`.")))
        return
    try:
        gangs = await gangs_to_open(tx, campaign)
    except Refused as why:
        await tx.owe_message_unanswered(key, calendar.channel_id, body(content=(
            f"Downtime begins, but the bot did not open it: {why.message} An Arbitrator "
            "opens it with `/campaign downtime open`.")[:2000]))
        return
    await open_downtime(tx, campaign, by=actor, channel_id=calendar.channel_id,
                        places=places, budget=phase.recruitment_credits,
                        arbitrator_confirms=phase.arbitrator_confirms,
                        gang_ids=[g.id for g in gangs])


async def accepted(tx: Transaction, campaign: Campaign, challenge: Challenge) -> None:
    """An accepted challenge becomes a scheduled battle of its two gangs and its Territory
    (by name, as /schedule shows it), without a time: its players propose one with
    /schedule propose, and its /prebattle stakes the Territory."""
    territory = None
    if challenge.territory is not None:
        held = {t.id: t.name for t in await tx.list_territories(campaign.id)}
        territory = held.get(challenge.territory)
    await tx.create_scheduled_battle(campaign.id, [challenge.challenger, challenge.defender],
                                     territory, challenge_key(campaign, challenge))


async def owe_answer_post(tx: Transaction, campaign: Campaign, calendar: Calendar,
                          challenge: Challenge, defender: Gang, line: str, *, key: str) -> None:
    """The challenge's post with the defender's Accept and Decline buttons (``line``: the
    challenge in words)."""
    text = (f"{line}. <@{defender.owner}>, {safe(defender.name)} accepts or declines"
            " with the buttons below.")
    await tx.owe_message_unanswered(key, calendar.channel_id, body(
        content=text, view=answer_buttons(campaign.id, challenge.number)))


async def _owe_answers_again(tx: Transaction, campaign: Campaign, before: Calendar | None,
                             after: Calendar, action: int) -> None:
    """After an undo, a challenge waiting for its answer again gets its buttons again: the
    answer took them off its post."""
    was = {c.number: c.status for c in before.challenges} if before else {}
    reopened = [c for c in after.challenges
                if c.status is ChallengeStatus.OPEN and was.get(c.number, c.status) is not c.status]
    if not reopened:
        return
    gangs = await tx.gangs_without_rosters(campaign.id, None)
    names = {gang_id: gang.name for gang_id, gang in gangs.items()}
    territories = {t.id: t.name for t in await tx.list_territories(campaign.id)}
    for challenge in reopened:
        defender = gangs.get(challenge.defender)
        if defender is not None:  # a defender deleted since answers nothing
            await owe_answer_post(
                tx, campaign, after, challenge, defender,
                challenge_line(challenge, names, territories),
                key=f"challenge:{campaign.id}:{action}:undone:{challenge.number}")


def challenge_key(campaign: Campaign, challenge: Challenge) -> str:
    """The challenge's name for other parts of the campaign (a scheduled battle's)."""
    return f"challenge:{campaign.id}:{challenge.number}"


async def staked_in(tx: Transaction, campaign: Campaign,
                    scheduled: ScheduledBattle) -> Territory | None:
    """The Territory at stake in a scheduled battle: its challenge's (the Territory
    itself, renamed or not), else the one its /schedule propose named."""
    held = await tx.list_territories(campaign.id)
    found = await tx.get_calendar(campaign.id)
    challenge = challenge_of(found[0], campaign, scheduled.challenge_key) if found else None
    if challenge is not None:
        return next((t for t in held if t.id == challenge.territory), None)
    if scheduled.territory is None:
        return None
    return next((t for t in held if same_name(t.name, scheduled.territory)), None)


def challenge_of(calendar: Calendar, campaign: Campaign, key: str | None) -> Challenge | None:
    """The challenge a scheduled battle was made for (its ``challenge_key``), if any."""
    prefix = f"challenge:{campaign.id}:"
    if key is None or not key.startswith(prefix) or not key[len(prefix):].isdigit():
        return None
    number = int(key[len(prefix):])
    return next((c for c in calendar.challenges if c.number == number), None)


async def end_cycle(
    tx: Transaction, campaign: Campaign, cycle: int, now: datetime, roller: Roller,
    *, actor: str, late: str = "", places: Mapping[str, int] | None = None,
) -> bool:
    """End cycle ``cycle`` and open the next (or end the campaign), in ``tx``.

    Idempotent: a cycle that is not the open one (ended already, by the Arbitrator
    or by its timer) changes nothing and gives False. Called by /campaign cycle end,
    and at the cycle's due time by the handler of the timer of kind ``"cycle-end"``
    (args ``{"campaign": campaign.id, "cycle": number}``, bot/cycle_end.py), which
    passes the bot's ``now`` and, fired late, the words its posts begin with (``late``).
    Challenges still waiting lapse; the standings are posted; at the last cycle's end
    the Triumphs are posted with their holders. ``places``: the gangs' Downtime threads
    when the next cycle opens a Downtime (:func:`downtime_places`).
    """
    found = await tx.get_calendar(campaign.id)
    if found is None:
        return False
    calendar, revision = found
    current = calendar.current
    if current is None or current.number != cycle:
        return False
    battles = await tx.list_battles(campaign.id, limit=None)
    between = _battles_between(battles)
    closed, ended, lapsed = close_current(
        calendar, now, lambda c: between[_pair(c)] > c.battles_before)
    gangs = await tx.list_gangs(campaign.id)
    names = {g.id: g.name for g in gangs}
    held = await tx.list_territories(campaign.id)
    territories = {t.id: t.name for t in held}
    notes = [f"Lapsed: {challenge_line(c, names, territories)}" for c in lapsed]
    rows = standings(gangs, held, battles)
    raced = races(closed.campaign_type, rows)
    final = closed.finished_at is not None
    title = f"Cycle {ended.number} ends" + (": the campaign is over" if final else "")
    if final:
        action = await record(tx, campaign, closed, revision, actor=actor, clause=CYCLE_CLAUSE,
                              title=title, notes=notes)
        await owe_embeds(tx, closed, f"cycle:{campaign.id}:{action}:triumphs", standings_embeds(
            campaign.name, rows, raced, names, heading="the campaign is over", final=True),
            chart=StandingsRecipe(campaign=campaign.id, stem=f"{campaign.name} final"),
            late=late)
        return True
    # The end and the next cycle's start are one change: one undo takes both back.
    ended_standings = standings_embeds(campaign.name, rows, raced, names,
                                       heading=f"standings at the end of cycle {ended.number}")
    chart = StandingsRecipe(campaign=campaign.id, stem=f"{campaign.name} cycle {ended.number}")
    await _open(tx, campaign, closed, revision, now, roller, actor=actor,
                notes=[f"Cycle {ended.number} ended.", *notes], preface=ended_standings,
                chart=chart, late=late, places=places)
    return True


async def standings_now(tx: Transaction, campaign: Campaign) -> list[discord.Embed]:
    """/campaign standings: every gang and, once the campaign has a type, each Triumph's
    race (its holders once the campaign is over)."""
    gangs = await tx.list_gangs(campaign.id)
    rows = standings(gangs, await tx.list_territories(campaign.id),
                     await tx.list_battles(campaign.id, limit=None))
    found = await tx.get_calendar(campaign.id)
    if found is None:
        return standings_embeds(campaign.name, rows, [], {})
    calendar = found[0]
    final = calendar.finished_at is not None
    return standings_embeds(campaign.name, rows, races(calendar.campaign_type, rows),
                            {g.id: g.name for g in gangs}, final=final,
                            heading="final standings" if final else "standings")


async def undo_calendar(tx: Transaction, campaign: Campaign, now: datetime, *,
                        actor: str) -> str:
    """Undo the campaign's last action when it is a change of the calendar (an Arbitrator's
    /campaign cycle undo); the calendar saved with it goes back too, and what hangs on it
    (:func:`follow_calendar`). Returns its title."""
    last = next((a for a in await tx.list_actions(campaign.id, limit=50)
                 if a.undoes is None and a.undone_by is None), None)
    if last is None:
        raise Refused(f"There is nothing to undo in {campaign.name}.")
    if last.clause not in CALENDAR_CLAUSES:
        raise Refused(f"The last change in {campaign.name} was not one of the cycles or "
                      f"challenges ({last.title}); only the last change can be undone.")
    before = await tx.get_calendar(campaign.id)
    undone = await tx.undo_last_action(campaign.id, actor=actor)
    # A cycle planned to start later owed its post at its start: owed no more.
    for timer in await tx.list_timers(f"cycle:{campaign.id}:{undone.id}:"):
        await tx.cancel_timer(timer.key)
    found = await tx.get_calendar(campaign.id)
    if found is not None:
        await follow_calendar(tx, campaign, found[0], now=now)
        await _owe_answers_again(tx, campaign, before[0] if before else None, found[0],
                                 undone.id)
    return undone.title


def battles_between(battles: Sequence[Battle], challenge: Challenge) -> int:
    """Campaign battles the challenge's two gangs fought each other."""
    return _battles_between(battles)[_pair(challenge)]


def _pair(challenge: Challenge) -> frozenset[str]:
    return frozenset((challenge.challenger, challenge.defender))


def _battles_between(battles: Sequence[Battle]) -> Counter[frozenset[str]]:
    found: Counter[frozenset[str]] = Counter()
    for battle in battles:
        if battle.campaign:
            ids = battle.gang_ids
            for index, first in enumerate(ids):
                for second in ids[index + 1:]:
                    found[frozenset((first, second))] += 1
    return found


def _in_order(gangs: Sequence[Gang], order: Sequence[str]) -> list[Gang]:
    by_id = {g.id: g for g in gangs}
    return [by_id[g] for g in order if g in by_id]
