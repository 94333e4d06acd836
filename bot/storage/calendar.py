"""Scheduled battles and a campaign's scheduling settings (docs/arbitrator.md, "Scheduling
a battle"). The times are seconds since the epoch in the rows, aware datetimes (UTC) out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from bot.storage.codec import Row, dumps, new_id, now
from bot.storage.driver import Connection, Select, first_row
from bot.storage.timers import epoch
from rules.errors import InvalidRequest, NotFound

# Reminders before an agreed battle, in minutes, when the Arbitrator set none: a day
# and an hour ahead (the Arbitrator's guide documents them).
DEFAULT_REMINDER_MINUTES = (24 * 60, 60)
DEFAULT_TIME_ZONE = "UTC"
# How long the Discord event of a battle lasts when the Arbitrator set nothing: three hours.
DEFAULT_EVENT_MINUTES = 180


class ScheduleStatus(StrEnum):
    OPEN = "open"  # made (an accepted challenge, say), no time proposed yet
    PROPOSED = "proposed"  # a time proposed by one side, waiting for the other
    AGREED = "agreed"  # both sides agreed: the event and the reminders are set
    STARTED = "started"  # its /prebattle began
    COMPLETED = "completed"  # its /postbattle ended
    CANCELLED = "cancelled"

    @property
    def active(self) -> bool:
        return self in (ScheduleStatus.OPEN, ScheduleStatus.PROPOSED, ScheduleStatus.AGREED)


class ScheduledBattle(BaseModel):
    """A battle two (or more) gangs are to play."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    campaign_id: str
    gang_ids: list[str] = Field(min_length=2)
    territory: str | None = None
    challenge_key: str | None = None
    status: ScheduleStatus = ScheduleStatus.OPEN
    starts_at: datetime | None = None
    proposed_by: str | None = None  # the gang whose player proposed starts_at
    event_id: int | None = None  # the Discord Guild Scheduled Event
    battle_id: str | None = None  # the /prebattle battle it became
    channel_id: int | None = None  # where it was proposed: its reminders go there


class CalendarSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    time_zone: str = DEFAULT_TIME_ZONE
    reminder_minutes: tuple[int, ...] = DEFAULT_REMINDER_MINUTES
    event_minutes: int = DEFAULT_EVENT_MINUTES


_COLUMNS = ("id, gang_ids, territory, challenge_key, status, starts_at, proposed_by, event_id,"
            " battle_id, channel_id")


def _scheduled(campaign_id: str, row: Row) -> ScheduledBattle:
    starts = row["starts_at"]
    return ScheduledBattle(
        id=row["id"], campaign_id=campaign_id, gang_ids=json.loads(row["gang_ids"]),
        territory=row["territory"], challenge_key=row["challenge_key"],
        status=ScheduleStatus(row["status"]),
        starts_at=None if starts is None else datetime.fromtimestamp(starts, UTC),
        proposed_by=row["proposed_by"], event_id=row["event_id"], battle_id=row["battle_id"],
        channel_id=row["channel_id"],
    )


async def create(db: Connection, campaign_pk: int, campaign_id: str, gang_ids: list[str],
                 territory: str | None, challenge_key: str | None) -> ScheduledBattle:
    if len(set(gang_ids)) != len(gang_ids) or len(gang_ids) < 2:
        raise InvalidRequest("A battle is scheduled between two or more different gangs.")
    found = await db.execute_fetchall(
        "SELECT id FROM gangs WHERE campaign_pk = ? AND id IN"
        f" ({', '.join('?' for _ in gang_ids)})", (campaign_pk, *gang_ids))
    if len(found) != len(gang_ids):
        raise NotFound("A gang of this battle is not in this campaign.")
    if challenge_key is not None:
        # The same challenge made into a battle twice (a retried call) is one battle.
        row = await first_row(
            db, f"SELECT {_COLUMNS} FROM scheduled_battles WHERE campaign_pk = ?"
            " AND challenge_key = ?", (campaign_pk, challenge_key))
        if row is not None:
            return _scheduled(campaign_id, row)
    stamp = now()
    rows = await db.execute_fetchall(
        "INSERT INTO scheduled_battles (campaign_pk, id, gang_ids, territory, challenge_key,"
        " status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        f" RETURNING {_COLUMNS}",
        (campaign_pk, new_id(), dumps(gang_ids), territory, challenge_key,
         ScheduleStatus.OPEN.value, stamp, stamp),
    )
    return _scheduled(campaign_id, rows[0])


async def get(db: Connection, campaign_pk: int, campaign_id: str,
              scheduled_id: str) -> ScheduledBattle:
    row = await first_row(
        db, f"SELECT {_COLUMNS} FROM scheduled_battles WHERE campaign_pk = ? AND id = ?",
        (campaign_pk, scheduled_id))
    if row is None:
        raise NotFound("That scheduled battle is not in this campaign (any more).")
    return _scheduled(campaign_id, row)


async def of_campaign(db: Connection, campaign_pk: int, campaign_id: str, *,
                      active_only: bool = False) -> list[ScheduledBattle]:
    """The campaign's scheduled battles, soonest first (those without a time last)."""
    sql, params = of_campaign_select(campaign_pk)
    battles = from_rows(campaign_id, await db.execute_fetchall(sql, params))
    return [b for b in battles if b.status.active] if active_only else battles


def of_campaign_select(campaign_pk: int) -> Select:
    """The SELECT of :func:`of_campaign`, to be read with others (driver.fetch_together)."""
    return (f"SELECT pk, {_COLUMNS} FROM scheduled_battles WHERE campaign_pk = ?",
            (campaign_pk,))


def from_rows(campaign_id: str, rows: Sequence[Row]) -> list[ScheduledBattle]:
    """The rows of :func:`of_campaign_select`, soonest first (those without a time last)."""
    ordered = sorted(rows, key=lambda row: (row["starts_at"] is None, row["starts_at"] or 0,
                                            int(row["pk"])))
    return [_scheduled(campaign_id, row) for row in ordered]


async def update(db: Connection, campaign_pk: int, battle: ScheduledBattle) -> ScheduledBattle:
    """Write the battle's status, time, proposer, event and linked battle."""
    rows = await db.execute_fetchall(
        "UPDATE scheduled_battles SET status = ?, starts_at = ?, proposed_by = ?,"
        " event_id = ?, battle_id = ?, channel_id = ?, updated_at = ?"
        f" WHERE campaign_pk = ? AND id = ? RETURNING {_COLUMNS}",
        (battle.status.value, None if battle.starts_at is None else epoch(battle.starts_at),
         battle.proposed_by, battle.event_id, battle.battle_id, battle.channel_id, now(),
         campaign_pk, battle.id),
    )
    if not rows:
        raise NotFound("That scheduled battle is not in this campaign (any more).")
    return _scheduled(battle.campaign_id, rows[0])


async def settings(db: Connection, campaign_pk: int) -> CalendarSettings:
    row = await first_row(
        db, "SELECT time_zone, reminder_minutes, event_minutes FROM calendar_settings"
        " WHERE campaign_pk = ?", (campaign_pk,))
    if row is None:
        return CalendarSettings()
    return CalendarSettings(time_zone=row["time_zone"],
                            reminder_minutes=tuple(json.loads(row["reminder_minutes"])),
                            event_minutes=row["event_minutes"])


async def set_settings(db: Connection, campaign_pk: int, chosen: CalendarSettings) -> None:
    await db.execute(
        "INSERT INTO calendar_settings (campaign_pk, time_zone, reminder_minutes, event_minutes)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (campaign_pk) DO UPDATE SET"
        " time_zone = excluded.time_zone, reminder_minutes = excluded.reminder_minutes,"
        " event_minutes = excluded.event_minutes",
        (campaign_pk, chosen.time_zone, dumps(list(chosen.reminder_minutes)),
         chosen.event_minutes),
    )
