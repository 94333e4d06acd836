"""Two real bot processes as shards 0 and 1 of 2 on one PostgreSQL database.

One fake Discord routes each server to its shard as Discord does. Each process
plays a post-battle sequence in its own server; the shard-1 process is killed
(SIGKILL, by a failpoint) right after a confirmation is stored and before the
next step is shown, so that step is a message owed in the shared outbox. The
shard-0 process goes on meanwhile and finishes its sequence; the shard-1
process is started again and finishes its own. Then nothing may be lost or
doubled: each step's message once in each thread, each report once in each
report channel, no action of either battle stored twice, and each gang's
credits what its ledger says.

A third process for shard 1 of 2 (and one for shard 3 of 4, which shares its
servers) is refused while shard 1's runs, which keeps answering.

The database is a fresh one on the tests' PostgreSQL server (tests/conftest.py):
skipped without a server, failed under CI.
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest_asyncio

from bot import failpoints
from bot.battle.state import PostBattleRun
from bot.storage import ActionRecord, LedgerEvent
from bot.storage.opening import open_storage
from bot.storage.postgres import SHARD_LOCKS
from demo.arena import TOKEN, Arena
from fakediscord import Channel, FakeDiscord, Perm, guild_id_on_shard
from fakediscord.entities import Message
from tests.e2e.postbattle_steps import STEPS
from tests.e2e.processes import Finished, bot_command

ZERO, ONE = "Hive Zero", "Hive One"
CH = "general"
PLAYERS = ["bob", "carol"]
# The step whose closing confirmation kills the shard-1 process (the next one is owed).
KILLED_AT = "Receive Rewards"
STARTING_CREDITS = 100
TERRITORY = "Old Ruins"
RESUMED_LINE = "post-battle sequences checked at start-up"


def two_hives() -> FakeDiscord:
    fake = FakeDiscord(token=TOKEN)
    alice = fake.add_user("alice", global_name="Alice")
    bob = fake.add_user("bob", global_name="Bob")
    carol = fake.add_user("carol", global_name="Carol")
    for shard, name in ((0, ZERO), (1, ONE)):
        guild = fake.add_guild(name, owner=alice, guild_id=guild_id_on_shard(shard, 2))
        admin = guild.add_role("Arbitrator", Perm.ADMINISTRATOR)
        guild.add_text_channel(CH)
        guild.add_text_channel("campaign")
        guild.add_member(bob)
        guild.add_member(carol, roles=[admin])
    return fake


async def eventually(check: Any, what: str, arena: Arena, timeout: float = 15.0) -> Any:
    """Poll ``check()`` until it returns something truthy; on a timeout, the bot's log."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (found := check()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{arena.log_tail(60)}")
        await asyncio.sleep(0.05)
    return found


async def eventually_async(
    read: Callable[[], Awaitable[Any]], wanted: Any, what: str, timeout: float = 15.0,
) -> None:
    """Read until ``read()`` gives ``wanted`` (a server notices a dead client soon, not at
    once)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while (found := await read()) != wanted:
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {found!r}")
        await asyncio.sleep(0.05)


def titled(messages: list[Message], part: str) -> list[Message]:
    return [m for m in messages if m.embeds and part in (m.embeds[0].get("title") or "")]


@dataclass
class Hive:
    """One server, its campaign and battle, and the process holding its shard."""

    arena: Arena
    guild: str
    camp: str
    bobs: str
    carols: str
    thread: Channel | None = None

    async def ok(self, user: str, command: str, **options: Any) -> str:
        result = await self.arena.driver.slash(self.guild, CH, user, command, **options)
        assert not result.ephemeral, f"/{command} was refused: {result.content}"
        return "\n".join(f"{m.content}\n{m.embed_text()}" for m in result.messages)

    async def set_up(self) -> None:
        await self.ok("alice", "campaign create", name=self.camp, report_channel="campaign")
        # Staked and won: the winner's income is rolled when Collect Income opens.
        await self.ok("alice", "campaign territory add", name=TERRITORY, income="D6x10",
                      campaign=self.camp)
        for owner, name in (("bob", self.bobs), ("carol", self.carols)):
            await self.ok(owner, "gang create", name=name, house="Goliath",
                          alignment="Law Abiding", credits=STARTING_CREDITS, campaign=self.camp)
            for number, category in enumerate(["Leader", "Champion", "Ganger"], start=1):
                await self.ok(owner, "fighter add", gang=name, name=f"{name} {number}",
                              category=category, cost=50 + 10 * number, campaign=self.camp)

    async def start_battle(self) -> None:
        driver = self.arena.driver
        result = await driver.slash(self.guild, CH, "bob", "postbattle start",
                                    winner=self.bobs, gang1=self.bobs, gang2=self.carols,
                                    territory=TERRITORY, campaign=self.camp)
        assert not result.ephemeral, result.content
        self.thread = (await eventually(
            lambda: [t for t in driver.threads(CH, guild=self.guild) if self.bobs in t.name],
            "the battle's thread", self.arena))[-1]
        for gang, user in ((self.bobs, "bob"), (self.carols, "carol")):
            panel = await eventually(lambda g=gang: titled(self.in_thread(), f"End of battle: {g}"),
                                     f"the report panel of {gang}", self.arena)
            submitted = await driver.click(panel[-1], "Submit", user)
            await submitted.wait_followups(1)

    def in_thread(self) -> list[Message]:
        assert self.thread is not None
        return self.arena.driver.messages(self.thread, include_ephemeral=False)

    def open_stage(self) -> Message | None:
        for message in reversed(self.in_thread()):
            if any((c.get("custom_id") or "").startswith("munda:pb:confirm:")
                   for c in message.buttons):
                return message
        return None

    async def stage(self, label: str) -> Message:
        """The open step, once it is ``label``'s."""
        def at_label() -> Message | None:
            stage = self.open_stage()
            return stage if stage is not None and label in stage.embeds[0]["title"] else None

        found: Message = await eventually(at_label, f"the step {label!r}", self.arena)
        return found

    async def confirm(self, label: str, user: str) -> None:
        result = await self.arena.driver.click(await self.stage(label), "Confirm", user)
        assert "Something went wrong" not in result.text(), result.text()
        if not result.ephemeral:
            await result.wait_followups(1)

    async def agree(self, labels: list[str]) -> None:
        for label in labels:
            for user in PLAYERS:
                await self.confirm(label, user)

    def neutral(self, text: str | None) -> str:
        """``text`` with the gangs' names made the same in every server."""
        return (text or "").replace(self.bobs, "<winner>").replace(self.carols, "<loser>")

    def actions_in(self, run: Stored) -> list[tuple[str, str]]:
        return [(self.neutral(a.step), self.neutral(a.title)) for a in run.actions]

    def ledger_in(self, run: Stored) -> Counter[tuple[str, str, str]]:
        """How many ledger rows of each kind each step wrote, and about what."""
        return Counter((self.neutral(e.step), e.kind, self.neutral(e.path or e.purpose))
                       for e in run.events)

    def reports(self) -> list[Message]:
        posted = self.arena.driver.messages("campaign", guild=self.guild)
        return [m for m in titled(posted, "Battle report") if self.bobs in m.embed_text()]


@dataclass
class Stored:
    run: PostBattleRun
    actions: list[ActionRecord]
    events: list[LedgerEvent]
    credits: dict[str, int]
    pending: list[str]


async def stored(url: str, hive: Hive) -> Stored:
    """The hive's battle as the shared database holds it (read beside the running bots)."""
    storage = await open_storage(url)
    try:
        guild = hive.arena.fake.guild(hive.guild).id
        camp = await storage.read(guild).get_campaign_by_name(hive.camp)
        (key,) = [r.key for r in await storage.read(guild).list_sequences(camp.id)
                  if r.key.startswith("postbattle:")]
        run = await storage.read(guild).load_sequence(camp.id, key, PostBattleRun)
        assert run is not None
        actions = await storage.read(guild).list_actions(camp.id, battle_id=run.battle_id,
                                             limit=1000)
        events = await storage.read(guild).battle_events(camp.id, run.battle_id)
        credits = {g.name: g.credits for g in await storage.read(guild).list_gangs(camp.id)}
        owed = await storage.read(guild).outbox_entries(f"pb:{run.sequence.id}:", pending_only=True)
    finally:
        await storage.close()
    return Stored(run, actions, events, credits, [e.key for e in owed])


async def shards_held(url: str) -> set[int]:
    """The shards whose claim some process holds on the database, as PostgreSQL says."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT objid::bigint AS shard FROM pg_locks WHERE locktype = 'advisory'"
            " AND granted AND objsubid = 2 AND classid::bigint = $1"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            SHARD_LOCKS)
    finally:
        await conn.close()
    return {int(row["shard"]) for row in rows}


def resumed(arena: Arena) -> int:
    return arena.log_path.read_text(errors="replace").count(RESUMED_LINE)


async def launch(config: Path, workdir: Path, env: dict[str, str]) -> Finished:
    """``python -m bot run --config <config>`` beside the shards' bots."""
    return await bot_command("run", config=config, workdir=workdir, env=env)


@pytest_asyncio.fixture(loop_scope="module")  # the loop the e2e tests run in (conftest)
async def shards(
    tmp_path: Path, postgres_url: str,
) -> AsyncIterator[tuple[Arena, Arena]]:
    """Shard 0's and shard 1's processes, started in that order, on one database."""
    fake = two_hives()
    await fake.start()
    zero = Arena(fake, tmp_path, shard_count=2, shard_ids=[0], name="shard-0",
                 database_url=postgres_url)
    one = Arena(fake, tmp_path, shard_count=2, shard_ids=[1], name="shard-1",
                database_url=postgres_url)
    try:
        for arena in (zero, one):
            arena.write_config()
            await arena.start_bot()
        yield zero, one
    finally:
        await one.stop_bot()
        await zero.stop_bot()
        await fake.stop()


async def test_a_second_process_for_a_shard_is_refused_and_the_first_keeps_answering(
    shards: tuple[Arena, Arena], tmp_path: Path, postgres_url: str,
) -> None:
    _zero, one = shards
    fake = one.fake
    identified = fake.gateway.identify_count
    assert one.process is not None
    holder = f"munda-arbitrator pid {one.process.pid} on "

    again = await launch(one.config_path, tmp_path, {})
    assert again.code == 2, again.stderr
    (line,) = again.stderr.splitlines()
    assert line.startswith("munda-arbitrator: Shard 1 of 2 is held by another Munda "
                           "Arbitrator process on the database postgresql://"), line
    assert holder in line, line

    # Shard 3 of 4 has other numbers, but every server of it is one of shard 1 of 2's.
    other_count = await launch(one.config_path, tmp_path, {
        "MUNDA_DISCORD_SHARD_COUNT": "4", "MUNDA_DISCORD_SHARD_IDS": "3"})
    assert other_count.code == 2, other_count.stderr
    (line,) = other_count.stderr.splitlines()
    assert "holds shards of 2, not of 4" in line, line

    assert fake.gateway.identify_count == identified  # neither reached Discord
    answered = await one.driver.slash(ONE, CH, "alice", "roll", expression="D6")
    assert "D6 → [" in answered.content
    assert one.process is not None and one.process.returncode is None


async def test_a_process_whose_claim_is_lost_stops_for_a_restart(
    shards: tuple[Arena, Arena], postgres_url: str,
) -> None:
    zero, one = shards
    assert one.process is not None
    name = f"munda-arbitrator pid {one.process.pid} on %"
    # The database ends the claim's session (a restart of the server, a dropped line):
    # another process could now take shard 1, so this one must not serve on.
    conn = await asyncpg.connect(postgres_url)
    try:
        assert await conn.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name LIKE $1", name) == 1
    finally:
        await conn.close()
    process = one.process
    assert await asyncio.wait_for(process.wait(), 30.0) == 1, one.log_tail()
    one.process = None
    assert "lost the database connection holding shard 1 of 2: stopping" in one.log_tail()
    await eventually_async(lambda: shards_held(postgres_url), {0}, "shard 1's claim to go")
    answered = await zero.driver.slash(ZERO, CH, "alice", "roll", expression="D6")
    assert "D6 → [" in answered.content


async def test_two_shards_one_killed_mid_sequence_nothing_lost_or_doubled(
    shards: tuple[Arena, Arena], postgres_url: str,
) -> None:
    zero_arena, one_arena = shards
    zero = Hive(zero_arena, ZERO, "Ash Dunes", "Iron Fangs", "Sump Rats")
    one = Hive(one_arena, ONE, "Glass Pits", "Rust Moths", "Soot Eaters")
    assert await shards_held(postgres_url) == {0, 1}
    for hive in (zero, one):
        await hive.set_up()
        await hive.start_battle()
    killed_at = STEPS.index(KILLED_AT)
    for hive in (zero, one):
        await hive.agree(STEPS[:killed_at])

    # Shard 1's process again, armed: the step's closing confirmation is its last act.
    await one_arena.stop_bot()
    await one_arena.start_bot({failpoints.ENV_VAR: failpoints.AFTER_CONFIRM_STORED})
    await one.confirm(KILLED_AT, "bob")
    stage = await one.stage(KILLED_AT)
    await one_arena.driver.click(stage, "Confirm", "carol")
    process = one_arena.process
    assert process is not None
    assert await asyncio.wait_for(process.wait(), 20.0) == -signal.SIGKILL
    one_arena.process = None
    # The killed process's claim went with it (its session ended); shard 0's stays.
    await eventually_async(lambda: shards_held(postgres_url), {0}, "shard 1's claim to go")
    crashed = await stored(postgres_url, one)
    following = STEPS[killed_at + 1]
    # The next step is stored with its roll and owed to the thread, not yet shown.
    assert crashed.pending and all(
        key.startswith(f"pb:{crashed.run.sequence.id}:stage:") for key in crashed.pending)
    assert not titled(one.in_thread(), following)
    (income,) = [e for e in crashed.events if e.kind == "roll" and e.step == following]

    # Shard 0's process answers and finishes its battle while shard 1's is down.
    await zero.agree(STEPS[killed_at:])
    await eventually(zero.reports, "shard 0's battle report", zero_arena)
    assert one_arena.process is None

    before = resumed(one_arena)
    await one_arena.start_bot()
    await eventually(lambda: resumed(one_arena) > before, "shard 1 to resume", one_arena,
                     timeout=30.0)
    assert await shards_held(postgres_url) == {0, 1}
    # The owed step is shown with the roll stored before the kill, never rolled again.
    faces = ", ".join(map(str, income.faces or []))
    shown = (await one.stage(following)).embed_text()
    assert f"{income.expression} → [{faces}] = **{income.total}**" in shown, shown
    await one.agree(STEPS[killed_at + 1:])
    await eventually(one.reports, "shard 1's battle report", one_arena)

    for hive in (zero, one):
        await check_nothing_lost_or_doubled(postgres_url, hive)
    # The same script played in both servers: the same actions and ledger, step by step,
    # as the undisturbed process made them.
    zero_run, one_run = await stored(postgres_url, zero), await stored(postgres_url, one)
    assert zero.actions_in(zero_run) == one.actions_in(one_run)
    assert zero.ledger_in(zero_run) == one.ledger_in(one_run)
    for hive, run in ((zero, zero_run), (one, one_run)):
        assert run.credits[hive.bobs] > STARTING_CREDITS  # the income, once
        assert run.credits[hive.carols] == STARTING_CREDITS


def amount(value: object) -> int:
    assert isinstance(value, int), value
    return value


async def check_nothing_lost_or_doubled(url: str, hive: Hive) -> None:
    after = await stored(url, hive)
    # The last step's confirmation is not answered with a new message: the report is.
    await eventually(lambda: hive.open_stage() is None, "no step left open", hive.arena)
    assert after.pending == []
    messages = hive.in_thread()
    for label in STEPS:
        shown = titled(messages, label)
        assert len(shown) == 1, (hive.guild, label, [m.embeds[0]["title"] for m in shown])
    posted = hive.reports()
    assert [m.id for m in posted] == [after.run.report_message_id], hive.guild
    doubled = [key for key, n in Counter((a.step, a.title) for a in after.actions).items()
               if n > 1]
    assert doubled == [], (hive.guild, doubled)
    assert not any(a.undoes or a.undone_by for a in after.actions)
    for gang, credits in after.credits.items():
        changes = [e for e in after.events if e.kind == "change" and e.path == "credits"
                   and e.subject_name == gang]
        moved = sum(amount(e.after) - amount(e.before) for e in changes)
        assert credits == STARTING_CREDITS + moved, (hive.guild, gang, changes)
