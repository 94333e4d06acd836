"""Shards: the fake routes each server's events to the one session Discord would.

Two raw gateway clients identify as shards 0 and 1 of 2; each must see only its
own servers, whatever the event, and an impossible shard is refused with 4010.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest

from fakediscord import FakeDiscord, guild_id_on_shard
from fakediscord.common import Intent

TOKEN = "fake-token"
INTENTS = Intent.GUILDS | Intent.GUILD_MEMBERS | Intent.GUILD_MESSAGES | Intent.DIRECT_MESSAGES


@dataclass
class ShardClient:
    """A bare websocket client holding one shard, keeping every dispatch it is sent."""

    ws: aiohttp.ClientWebSocketResponse
    dispatches: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def receive(self) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(await self.ws.receive_str(timeout=5))
        if frame["op"] == 0:
            self.dispatches.append((frame["t"], frame["d"]))
        return frame

    async def settle(self) -> None:
        """Heartbeat and read up to its ACK: the fake queues a connection's frames in
        order, so every dispatch made before this call has arrived when it returns."""
        await self.ws.send_json({"op": 1, "d": None})
        while (await self.receive())["op"] != 11:
            pass

    def guilds_seen(self) -> set[int]:
        seen: set[int] = set()
        for event, data in self.dispatches:
            if event == "READY":
                seen.update(int(g["id"]) for g in data["guilds"])
            elif event in ("GUILD_CREATE", "GUILD_DELETE"):
                seen.add(int(data["id"]))
            elif data.get("guild_id") is not None:
                seen.add(int(data["guild_id"]))
        return seen


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord(token=TOKEN, recommended_shards=2)
    alice = fake.add_user("alice")
    for shard, name in ((0, "Even"), (1, "Odd")):
        guild = fake.add_guild(name, owner=alice, guild_id=guild_id_on_shard(shard, 2))
        guild.add_text_channel("general")
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def connect(
    fake: FakeDiscord, http: aiohttp.ClientSession, shard: Any
) -> aiohttp.ClientWebSocketResponse:
    ws = await http.ws_connect(fake.gateway_url)
    hello = json.loads(await ws.receive_str(timeout=5))
    assert hello["op"] == 10
    await ws.send_json({"op": 2, "d": {"token": TOKEN, "intents": int(INTENTS), "shard": shard,
                                       "properties": {}}})
    return ws


async def identify(fake: FakeDiscord, http: aiohttp.ClientSession, shard: int) -> ShardClient:
    client = ShardClient(await connect(fake, http, [shard, 2]))
    await client.settle()
    return client


async def test_each_shard_gets_only_its_own_servers(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    even, odd = fake.guild("Even"), fake.guild("Odd")
    shard0 = await identify(fake, http, 0)
    shard1 = await identify(fake, http, 1)
    ready0, ready1 = shard0.dispatches[0], shard1.dispatches[0]
    assert ready0[0] == ready1[0] == "READY"
    assert ready0[1]["shard"] == [0, 2] and ready1[1]["shard"] == [1, 2]
    assert fake.gateway.connected_shards() == {(0, 2), (1, 2)}

    driver = fake.driver()
    for guild in (even, odd):
        # An interaction, a message, a channel change, a member request, then removal.
        fake.gateway.dispatch_interaction(
            guild.id, {"id": "1", "type": 2, "guild_id": str(guild.id)}, None)
        await driver.say("general", "alice", f"hello {guild.name}", guild=guild)
        fake.world.emit("CHANNEL_UPDATE", fake.channel("general", guild))
        for client in (shard0, shard1):
            await client.ws.send_json({"op": 8, "d": {"guild_id": str(guild.id), "query": "",
                                                      "limit": 0}})
        fake.gateway.dispatch_guild_delete(guild.id)
    await driver.say(driver.dm_channel("alice"), "alice", "a direct message")
    await shard0.settle()
    await shard1.settle()

    assert shard0.guilds_seen() == {even.id}
    assert shard1.guilds_seen() == {odd.id}
    for client in (shard0, shard1):
        events = [event for event, _ in client.dispatches]
        assert events.count("GUILD_CREATE") == 1
        for each in ("INTERACTION_CREATE", "MESSAGE_CREATE", "CHANNEL_UPDATE",
                     "GUILD_MEMBERS_CHUNK", "GUILD_DELETE"):
            assert events.count(each) == 1 + (each == "MESSAGE_CREATE" and client is shard0), (
                each, events)
    # Direct messages have no server: Discord sends them to shard 0.
    dms = [d for e, d in shard0.dispatches if e == "MESSAGE_CREATE" and "guild_id" not in d]
    assert [d["content"] for d in dms] == ["a direct message"]


@pytest.mark.parametrize("shard", [[2, 2], [0, 0], [-1, 2], [1], "0,1", [0.5, 2]])
async def test_an_impossible_shard_is_refused_with_4010(
    fake: FakeDiscord, http: aiohttp.ClientSession, shard: Any
) -> None:
    ws = await connect(fake, http, shard)
    closing = await ws.receive(timeout=5)
    assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 4010
    assert fake.gateway.sessions == {}


async def test_gateway_bot_advises_the_shard_count(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    async with http.get(f"{fake.base_url}/gateway/bot",
                        headers={"Authorization": f"Bot {TOKEN}"}) as resp:
        body = await resp.json()
    assert body["shards"] == 2 and body["url"] == fake.gateway_url
