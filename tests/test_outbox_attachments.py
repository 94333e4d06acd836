"""Files sent with an outbox row (bot/outbox.py): made at send time from what the row's
link names, sent as multipart to the fake Discord over real HTTP, on a real SQLite file.

The row stays exactly-once with files: retries carry the same nonce and files,
and a message whose files cannot be made, or are refused, still goes, without
them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest

from bot.outbox import Outbox, OutgoingFile
from bot.storage import OutboxEntry, Storage
from fakediscord import FakeDiscord
from fakediscord.entities import Message
from tests.test_outbox import GUILD, channel_id, drain, outbox, posted, text

__all__ = ["outbox"]  # a fixture (the fake Discord is tests/conftest.py's)

PICTURES = {"pictures": {"what": "two pages"}}


class Pages:
    """An attachment maker that gives ``count`` small files (and counts its calls)."""

    def __init__(self, count: int = 2) -> None:
        self.count = count
        self.made: list[str] = []

    async def __call__(self, entry: OutboxEntry) -> Sequence[OutgoingFile]:
        self.made.append(entry.key)
        return [OutgoingFile(f"page-{n}.png", f"{entry.key} {n}".encode())
                for n in range(1, self.count + 1)]


async def test_a_row_naming_pictures_is_posted_once_with_its_files(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    pages = Pages()
    outbox.on_attachments(pages)
    campaign = channel_id(fake, "campaign")
    fault = fake.fail_requests("POST", f"/channels/{campaign}/messages", status=502, times=2)
    entry = await storage.write(GUILD).owe_message("report", campaign, text("Battle report"),
                                      link=PICTURES)
    await storage.write(GUILD).owe_message("plain", campaign, text("no pictures"))
    await drain(outbox)

    assert len(fault.hits) == 2
    report, plain = posted(fake, "campaign")
    assert report.content == "Battle report"
    assert [(a.filename, a.data) for a in report.attachments] == [
        ("page-1.png", b"report 1"), ("page-2.png", b"report 2")]
    assert report.extra.get("nonce") == entry.nonce  # the retries kept the row's nonce
    assert plain.attachments == []
    # Made at each attempt (three), and only for the row that names pictures.
    assert pages.made == ["report"] * 3
    delivered = await storage.read(GUILD).owed_message("report")
    assert delivered is not None and delivered.message_id == report.id


async def test_an_answer_lost_after_the_files_went_posts_nothing_new(
    storage: Storage, outbox: Outbox, fake: FakeDiscord
) -> None:
    outbox.on_attachments(Pages())
    general = channel_id(fake, "general")
    entry = await storage.write(GUILD).owe_message("report", general, text("Battle report"),
                                      link=PICTURES)
    # As if an attempt had reached Discord with its files and its answer had been lost.
    earlier = await outbox.sender.send(general, {**entry.payload, "nonce": entry.nonce,
                                                 "enforce_nonce": True},
                                       await Pages()(entry))
    await drain(outbox)
    [message] = posted(fake, "general")
    assert message.id == earlier.message_id and len(message.attachments) == 2


async def _sent_without_files(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> Message:
    """Owe a report with pictures, deliver it, and check it went out as text alone."""
    general = channel_id(fake, "general")
    await storage.write(GUILD).owe_message("report", general, text("Battle report"), link=PICTURES)
    with caplog.at_level(logging.ERROR, logger="bot.outbox"):
        await drain(outbox)
    [message] = posted(fake, "general")
    assert message.content == "Battle report" and message.attachments == []
    return message


async def test_files_that_cannot_be_made_never_cost_the_message(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(entry: OutboxEntry) -> Sequence[OutgoingFile]:
        raise RuntimeError("the drawing failed")

    outbox.on_attachments(broken)
    await _sent_without_files(storage, outbox, fake, caplog)
    assert "the files of report could not be made" in caplog.text
    assert "the drawing failed" in caplog.text


async def test_files_discord_refuses_are_dropped_and_the_message_sent_once(
    storage: Storage, outbox: Outbox, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    outbox.on_attachments(Pages(count=11))  # one more than Discord takes
    message = await _sent_without_files(storage, outbox, fake, caplog)
    assert "refused the files of report" in caplog.text
    delivered = await storage.read(GUILD).owed_message("report")
    assert delivered is not None and delivered.message_id == message.id
    assert delivered.failed_at is None
