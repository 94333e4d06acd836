"""A real bot process holding shard 1 of 2, beside a server on shard 0 it must leave alone.

The fake Discord routes each server to its shard as Discord does, so the bot
never hears of the shard-0 server; the shared database still holds messages
owed there, which the process holding shard 0 delivers, never this one. The
commands were synced by a first run holding every shard, as the shard-0
process would have; the shard-1 process does not sync them again.

Its own module: a fake world of its own and two runs of the bot on one database.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.storage import Storage
from demo.arena import TOKEN, Arena, open_arena
from fakediscord import FakeDiscord, NotConnected, guild_id_on_shard
from tests.e2e.battle_helpers import bot_ready

ZERO, ONE = "Hive on shard 0", "Hive on shard 1"


def two_shard_world() -> FakeDiscord:
    fake = FakeDiscord(token=TOKEN)
    alice = fake.add_user("alice", global_name="Alice")
    for shard, name in ((0, ZERO), (1, ONE)):
        guild = fake.add_guild(name, owner=alice, guild_id=guild_id_on_shard(shard, 2))
        guild.add_text_channel("general")
    return fake


def text(content: str) -> dict[str, Any]:
    return {"content": content, "allowed_mentions": {"parse": []}}


def posted(fake: FakeDiscord, guild: str) -> list[str]:
    return [m.content for m in fake.channel("general", guild).messages if not m.deleted]


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shard_1(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    workdir: Path = tmp_path_factory.mktemp("shards")
    fake = two_shard_world()
    await fake.start()
    # A first run holding every shard syncs the commands and makes the database.
    everything = Arena(fake, workdir)
    sharded = Arena(fake, workdir, shard_count=2, shard_ids=[1], name="shard-1")
    try:
        everything.write_config()
        await everything.start_bot()
        await everything.stop_bot()
        # Long gone, as far as Discord is concerned: nothing may still queue for it.
        await fake.world.notifier.wait_for(lambda: not fake.gateway.is_connected(), timeout=10,
                                           what="the first run to disconnect")
        assert fake.gateway.expire_detached() == 1
        zero, one = fake.guild(ZERO), fake.guild(ONE)
        storage = await Storage.open(everything.database_path)
        try:
            # The shard-0 server owes a message in its channel, and an older one in the
            # very channel of the shard-1 server's: had this process read it, it would
            # have posted it there first (a channel's rows go out in order).
            await storage.write(zero.id).owe_message("zero's own", fake.channel("general", ZERO).id,
                                      text("for shard 0, in its own channel"))
            await storage.write(zero.id).owe_message(
                "zero's older", fake.channel("general", ONE).id,
                                      text("for shard 0, older"))
            await storage.write(one.id).owe_message("one's", fake.channel("general", ONE).id,
                                      text("for shard 1"))
        finally:
            await storage.close()
        sharded.write_config()
        await sharded.start_bot()
        yield sharded
    finally:
        await sharded.stop_bot()
        await everything.stop_bot()
        await fake.stop()


async def test_it_delivers_its_own_servers_owed_messages_only(shard_1: Arena) -> None:
    fake = shard_1.fake
    await fake.world.notifier.wait_for(lambda: posted(fake, ONE) != [], timeout=15,
                                       what="the shard-1 server's owed message")
    assert posted(fake, ONE) == ["for shard 1"]
    assert posted(fake, ZERO) == []


async def test_it_connects_its_shard_only_and_does_not_sync_commands(shard_1: Arena) -> None:
    fake = shard_1.fake
    assert fake.gateway.connected_shards() == {(1, 2)}
    assert fake.commands.sync_count == 1  # the first run's, holding every shard
    await bot_ready(shard_1)
    log = shard_1.log_path.read_text(errors="replace")
    assert "holding shard 1 of 2: the process holding shard 0 syncs the slash commands" in log
    assert "in 1 servers (shard 1 of 2)" in log
    assert "synced" not in log


async def test_it_answers_its_own_server_and_never_hears_of_the_other(shard_1: Arena) -> None:
    fake, driver = shard_1.fake, shard_1.driver
    created = await driver.slash(ONE, "general", "alice", "campaign create", name="Sharded")
    assert not created.ephemeral and "Sharded" in created.text()
    # Nobody holds shard 0: Discord would queue its events for that shard, never send
    # them to this one.
    with pytest.raises(NotConnected):
        await driver.slash(ZERO, "general", "alice", "campaign create", name="Elsewhere")
    (session,) = [s for s in fake.gateway.sessions.values() if s.connection is not None]
    zero = str(fake.guild(ZERO).id)
    sent = [json.loads(frame) for _seq, frame, _on_sent in session.buffer]
    ready = next(f["d"] for f in sent if f["t"] == "READY")
    assert [g["id"] for g in ready["guilds"]] == [str(fake.guild(ONE).id)]
    assert not [f for f in sent if zero in json.dumps(f["d"])]


async def test_the_other_servers_rows_stay_owed_untouched(shard_1: Arena) -> None:
    zero = shard_1.fake.guild(ZERO).id
    await shard_1.stop_bot()
    storage = await Storage.open(shard_1.database_path)
    try:
        owed = await storage.undelivered_messages()
    finally:
        await storage.close()
    assert sorted(e.key for e in owed) == ["zero's older", "zero's own"]
    assert {e.guild_id for e in owed} == {zero}
    assert all(e.attempts == 0 and e.last_error is None for e in owed)
    assert posted(shard_1.fake, ZERO) == []


async def test_one_process_may_hold_both_shards(tmp_path: Path) -> None:
    fake = two_shard_world()
    async with open_arena(tmp_path, fake=fake, shard_count=2) as both:
        assert fake.gateway.connected_shards() == {(0, 2), (1, 2)}
        for guild in (ZERO, ONE):
            created = await both.driver.slash(guild, "general", "alice", "campaign create",
                                              name=f"Both {guild}")
            assert not created.ephemeral and f"Both {guild}" in created.text()
        await bot_ready(both)
        assert "in 2 servers (every shard of 2)" in both.log_path.read_text(errors="replace")
