"""The campaign's calendar in the bot: each change stored, written in the ledger and posted.

Every change to the calendar (a cycle started, ended, extended or planned; a
challenge made, passed, answered) runs in the caller's ONE write transaction:
the rules function decides (rules/cycles.py, rules/challenges.py), the ledger
gets an action with its dice and notes (:meth:`Transaction.apply`), the
calendar is saved after it (so an undo of that action puts it back), and the
posts it owes are written to the outbox in the same transaction. Nothing lives
in memory: a bot killed at any point either did all of it or none of it, and
the outbox posts what was committed once each.

The seams other parts of the campaign plug into (wired where those parts live):

- the end of a cycle at its due time is a timer of kind ``"cycle-end"`` whose
  handler calls :func:`end_cycle` with the cycle's number (it is idempotent);
- an accepted challenge becomes a scheduled battle (:func:`accepted`);
- a phase whose type says Downtime opens each gang's Downtime (:func:`phase_opened`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

import discord

from bot.battle.owed import body
from bot.errors import Refused
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Transaction
from bot.ui.cycles import (
    challenge_line,
    cycle_embeds,
    standings_embeds,
    territory_count_line,
)
from bot.ui.report_pictures import StandingsRecipe
from rules.campaign_types import CampaignPhase, find_type
from rules.challenge_order import DrawnOrder, Entrant
from rules.cycles import Calendar, Challenge, Cycle, close_current, new_calendar, open_next
from rules.dice import Roller
from rules.models import Battle, Gang
from rules.standings import races, standings
from rules.world import RuleResult, World

CYCLE_CLAUSE = "CAMPAIGN-CYCLE"
CHALLENGE_CLAUSE = "CAMPAIGN-CHALLENGE"
# The ledger clauses an Arbitrator's /campaign cycle undo takes back.
CALENDAR_CLAUSES = frozenset({CYCLE_CLAUSE, CHALLENGE_CLAUSE})


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
    return action


async def owe_embeds(
    tx: Transaction, calendar: Calendar, key: str, embeds: Sequence[discord.Embed],
    *, chart: StandingsRecipe | None = None,
) -> None:
    """Owe ``embeds``, a message each; ``chart``: the rating chart the last one carries."""
    for page, embed in enumerate(embeds):
        last = page == len(embeds) - 1
        await tx.owe_message(f"{key}:{page}", calendar.channel_id, body(embed=embed),
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
    chart: StandingsRecipe | None = None,
) -> Cycle:
    """Open the next cycle; ``preface``: posts owed before its own (the standings of the
    cycle that just ended)."""
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
    await owe_embeds(tx, opened, f"cycle:{campaign.id}:{action}:end", preface, chart=chart)
    await owe_embeds(tx, opened, f"cycle:{campaign.id}:{action}:start",
                     cycle_embeds(campaign.name, opened, cycle, names, ratings, drawn.rolls,
                                  extra))
    await phase_opened(tx, campaign, opened, cycle, phase)
    return cycle


async def phase_opened(
    tx: Transaction, campaign: Campaign, calendar: Calendar, cycle: Cycle, phase: CampaignPhase
) -> None:
    """A cycle opened. When it is the first of a phase whose type says Downtime, each
    gang's Downtime opens: the call to ``open_downtime(...)`` of /campaign downtime is
    wired here when that part joins (it takes this transaction and the campaign)."""
    del tx, campaign, calendar, cycle, phase


async def accepted(tx: Transaction, campaign: Campaign, challenge: Challenge) -> None:
    """An accepted challenge becomes a scheduled battle of its two gangs and its Territory:
    ``tx.create_scheduled_battle(campaign.id, [challenger, defender], territory,
    challenge_key(campaign, challenge))`` is wired here when scheduled battles join."""
    del tx, campaign, challenge


def challenge_key(campaign: Campaign, challenge: Challenge) -> str:
    """The challenge's name for other parts of the campaign (a scheduled battle's)."""
    return f"challenge:{campaign.id}:{challenge.number}"


async def end_cycle(
    tx: Transaction, campaign: Campaign, cycle: int, now: datetime, roller: Roller,
    *, actor: str,
) -> bool:
    """End cycle ``cycle`` and open the next (or end the campaign), in ``tx``.

    Idempotent: a cycle that is not the open one (ended already, by the Arbitrator
    or by its timer) changes nothing and gives False. Called by /campaign cycle end,
    and at the cycle's due time by the handler of the timer of kind ``"cycle-end"``
    (args ``{"campaign": campaign.id, "cycle": number}``), which passes the bot's
    ``now``. Challenges still waiting lapse; the standings are posted; at the last
    cycle's end the Triumphs are posted with their holders.
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
            chart=StandingsRecipe(campaign=campaign.id, stem=f"{campaign.name} final"))
        return True
    # The end and the next cycle's start are one change: one undo takes both back.
    ended_standings = standings_embeds(campaign.name, rows, raced, names,
                                       heading=f"standings at the end of cycle {ended.number}")
    chart = StandingsRecipe(campaign=campaign.id, stem=f"{campaign.name} cycle {ended.number}")
    await _open(tx, campaign, closed, revision, now, roller, actor=actor,
                notes=[f"Cycle {ended.number} ended.", *notes], preface=ended_standings,
                chart=chart)
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


async def undo_calendar(tx: Transaction, campaign: Campaign, *, actor: str) -> str:
    """Undo the campaign's last action when it is a change of the calendar (an Arbitrator's
    /campaign cycle undo); the calendar saved with it goes back too. Returns its title."""
    last = next((a for a in await tx.list_actions(campaign.id, limit=50)
                 if a.undoes is None and a.undone_by is None), None)
    if last is None:
        raise Refused(f"There is nothing to undo in {campaign.name}.")
    if last.clause not in CALENDAR_CLAUSES:
        raise Refused(f"The last change in {campaign.name} was not one of the cycles or "
                      f"challenges ({last.title}); only the last change can be undone.")
    undone = await tx.undo_last_action(campaign.id, actor=actor)
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
