"""Nothing the bot owes is lost: Discord answering 5xx or 429, the bot killed, the gateway lost.

The report of a finished battle is the message that matters most. It is
owed in the transaction of the last confirmation and delivered by the
outbox (bot/outbox.py); here the fake Discord fails the report channel's
POSTs (``fake.fail_requests``), the bot is killed while the report is owed,
and the gateway drops in the middle of a sequence. Each time the report
arrives, exactly once, and the run records its id.

Its own module: one bot process (restarted here) and database.
"""

from __future__ import annotations

from typing import Any

from demo.arena import Arena
from fakediscord.entities import Message
from tests.e2e.postbattle_steps import (
    G,
    campaign_of_two,
    confirm,
    eventually,
    open_stage,
    start,
    submit,
    titled,
)
from tests.e2e.test_crash_resume import restart, stored, to_step


def reports(arena: Arena, first: str, second: str) -> list[Message]:
    return [m for m in titled(arena.driver.messages("campaign", guild=G), "Battle report")
            if f"{first} vs {second}" in m.embeds[0]["title"]]


def report_path(arena: Arena) -> str:
    return f"/channels/{arena.fake.channel('campaign', G).id}/messages"


async def to_last_step(arena: Arena, camp: str, first: str, second: str) -> Any:
    """A battle of bob's ``first`` against carol's ``second``, at Report Results with bob
    confirmed: carol's confirmation finishes it."""
    await campaign_of_two(arena, camp, first, second)
    _, thread = await start(arena, "bob", camp, first, first, second)
    await submit(arena, thread, first, "bob")
    await submit(arena, thread, second, "carol")
    await to_step(arena, thread, "Report Results", ["bob", "carol"])
    assert "Confirmed Report Results" in await confirm(arena, thread, "bob")
    return thread


async def delivered_once(arena: Arena, camp: str, first: str, second: str) -> Message:
    posted = await eventually(lambda: reports(arena, first, second), "the battle report")
    after = await stored(arena, camp)
    key = f"pb:{after.run.sequence.id}:report"
    assert after.pending() == [], after.pending()
    entry = next(e for e in after.owed if e.key == key)
    assert [m.id for m in posted] == [entry.message_id]
    assert after.run.report_message_id == entry.message_id
    return posted[0]


async def test_the_report_arrives_after_three_500s(arena: Arena) -> None:
    thread = await to_last_step(arena, "Five Hundred", "Tin Rats", "Rag Kings")
    fault = arena.fake.fail_requests("POST", report_path(arena), status=500, times=3)
    assert "That was the last step" in await confirm(arena, thread, "carol")
    report = await delivered_once(arena, "Five Hundred", "Tin Rats", "Rag Kings")
    assert len(fault.hits) == 3 and fault.remaining == 0
    assert "Tin Rats" in report.embed_text() and "Rag Kings" in report.embed_text()
    entry = next(e for e in (await stored(arena, "Five Hundred")).owed if e.key.endswith(
        ":report"))
    assert entry.attempts == 4  # three failures, then Discord took it


async def test_the_report_arrives_after_a_429(arena: Arena) -> None:
    thread = await to_last_step(arena, "Rate Limited", "Salt Eels", "Hob Knights")
    fault = arena.fake.fail_requests("POST", report_path(arena), status=429, retry_after=0.5)
    assert "That was the last step" in await confirm(arena, thread, "carol")
    await delivered_once(arena, "Rate Limited", "Salt Eels", "Hob Knights")
    assert len(fault.hits) == 1
    entry = next(e for e in (await stored(arena, "Rate Limited")).owed if e.key.endswith(
        ":report"))
    assert entry.attempts == 2
    # The outbox (not discord.py) read the 429 and waited for its retry_after.
    assert "not delivered (HTTP 429: You are being rate limited." in arena.log_tail(200)


async def test_the_report_owed_when_the_bot_is_killed_arrives_once_after_a_restart(
    arena: Arena,
) -> None:
    thread = await to_last_step(arena, "Killed Owing", "Moth Queens", "Iron Lice")
    fault = arena.fake.fail_requests("POST", report_path(arena), status=503, times=10_000)
    assert "That was the last step" in await confirm(arena, thread, "carol")
    await eventually(lambda: fault.hits, "a first attempt at the report")
    await arena.stop_bot(kill=True)  # killed while the report is owed
    owed = await stored(arena, "Killed Owing")
    assert owed.pending() == [f"pb:{owed.run.sequence.id}:report"]
    assert reports(arena, "Moth Queens", "Iron Lice") == []
    arena.fake.clear_faults()
    await restart(arena)
    await delivered_once(arena, "Killed Owing", "Moth Queens", "Iron Lice")


async def test_the_gateway_dropping_mid_sequence_is_survived(arena: Arena) -> None:
    camp = "Dropped Line"
    await campaign_of_two(arena, camp, "Wire Wolves", "Cinder Nuns")
    _, thread = await start(arena, "bob", camp, "Wire Wolves", "Wire Wolves", "Cinder Nuns")
    await submit(arena, thread, "Wire Wolves", "bob")
    await submit(arena, thread, "Cinder Nuns", "carol")
    wrap = await eventually(lambda: open_stage(arena, thread), "the Wrap-up")

    # Dropped while a click is on its way: the click is replayed when the bot resumes.
    resumes = arena.fake.gateway.resume_count
    await arena.fake.drop_gateway()
    click = await arena.driver.click(wrap, "Confirm", "bob")
    assert "Confirmed Wrap-up" in (await click.wait_followups(1))[-1].content
    assert arena.fake.gateway.resume_count > resumes

    # Dropped for good (the session is forgotten): the bot identifies again and goes on.
    identified = arena.fake.gateway.identify_count
    await arena.fake.drop_gateway(resumable=False)
    await arena.fake.world.notifier.wait_for(
        lambda: arena.fake.gateway.identify_count > identified
        and arena.fake.gateway.is_connected(), timeout=20.0, what="a new gateway session")
    assert "Next: Assign/Reassign Territory" in await confirm(arena, thread, "carol")
    await to_step(arena, thread, "Report Results", ["bob", "carol"])
    for player in ("bob", "carol"):
        await confirm(arena, thread, player)
    await delivered_once(arena, camp, "Wire Wolves", "Cinder Nuns")
    run = (await stored(arena, camp)).run
    assert run.phase == "finished" and len(run.stages) == 12
