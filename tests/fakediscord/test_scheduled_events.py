"""The fake's Guild Scheduled Event routes, over HTTP: what Discord makes, what it refuses
(400 code 50035 naming the field), and every answer checked against Discord's spec."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import discord
import pytest

from fakediscord import FakeDiscord
from fakediscord.errors import error_paths
from fakediscord.rest_events import EVENTS, ONE_EVENT, UNENDED_MAX
from fakediscord.spec import Spec
from tests.fakediscord.sample_bot import SampleBot


def when(hours: float) -> str:
    return (datetime.now(UTC) + timedelta(hours=hours)).isoformat()


def external(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Brass Hounds vs Mire Kin", "privacy_level": 2, "entity_type": 3,
        "scheduled_start_time": when(24), "scheduled_end_time": when(27),
        "entity_metadata": {"location": "#general"}, "description": "Territory: Old Ruins",
    }
    body.update(changes)
    return {k: v for k, v in body.items() if v is not ...}


async def call(http: aiohttp.ClientSession, method: str, url: str,
               body: Any = None) -> tuple[int, Any]:
    async with http.request(method, url, json=body) as resp:
        return resp.status, (await resp.json() if resp.status != 204 else None)


def answered_as_the_spec_says(method: str, template: str, status: int, body: Any) -> None:
    assert Spec.shipped().response_problems(method, template, status, body) == []


async def test_an_event_is_made_listed_changed_through_its_statuses_and_deleted(
    server: tuple[FakeDiscord, aiohttp.ClientSession],
) -> None:
    fake, http = server
    guild = fake.guild("Underhive")
    events = f"{fake.base_url}/guilds/{guild.id}/scheduled-events"
    status, made = await call(http, "POST", events, external())
    assert status == 200, made
    answered_as_the_spec_says("POST", EVENTS, 200, made)
    assert made["status"] == 1 and made["entity_metadata"] == {"location": "#general"}
    one = f"{events}/{made['id']}"
    guild.scheduled_events[int(made["id"])].interested.append(fake.world.user("alice"))
    status, listed = await call(http, "GET", events + "?with_user_count=true")
    answered_as_the_spec_says("GET", EVENTS, 200, listed)
    assert [(e["id"], e["user_count"]) for e in listed] == [(made["id"], 1)]
    status, users = await call(http, "GET", one + "/users?limit=10")
    assert status == 200 and [u["user"]["username"] for u in users] == ["alice"]
    answered_as_the_spec_says("GET", ONE_EVENT + "/users", 200, users)
    later = when(48)
    status, moved = await call(http, "PATCH", one, {"scheduled_start_time": later,
                                                    "scheduled_end_time": when(51)})
    assert status == 200 and moved["scheduled_start_time"] == later
    answered_as_the_spec_says("PATCH", ONE_EVENT, 200, moved)
    status, started = await call(http, "PATCH", one, {"status": 2})
    assert (status, started["status"]) == (200, 2)
    # Once started it can only be completed.
    status, refused = await call(http, "PATCH", one, {"status": 4})
    assert (status, refused["code"]) == (400, 50035) and error_paths(refused["errors"]) == [
        "status"]
    status, done = await call(http, "PATCH", one, {"status": 3})
    assert (status, done["status"]) == (200, 3)
    status, refused = await call(http, "PATCH", one, {"name": "Again"})
    assert status == 400
    status, got = await call(http, "GET", one)
    assert status == 200 and got["status"] == 3
    answered_as_the_spec_says("GET", ONE_EVENT, 200, got)
    assert (await call(http, "DELETE", one))[0] == 204
    status, gone = await call(http, "GET", one)
    assert (status, gone["code"]) == (404, 10070)


@pytest.mark.parametrize(("body", "field"), [
    (external(name=""), "name"),
    (external(name="x" * 101), "name"),  # the spec's own limit
    (external(name=...), "name"),  # the spec: required
    (external(entity_metadata={}), "entity_metadata.location"),
    (external(entity_metadata={"location": "y" * 101}), "entity_metadata.location"),
    (external(scheduled_end_time=None), "scheduled_end_time"),
    (external(scheduled_end_time=when(20)), "scheduled_end_time"),
    (external(scheduled_start_time=when(-1), scheduled_end_time=when(2)),
     "scheduled_start_time"),
    (external(privacy_level=1), "privacy_level"),  # the spec: GUILD_ONLY only
    (external(description="z" * 1001), "description"),
])
async def test_what_discord_refuses_is_refused_naming_the_field(
    server: tuple[FakeDiscord, aiohttp.ClientSession], body: dict[str, Any], field: str,
) -> None:
    fake, http = server
    guild = fake.guild("Underhive")
    status, refused = await call(http, "POST", f"{fake.base_url}/guilds/{guild.id}"
                                 "/scheduled-events", body)
    assert (status, refused["code"]) == (400, 50035), refused
    assert any(path.startswith(field.split(".")[0]) for path in error_paths(
        refused["errors"])), refused
    assert guild.scheduled_events == {}


async def test_an_unknown_event_and_a_bot_without_the_permission_are_refused(
    server: tuple[FakeDiscord, aiohttp.ClientSession],
) -> None:
    fake, http = server
    guild = fake.guild("Underhive")
    status, body = await call(http, "GET", f"{fake.base_url}/guilds/{guild.id}"
                              "/scheduled-events/123")
    assert (status, body["code"]) == (404, 10070)
    bot_role = next(r for r in guild.roles.values() if r.managed)
    bot_role.permissions &= ~(1 << 44)
    status, body = await call(http, "POST", f"{fake.base_url}/guilds/{guild.id}"
                              "/scheduled-events", external())
    assert (status, body["code"]) == (403, 50013)


async def test_a_server_holds_at_most_a_hundred_events_not_yet_ended(
    server: tuple[FakeDiscord, aiohttp.ClientSession],
) -> None:
    fake, http = server
    guild = fake.guild("Underhive")
    events = f"{fake.base_url}/guilds/{guild.id}/scheduled-events"
    made = [(await call(http, "POST", events, external()))[1] for _ in range(UNENDED_MAX)]
    status, refused = await call(http, "POST", events, external())
    assert (status, refused["code"]) == (400, 30038), refused
    assert len(guild.scheduled_events) == UNENDED_MAX
    # An event that ended no longer counts.
    assert (await call(http, "PATCH", f"{events}/{made[0]['id']}", {"status": 4}))[0] == 200
    assert (await call(http, "POST", events, external()))[0] == 200


async def test_discord_py_makes_and_edits_an_event_in_the_fake(
    fake: FakeDiscord, bot: SampleBot
) -> None:
    guild = bot.get_guild(fake.guild("Underhive").id)
    assert guild is not None
    start = datetime.now(UTC) + timedelta(days=1)
    event = await guild.create_scheduled_event(
        name="Brass Hounds vs Mire Kin", start_time=start, end_time=start + timedelta(hours=3),
        entity_type=discord.EntityType.external, location="#general",
        privacy_level=discord.PrivacyLevel.guild_only)
    assert event.location == "#general" and event.status is discord.EventStatus.scheduled
    started = await event.start()
    assert started.status is discord.EventStatus.active
    ended = await started.end()
    assert ended.status is discord.EventStatus.completed
    stored = fake.guild("Underhive").scheduled_events[event.id]
    assert stored.status == 3
