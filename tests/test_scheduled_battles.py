"""Scheduled battles in storage (bot/storage/calendar.py) and the times players type
(bot/ui/times.py); the reminders they set (bot/scheduling.py) on a moved clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import ManualClock
from bot.scheduling import cancel_reminders, gangs_of, link_battle, set_reminders
from bot.storage import (
    CalendarSettings,
    ScheduledBattle,
    ScheduleStatus,
    Storage,
    Transaction,
)
from bot.timers import TimerWorker
from bot.ui.times import read_time
from rules.errors import InvalidRequest, NotFound
from rules.models import CampaignSettings
from tests import factories as f

GUILD = 1001
OTHER_GUILD = 2002
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


# --------------------------------------------------------------------------- typed times


def test_a_typed_time_is_read_in_the_campaigns_zone_or_as_a_discord_timestamp() -> None:
    assert read_time("2026-03-14 19:30", "UTC", NOW) == datetime(2026, 3, 14, 19, 30, tzinfo=UTC)
    # Paris is an hour ahead of UTC in March (before its summer time).
    assert read_time("2026-03-14 19:30", "Europe/Paris", NOW) == datetime(
        2026, 3, 14, 18, 30, tzinfo=UTC)
    stamp = int(datetime(2026, 3, 14, 18, 30, tzinfo=UTC).timestamp())
    assert read_time(f"<t:{stamp}:F>", "Asia/Tokyo", NOW) == datetime(
        2026, 3, 14, 18, 30, tzinfo=UTC)
    assert read_time(f" <t:{stamp}> ", "UTC", NOW).timestamp() == stamp


@pytest.mark.parametrize(("typed", "refusal"), [
    ("next tuesday", "YYYY-MM-DD HH:MM"),
    ("2026-02-30 10:00", "not a date"),
    ("2026-03-01 11:59", "has passed"),
    ("2027-06-01 10:00", "a year ahead"),
    ("<t:999999999999:F>", "not a date"),
    ("<t:-999999999999>", "not a date"),
])
def test_times_that_cannot_be_a_battles_are_refused(typed: str, refusal: str) -> None:
    with pytest.raises(InvalidRequest, match=refusal):
        read_time(typed, "UTC", NOW)


def test_an_unknown_zone_is_refused() -> None:
    with pytest.raises(InvalidRequest, match="not a time zone"):
        read_time("2026-03-14 19:30", "Mars/Olympus", NOW)


# --------------------------------------------------------------------------- storage


async def two_gangs(storage: Storage, guild: int = GUILD) -> tuple[str, list[str]]:
    tx = storage.write(guild)
    campaign = await tx.create_campaign(CampaignSettings(name="Dates"))
    ids = []
    for name, owner in (("Brass Hounds", "1"), ("Mire Kin", "2")):
        gang = await tx.create_gang(campaign.id, f.gang(name=name, owner=owner, fighters=[]),
                                    actor="1")
        ids.append(gang.id)
    return campaign.id, ids


async def test_a_scheduled_battle_is_made_once_per_challenge_and_kept_to_its_server(
    storage: Storage,
) -> None:
    campaign, gangs = await two_gangs(storage)
    tx = storage.write(GUILD)
    first = await tx.create_scheduled_battle(campaign, gangs, "Old Ruins", "challenge:1")
    again = await tx.create_scheduled_battle(campaign, gangs, "Old Ruins", "challenge:1")
    assert again == first and first.status is ScheduleStatus.OPEN
    assert first.territory == "Old Ruins" and first.gang_ids == gangs
    with pytest.raises(InvalidRequest):
        await tx.create_scheduled_battle(campaign, [gangs[0], gangs[0]], None, None)
    with pytest.raises(NotFound):
        await tx.create_scheduled_battle(campaign, [gangs[0], "nobody"], None, None)
    # Another server cannot reach it, whatever ids it names.
    with pytest.raises(NotFound):
        await storage.read(OTHER_GUILD).get_scheduled_battle(campaign, first.id)
    with pytest.raises(NotFound):
        await storage.write(OTHER_GUILD).create_scheduled_battle(campaign, gangs, None, None)
    # Deleting the campaign deletes it.
    await tx.delete_campaign(campaign)
    other, _ = await two_gangs(storage)
    assert await storage.read(GUILD).scheduled_battles(other) == []


async def agreed_in(tx: Transaction, campaign: str, gangs: list[str],
                   hours: float) -> ScheduledBattle:
    """A battle of ``gangs`` agreed for ``hours`` after NOW, proposed in channel 77."""
    made = await tx.create_scheduled_battle(campaign, gangs, None, None)
    return await tx.update_scheduled_battle(made.model_copy(update={
        "status": ScheduleStatus.AGREED, "starts_at": NOW + timedelta(hours=hours),
        "channel_id": 77}))


async def test_reminders_are_set_moved_and_dropped_with_the_battle(storage: Storage) -> None:
    campaign, gangs = await two_gangs(storage)
    clock = ManualClock(NOW)
    async with storage.transaction(GUILD) as tx:
        agreed = await agreed_in(tx, campaign, gangs, 30)
        # The day-before reminder is ahead; a 48 h one would be past already: not set.
        due = await set_reminders(tx, agreed, CalendarSettings(reminder_minutes=(2880, 1440,
                                                                                  60)), NOW)
    assert due == [NOW + timedelta(hours=6), NOW + timedelta(hours=29)]
    worker = TimerWorker(storage, clock)
    clock.move(timedelta(hours=6))
    assert await worker.fire_due() == 1
    owed = await storage.read(GUILD).outbox_entries("reminder:")
    assert len(owed) == 1 and owed[0].channel_id == 77
    assert "**Brass Hounds** vs **Mire Kin**" in owed[0].payload["content"]
    assert owed[0].payload["allowed_mentions"] == {"parse": [], "users": ["1", "2"]}
    # /prebattle starts it: the hour-before reminder is owed no more.
    async with storage.transaction(GUILD) as tx:
        linked = await link_battle(tx, campaign, list(reversed(gangs)), "battle-1")
    assert linked is not None and linked.status is ScheduleStatus.STARTED
    assert linked.battle_id == "battle-1"
    clock.move(timedelta(days=1))
    assert await worker.fire_due() == 0
    assert len(await storage.read(GUILD).outbox_entries("reminder:")) == 1
    async with storage.transaction(GUILD) as tx:
        await cancel_reminders(tx, linked.id)
        assert await tx.list_timers("reminder:") == []


async def test_a_reminder_of_a_battle_whose_gang_was_deleted_fires_once_and_says_nothing(
    storage: Storage,
) -> None:
    campaign, gangs = await two_gangs(storage)
    clock = ManualClock(NOW)
    async with storage.transaction(GUILD) as tx:
        agreed = await agreed_in(tx, campaign, gangs, 2)
        await set_reminders(tx, agreed, CalendarSettings(reminder_minutes=(60,)), NOW)
        await tx.delete_gang(campaign, gangs[1], actor="1")
        assert [g.name for g in await gangs_of(tx, agreed)] == ["Brass Hounds"]
    worker = TimerWorker(storage, clock)
    clock.move(timedelta(hours=1))
    assert await worker.fire_due() == 1  # fired (not failing for ever), posting nothing
    assert await storage.read(GUILD).outbox_entries("reminder:") == []
    assert await worker.fire_due() == 0
