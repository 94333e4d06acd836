"""Times players type, read into aware datetimes: a pasted Discord timestamp,
"YYYY-MM-DD HH:MM" (or a date alone) in the campaign's time zone, an ISO time with its
own offset, and where the command allows it a number of days from now ("7d"). The one
reader of typed times: /schedule's (docs/player.md, "Scheduling a battle") and the
cycles' dates (docs/arbitrator.md)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from rules.errors import InvalidRequest

_STAMP = re.compile(r"^<t:(-?\d{1,12})(?::[tTdDfFsSR])?>$")
_LOCAL = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2})[:h](\d{2}))?$")
_DAYS = re.compile(r"^(\d{1,4}) ?(?:d|days?)$")
# A battle is scheduled at most this far ahead: a year is further than any campaign plans.
FURTHEST = timedelta(days=366)
EXAMPLE = "2026-03-14 19:30"


def zone(name: str) -> ZoneInfo:
    """The IANA time zone called ``name`` (Europe/Paris, America/New_York, UTC...)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidRequest(
            f"{name[:64]!r} is not a time zone name; use one of the IANA names, such as "
            "Europe/London, America/New_York or UTC.") from None


def stamp(moment: datetime, style: str = "F") -> str:
    """``moment`` as a Discord timestamp: each reader sees it in their own time zone."""
    return f"<t:{int(moment.timestamp())}:{style}>"


def read_time(text: str, zone_name: str, now: datetime, *, days_from_now: bool = False,
              past_too: bool = False, furthest: timedelta = FURTHEST,
              too_far: str = "A battle is scheduled at most a year ahead.") -> datetime:
    """The moment ``text`` names, within ``furthest`` of ``now`` (else ``too_far``) and,
    unless ``past_too``, in the future. ``days_from_now``: "7d" and "3 days" too."""
    typed = text.strip()
    moment = _moment(typed, zone_name, now, days_from_now)
    if moment is None:
        days = ", or a number of days from now (7d)" if days_from_now else ""
        raise InvalidRequest(
            f"'{typed[:40]}' is not a date: give it as YYYY-MM-DD HH:MM (for example "
            f"{EXAMPLE}) in the campaign's time zone ({zone_name}), or paste a Discord "
            f"timestamp such as <t:1773516600:F>{days}.")
    if not past_too and moment <= now:
        raise InvalidRequest(f"{stamp(moment)} has passed already: propose a later time.")
    if abs(moment - now) > furthest:
        raise InvalidRequest(too_far)
    return moment.astimezone(UTC)


def _moment(typed: str, zone_name: str, now: datetime, days_from_now: bool) -> datetime | None:
    found = _STAMP.match(typed)
    if found:
        try:
            return datetime.fromtimestamp(int(found.group(1)), UTC)
        except (ValueError, OverflowError, OSError):  # beyond the years a datetime holds
            raise InvalidRequest(f"{typed[:40]} is not a date and time of the calendar.") \
                from None
    days = _DAYS.match(typed.lower()) if days_from_now else None
    if days:
        return now + timedelta(days=int(days.group(1)))
    local = _LOCAL.match(typed)
    if local:
        year, month, day, hour, minute = (int(part or 0) for part in local.groups())
        try:
            return datetime(year, month, day, hour, minute, tzinfo=zone(zone_name))
        except ValueError:
            raise InvalidRequest(f"{typed[:40]} is not a date and time of the calendar.") \
                from None
    try:  # an ISO time with its own offset (2026-01-12T19:30+01:00)
        offset = datetime.fromisoformat(typed)
    except ValueError:
        return None
    return offset if offset.tzinfo is not None else offset.replace(tzinfo=zone(zone_name))
