"""What ``/postbattle start`` costs the database (docs/benchmarks.md): the command run
whole, through its cog, with a real discord.py interaction answered by the fake Discord
and the panels it owes delivered by the real outbox. On PostgreSQL each asyncpg call is
a round trip to the server (the ``pg_trips`` fixture); on SQLite each call queued to an
aiosqlite thread is one (``trips``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import discord
import pytest

from bot.battle import flow
from bot.battle.start_index import index_of
from bot.battle.state import Phase, PostBattleRun
from bot.errors import Refused
from bot.outbox import HttpSender, Outbox
from bot.storage import Storage
from cogs.postbattle import PostBattleCog
from fakediscord import FakeDiscord, point_discord_py_at
from fakediscord.common import InteractionType
from rules.errors import NotFound
from rules.models import Battle, CampaignSettings, FighterCategory
from tests import factories as f
from tests.conftest import FAKE_TOKEN
from tests.test_battle_flow import ALICE


class StartingClient(discord.Client):
    """A real discord.py client, logged in to the fake Discord over HTTP, with what
    ``/postbattle start`` uses of the bot: its storage and its outbox."""

    def __init__(self, storage: Storage, outbox: Outbox) -> None:
        super().__init__(intents=discord.Intents(guilds=True),
                         allowed_mentions=discord.AllowedMentions.none())
        self.storage = storage
        self.outbox = outbox


@pytest.fixture
async def client(storage: Storage, fake: FakeDiscord) -> AsyncIterator[StartingClient]:
    restore = point_discord_py_at(fake.base_url)
    worker = Outbox(storage, HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN, timeout=5.0))
    started = StartingClient(storage, worker)
    try:
        await started.login(FAKE_TOKEN)
        yield started
    finally:
        await worker.stop()
        await started.close()
        restore()


async def _campaign_of_two(storage: Storage, guild: int, *, battles: int) -> str:
    """A campaign with two gangs (alice's and bob's), a Territory, and ``battles`` earlier
    battles between them whose runs are stored and over."""
    campaign = await storage.write(guild).create_campaign(CampaignSettings(name="Underhive"))
    alice, bob = "100", "200"
    for name, owner, gang_id in (("Ash Wolves", alice, "g1"), ("Iron Fangs", bob, "g2")):
        fighters = [f.fighter(f"{name} {n}", FighterCategory.GANGER) for n in range(3)]
        await storage.write(guild).create_gang(
            campaign.id, f.gang(name, fighters=fighters, id=gang_id, owner=owner), actor=owner)
    await storage.write(guild).add_territory(campaign.id, f.territory("Old Ruins"), actor=alice)
    for n in range(battles):
        async with storage.transaction(guild) as tx:
            battle = await tx.create_battle(campaign.id, Battle(
                id=f"old{n}", gang_ids=["g1", "g2"], winner="g1", campaign=True))
            world = await tx.load_world(campaign.id, battle.gang_ids)
            run = flow.new_run(ALICE, campaign, battle, world, skirmish=False,
                               sequence_id=f"s{n}", channel_id=5)
            run.phase = Phase.CANCELLED
            await tx.save_sequence(campaign.id, run.key, run, battle_id=battle.id)
    return campaign.id


def _interaction(client: StartingClient, fake: FakeDiscord) -> discord.Interaction[Any]:
    general = fake.channel("general", "Underhive")
    record = fake.interactions.create(
        InteractionType.APPLICATION_COMMAND, fake.user("alice"), general,
        {"id": "1", "name": "postbattle", "type": 1}, label="/postbattle start",
        command_name="postbattle start")
    return discord.Interaction(data=cast(Any, record.payload), state=client._connection)


# The command's own round trips on PostgreSQL: BEGIN, the campaign found and claimed, one
# read of everything the start checks and stores from, the new battle and run sent with
# COMMIT (two trips), then, once the thread is open, the run saved with its report panels
# owed in one statement. A battle recorded with /prebattle is updated and its run saved
# in two statements before COMMIT: one more. On SQLite: the write transaction run whole
# on the database thread, and that last write made at once.
START_TRIPS = {("sqlite", False): 2, ("sqlite", True): 2,
               ("postgresql", False): 6, ("postgresql", True): 7}


def _counting_until_delivery(client: StartingClient, made: list[Any]) -> list[int]:
    """How many trips were made when the outbox was first asked to deliver (a spy on the
    real outbox's ``flush``): what is left is the outbox's own work."""
    marks: list[int] = []
    flush = client.outbox.flush

    async def counted(guild_id: int | None = None) -> None:
        marks.append(len(made))
        await flush(guild_id)

    client.outbox.flush = counted  # type: ignore[method-assign]
    return marks


@pytest.mark.parametrize("recorded", [False, True], ids=["gangs named", "battle recorded"])
async def test_postbattle_start_reads_once_and_writes_twice(
    storage: Storage, client: StartingClient, fake: FakeDiscord, trips: list[int],
    pg_trips: list[str], recorded: bool,
) -> None:
    guild = fake.guild("Underhive").id
    campaign_id = await _campaign_of_two(storage, guild, battles=4)
    if recorded:  # as /prebattle records it
        await storage.write(guild).create_battle(campaign_id, Battle(
            id="pre1", gang_ids=["g1", "g2"], scenario="Border Dispute"))
    await index_of(storage).read(guild)  # current: no read of its own in the background
    cog = PostBattleCog(cast(Any, client))
    interaction = _interaction(client, fake)
    made: list[Any] = trips if storage.driver == "sqlite" else pg_trips
    delivering = _counting_until_delivery(client, made)

    made.clear()
    named = {"battle": "pre1"} if recorded else {"gang1": "Ash Wolves", "gang2": "Iron Fangs"}
    await PostBattleCog.start.callback(  # type: ignore[call-arg]
        cog, interaction, winner="Ash Wolves", territory="Old Ruins", **named)
    assert delivering, "the panels owed were never delivered"
    assert delivering[0] <= START_TRIPS[storage.driver, recorded], "\n".join(map(str, made))

    async with storage.read_only(guild) as tx:
        runs = [r for r in await tx.load_sequences(campaign_id, PostBattleRun, "")
                if r.in_progress]
        [run] = runs
        battle = await tx.get_battle(campaign_id, run.battle_id)
    general = fake.channel("general", "Underhive")
    assert run.thread_id is not None and run.channel_id == general.id
    assert battle.gang_ids == ["g1", "g2"] and battle.winner == "g1"
    assert battle.staked_territory is not None and battle.id == ("pre1" if recorded
                                                                 else run.battle_id)
    thread = fake.channel(run.thread_id)
    panels = [m for m in thread.messages if m.embeds]
    assert len(panels) == 2  # one report panel per gang, delivered into the thread


async def test_a_refused_start_stores_nothing_and_reads_once(
    storage: Storage, client: StartingClient, fake: FakeDiscord, trips: list[int],
    pg_trips: list[str],
) -> None:
    guild = fake.guild("Underhive").id
    campaign_id = await _campaign_of_two(storage, guild, battles=2)
    cog = PostBattleCog(cast(Any, client))
    before = await storage.read(guild).list_battles(campaign_id)

    with pytest.raises(NotFound, match=r"no gang called 'Iron Fang'.*Iron Fangs"):
        await PostBattleCog.start.callback(  # type: ignore[call-arg]
            cog, _interaction(client, fake), winner="draw", gang1="Ash Wolves",
            gang2="Iron Fang")
    await PostBattleCog.start.callback(  # type: ignore[call-arg]
        cog, _interaction(client, fake), winner="draw", gang1="Ash Wolves", gang2="Iron Fangs")
    made: list[Any] = trips if storage.driver == "sqlite" else pg_trips
    await index_of(storage).read(guild)
    made.clear()
    with pytest.raises(Refused, match="Iron Fangs is already in a post-battle sequence"):
        await PostBattleCog.start.callback(  # type: ignore[call-arg]
            cog, _interaction(client, fake), winner="draw", gang1="Iron Fangs",
            gang2="Ash Wolves")
    # Refused from the one read: BEGIN, the claim, the read, ROLLBACK on PostgreSQL.
    assert len(made) <= {"sqlite": 1, "postgresql": 4}[storage.driver], made
    after = await storage.read(guild).list_battles(campaign_id)
    assert len(after) == len(before) + 1  # the one start that passed
