"""End-to-end checks of the fake with a real, unmodified discord.py bot (no mocks)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from fakediscord import (
    BotResponseError,
    CommandInputError,
    Driver,
    FakeDiscord,
    WaitTimeout,
)
from tests.fakediscord.conftest import start_bot
from tests.fakediscord.sample_bot import SampleBot

ROOT = Path(__file__).resolve().parents[2]


async def test_ready_and_command_sync(fake: FakeDiscord, bot: SampleBot) -> None:
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    global_names = {c["name"] for c in fake.commands.list_scope(None)}
    assert {"ping", "campaign", "panel", "register", "slow", "battle"} <= global_names
    hive = fake.guild("Underhive")
    assert [c["name"] for c in fake.commands.list_scope(hive.id)] == ["purge"]
    campaign = fake.commands.find(hive.id, "campaign")
    assert campaign is not None and campaign["id"].isdigit()
    group = campaign["options"][0]
    assert (group["name"], group["type"], group["options"][0]["name"]) == ("territory", 2, "add")
    # The bot's cache was filled from GUILD_CREATE.
    assert {g.name for g in bot.guilds} == {"Underhive", "Spire"}
    assert fake.gateway.identify_count == 1


async def test_slash_command_response(driver: Driver) -> None:
    result = await driver.slash("Underhive", "general", "alice", "ping")
    assert result.kind == "CHANNEL_MESSAGE"
    assert result.content == "pong"
    assert result.embed is not None and result.embed["title"] == "Pong!"
    assert not result.ephemeral
    assert result.latency is not None and 0 < result.latency < 2
    assert driver.last_message("general", guild="Underhive") is result.message


async def test_ephemeral_flag(fake: FakeDiscord, driver: Driver) -> None:
    result = await driver.slash("Underhive", "general", "bob", "ping", hidden=True)
    assert result.ephemeral
    assert result.message is not None and result.message.flags & 64
    assert result.message.ephemeral_to is fake.user("bob")
    # Ephemeral messages are not part of the channel history the bot can fetch.
    assert driver.messages("general", guild="Underhive", include_ephemeral=False) == []


async def test_subcommand_group_and_autocomplete(driver: Driver) -> None:
    choices = await driver.autocomplete(
        "Underhive", "general", "bob", "campaign territory add", focused="name", name="sl"
    )
    assert [c.name for c in choices] == ["Sludge Sea", "Slag Furnace"]
    assert choices[0].value == "Sludge Sea"
    result = await driver.slash(
        "Underhive", "general", "bob", "campaign territory add", name="Tunnels", holder="carol"
    )
    assert result.content == "Added Tunnels worth 10 held by Carol"


async def test_driver_validates_against_schema(driver: Driver) -> None:
    with pytest.raises(CommandInputError, match="missing required option 'name'"):
        await driver.slash("Underhive", "general", "bob", "campaign territory add")
    with pytest.raises(CommandInputError, match=r"outside 0\.\.100"):
        await driver.slash(
            "Underhive", "general", "bob", "campaign territory add", name="x", value=500
        )
    with pytest.raises(CommandInputError, match="is a group"):
        await driver.slash("Underhive", "general", "bob", "campaign territory")
    with pytest.raises(CommandInputError, match="lacks permissions"):
        await driver.slash("Underhive", "general", "bob", "purge")
    result = await driver.slash("Underhive", "general", "carol", "purge")  # carol is Arbitrator
    assert result.content == "purged" and result.ephemeral


async def test_button_click_updates_message(driver: Driver) -> None:
    panel = await driver.slash("Underhive", "general", "bob", "panel")
    assert [b["label"] for b in panel.message.buttons] == ["Undo", "Count 0"]  # type: ignore[union-attr]
    clicked = await driver.click(panel, "counter:0", "alice")
    assert clicked.kind == "UPDATE_MESSAGE"
    assert clicked.message is panel.message
    assert panel.content == "count is 1"
    # DynamicItem re-dispatch works from the new custom_id, found here by label.
    await driver.click(panel, "Count 1", "carol")
    assert panel.content == "count is 2"
    with pytest.raises(CommandInputError, match="disabled"):
        await driver.click(panel, "Undo", "alice")


async def test_select_values_arrive(driver: Driver) -> None:
    panel = await driver.slash("Underhive", "general", "bob", "panel")
    result = await driver.select(panel, "panel:gang", ["ash", "Iron Fangs"], "carol")
    assert result.content == "picked ash,iron"
    with pytest.raises(CommandInputError, match="no option"):
        await driver.select(panel, "panel:gang", ["nope"], "carol")


async def test_modal_submit(driver: Driver) -> None:
    opened = await driver.slash("Underhive", "general", "bob", "register")
    assert opened.kind == "MODAL" and opened.modal is not None
    assert opened.modal["title"] == "Register gang"
    submitted = await driver.submit_modal(
        opened, {"Gang name": "Ash Wolves", "motto": "Burn it", "house": "Escher"}
    )
    assert submitted.content == "Registered Ash Wolves of escher (Burn it)"
    with pytest.raises(CommandInputError, match="required"):
        await driver.submit_modal(opened, {"motto": "x"})


async def test_defer_then_followups(driver: Driver) -> None:
    result = await driver.slash("Underhive", "general", "bob", "slow")
    assert result.kind == "DEFERRED_CHANNEL_MESSAGE"
    # The first follow-up replaced the "thinking" placeholder.
    assert result.content == "done slowly" and not result.message.loading  # type: ignore[union-attr]
    followups = await result.wait_followups(2)
    assert [(m.content, m.ephemeral) for m in followups] == [
        ("done slowly", False),
        ("psst, a second follow-up", True),
    ]


async def test_gateway_drop_is_resumed(fake: FakeDiscord, bot: SampleBot, driver: Driver) -> None:
    await driver.slash("Underhive", "general", "alice", "ping")
    assert await fake.drop_gateway() == 1
    # Dispatched while the socket is down: must be replayed on RESUME.
    during = asyncio.create_task(driver.slash("Underhive", "general", "bob", "ping"))
    await fake.wait_until_connected(min_resumes=1)
    await asyncio.wait_for(bot.resumed.wait(), 5)
    assert (await during).content == "pong"
    after = await driver.slash("Underhive", "general", "carol", "ping")
    assert after.content == "pong"
    assert fake.gateway.identify_count == 1


async def test_reconnect_opcode_resumes(fake: FakeDiscord, bot: SampleBot, driver: Driver) -> None:
    await fake.send_reconnect()
    await fake.wait_until_connected(min_resumes=1)
    assert (await driver.slash("Underhive", "general", "alice", "ping")).content == "pong"


async def test_direct_messages(driver: Driver) -> None:
    result = await driver.slash("Underhive", "general", "bob", "whisper", text="hello")
    assert result.ephemeral
    (dm,) = driver.messages(driver.dm_channel("bob"))
    assert dm.content == "whispered: hello"


async def test_invalidated_session_reidentifies(fake: FakeDiscord, driver: Driver) -> None:
    await fake.drop_gateway(resumable=False)
    await fake.wait_until_connected()
    await fake.world.notifier.wait_for(
        lambda: fake.gateway.identify_count == 2, timeout=5, what="a second IDENTIFY"
    )
    assert (await driver.slash("Underhive", "general", "alice", "ping")).content == "pong"


async def test_threads_and_transcript(fake: FakeDiscord, driver: Driver) -> None:
    battle = await driver.slash("Underhive", "campaign", "alice", "battle", title="Ambush")
    await battle.wait_followups(1)
    (thread,) = driver.threads("campaign", guild="Underhive")
    assert thread.id == battle.message.id  # type: ignore[union-attr]
    assert [m.content for m in thread.messages] == ["Roll for priority!"]

    await driver.slash("Underhive", "general", "alice", "ping")
    await driver.slash("Underhive", "general", "bob", "panel")
    await driver.slash("Underhive", "general", "bob", "ping", hidden=True)
    general = driver.transcript("general", guild="Underhive")
    assert "**Pong!**" in general
    assert "[Undo (disabled)] [Count 0]" in general
    assert "<select 'Pick gangs': Ash Wolves | Iron Fangs | Sump Rats (choose 1-2)>" in general
    assert "> Alice used /ping" in general
    assert "[ephemeral, only Bob sees this]: pong" in general
    campaign = fake.transcript("campaign", "Underhive")
    assert "thread 'Ambush'" in campaign and "Roll for priority!" in campaign


async def test_unanswered_interaction_times_out_clearly(driver: Driver) -> None:
    with pytest.raises(WaitTimeout, match=r"/ignore.*never answered"):
        await driver.slash("Underhive", "general", "alice", "ignore", timeout=0.3)


async def test_late_acknowledgement_is_rejected(fake: FakeDiscord, driver: Driver) -> None:
    fake.interactions.deadline = 0.0  # as if the handler had taken longer than 3 seconds
    with pytest.raises(BotResponseError, match="Unknown interaction"):
        await driver.slash("Underhive", "general", "alice", "ping")


async def test_second_bot_instance_after_restart(fake: FakeDiscord, bot: SampleBot) -> None:
    """A restarted bot re-syncs commands and keeps persistent views working."""
    driver = fake.driver()
    panel = await driver.slash("Underhive", "general", "bob", "panel")
    await bot.close()
    restarted = SampleBot(admin_guild_id=fake.guild("Underhive").id)
    task = await start_bot(fake, restarted)
    try:
        await driver.click(panel, "Count 0", "bob")
        assert panel.content == "count is 1"
    finally:
        await restarted.close()
        await asyncio.wait_for(task, 5)


async def test_out_of_process_bot(fake: FakeDiscord) -> None:
    env = {**os.environ, "FAKE_DISCORD_URL": fake.base_url}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.fakediscord.bot_process",
        str(fake.guild("Underhive").id),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        waiting = asyncio.create_task(fake.wait_until_ready(timeout=20))
        exited = asyncio.create_task(proc.wait())
        done, _ = await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            waiting.cancel()
            stderr = await proc.stderr.read() if proc.stderr else b""
            pytest.fail(f"bot process exited early: {stderr.decode()[-2000:]}")
        exited.cancel()
        driver = fake.driver()
        result = await driver.slash("Spire", "general", "dave", "ping")
        assert result.content == "pong"
        panel = await driver.slash("Spire", "general", "bob", "panel")
        await driver.click(panel, "Count 0", "bob")
        assert panel.content == "count is 1"
    finally:
        if proc.returncode is None:
            proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)
    assert proc.returncode == 0
