"""Times players type, read into aware datetimes: a pasted Discord timestamp, or
"YYYY-MM-DD HH:MM" in the campaign's time zone (docs/player.md, "Scheduling a battle")."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from rules.errors import InvalidRequest

_STAMP = re.compile(r"^<t:(-?\d{1,12})(?::[tTdDfFsSR])?>$")
_LOCAL = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2})[:h](\d{2})$")
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


def read_time(text: str, zone_name: str, now: datetime) -> datetime:
    """The moment ``text`` names, in the future and within a year of ``now``."""
    typed = text.strip()
    found = _STAMP.match(typed)
    local = _LOCAL.match(typed)
    if found:
        moment = datetime.fromtimestamp(int(found.group(1)), UTC)
    elif local:
        year, month, day, hour, minute = (int(part) for part in local.groups())
        try:
            moment = datetime(year, month, day, hour, minute, tzinfo=zone(zone_name))
        except ValueError:
            raise InvalidRequest(f"{typed[:40]} is not a date and time of the calendar.") \
                from None
    else:
        raise InvalidRequest(
            f"Give the time as YYYY-MM-DD HH:MM (for example {EXAMPLE}), in the campaign's "
            f"time zone ({zone_name}), or paste a Discord timestamp such as <t:1773516600:F>.")
    if moment <= now:
        raise InvalidRequest(f"{stamp(moment)} has passed already: propose a later time.")
    if moment > now + FURTHEST:
        raise InvalidRequest("A battle is scheduled at most a year ahead.")
    return moment.astimezone(UTC)
