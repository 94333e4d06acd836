"""Showing a stored decision (bot/battle/engine.show, bot/battle/publish.py): a click
whose decision owed no message does not look at the outbox; one that owed some
delivers them before it is answered. Real SQLite, the real outbox posting over HTTP
to the fake Discord.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import discord
import pytest
from discord.http import handle_message_parameters

from bot.battle import engine, flow, owed, publish, views
from bot.battle.panel import ReportEdit
from bot.battle.store import load_run, owes_messages, store_decision
from bot.outbox import Accepted, HttpSender, Outbox
from bot.shards import ShardSet
from bot.storage import OutboxEntry, Storage
from fakediscord import FakeDiscord, point_discord_py_at, store
from rules.models import CampaignSettings
from tests.conftest import FAKE_TOKEN
from tests.test_battle_flow import ALICE, ARBITER, BOB, _battle, _campaign, _reported, _world

GUILD = 1001


class Bot:
    """What showing a decision uses of the bot: its storage and its outbox."""

    def __init__(self, storage: Storage, outbox: Outbox) -> None:
        self.storage = storage
        self.outbox = outbox


@pytest.fixture
async def bot(storage: Storage, fake: FakeDiscord) -> AsyncIterator[Bot]:
    worker = Outbox(storage, HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN, timeout=5.0))
    try:
        yield Bot(storage, worker)
    finally:
        await worker.stop()


def count_scans(storage: Storage) -> list[int | None]:
    """Count the looks at the outbox table (a spy on the real storage's method)."""
    scans: list[int | None] = []
    scan = storage.undelivered_messages

    async def counted(limit: int = 500, *, guild_id: int | None = None,
                      shards: ShardSet | None = None) -> list[OutboxEntry]:
        scans.append(guild_id)
        return await scan(limit, guild_id=guild_id, shards=shards)

    storage.undelivered_messages = counted  # type: ignore[method-assign]
    return scans


async def test_a_confirmation_that_owes_nothing_leaves_the_outbox_alone_a_closing_one_delivers(
    storage: Storage, bot: Bot, fake: FakeDiscord
) -> None:
    campaign, world = _campaign(), _world()
    general = fake.channel("general", "Underhive")
    alice = flow.confirm(ALICE, campaign, _reported(), world, 1)
    assert not owes_messages(alice)
    # Something of the server is owed: the outbox loop's to deliver, not this click's.
    await storage.write(GUILD).owe_message("step 2", general.id, owed.body(content="step 2"))
    scans = count_scans(storage)
    # The click answered with its own message's edit: nothing is left to draw.
    await engine.show(cast(Any, bot), GUILD, engine.StoredDecision(campaign, alice, world, 2),
                      except_stage=1)
    assert scans == [] and general.messages == []

    closing = flow.confirm(ARBITER, campaign, alice.run, world, 1, "g2", on_behalf=True)
    flow.open_next(closing, ARBITER, campaign, _battle(), world)
    assert owes_messages(closing) and closing.scene.owe_stages == [2]
    closing.scene.stages = []  # the edits of its posted messages are not checked here
    await engine.show(cast(Any, bot), GUILD, engine.StoredDecision(campaign, closing, world, 3))
    assert scans == [GUILD]  # delivered before the click is answered
    assert [m.content for m in general.messages] == ["step 2"]


class DrawingClient(discord.Client):
    """A real discord.py client, logged in to the fake Discord, with the bot's storage."""

    def __init__(self, storage: Storage) -> None:
        super().__init__(intents=discord.Intents(guilds=True),
                         allowed_mentions=discord.AllowedMentions.none())
        self.storage = storage


@pytest.fixture
async def drawing_client(storage: Storage, fake: FakeDiscord) -> AsyncIterator[DrawingClient]:
    restore = point_discord_py_at(fake.base_url)
    client = DrawingClient(storage)
    try:
        await client.login(FAKE_TOKEN)
        yield client
    finally:
        await client.close()
        restore()


async def test_a_drawing_edits_and_posts_again_its_messages_and_keeps_no_view(
    drawing_client: DrawingClient, storage: Storage, fake: FakeDiscord
) -> None:
    general = fake.channel("general", "Underhive")
    guild = general.guild_id  # the fake's own server: new at each test
    assert guild is not None
    campaign = await storage.write(guild).create_campaign(CampaignSettings(name="Underhive"))
    world, run = _world(), _reported()
    run.thread_id = general.id
    posted = await drawing_client.http.send_message(
        general.id, params=handle_message_parameters(content="Wrap-up, as owed"))
    record = run.stages[0]
    record.message_ids = [int(posted["id"])]
    async with storage.transaction(guild) as tx:
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)

    await publish.draw(cast(Any, drawing_client),
                       publish.Drawing(guild, campaign, run, world, revision=1, stages=[1]))
    [shown] = general.messages
    assert shown.embeds and "Wrap-up" in shown.embed_text()
    confirm = views.CONFIRM.custom_id(run.campaign_id, run.battle_id, 1)
    assert confirm in str(shown.components)
    # The buttons are routed by custom id: discord.py keeps no view for the message.
    assert not drawing_client.persistent_views

    store.delete_message(fake.world, shown)  # someone deleted the step's message
    await publish.draw(cast(Any, drawing_client),
                       publish.Drawing(guild, campaign, run, world, revision=2, stages=[1]))
    [again] = [m for m in general.messages if not m.deleted]
    assert again.id != shown.id and record.message_ids == [again.id]
    async with storage.read_only(guild) as tx:
        kept = await load_run(tx, campaign.id, run.battle_id)
    assert kept is not None and kept.stages[0].message_ids == [again.id]  # edited from now on
    assert confirm in str(again.components) and "Wrap-up" in again.embed_text()
    assert not drawing_client.persistent_views


async def test_a_panel_delivered_after_a_select_was_stored_on_it_is_drawn_with_the_select(
    drawing_client: DrawingClient, storage: Storage, fake: FakeDiscord
) -> None:
    """The player sees a report panel as soon as Discord posts it, before the outbox has
    stored its message id: a select made then is decided from the run without that id,
    so its own drawing has nothing to edit. Its panel's delivery, recorded over the
    select's revision, must draw it, even though the select is not yet shown (its click
    still waiting for Discord's answer) when that delivery's hook runs."""
    general = fake.channel("general", "Underhive")
    guild = general.guild_id
    assert guild is not None
    campaign = await storage.write(guild).create_campaign(CampaignSettings(name="Underhive"))
    world = _world()
    for gang in world.gangs.values():
        await storage.write(guild).create_gang(campaign.id, gang, actor="10")
    battle = await storage.write(guild).create_battle(campaign.id, _battle())
    run = flow.new_run(ALICE, campaign, battle, world, skirmish=False, sequence_id="s1",
                       channel_id=general.id)
    async with storage.transaction(guild) as tx:  # the start: the run and its panels owed
        started = await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
        await owed.owe_panels(tx, campaign, run, world, revision=started)
    drawing_client.outbox = Outbox(  # type: ignore[attr-defined]
        storage, HttpSender(lambda: fake.base_url, lambda: FAKE_TOKEN, timeout=5.0))
    publish.use_outbox(cast(Any, drawing_client))
    await publish.publish(cast(Any, drawing_client), guild, campaign, run, world,
                          flow.Scene(), revision=started, owes=False)

    select = flow.edit_report(BOB, campaign, run, world, 1, ReportEdit(kind="section",
                                                                       section="ooa"))
    stored = await store_decision(storage, guild, campaign, select, started, actor="20",
                                  world=world)
    await drawing_client.outbox.flush(guild)  # type: ignore[attr-defined]
    await engine.show(cast(Any, drawing_client), guild,
                      engine.StoredDecision(campaign, select, world, stored))

    panels = {m.id: m for m in general.messages if not m.deleted}
    async with storage.read_only(guild) as tx:
        kept = await load_run(tx, campaign.id, run.battle_id)
    assert kept is not None
    bobs = panels[kept.reports["g2"].message_id or 0]
    assert ":ooa:0" in str(bobs.components), bobs.components
    await drawing_client.outbox.stop()  # type: ignore[attr-defined]


def _delivered_row(pk: int, **link: Any) -> tuple[OutboxEntry, Accepted]:
    entry = OutboxEntry(
        id=pk, guild_id=1, key=f"k{pk}", channel_id=10, payload={}, nonce="n",
        created_at="2026-01-01T00:00:00+00:00", due_at=0.0,
        link={"kind": owed.OUTBOX_KIND, "campaign": "c", "battle": "b", "sequence": "s",
              **link})
    return entry, Accepted(message_id=500 + pk, channel_id=10)


def test_several_deliveries_of_one_run_are_one_update_unless_two_pages_of_one_step() -> None:
    panels = owed.delivery_statements_many([_delivered_row(1, what="panel", gang="g1"),
                                            _delivered_row(2, what="panel", gang="g2")])
    assert panels is not None
    statements, of_each = panels
    assert len(statements) == 1 and of_each == [[0], [0]]
    assert 501 in statements[0].params and 502 in statements[0].params
    notice_and_page = owed.delivery_statements_many([
        _delivered_row(3, what="notice"), _delivered_row(4, what="stage", stage=2, page=0)])
    assert notice_and_page is not None and notice_and_page[1] == [[], [0]]
    # PostgreSQL's json_set checks each index against the stored array: not together.
    assert owed.delivery_statements_many([
        _delivered_row(5, what="stage", stage=2, page=0),
        _delivered_row(6, what="stage", stage=2, page=1)]) is None
