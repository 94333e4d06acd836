"""What hangs on the campaign's calendar (bot/cycles.py), on a real SQLite file: the open
cycle's end timer, an accepted challenge's scheduled battle, the Downtime a phase opens,
and the timer worker's preparers (bot/timers.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import cogs.challenge  # noqa: F401  (registers the route of a challenge's buttons)
from bot.clock import ManualClock
from bot.cycle_end import handles_cycle_end
from bot.cycles import (
    CYCLE_END,
    accepted,
    end_cycle,
    record,
    start_campaign,
    undo_calendar,
)
from bot.downtime.engine import downtime_runs
from bot.scheduling import EVENT_CHANGE
from bot.storage import Campaign, ScheduledBattle, ScheduleStatus, Storage, Transaction
from bot.storage.timers import Timer
from bot.timers import TimerWorker, before_timer, on_timer
from rules.challenges import answer, make_challenge
from rules.cycles import Calendar, Challenge, plan, set_phase_cycles
from rules.dice import SeededRoller
from rules.models import CampaignSettings, Gang
from tests import factories as f

GUILD = 1001
CHANNEL = 55
NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
WEEK = timedelta(days=7)


async def started(storage: Storage, *, skirmish: bool = False) -> tuple[Campaign, list[str]]:
    """A Dominion of two gangs (owners 1 and 2) whose cycle 1 opened at NOW."""
    async with storage.transaction(GUILD) as tx:
        campaign = await tx.create_campaign(CampaignSettings(name="Seams", skirmish=skirmish))
        ids = [(await tx.create_gang(campaign.id, f.gang(name=name, owner=owner, fighters=[]),
                                     actor="9")).id
               for name, owner in (("Ash Wolves", "1"), ("Bone Saws", "2"))]
        await tx.add_territory(campaign.id, f.territory("Old Ruins", id="ruins"), actor="9")
        await start_campaign(tx, campaign, "Dominion", CHANNEL, NOW, SeededRoller(3),
                             actor="9")
    return campaign, ids


async def calendar_of(tx: Transaction, campaign: Campaign) -> tuple[Calendar, int]:
    found = await tx.get_calendar(campaign.id)
    assert found is not None
    return found


async def test_the_open_cycles_end_is_a_timer_that_ends_it_late_and_undo_follows(
    storage: Storage,
) -> None:
    campaign, _ = await started(storage)
    timers = await storage.read(GUILD).list_timers(f"{CYCLE_END}:")
    assert [(t.due_at, t.args) for t in timers] == [
        (NOW + WEEK, {"campaign": campaign.id, "cycle": 1})]

    # The bot was down across the end: the timer ends the cycle once, its posts say late.
    clock = ManualClock(NOW + WEEK + timedelta(hours=2))
    assert await TimerWorker(storage, clock).fire_due() == 1
    async with storage.read_only(GUILD) as tx:
        calendar, _ = await calendar_of(tx, campaign)
        owed = await tx.outbox_entries(f"cycle:{campaign.id}:")
        timers = await tx.list_timers(f"{CYCLE_END}:")
    assert [c.number for c in calendar.cycles] == [1, 2]
    assert calendar.cycles[0].ended_at == clock.now()
    # The standings' first page and cycle 2's post say they come late; cycle 1's did not.
    late = sorted(e.key.split(":")[-2] for e in owed
                  if "Posted late" in e.payload.get("content", ""))
    assert late == ["end", "start"]
    # The next cycle's end is due in its turn; the fired one is gone.
    assert [(t.key, t.due_at) for t in timers] == [
        (f"{CYCLE_END}:{campaign.id}:2", clock.now() + WEEK)]

    # Undone, cycle 1 is open again, past its end: no timer ends it again at once.
    async with storage.transaction(GUILD) as tx:
        await undo_calendar(tx, campaign, clock.now(), actor="9")
        calendar, _ = await calendar_of(tx, campaign)
        assert calendar.current is not None and calendar.current.number == 1
        assert await tx.list_timers(f"{CYCLE_END}:") == []


async def test_a_cycle_planned_to_start_later_is_posted_at_its_start(storage: Storage) -> None:
    campaign, _ = await started(storage)
    later = NOW + WEEK + timedelta(days=2)
    async with storage.transaction(GUILD) as tx:
        calendar, revision = await calendar_of(tx, campaign)
        await record(tx, campaign, plan(calendar, 2, later, None), revision, actor="9",
                     clause="CAMPAIGN-CYCLE", title="Cycle 2 dates set")
        await end_cycle(tx, campaign, 1, NOW + WEEK, SeededRoller(4), actor="9")
        calendar, _ = await calendar_of(tx, campaign)
        waiting = await tx.list_timers(f"cycle:{campaign.id}:")
        owed = [e.key for e in await tx.outbox_entries(f"cycle:{campaign.id}:")]
    assert calendar.cycles[1].starts_at == later
    assert [t.due_at for t in waiting] == [later]  # its post, at its start...
    assert not [k for k in owed if k.endswith(":start:0") and waiting[0].key in k]
    # ...and not at all once the Arbitrator undid that cycle's opening.
    async with storage.transaction(GUILD) as tx:
        await undo_calendar(tx, campaign, NOW + WEEK, actor="9")
        assert await tx.list_timers(f"cycle:{campaign.id}:") == []


async def challenged(storage: Storage) -> tuple[Campaign, list[str], Challenge, dict[str, Gang]]:
    """:func:`started`, then the first gang of the order challenges the second for Old
    Ruins; the campaign, the order, the challenge and the gangs."""
    campaign, ids = await started(storage)
    async with storage.transaction(GUILD) as tx:
        calendar, revision = await calendar_of(tx, campaign)
        order = calendar.cycles[0].order
        gangs = await tx.gangs_without_rosters(campaign.id, None)
        territories = await tx.list_territories(campaign.id)
        names = {g: gangs[g].name for g in ids}
        made_in, made = make_challenge(calendar, gangs[order[0]], gangs[order[1]],
                                       territories[0], territories, names, NOW)
        await _saved(tx, campaign, made_in, revision)
    return campaign, order, made, gangs


async def accept_it(storage: Storage, campaign: Campaign, made: Challenge) -> ScheduledBattle:
    """The defender accepts (a change of its own); the challenge's scheduled battle."""
    async with storage.transaction(GUILD) as tx:
        calendar, revision = await calendar_of(tx, campaign)
        answered_in, answered = answer(calendar, made.number, True, NOW, 0)
        await _saved(tx, campaign, answered_in, revision)
        await accepted(tx, campaign, answered)
        [battle] = await tx.scheduled_battles(campaign.id)
    return battle


async def test_an_accepted_challenge_is_a_scheduled_battle_while_it_stands(
    storage: Storage,
) -> None:
    campaign, order, made, _ = await challenged(storage)
    battle = await accept_it(storage, campaign, made)
    assert battle.status is ScheduleStatus.OPEN and battle.starts_at is None
    assert battle.territory == "Old Ruins" and battle.gang_ids == order[:2]
    async with storage.transaction(GUILD) as tx:  # its time agreed, its Discord event made
        await tx.update_scheduled_battle(battle.model_copy(update={"event_id": 4242}))

    # Not played by the cycle's end: the challenge lapses, its battle is called off, and
    # the cancelling of its Discord event is owed (a timer: the transaction calls no one)...
    async with storage.transaction(GUILD) as tx:
        await end_cycle(tx, campaign, 1, NOW + WEEK, SeededRoller(4), actor="9")
        [battle] = await tx.scheduled_battles(campaign.id)
        owed = await tx.list_timers(f"{EVENT_CHANGE}:")
    assert battle.status is ScheduleStatus.CANCELLED and battle.event_id is None
    assert [(t.key, t.args) for t in owed] == [
        (f"{EVENT_CHANGE}:cancel:{battle.id}", {"event": 4242, "status": "cancel"})]
    assert await TimerWorker(storage, ManualClock(NOW + WEEK)).fire_due() >= 1
    [fired] = await storage.read(GUILD).list_timers(f"{EVENT_CHANGE}:")
    assert fired.fired_at == NOW + WEEK  # once: a restart does not cancel it again
    # ...and waits again, for a time, when an undo makes the challenge accepted again.
    async with storage.transaction(GUILD) as tx:
        await undo_calendar(tx, campaign, NOW + WEEK, actor="9")
        [battle] = await tx.scheduled_battles(campaign.id)
    assert battle.status is ScheduleStatus.OPEN


async def test_a_challenge_battle_its_players_called_off_stays_off_as_the_calendar_moves(
    storage: Storage,
) -> None:
    campaign, _, made, _ = await challenged(storage)
    battle = await accept_it(storage, campaign, made)
    async with storage.transaction(GUILD) as tx:
        # Its players call it off (/schedule cancel); the challenge still stands.
        await tx.update_scheduled_battle(
            battle.model_copy(update={"status": ScheduleStatus.CANCELLED}))
    async with storage.transaction(GUILD) as tx:  # then another change of the calendar
        calendar, revision = await calendar_of(tx, campaign)
        await _saved(tx, campaign, plan(calendar, 2, NOW + 2 * WEEK, None), revision)
        [battle] = await tx.scheduled_battles(campaign.id)
    assert battle.status is ScheduleStatus.CANCELLED


async def test_an_undone_answer_gives_the_challenge_its_buttons_again(storage: Storage) -> None:
    campaign, order, made, gangs = await challenged(storage)
    await accept_it(storage, campaign, made)
    before = await storage.read(GUILD).outbox_entries(f"challenge:{campaign.id}:")
    async with storage.transaction(GUILD) as tx:
        await undo_calendar(tx, campaign, NOW, actor="9")
    owed = [e for e in await storage.read(GUILD).outbox_entries(f"challenge:{campaign.id}:")
            if e not in before]
    [post] = owed
    assert "accepts or declines" in post.payload["content"]
    assert gangs[order[1]].owner in post.payload["content"]
    ids_owed = str(post.payload.get("components"))
    assert f"chal:{campaign.id}:{made.number}:accept" in ids_owed.replace("munda:", "")


async def _saved(tx: Transaction, campaign: Campaign, calendar: Calendar, revision: int) -> int:
    await record(tx, campaign, calendar, revision, actor="9", clause="CAMPAIGN-CHALLENGE",
                 title="a change")
    return (await calendar_of(tx, campaign))[1]


async def test_the_downtime_phase_opens_every_gangs_downtime_on_its_credits(
    storage: Storage,
) -> None:
    campaign, ids = await started(storage)
    async with storage.transaction(GUILD) as tx:
        calendar, revision = await calendar_of(tx, campaign)
        await record(tx, campaign, set_phase_cycles(calendar, "Occupation", 1), revision,
                     actor="9", clause="CAMPAIGN-CYCLE", title="Occupation: 1 cycle")
        credits_before = {g.id: g.credits for g in await tx.list_gangs(campaign.id)}
        await end_cycle(tx, campaign, 1, NOW + WEEK, SeededRoller(5), actor="9",
                        places={ids[0]: 4242})
        runs = {r.gang_id: r for r in await downtime_runs(tx, campaign.id)}
        credits = {g.id: g.credits for g in await tx.list_gangs(campaign.id)}
    assert set(runs) == set(ids)
    assert runs[ids[0]].channel_id == 4242 and runs[ids[1]].channel_id == CHANNEL
    assert all(r.sequence.budget == 250 and not r.sequence.arbitrator_confirms
               for r in runs.values())
    assert credits == credits_before  # the 250 come with step D, not yet


async def test_a_downtime_the_bot_cannot_open_is_said_again_when_its_cycle_opens_again(
    storage: Storage,
) -> None:
    campaign, _ = await started(storage, skirmish=True)  # a skirmish campaign: no Downtime
    async with storage.transaction(GUILD) as tx:
        calendar, revision = await calendar_of(tx, campaign)
        await record(tx, campaign, set_phase_cycles(calendar, "Occupation", 1), revision,
                     actor="9", clause="CAMPAIGN-CYCLE", title="Occupation: 1 cycle")
    for _ in range(2):  # ended, undone, ended again
        async with storage.transaction(GUILD) as tx:
            await end_cycle(tx, campaign, 1, NOW + WEEK, SeededRoller(5), actor="9")
        said = [e for e in await storage.read(GUILD).outbox_entries(f"cycle:{campaign.id}:")
                if e.key.endswith(":downtime")]
        async with storage.transaction(GUILD) as tx:
            await undo_calendar(tx, campaign, NOW + WEEK, actor="9")
    assert len(said) == 2
    assert all("did not open it" in e.payload["content"] for e in said)


SEEN: list[dict[str, Any]] = []


@before_timer("test-prepared")
async def _prepare(client: Any, timer: Timer) -> dict[str, Any]:
    return {"thread": client["thread"]}


@on_timer("test-prepared")
async def _handle(tx: Transaction, timer: Timer, late: timedelta | None) -> None:
    SEEN.append(timer.args)


async def test_a_preparer_runs_before_the_timers_transaction_and_completes_its_args(
    storage: Storage,
) -> None:
    SEEN.clear()
    async with storage.transaction(GUILD) as tx:
        await tx.set_timer("prepared", "test-prepared", NOW, {"given": 1})
    worker = TimerWorker(storage, ManualClock(NOW), client={"thread": 77})
    assert await worker.fire_due() == 1
    assert SEEN == [{"given": 1, "thread": 77}]
    assert handles_cycle_end is not None  # registered with the cycles' module
