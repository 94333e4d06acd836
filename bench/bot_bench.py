"""How fast the bot answers and how many servers it carries, against bare discord.py.

For each N (campaigns, one per server; bench/build_db.py describes the
shape) and M (post-battle sequences played at once), one case:

1. a fresh fake Discord whose world matches the cached database of N
   campaigns (N servers, 8 players in each), and a copy of that database;
2. the real bot process (``python -m bot run`` through ``demo.arena``, log
   level WARNING). Start-up is timed from launching the process to its answer
   to a click on a persistent post-battle button in the last server the
   gateway announced: by then the process is up, the database open and
   checked, the commands synced, every server cached and the dynamic buttons
   registered. The drive waits for discord.py's ``on_ready`` (it comes 2 s
   after the last GUILD_CREATE) and the start-up scan behind it to pass;
3. M post-battle sequences at once, each in its own campaign while there are
   enough (at most 4 per campaign: a gang is in one sequence at a time):
   ``/postbattle start``, the losing gang's report (two selects), both Submit
   buttons, then both players' Confirm on each of the 12 steps: 29
   interactions per sequence, each player waiting for the bot's answer (its
   follow-up or redrawn panel) before the next click, as people do;
4. the baseline: the bot is stopped and ``bench/baseline_bot.py`` (a plain
   ``discord.Client`` answering every interaction with a fixed reply, the same
   command schemas registered) is started on the same fake Discord. The very
   interactions of step 3 (same data, same payloads) are sent to it again at
   the same moments after the start as they were sent to our bot, so both
   bots face the same arrivals; then once more as fast as it answers (M
   streams, each sending its next when answered), for its capacity.

On PostgreSQL (``--database postgresql://...``, or ``--database postgresql`` to
start a throwaway server from the Debian binaries, as the tests do) step 1
copies a template database of N campaigns instead of the file (bench/build_db.py
builds it once per server through the same Storage calls). With
``--processes K`` step 2 starts K bot processes (K up to 4), shards 0 to K-1 of K on
the one database; server i is shard i mod K's, and the M sequences are spread with
their servers. Start-up then runs until every process has answered a click in its
last server. Several counts (``--processes 1 2 4``) run a case for each, one
after another on the same server and the same data, and end with how throughput and
p99 grew with the processes.

For every interaction the fake records the time from writing the gateway
dispatch to the socket to receiving the bot's first response (its
``latency``). Each case prints one line: p50, p99 and max of those for our
bot and the baseline, their ratios (what our code costs on top of the
library), interactions per second sustained in step 3 (and the baseline's
capacity), our bot's CPU time per interaction, peak memory (VmHWM) of both,
start-up times, how many answers came near Discord's 3-second limit, and the
machine's load average (other processes share the two cores); then a line on
the bot's writer lock over the drive: holds, time held and time waited for, per
interaction (bench/writer_times.py). With several processes the line's CPU per
interaction is all processes' CPU over all interactions and its memory is
their peaks added; a line per process follows (its interactions, their
p50/p99/max, its CPU per interaction of its own, its peak).

Run::

    .venv/bin/python bench/bot_bench.py                 # N = 10, 100, 1000 x M = 1, 10, 100
    .venv/bin/python bench/bot_bench.py --quick         # smoke run: N = 10, M = 1 and 2
    .venv/bin/python bench/bot_bench.py --n 1000 --m 100 --by-kind
    .venv/bin/python bench/bot_bench.py --n 1000 --m 100 --ramp 10   # starts spread over 10 s
    .venv/bin/python bench/bot_bench.py --n 100 --m 10 --profile bench/.cache/prof
    .venv/bin/python bench/bot_bench.py --database postgresql --n 100 --m 10 --processes 2
    .venv/bin/python bench/bot_bench.py --database postgresql --n 200 --m 100 --processes 1 2 4

``--profile DIR`` runs the bot under cProfile and prints its top functions; with one
sequence (M = 1), one profile per kind of interaction (the bot switches profiles when
told the next kind: bench/writer_times.py, KindProfiles).
``--sql`` adds the commonest statements and the CPU time the database threads spent
(SQLite's own work, and whatever a transaction run whole there does), by statement,
and on PostgreSQL the round trips by where in the bot they were made.
With one sequence (M = 1) ``--by-kind`` also gives the bot's CPU per interaction of
each kind: from its sending to the next one's, so what it left to do after answering
(deliveries, redraws) is counted too; the clock ticks in 10 ms steps, so only the mean
of many (24 Confirms) means anything.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import pstats
import signal
import statistics
import sys
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.build_db import (
    BATTLES_PER_CAMPAIGN,
    CACHE,
    BenchWorld,
    build_world,
    copy_db,
    copy_postgres,
    drop_postgres,
    ensure_db,
    ensure_postgres,
    gang_name,
    shard_of,
    stake_name,
)
from demo.arena import TOKEN, Arena, launch, stop_process, until_ready
from fakediscord import (
    CallbackType,
    Channel,
    FakeDiscord,
    InteractionRecord,
    InteractionResult,
    InteractionType,
    Message,
    User,
    store,
)
from fakediscord.common import JsonObj
from tests import postgres_server

T = TypeVar("T")

BASELINE = Path(__file__).resolve().parent / "baseline_bot.py"
WRITER_TIMES = Path(__file__).resolve().parent / "writer_times.py"
STEPS = 12  # stage messages of a campaign battle's sequence (Wrap-up .. Report Results)
WAIT = 60.0  # generous: a benchmark under load must not fail on a slow answer
DEADLINE = 3.0  # Discord's limit for the first response
NEAR_DEADLINE = 2.0  # "near the limit"
PROBE_ID = "munda:pb:confirm:probe0:probe0:1"
GUILD_READY_TIMEOUT = 2.0  # discord.py's default wait after the last GUILD_CREATE
IDLE_CPU = 0.01  # seconds of CPU per IDLE_WINDOW below which a process counts as idle
IDLE_WINDOW = 0.5


# --------------------------------------------------------------------------- waiting


async def until(fake: FakeDiscord, check: Callable[[], T | None], what: str) -> T:
    return await fake.world.notifier.wait_for(check, timeout=WAIT, what=what)


def has(message: Message, prefix: str) -> bool:
    return any(str(c.get("custom_id", "")).startswith(prefix) for c in message.iter_components())


def custom_id(message: Message, prefix: str, suffix: str = "") -> str:
    for comp in message.iter_components():
        cid = str(comp.get("custom_id", ""))
        if cid.startswith(prefix) and cid.endswith(suffix):
            return cid
    raise AssertionError(f"no component {prefix}...{suffix} on message {message.id}")


# --------------------------------------------------------------------------- one sequence


@dataclass
class Plan:
    """One post-battle sequence: battle ``battle`` of the campaign whose #general is ``channel``."""

    index: int
    channel: Channel
    first: User  # the winner's player, who starts it
    second: User
    battle: int
    records: list[InteractionRecord] = field(default_factory=list)
    # The bot's CPU seconds when each of ``records`` was sent (one sequence alone: what
    # each interaction cost, from its sending to the next one's, is their differences).
    cpu_marks: list[float] = field(default_factory=list)


def plans(world: BenchWorld, m: int) -> list[Plan]:
    """M sequences: one per campaign first, then a second battle in each, and so on."""
    n = len(world.guilds)
    found = []
    for index in range(min(m, n * BATTLES_PER_CAMPAIGN)):
        campaign, battle = index % n, index // n
        found.append(Plan(index, world.channels[campaign], world.players[2 * battle],
                          world.players[2 * battle + 1], battle))
    return found


class ProfileSwitch:
    """``--profile`` with one sequence: tells the bot (bench/writer_times.py, KindProfiles)
    which kind of interaction comes next, so that each kind is profiled on its own."""

    def __init__(self, pid: int, folder: Path) -> None:
        self.pid = pid
        self.folder = folder
        self.count = 0

    async def switch(self, kind: str) -> None:
        self.count += 1
        ack = self.folder / "kind.ack"
        (self.folder / "kind.next").write_text(f"{self.count} {kind}", encoding="utf-8")
        os.kill(self.pid, signal.SIGUSR2)
        for _ in range(int(WAIT / 0.005)):
            if ack.exists() and ack.read_text(encoding="utf-8") == str(self.count):
                return
            await asyncio.sleep(0.005)
        raise AssertionError("the bot never switched to the next kind's profile")


class Player:
    """Plays one sequence through the fake's driver, recording every interaction."""

    def __init__(self, fake: FakeDiscord, plan: Plan,
                 cpu: Callable[[], float] | None = None,
                 profiles: ProfileSwitch | None = None) -> None:
        self.fake = fake
        self.driver = fake.driver(timeout=WAIT)
        self.plan = plan
        self.cpu = cpu
        self.profiles = profiles

    async def mark(self, kind: str) -> None:
        """Note the bot's CPU time before sending the next interaction (of ``kind``), and
        with ``--profile`` and one sequence, profile the bot in that kind's profile."""
        if self.profiles is not None:
            await self.profiles.switch(kind)
        if self.cpu is not None:
            self.plan.cpu_marks.append(self.cpu())

    async def play(self, delay: float = 0.0) -> None:
        plan, driver = self.plan, self.driver
        await asyncio.sleep(delay)  # --ramp: sequences start one after another
        winner, loser = gang_name(2 * plan.battle), gang_name(2 * plan.battle + 1)
        await self.mark("/postbattle start")
        started = await driver.slash(
            None, plan.channel, plan.first, "postbattle start",
            winner=winner, gang1=winner, gang2=loser, territory=stake_name(plan.battle),
        )
        self.plan.records.append(started.record)
        assert started.message is not None and not started.ephemeral, started.text()
        thread_id = started.message.id  # a thread shares its first message's id
        thread = await until(self.fake, lambda: self.fake.world.channels.get(thread_id),
                             f"the thread of sequence {plan.index}")
        panels = await until(self.fake, lambda: self.panels(thread),
                             f"the report panels of sequence {plan.index}")
        # The losing gang reports one fighter Out of Action: two selects on its panel.
        panel = panels[1]
        await self.edit_panel(panel, custom_id(panel, "munda:pb:sec:"), ["ooa"],
                              lambda: self.picker(panel, "ooa"))
        pick = custom_id(panel, "munda:pb:pick:", ":ooa:0")
        fighter = str(panel.component(pick)["options"][0]["value"])
        await self.edit_panel(panel, pick, [fighter],
                              lambda: fighter in self.chosen(panel, "ooa"))
        for user, own in ((plan.first, panels[0]), (plan.second, panels[1])):
            await self.mark("pb:submit")
            await self.answered(await driver.click(own, custom_id(own, "munda:pb:submit:"), user))
        for _ in range(STEPS):
            for user in (plan.first, plan.second):
                stage = await until(self.fake, lambda: self.open_stage(thread),
                                    f"an open step in sequence {plan.index}")
                await self.mark("pb:confirm")
                await self.answered(
                    await driver.click(stage, custom_id(stage, "munda:pb:confirm:"), user))
        assert self.open_stage(thread) is None, "a step is still open after the last one"

    @staticmethod
    def panels(thread: Channel) -> list[Message] | None:
        found = [m for m in thread.messages if has(m, "munda:pb:submit:")]
        if len(found) < 2:
            return None
        return sorted(found, key=lambda m: custom_id(m, "munda:pb:submit:"))

    @staticmethod
    def open_stage(thread: Channel) -> Message | None:
        for message in reversed(thread.messages):
            if not message.ephemeral and has(message, "munda:pb:confirm:"):
                return message
        return None

    @staticmethod
    def picker(panel: Message, section: str) -> JsonObj | None:
        """The panel's first select of fighters for ``section``, once it shows that part."""
        for comp in panel.iter_components():
            cid = str(comp.get("custom_id", ""))
            if cid.startswith("munda:pb:pick:") and cid.endswith(f":{section}:0"):
                return comp
        return None

    def chosen(self, panel: Message, section: str) -> set[str]:
        comp = self.picker(panel, section) or {}
        return {str(o["value"]) for o in comp.get("options", []) if o.get("default")}

    async def edit_panel(self, panel: Message, select: str, values: Sequence[str],
                         shown: Callable[[], object]) -> None:
        """Choose in a panel's select and wait until the panel shows the choice (other
        redraws of the same message, e.g. after its delivery, do not count)."""
        await self.mark(":".join(select.split(":")[1:3]))
        result = await self.driver.select(panel, select, values, self.plan.second)
        self.plan.records.append(result.record)
        self.refused(result)
        await until(self.fake, lambda: shown() or None,
                    f"the report panel of sequence {self.plan.index} to show {values}")

    async def answered(self, result: InteractionResult) -> None:
        """Wait for the follow-up a Submit or Confirm ends with (the next click needs it)."""
        self.plan.records.append(result.record)
        self.refused(result)
        await until(self.fake, lambda: bool(result.record.followups) or None,
                    f"the answer to {result.record.label!r}")
        said = result.record.followups[-1].content
        if "Something went wrong" in said:
            raise AssertionError(f"{result.record.label}: {said}")

    @staticmethod
    def refused(result: InteractionResult) -> None:
        if result.callback_type == CallbackType.CHANNEL_MESSAGE:
            raise AssertionError(f"refused: {result.record.label}: {result.text()}")


# --------------------------------------------------------------------------- raw dispatch


async def dispatch(fake: FakeDiscord, record: InteractionRecord) -> InteractionRecord:
    """Send a prepared interaction and wait for the first response (or a rejection)."""

    def on_sent() -> None:
        if record.dispatched_at is None:
            record.dispatched_at = time.perf_counter()

    fake.gateway.dispatch_interaction(record.guild.id if record.guild else None,
                                      record.payload, on_sent)
    await until(fake, lambda: record.callback_type is not None or bool(record.errors),
                f"an answer to {record.label!r}")
    if record.callback_type is None:
        raise AssertionError(f"the answer to {record.label!r} was rejected: {record.errors}")
    return record


async def probe(fake: FakeDiscord, world: BenchWorld, shard: int = 0,
                processes: int = 1) -> InteractionRecord:
    """Click a persistent post-battle button in the last server the gateway announced
    to the process of ``shard``."""
    channel = next(c for index, c in reversed(list(enumerate(world.channels)))
                   if shard_of(index, processes) == shard)
    button = {"type": 2, "style": 3, "label": "Confirm", "custom_id": PROBE_ID}
    message = store.post_message(fake.world, channel, fake.world.bot, {
        "content": "probe", "components": [{"type": 1, "components": [button]}],
    })
    record = fake.interactions.create(
        InteractionType.MESSAGE_COMPONENT, world.players[0], channel,
        {"custom_id": PROBE_ID, "component_type": 2}, label="probe", source_message=message,
    )
    return await dispatch(fake, record)


async def replay(fake: FakeDiscord, original: InteractionRecord) -> InteractionRecord:
    """The same interaction again (same data, same payload), to whichever bot is connected."""
    record = fake.interactions.create(
        InteractionType(original.type), original.user, original.channel, original.data,
        label=original.label, command_name=original.command_name,
        source_message=original.source_message,
    )
    record.payload = {**original.payload, "id": str(record.id), "token": record.token}
    return await dispatch(fake, record)


async def replay_timed(fake: FakeDiscord, todo: Sequence[Plan]) -> list[InteractionRecord]:
    """Every stream's interactions again, each at the moment it was first sent (or when the
    previous one of its stream is answered, if that is later)."""
    sent = [r.dispatched_at for plan in todo for r in plan.records if r.dispatched_at]
    origin, began = min(sent), time.perf_counter()
    done: list[InteractionRecord] = []

    async def stream(plan: Plan) -> None:
        for original in plan.records:
            assert original.dispatched_at is not None
            delay = began + (original.dispatched_at - origin) - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            done.append(await replay(fake, original))

    await asyncio.gather(*(stream(plan) for plan in todo))
    return done


async def replay_flat_out(fake: FakeDiscord, todo: Sequence[Plan]) -> float:
    """Interactions per second the connected bot answers, M streams sending back to back."""
    count = 0

    async def stream(plan: Plan) -> None:
        nonlocal count
        for original in plan.records:
            await replay(fake, original)
            count += 1

    began = time.perf_counter()
    await asyncio.gather(*(stream(plan) for plan in todo))
    return count / (time.perf_counter() - began)


# --------------------------------------------------------------------------- processes


def proc_status(pid: int, key: str) -> int:
    """A /proc/<pid>/status figure in kB (VmHWM: the peak resident set)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    raise KeyError(key)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


async def settle(pid: int, ready_at: float) -> None:
    """Wait for on_ready (GUILD_READY_TIMEOUT after the last server arrived) and for the
    work it starts to end: the process then uses (almost) no CPU for IDLE_WINDOW."""
    await asyncio.sleep(max(0.0, ready_at + GUILD_READY_TIMEOUT - time.perf_counter()))
    for _ in range(int(WAIT / IDLE_WINDOW)):
        before = cpu_seconds(pid)
        await asyncio.sleep(IDLE_WINDOW)
        if cpu_seconds(pid) - before < IDLE_CPU:
            return
    raise AssertionError(f"process {pid} never went idle after start-up")


class CountedRequests(deque[tuple[str, str, int]]):
    """The fake's log of REST requests (bounded), counting every one appended."""

    def __init__(self, maxlen: int | None) -> None:
        super().__init__(maxlen=maxlen)
        self.made = 0

    def append(self, item: tuple[str, str, int]) -> None:
        self.made += 1
        super().append(item)


def count_requests(fake: FakeDiscord) -> CountedRequests:
    counted = CountedRequests(fake.services.requests.maxlen)
    fake.services.requests = counted
    return counted


async def writer_times(pid: int, path: Path) -> dict[str, Any]:
    """The bot's writer-lock figures so far (bench/writer_times.py writes them on SIGUSR1)."""
    path.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR1)
    for _ in range(int(WAIT / 0.01)):
        if path.exists():
            return dict(json.loads(path.read_text(encoding="utf-8")))
        await asyncio.sleep(0.01)
    raise AssertionError("the bot never wrote its writer-lock figures")


def _top_statements(before: dict[str, Any], after: dict[str, Any], interactions: int,
                    top: int = 25, figure: str = "by_text") -> dict[str, float]:
    was: dict[str, float] = before.get(figure, {})
    now: dict[str, float] = after.get(figure, {})
    grown = {text: count - was.get(text, 0) for text, count in now.items()}
    ranked = sorted(grown.items(), key=lambda pair: -pair[1])[:top]
    return {text: count / interactions for text, count in ranked if count}


@dataclass
class WriterLock:
    """The writer lock over the drive (ms): per interaction, and per hold."""

    holds_per_int: float
    held_ms_per_int: float
    waited_ms_per_int: float
    held_ms_per_hold: float
    waited_ms_per_hold: float
    # What the load does not change: SQL statements run and round trips to the database
    # threads, per interaction.
    statements_per_int: float = 0.0
    round_trips_per_int: float = 0.0
    # The commonest statements over the drive (their start), per interaction.
    top_statements: dict[str, float] = field(default_factory=dict)
    # CPU of the database threads (SQLite's own work, SQLite only), ms per interaction:
    # in all, and by the statement (its start) or function run there.
    db_cpu_ms_per_int: float = 0.0
    top_db_cpu: dict[str, float] = field(default_factory=dict)
    # Round trips per interaction by where they came from (PostgreSQL's counts only).
    top_callers: dict[str, float] = field(default_factory=dict)

    @classmethod
    def between(cls, before: dict[str, Any], after: dict[str, Any],
                interactions: int) -> WriterLock:
        holds = after["holds"] - before["holds"]
        held = (after["held"] - before["held"]) * 1000
        waited = (after["waited"] - before["waited"]) * 1000
        return cls(
            holds_per_int=holds / interactions, held_ms_per_int=held / interactions,
            waited_ms_per_int=waited / interactions,
            held_ms_per_hold=held / holds if holds else 0.0,
            waited_ms_per_hold=waited / holds if holds else 0.0,
            statements_per_int=(after.get("statements", 0) - before.get("statements", 0))
            / interactions,
            round_trips_per_int=(after.get("round_trips", 0) - before.get("round_trips", 0))
            / interactions,
            top_statements=_top_statements(before, after, interactions),
            db_cpu_ms_per_int=(after.get("db_cpu", 0.0) - before.get("db_cpu", 0.0)) * 1000
            / interactions,
            top_db_cpu={text: seconds * 1000 for text, seconds in _top_statements(
                before, after, interactions, top=12, figure="db_cpu_by_text").items()},
            top_callers=_top_statements(before, after, interactions, top=15,
                                        figure="by_caller"),
        )

    def line(self, database: str = "sqlite") -> str:
        if database != "sqlite":
            return (f"  no writer lock (PostgreSQL: an advisory lock per campaign); "
                    f"{self.statements_per_int:.1f} SQL statements and "
                    f"{self.round_trips_per_int:.1f} round trips to the server per interaction")
        return (f"  writer lock: {self.holds_per_int:.2f} holds/int, held "
                f"{self.held_ms_per_int:.2f} ms/int ({self.held_ms_per_hold:.2f} ms each), "
                f"waited for {self.waited_ms_per_int:.2f} ms/int "
                f"({self.waited_ms_per_hold:.2f} ms each); "
                f"{self.statements_per_int:.1f} SQL statements and "
                f"{self.round_trips_per_int:.1f} database round trips per interaction; "
                f"the database threads' CPU {self.db_cpu_ms_per_int:.2f} ms/int")


async def start_baseline(fake: FakeDiscord, commands: Path,
                         log: Path) -> asyncio.subprocess.Process:
    identified, synced = fake.gateway.identify_count, fake.commands.sync_count
    process = await launch(str(BASELINE), "--token", TOKEN, "--commands", str(commands),
                           log=log, env={"FAKE_DISCORD_URL": fake.base_url})

    def connected() -> bool | None:
        gateway = fake.gateway
        return (gateway.identify_count > identified and gateway.is_connected()
                and fake.commands.sync_count > synced) or None

    await until_ready(process, until(fake, connected, "the baseline to connect"),
                      name="the baseline", log=log)
    return process


# --------------------------------------------------------------------------- figures


@dataclass
class Figures:
    count: int
    p50: float  # milliseconds
    p99: float
    max: float
    near_deadline: int  # answers after NEAR_DEADLINE seconds or more

    @classmethod
    def of(cls, records: Sequence[InteractionRecord]) -> Figures:
        samples = sorted(r.latency * 1000 for r in records if r.latency is not None)
        if not samples or len(samples) != len(records):
            raise AssertionError(f"{len(records) - len(samples)} interactions were never answered")
        return cls(
            count=len(samples),
            p50=statistics.median(samples),
            p99=percentile(samples, 0.99),
            max=samples[-1],
            near_deadline=sum(1 for s in samples if s >= NEAR_DEADLINE * 1000),
        )


def percentile(ordered: Sequence[float], q: float) -> float:
    """Nearest rank: the smallest sample with at least a fraction q of them at or below it."""
    rank = max(1, -(-round(q * len(ordered) * 1000) // 1000))
    return ordered[min(len(ordered), rank) - 1]


def kind_of(record: InteractionRecord) -> str:
    """A short name for what was done: the command, or the button or select's kind."""
    if record.command_name:
        return f"/{record.command_name}"
    parts = str(record.data.get("custom_id", "")).split(":")
    return ":".join(parts[1:3]) if len(parts) > 2 else "?"


def cpu_by_kind(todo: Sequence[Plan]) -> dict[str, float]:
    """With one sequence alone: the bot's mean CPU (ms) per interaction of each kind, from
    its sending to the next one's (the last one's: until the bot is idle), so what it
    left to do after answering (deliveries, redraws) counts too. Empty otherwise."""
    if len(todo) != 1 or len(todo[0].cpu_marks) != len(todo[0].records) + 1:
        return {}
    plan = todo[0]
    spent: dict[str, list[float]] = {}
    for index, record in enumerate(plan.records):
        used = plan.cpu_marks[index + 1] - plan.cpu_marks[index]
        spent.setdefault(kind_of(record), []).append(used * 1000)
    return {kind: statistics.fmean(found) for kind, found in sorted(spent.items())}


def by_kind(records: Sequence[InteractionRecord]) -> dict[str, Figures]:
    kinds: dict[str, list[InteractionRecord]] = {}
    for record in records:
        kinds.setdefault(kind_of(record), []).append(record)
    return {kind: Figures.of(found) for kind, found in sorted(kinds.items())}


@dataclass
class Case:
    n: int
    m: int
    sequences: int
    bot: Figures
    base: Figures
    kinds: dict[str, Figures]
    # The bot's CPU per interaction of each kind, ms (one sequence alone, M = 1).
    cpu_ms_by_kind: dict[str, float]
    rate: float  # interactions per second sustained while M sequences ran
    base_capacity: float  # the baseline's, M streams back to back
    cpu_ms: float  # our bot's CPU per interaction (every thread)
    harness_cpu_ms: float  # this process (fake Discord + players) per interaction
    peak_mb: float
    base_peak_mb: float
    startup: float
    base_startup: float
    load: tuple[float, float]  # 1-minute load average before and after
    writer: WriterLock
    rest_per_int: float = 0.0  # REST requests our bot made to the fake, per interaction
    ramp: float = 0.0
    profile: str | None = None
    database: str = "sqlite"  # or "postgresql"
    processes: int = 1  # with more, cpu_ms is over all of them and peak_mb their sum
    parts: list[ProcessPart] = field(default_factory=list)  # per process, with several

    @property
    def ratio_p50(self) -> float:
        return self.bot.p50 / self.base.p50

    @property
    def ratio_p99(self) -> float:
        return self.bot.p99 / self.base.p99

    @property
    def setup(self) -> str:
        return "sqlite" if self.database == "sqlite" else f"pg x{self.processes}"

    def row(self) -> str:
        return (
            f"{self.setup:<8} {self.n:>5} {self.m:>4} {self.bot.count:>5} | {self.bot.p50:>6.1f} "
            f"{self.bot.p99:>6.1f} {self.bot.max:>6.0f} | {self.base.p50:>5.1f} "
            f"{self.base.p99:>5.1f} {self.base.max:>5.0f} | {self.ratio_p50:>5.2f} "
            f"{self.ratio_p99:>5.2f} | {self.rate:>5.0f} {self.base_capacity:>5.0f} | "
            f"{self.cpu_ms:>5.1f} | {self.peak_mb:>4.0f} {self.base_peak_mb:>4.0f} | "
            f"{self.startup:>5.2f} {self.base_startup:>5.2f} | {self.bot.near_deadline:>3} | "
            f"{self.load[0]:.1f}-{self.load[1]:.1f}"
        )


HEADER = (
    "                          | our bot: first    | bare discord.py   | ratio      | int/s       |"
    " CPU   | MB VmHWM  | start (s)   |     |\n"
    "database     N    M  ints |  p50ms  p99ms max | p50ms p99ms   max |  p50   p99 | ours  base  |"
    " ms/int|  ours base|  ours  base | >2s | load"
)


@dataclass
class ProcessPart:
    """One bot process of several: the interactions of its servers, its CPU and peak."""

    shard: int
    bot: Figures
    cpu_ms: float  # its CPU per interaction of its own servers
    peak_mb: float
    writer: WriterLock

    def line(self) -> str:
        return (f"  shard {self.shard}: {self.bot.count} ints, p50 {self.bot.p50:.1f} ms, "
                f"p99 {self.bot.p99:.1f} ms, max {self.bot.max:.0f} ms; "
                f"{self.cpu_ms:.1f} ms CPU/int; {self.peak_mb:.0f} MB VmHWM; "
                f"{self.writer.statements_per_int:.1f} SQL statements and "
                f"{self.writer.round_trips_per_int:.1f} round trips per interaction")


def added(figures: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Several processes' writer_times figures as one (counts and times add up)."""
    total: dict[str, Any] = {"holds": 0, "held": 0.0, "waited": 0.0, "statements": 0,
                             "round_trips": 0, "by_text": {}, "db_cpu": 0.0,
                             "db_cpu_by_text": {}, "by_caller": {}}
    for one in figures:
        for key in ("holds", "held", "waited", "statements", "round_trips", "db_cpu"):
            total[key] += one.get(key, 0)
        for figure in ("by_text", "db_cpu_by_text", "by_caller"):
            for text, count in one.get(figure, {}).items():
                total[figure][text] = total[figure].get(text, 0) + count
    return total


def kinds_table(case: Case) -> str:
    lines = [f"  by kind (N={case.n}, M={case.m}):"]
    for kind, fig in case.kinds.items():
        cpu = case.cpu_ms_by_kind.get(kind)
        lines.append(f"    {kind:<20} n={fig.count:<5} p50={fig.p50:7.1f}  p99={fig.p99:7.1f}  "
                     f"max={fig.max:7.1f} ms" + ("" if cpu is None else f"  CPU {cpu:5.1f} ms"))
    return "\n".join(lines)


# --------------------------------------------------------------------------- one case


async def run_case(
    n: int, m: int, folder: Path, *, profile: Path | None = None, cache: Path = CACHE,
    ramp: float = 0.0, uvloop: bool = False, admin_url: str | None = None,
    processes: int = 1,
) -> Case:
    """One case; on PostgreSQL when ``admin_url`` is given (a fresh copy of the template
    database, dropped at the end), with ``processes`` bot processes (one per shard)."""
    if admin_url is not None:
        await ensure_postgres(n, admin_url)
    else:
        await ensure_db(n, cache=cache)
    load_before = load_average()
    harness_before = time.process_time()
    fake = FakeDiscord(token=TOKEN)
    world = build_world(fake, n)
    await fake.start()
    requests = count_requests(fake)
    workdir = folder / (f"n{n}-m{m}" if processes == 1 else f"n{n}-m{m}-x{processes}")
    workdir.mkdir()
    url = await copy_postgres(n, admin_url) if admin_url is not None else None
    arenas: list[Arena] = []
    times_files: list[Path] = []
    prof_files: list[Path] = []
    todo = plans(world, m)
    # One sequence alone: a profile per kind of interaction (KindProfiles).
    per_kind = profile is not None and len(todo) == 1 and processes == 1
    kinds_folder = (profile or folder) / f"bot-n{n}-m{m}-kinds"
    for shard in range(processes):
        suffix = "" if processes == 1 else f"-shard{shard}"
        times_files.append(workdir / f"writer-lock{suffix}.json")
        python_args: list[str] = [str(WRITER_TIMES), str(times_files[-1])]
        env = {"BENCH_UVLOOP": "1"} if uvloop else {}
        if per_kind:
            kinds_folder.mkdir(parents=True, exist_ok=True)
            env["BENCH_PROFILE_KINDS"] = str(kinds_folder)
        elif profile is not None:
            profile.mkdir(parents=True, exist_ok=True)
            prof_files.append(profile / f"bot-n{n}-m{m}{suffix}.prof")
            python_args = ["-m", "cProfile", "-o", str(prof_files[-1]), *python_args]
        arena = Arena(fake, workdir, log_level="WARNING", python_args=python_args,
                      env=env or None,
                      shard_count=processes, shard_ids=None if processes == 1 else [shard],
                      name="bot" if processes == 1 else f"shard-{shard}", database_url=url)
        arena.write_config()
        arenas.append(arena)
    if url is None:
        copy_db(n, arenas[0].database_path, cache)
    try:
        began = time.perf_counter()
        await asyncio.gather(*(arena.start_bot(ready_timeout=WAIT) for arena in arenas))
        await asyncio.gather(*(probe(fake, world, shard, processes)
                               for shard in range(processes)))
        startup = time.perf_counter() - began
        pids = [arena.process.pid for arena in arenas if arena.process is not None]
        assert len(pids) == processes
        await asyncio.gather(*(settle(pid, time.perf_counter()) for pid in pids))
        writer_before = [await writer_times(*both) for both in zip(pids, times_files, strict=True)]
        rest_before = requests.made
        cpu_before, harness_before = [cpu_seconds(pid) for pid in pids], time.process_time()
        began = time.perf_counter()
        # One sequence alone: the bot's CPU is marked before each interaction is sent.
        marks = (lambda: sum(cpu_seconds(pid) for pid in pids)) if len(todo) == 1 else None
        switch = (ProfileSwitch(pids[0], kinds_folder)
                  if per_kind else None)
        await asyncio.gather(*(Player(fake, plan, marks, switch).play(
            ramp * plan.index / len(todo)) for plan in todo))
        elapsed = time.perf_counter() - began
        cpus = [cpu_seconds(pid) - before for pid, before in zip(pids, cpu_before, strict=True)]
        if marks is not None:  # the last interaction's work ends when the bot is idle
            await asyncio.gather(*(settle(pid, time.perf_counter()) for pid in pids))
            todo[0].cpu_marks.append(marks())
            if switch is not None:
                await switch.switch("after the drive")  # not reported
        rest_calls = requests.made - rest_before
        harness = time.process_time() - harness_before
        peaks = [proc_status(pid, "VmHWM") / 1024 for pid in pids]
        records = [r for plan in todo for r in plan.records]
        writer_after = [await writer_times(*both) for both in zip(pids, times_files, strict=True)]
        writer = WriterLock.between(added(writer_before), added(writer_after), len(records))
        parts = [] if processes == 1 else [
            process_part(shard, mine, cpus[shard], peaks[shard], writer_before[shard],
                         writer_after[shard])
            for shard in range(processes)
            if (mine := [r for plan in todo for r in plan.records
                         if shard_of(world.channels.index(plan.channel), processes) == shard])]
        commands = workdir / "commands.json"
        commands.write_text(json.dumps(fake.commands.list_scope(None)), encoding="utf-8")
    except BaseException:
        for arena in arenas:
            print(arena.log_tail(60), file=sys.stderr)
        raise
    finally:
        await asyncio.gather(*(arena.stop_bot() for arena in arenas))
        if url is not None and admin_url is not None:
            await drop_postgres(admin_url, url)
    try:
        began = time.perf_counter()
        process = await start_baseline(fake, commands, workdir / "baseline.log")
        try:
            await probe(fake, world)
            base_startup = time.perf_counter() - began
            await settle(process.pid, time.perf_counter())
            base = Figures.of(await replay_timed(fake, todo))
            capacity = await replay_flat_out(fake, todo)
            base_peak = proc_status(process.pid, "VmHWM") / 1024
        finally:
            await stop_process(process)
    finally:
        await fake.stop()
    return Case(
        n=n, m=m, sequences=len(todo), bot=Figures.of(records), base=base,
        kinds=by_kind(records), cpu_ms_by_kind=cpu_by_kind(todo), rate=len(records) / elapsed,
        base_capacity=capacity,
        cpu_ms=sum(cpus) * 1000 / len(records), harness_cpu_ms=harness * 1000 / len(records),
        peak_mb=sum(peaks), base_peak_mb=base_peak, startup=startup,
        base_startup=base_startup, load=(load_before, load_average()), writer=writer,
        rest_per_int=rest_calls / len(records), ramp=ramp,
        profile=",".join(str(f) for f in (
            [kinds_folder] if per_kind else prof_files)) or None,
        database="sqlite" if admin_url is None else "postgresql", processes=processes,
        parts=parts,
    )


def process_part(shard: int, records: Sequence[InteractionRecord], cpu: float, peak_mb: float,
                 before: dict[str, Any], after: dict[str, Any]) -> ProcessPart:
    return ProcessPart(shard=shard, bot=Figures.of(records),
                       cpu_ms=cpu * 1000 / len(records), peak_mb=peak_mb,
                       writer=WriterLock.between(before, after, len(records)))


def print_profile(path: str, top: int = 30) -> None:
    stats = pstats.Stats(path)
    stats.sort_stats("cumulative").print_stats(r"/(bot|cogs|rules)/", top)
    stats.sort_stats("tottime").print_stats(top)


# --------------------------------------------------------------------------- PostgreSQL


@contextlib.asynccontextmanager
async def postgres(database: str) -> AsyncIterator[str | None]:
    """The admin URL of the server to run on: None for SQLite, the URL given, or a
    throwaway server (tests/postgres_server.py) started for the run and removed after."""
    if database == "sqlite":
        yield None
        return
    if database != "postgresql":
        yield database
        return
    found = postgres_server.binaries()
    if found is None:
        raise SystemExit(f"--database postgresql: {postgres_server.SKIP_REASON}")
    server = postgres_server.LocalServer(found)
    try:
        url = server.start()
        await accepting(url)
        yield url
    finally:
        server.stop()


async def accepting(url: str) -> None:
    """Wait until the server takes connections (its port opens a little before)."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            conn = await asyncpg.connect(url)
        except (OSError, asyncpg.CannotConnectNowError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
        else:
            await conn.close()
            return


# --------------------------------------------------------------------------- main


async def run_cases(args: argparse.Namespace, folder: Path,
                    admin_url: str | None) -> list[Case]:
    """Every N x M case, each printed as it ends (and the JSON rewritten)."""
    cases: list[Case] = []
    print(HEADER, flush=True)
    for n, m, processes in itertools.product(args.n, args.m, args.processes):
        case = await run_case(n, m, folder, profile=args.profile, cache=args.cache,
                              ramp=args.ramp, uvloop=args.uvloop, admin_url=admin_url,
                              processes=processes)
        cases.append(case)
        if case.sequences < m:
            print(f"  (N={n} holds {case.sequences} sequences at once: each gang is "
                  "in one at a time)", flush=True)
        print(case.row(), flush=True)
        print(case.writer.line(case.database), flush=True)
        for part in case.parts:
            print(part.line(), flush=True)
        print(f"  REST requests to Discord: {case.rest_per_int:.2f} per interaction "
              "(the first responses included)", flush=True)
        if args.by_kind:
            print(kinds_table(case), flush=True)
        if args.sql:
            for text, count in case.writer.top_statements.items():
                print(f"    {count:6.2f}  {text}", flush=True)
            if case.writer.top_callers:
                print("  round trips per interaction, by where they came from:", flush=True)
            for text, count in case.writer.top_callers.items():
                print(f"    {count:6.2f}  {text}", flush=True)
            print("  the database threads' CPU, ms per interaction:", flush=True)
            for text, ms in case.writer.top_db_cpu.items():
                print(f"    {ms:6.2f}  {text}", flush=True)
        if args.json is not None:
            args.json.write_text(json.dumps([asdict(c) for c in cases], indent=2),
                                 encoding="utf-8")
    if len(args.processes) > 1:
        print(scaling(cases), flush=True)
    return cases


def scaling(cases: Sequence[Case]) -> str:
    """Each N x M's throughput and p99 by the number of processes, against one process's
    (or the fewest run)."""
    lines = ["scaling with processes (one PostgreSQL server):"]
    for (n, m), found in itertools.groupby(cases, key=lambda c: (c.n, c.m)):
        ordered = sorted(found, key=lambda c: c.processes)
        first = ordered[0]
        said = [f"x{c.processes} {c.rate:.0f} int/s ({c.rate / first.rate:.2f}x), "
                f"p99 {c.bot.p99:.0f} ms, CPU {c.cpu_ms:.1f} ms/int"
                for c in ordered]
        lines.append(f"  N={n} M={m}: " + "; ".join(said)
                     + f"; load {min(c.load[0] for c in ordered):.1f}"
                     f"-{max(c.load[1] for c in ordered):.1f}")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[10, 100, 1000],
                        help="campaigns (= servers) in the database")
    parser.add_argument("--m", type=int, nargs="+", default=[1, 10, 100],
                        help="post-battle sequences at once")
    parser.add_argument("--quick", action="store_true", help="smoke run: N=10, M=1 and 2")
    parser.add_argument("--by-kind", action="store_true",
                        help="also print our bot's figures per kind of interaction")
    parser.add_argument("--profile", type=Path, help="run the bot under cProfile, files here")
    parser.add_argument("--sql", action="store_true",
                        help="also print the commonest SQL statements per interaction")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="start the M sequences evenly over this many seconds "
                             "(default 0: all in the same instant)")
    parser.add_argument("--uvloop", action="store_true",
                        help="run our bot on uvloop's event loop (to measure it; not installed "
                             "with the bot)")
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help="where the built databases are kept (default bench/.cache)")
    parser.add_argument("--database", default="sqlite",
                        help="sqlite (default); postgresql://... (a server whose user may "
                             "create databases: the template databases are kept there); or "
                             "postgresql: a throwaway server started for the run")
    parser.add_argument("--processes", type=int, nargs="+", choices=(1, 2, 3, 4),
                        default=[1],
                        help="bot processes, one per shard (more than 1 needs PostgreSQL); "
                             "several counts (e.g. 1 2 4): a case for each, on the same "
                             "server, and how the figures grow with them")
    args = parser.parse_args()
    if args.sql:  # the bots (bench/writer_times.py) count round trips by where they came from
        os.environ["BENCH_CALLERS"] = "1"
    if args.quick:
        args.n, args.m = [10], [1, 2]
    if max(args.processes) > 1 and args.database == "sqlite":
        parser.error("--processes 2 and more need --database postgresql: one SQLite file serves "
                     "one process")
    with tempfile.TemporaryDirectory(prefix="munda-bench-") as tmp:
        async with postgres(args.database) as admin_url:
            cases = await run_cases(args, Path(tmp), admin_url)
    for case in cases:
        for found in (case.profile or "").split(","):
            if found and Path(found).is_dir():  # one profile per kind of interaction
                for kind in sorted(Path(found).glob("*.prof")):
                    if kind.stem != "after-the-drive":
                        print(f"\n== profile of the bot at N={case.n}, M={case.m}, "
                              f"{kind.stem} only: {kind}")
                        print_profile(str(kind), top=15)
            elif found and Path(found).exists():
                print(f"\n== profile of the bot at N={case.n}, M={case.m}: {found}")
                print_profile(found)


if __name__ == "__main__":
    asyncio.run(main())
