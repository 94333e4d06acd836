"""REST routes for Guild Scheduled Events: list, create, get, modify, delete, and the users
who pressed Interested.

Every body is checked against Discord's OpenAPI spec first (fakediscord/spec.py), then
against the rules Discord states beside it: a name of 1-100 characters; a start in the
future; an EXTERNAL event has no channel, a location (1-100) and an end after its start;
a STAGE or VOICE event names a channel of the server; the status moves only from
SCHEDULED to ACTIVE or CANCELED and from ACTIVE to COMPLETED, and an event that ended
is not edited; a server holds at most 100 events not yet ended (scheduled or active).
Creating needs Create Events (or Manage Events); changing an event made by someone else
needs Manage Events.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from fakediscord.common import JsonObj, Perm
from fakediscord.entities import (
    EVENT_ACTIVE,
    EVENT_CANCELED,
    EVENT_COMPLETED,
    EVENT_EXTERNAL,
    EVENT_SCHEDULED,
    ScheduledEvent,
    User,
)
from fakediscord.errors import ApiError, invalid_form, not_found
from fakediscord.http_util import known, no_content, ok, read_body, snowflake
from fakediscord.services import RouteGroup
from fakediscord.spec import check_request
from fakediscord.world import Guild

EVENTS = "/guilds/{guild_id}/scheduled-events"
ONE_EVENT = EVENTS + "/{guild_scheduled_event_id}"
NAME_MAX = 100
LOCATION_MAX = 100
# Which status an event may be moved to from each (Discord's documented transitions).
MOVES = {EVENT_SCHEDULED: {EVENT_ACTIVE, EVENT_CANCELED}, EVENT_ACTIVE: {EVENT_COMPLETED}}
USERS_MAX = 100
# Events not yet ended (scheduled or active) a server may hold: Discord's error 30038.
UNENDED_MAX = 100


def _moment(value: Any, field: str) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise invalid_form(f"{value!r} is not an ISO8601 timestamp", field) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _text(body: JsonObj, field: str, most: int) -> str:
    value = str(body.get(field) or "")
    if not 1 <= len(value) <= most:
        raise invalid_form(f"Must be between 1 and {most} in length.", field)
    return value


class EventRoutes(RouteGroup):
    def routes(self) -> list[tuple[str, str, Handler]]:
        return [
            ("GET", EVENTS, self.list_events),
            ("POST", EVENTS, self.create_event),
            ("GET", ONE_EVENT, self.get_event),
            ("PATCH", ONE_EVENT, self.modify_event),
            ("DELETE", ONE_EVENT, self.delete_event),
            ("GET", ONE_EVENT + "/users", self.event_users),
        ]

    # -- lookups ------------------------------------------------------------

    def _guild(self, request: web.Request) -> Guild:
        guild = self.world.guilds.get(snowflake(request, "guild_id"))
        if guild is None or self.world.bot.id not in guild.members:
            raise not_found("Guild", 10004)
        return guild

    def _event(self, request: web.Request) -> tuple[Guild, ScheduledEvent]:
        guild = self._guild(request)
        event = known(guild.scheduled_events, request, "guild_scheduled_event_id",
                      "Guild Scheduled Event", 10070)
        return guild, event

    def _require(self, guild: Guild, permission: Perm) -> None:
        if not guild.permissions_for(self.world.bot.id) & permission:
            raise ApiError(403, 50013, "Missing Permissions")

    @staticmethod
    def _counted(request: web.Request) -> bool:
        return request.query.get("with_user_count", "false").lower() == "true"

    # -- the rules beside the spec -------------------------------------------

    def _check_place(self, guild: Guild, event: ScheduledEvent) -> None:
        if event.entity_type == EVENT_EXTERNAL:
            if event.channel_id is not None:
                raise invalid_form("An EXTERNAL event has no channel.", "channel_id")
            if not event.location or len(event.location) > LOCATION_MAX:
                raise invalid_form(f"Must be between 1 and {LOCATION_MAX} in length.",
                                   "entity_metadata.location")
            if event.scheduled_end_time is None:
                raise invalid_form("An EXTERNAL event needs an end time.",
                                   "scheduled_end_time")
        elif event.channel_id is None or event.channel_id not in guild.channels:
            raise invalid_form("A STAGE or VOICE event needs a channel of the server.",
                               "channel_id")
        start = _moment(event.scheduled_start_time, "scheduled_start_time")
        if event.scheduled_end_time is not None and _moment(
                event.scheduled_end_time, "scheduled_end_time") <= start:
            raise invalid_form("The end must be after the start.", "scheduled_end_time")

    @staticmethod
    def _check_future(value: Any) -> str:
        if _moment(value, "scheduled_start_time") <= datetime.now(UTC):
            raise invalid_form("Cannot schedule event in the past.", "scheduled_start_time")
        return str(value)

    # -- routes ---------------------------------------------------------------

    async def list_events(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        counted = self._counted(request)
        return ok([e.to_payload(with_user_count=counted)
                   for e in guild.scheduled_events.values()])

    async def create_event(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        self._require(guild, Perm.CREATE_EVENTS | Perm.MANAGE_EVENTS)
        body, _ = await read_body(request)
        check_request("POST", EVENTS, body)
        if sum(e.status in MOVES for e in guild.scheduled_events.values()) >= UNENDED_MAX:
            raise ApiError(400, 30038, "Maximum number of uncompleted guild scheduled events "
                                       f"reached ({UNENDED_MAX})")
        metadata = body.get("entity_metadata") or {}
        channel = body.get("channel_id")
        event = ScheduledEvent(
            id=self.world.ids.next(), guild_id=guild.id, name=_text(body, "name", NAME_MAX),
            scheduled_start_time=self._check_future(body.get("scheduled_start_time")),
            scheduled_end_time=body.get("scheduled_end_time"),
            entity_type=int(body["entity_type"]), creator=self.world.bot,
            description=body.get("description"),
            channel_id=None if channel is None else int(channel),
            location=metadata.get("location"), privacy_level=int(body["privacy_level"]),
        )
        self._check_place(guild, event)
        guild.scheduled_events[event.id] = event
        self.world.notifier.notify()
        return ok(event.to_payload())

    async def get_event(self, request: web.Request) -> web.Response:
        _, event = self._event(request)
        return ok(event.to_payload(with_user_count=self._counted(request)))

    async def modify_event(self, request: web.Request) -> web.Response:
        guild, event = self._event(request)
        self._require(guild, Perm.MANAGE_EVENTS if event.creator.id != self.world.bot.id
                      else Perm.CREATE_EVENTS | Perm.MANAGE_EVENTS)
        body, _ = await read_body(request)
        check_request("PATCH", ONE_EVENT, body)
        if event.status not in MOVES:
            raise invalid_form("An event that ended cannot be edited.", "status")
        changed = ScheduledEvent(**{**event.__dict__})
        if "name" in body:
            changed.name = _text(body, "name", NAME_MAX)
        if "description" in body:
            changed.description = body["description"]
        if "scheduled_start_time" in body:
            changed.scheduled_start_time = self._check_future(body["scheduled_start_time"])
        if "scheduled_end_time" in body:
            changed.scheduled_end_time = body["scheduled_end_time"]
        if body.get("entity_type") is not None:
            changed.entity_type = int(body["entity_type"])
        if "channel_id" in body:
            channel = body["channel_id"]
            changed.channel_id = None if channel is None else int(channel)
        if "entity_metadata" in body:
            changed.location = (body["entity_metadata"] or {}).get("location")
        status = body.get("status")
        if status is not None and status != event.status:
            if status not in MOVES[event.status]:
                raise invalid_form(f"The status cannot go from {event.status} to {status}.",
                                   "status")
            changed.status = int(status)
        self._check_place(guild, changed)
        event.__dict__.update(changed.__dict__)
        self.world.notifier.notify()
        return ok(event.to_payload())

    async def delete_event(self, request: web.Request) -> web.Response:
        guild, event = self._event(request)
        self._require(guild, Perm.MANAGE_EVENTS if event.creator.id != self.world.bot.id
                      else Perm.CREATE_EVENTS | Perm.MANAGE_EVENTS)
        del guild.scheduled_events[event.id]
        self.world.notifier.notify()
        return no_content()

    async def event_users(self, request: web.Request) -> web.Response:
        _, event = self._event(request)
        try:
            limit = int(request.query.get("limit", str(USERS_MAX)))
        except ValueError:
            raise invalid_form("limit is not a number", "limit") from None
        if not 1 <= limit <= USERS_MAX:
            raise invalid_form(f"Must be between 1 and {USERS_MAX}.", "limit")
        after = int(request.query.get("after", "0") or 0)
        users: list[User] = sorted((u for u in event.interested if u.id > after),
                                   key=lambda u: u.id)[:limit]
        return ok([{"guild_scheduled_event_id": str(event.id), "user_id": str(u.id),
                    "user": u.to_full_payload(), "response": 1} for u in users])

