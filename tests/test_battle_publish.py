"""Showing a stored decision (bot/battle/engine.show, bot/battle/publish.py): a click
whose decision owed no message does not look at the outbox; one that owed some
delivers them before it is answered. Real SQLite, the real outbox posting over HTTP
to the fake Discord.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from bot.battle import engine, flow, owed
from bot.battle.store import owes_messages
from bot.outbox import HttpSender, Outbox
from bot.shards import ShardSet
from bot.storage import OutboxEntry, Storage
from fakediscord import FakeDiscord
from tests.conftest import FAKE_TOKEN
from tests.test_battle_flow import ALICE, ARBITER, _battle, _campaign, _reported, _world

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
    await storage.owe_message(GUILD, "step 2", general.id, owed.body(content="step 2"))
    scans = count_scans(storage)
    # The click answered with its own message's edit: nothing is left to draw.
    await engine.show(cast(Any, bot), GUILD, engine.Stored(campaign, alice, world, 2),
                      except_stage=1)
    assert scans == [] and general.messages == []

    closing = flow.confirm(ARBITER, campaign, alice.run, world, 1, "g2", on_behalf=True)
    flow.open_next(closing, ARBITER, campaign, _battle(), world)
    assert owes_messages(closing) and closing.scene.owe_stages == [2]
    closing.scene.stages = []  # the edits of its posted messages are not checked here
    await engine.show(cast(Any, bot), GUILD, engine.Stored(campaign, closing, world, 3))
    assert scans == [GUILD]  # delivered before the click is answered
    assert [m.content for m in general.messages] == ["step 2"]
