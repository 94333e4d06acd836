"""Every attempt of an outbox row carries the row's nonce, retries included.

The nonce is what makes a retry safe when an earlier attempt reached Discord
but its answer was lost; a retry without it would post the message twice. The
worker runs on a real SQLite file and posts over real HTTP to the project's
fake Discord, whose injected 5xx answers make the retries.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.fakediscord import FakeDiscord
from bot.outbox import HttpSender, Outbox
from bot.storage import Storage
from tests.test_outbox import FAST, GUILD, TOKEN, channel_id, drain, posted, text


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    discord = FakeDiscord.demo(token=TOKEN)
    await discord.start()
    try:
        yield discord
    finally:
        await discord.stop()


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(tmp_path / "outbox.sqlite3")
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def outbox(storage: Storage, fake: FakeDiscord) -> AsyncIterator[Outbox]:
    worker = Outbox(storage, HttpSender(lambda: fake.base_url, lambda: TOKEN, timeout=5.0),
                    policy=FAST)
    try:
        yield worker
    finally:
        await worker.stop()


async def test_the_retry_after_a_5xx_carries_the_rows_nonce(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    campaign = channel_id(fake, "campaign")
    fault = fake.fail_requests("POST", f"/channels/{campaign}/messages", status=502, times=2)
    entry = await storage.owe_message(GUILD, "report", campaign, text("Battle report"))
    await drain(outbox)
    assert len(fault.hits) == 2
    [message] = posted(fake, "campaign")
    # What reached Discord on the third attempt: the row's own nonce, enforced.
    assert message.extra.get("nonce") == entry.nonce
    assert message.extra.get("enforce_nonce") is True
    delivered = await storage.owed_message(GUILD, "report")
    assert delivered is not None and delivered.attempts == 3
    assert delivered.message_id == message.id


async def test_an_answer_lost_on_a_retry_posts_nothing_new(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    general = channel_id(fake, "general")
    fake.fail_requests("POST", f"/channels/{general}/messages", status=500)
    entry = await storage.owe_message(GUILD, "report", general, text("Battle report"))
    assert await outbox.deliver_due() is not None  # the first attempt: a 500, nothing made
    assert posted(fake, "general") == []
    # As if the second attempt had reached Discord and its answer had been lost: the
    # message exists, and the row is still owed.
    sender = HttpSender(lambda: fake.base_url, lambda: TOKEN)
    try:
        earlier = await sender.send(general, {**entry.payload, "nonce": entry.nonce,
                                              "enforce_nonce": True})
    finally:
        await sender.close()
    await drain(outbox)
    assert [m.id for m in posted(fake, "general")] == [earlier.message_id]
    delivered = await storage.owed_message(GUILD, "report")
    assert delivered is not None and delivered.message_id == earlier.message_id
    assert delivered.attempts == 2
