"""How long each import holds up the event loop, at the largest files the bot accepts.

For every importer (a Yaktribe gang export, this bot's own gang file, a
Trading Post as CSV and as JSON, a campaign file) the script builds the
largest legal file (every list at its bound, or the byte limit filled), then
runs the import as the cog runs it (the same functions, on a real SQLite
database) while a coroutine ticks every 5 ms. It prints, over several runs
(min / median / max), the longest gap between two ticks (5 ms when the loop
is free), the 99th percentile gap and the whole import's time, the process's
CPU share of the longest gap, the loop thread's longest step (the most CPU
time it spent within one gap: unlike the gaps, the machine's load does not
lengthen it), and the 1-minute load average before and after.

The process imports every cog and the bot's own modules first and then does
what the bot does at start-up for the garbage collector
(:func:`bot.importing.worker.settle_heap`), so collections see a heap like
the bot's.

Run: ``.venv/bin/python bench/import_loop_bench.py [--runs 5] [--case NAME ...]
[--slow-callbacks]``. With ``--slow-callbacks`` the loop runs in asyncio's debug mode and
logs every callback that holds it for 50 ms or more, naming it (debug mode itself slows
the loop a little, so read the gaps of such a run as an upper bound).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import os
import statistics
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from bot.app import discover_cogs
from bot.call import Actor
from bot.config import ImportingSettings
from bot.importing import gangflow
from bot.importing.campaigndoc import release_campaign
from bot.importing.files import prepare_campaign_file, read_trading_post_file
from bot.importing.gangdoc import gang_document
from bot.importing.preview import preview
from bot.importing.worker import import_worker, settle_heap
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Storage, new_id
from bot.storage.exporting import ImportGrant
from rules.limits import (
    MAX_ADVANCEMENTS,
    MAX_COLUMNS,
    MAX_FIGHTERS,
    MAX_GANG_ITEMS,
    MAX_INJURIES,
    MAX_SKILLS,
    MAX_SPECIAL_RULES,
    MAX_STASH_ITEMS,
    MAX_TERRITORIES,
    MAX_TRADING_POST_ITEMS,
    MAX_VEHICLES,
)
from rules.models import (
    Advancement,
    CampaignSettings,
    EquipmentKind,
    Fighter,
    FighterCategory,
    Gang,
    Item,
    Vehicle,
)

GUILD = 900_000_000_000_000_001
USER = 100_000_000_000_000_001
TICK = 0.005
SLOW_CALLBACK = 0.05
MAX_BYTES = ImportingSettings().max_import_bytes


# --------------------------------------------------------------------------- files


def text(n: int, width: int) -> str:
    """A distinct text of exactly ``width`` characters."""
    return f"{n:06d} " + "x" * (width - 7)


def yaktribe_at_bounds() -> bytes:
    """200 gangers with every list full; 1000 items in the gang; 100 Territories."""
    per_fighter = (MAX_GANG_ITEMS - MAX_STASH_ITEMS) // MAX_FIGHTERS
    gangers = [
        {
            "ganger_id": 10_000 + n, "name": f"Ganger {n:03d} " + "y" * 80,
            "type": "Goliath Bruiser", "category": "Ganger", "m": "5\"",
            "ws": "4+", "bs": "5+", "s": 4, "t": 4, "w": 1,
            "i": "5+", "a": 1, "ld": "7+", "cl": "7+", "wil": "8+", "int": "8+",
            "cost": 500, "xp": 99, "kills": 9, "advance_count": 3,
            "equipment": [{"name": "Autogun", "qty": 1, "kind": "weapon"}] * per_fighter,
            "skills": [text(s, 100) for s in range(MAX_SKILLS)],
            "injuries": [text(s, 100) for s in range(MAX_INJURIES)],
            "status": "Alive",
        }
        for n in range(MAX_FIGHTERS)
    ]
    gang = {
        "gang_id": 48213, "gang_name": "Bench Kings", "gang_type": "Goliath",
        "gang_rating": "100000", "credits": "900", "reputation": 9, "alignment": "Outlaw",
        "territories": [text(t, 100) for t in range(MAX_TERRITORIES)],
        "stash": [{"name": "Stub gun", "qty": 1, "kind": "weapon"}] * MAX_STASH_ITEMS,
        "gangers": gangers,
    }
    return json.dumps(gang).encode()


def gang_file_at_bounds(campaign: Campaign) -> bytes:
    """A /gang export file: 200 fighters and 50 + 50 vehicles with every list full."""

    def item(kind: EquipmentKind = EquipmentKind.WEAPON) -> Item:
        return Item(id=new_id(), name="Autogun", cost=15, kind=kind)

    vehicles = 2 * MAX_VEHICLES
    # Every vehicle carries one upgrade; the rest of the gang's items go to fighters.
    per_fighter = (MAX_GANG_ITEMS - MAX_STASH_ITEMS - vehicles) // MAX_FIGHTERS
    fighters = [
        Fighter(
            id=new_id(), name=f"Fighter {n:03d} " + "f" * 80,
            category=FighterCategory.GANGER, fighter_type="Goliath Bruiser", cost=500, xp=99,
            advancements=[Advancement(name=text(a, 100), xp_cost=6, credits=10)
                          for a in range(MAX_ADVANCEMENTS)],
            skills=[text(s, 200) for s in range(MAX_SKILLS)],
            special_rules=[text(s, 200) for s in range(MAX_SPECIAL_RULES)],
            lasting_injuries=[text(s, 200) for s in range(MAX_INJURIES)],
            equipment=[item() for _ in range(per_fighter)],
        )
        for n in range(MAX_FIGHTERS)
    ]

    def vehicle(n: int) -> Vehicle:
        return Vehicle(
            id=new_id(), name=f"Vehicle {n:03d}", vehicle_type="Cargo-8", cost=120,
            upgrades=[item(EquipmentKind.VEHICLE_UPGRADE)],
            lasting_damage=[text(d, 200) for d in range(MAX_INJURIES)],
        )

    gang = Gang(
        id=new_id(), name="Bench Wolves", house="Goliath", owner=str(USER), credits=900,
        fighters=fighters,
        vehicles=[vehicle(n) for n in range(MAX_VEHICLES)],
        stash_vehicles=[vehicle(MAX_VEHICLES + n) for n in range(MAX_VEHICLES)],
        stash=[item() for _ in range(MAX_STASH_ITEMS)],
    )
    document = gang_document(GUILD + 1, campaign, gang, [])
    return document.model_dump_json(by_alias=True).encode()


def trading_post_rows() -> list[dict[str, str]]:
    """2000 items with 50 columns, the unread ones filled so the file is ~10 MB."""
    known = ["name", "category", "cost", "availability", "kind", "two_slots"]
    extra = [f"note{c:02d}" for c in range(MAX_COLUMNS - len(known))]
    cell = max(1, (MAX_BYTES * 85 // 100) // (MAX_TRADING_POST_ITEMS * len(extra)) - 6)
    return [
        {
            "name": f"Item {n:04d}", "category": "Basic Weapons", "cost": str(10 + n % 90),
            "availability": f"Rare ({7 + n % 5})" if n % 3 else "Common",
            "kind": "weapon", "two_slots": "no",
            **{column: text(n, cell) for column in extra},
        }
        for n in range(MAX_TRADING_POST_ITEMS)
    ]


def trading_post_csv() -> bytes:
    rows = trading_post_rows()
    header = list(rows[0])
    lines = [",".join(header)] + [",".join(row[c] for c in header) for row in rows]
    return ("\n".join(lines) + "\n").encode()


def trading_post_json() -> bytes:
    return json.dumps(trading_post_rows()).encode()


def campaign_document(gangs: int, fighters: int, ledger: int) -> dict[str, Any]:
    def fighter(g: int, n: int) -> dict[str, Any]:
        return {
            "id": f"f{g}-{n}", "name": f"Fighter {g}-{n}", "category": "Ganger",
            "cost": 60, "xp": 3, "skills": ["Nerves of Steel"],
            "equipment": [{"id": f"i{g}-{n}-{k}", "name": "Autogun", "cost": 15,
                           "kind": "weapon"} for k in range(2)],
        }

    rows = [
        {"id": n, "kind": "roll", "at": "2030-01-01T00:00:00Z", "actor": "1",
         "clause": "PB-1", "expression": "D6", "faces": [3], "total": 3, "purpose": "income"}
        for n in range(ledger)
    ]
    return {
        "format": "munda-arbitrator/campaign", "version": 1,
        "exported_at": "2030-01-01T00:00:00Z", "guild_id": 1,
        "campaign": {"id": "c1", "settings": {"name": "Scrap Hollow"},
                     "created_at": "2030-01-01T00:00:00Z"},
        "gangs": [
            {"id": f"g{g}", "name": f"Gang {g}", "house": "Goliath", "owner": str(USER),
             "fighters": [fighter(g, n) for n in range(fighters)]}
            for g in range(gangs)
        ],
        "ledger": rows,
    }


def campaign_filling(gangs: int, fighters: int) -> bytes:
    """``gangs`` gangs of ``fighters`` fighters, and ledger rows up to the byte limit."""
    base = len(json.dumps(campaign_document(gangs, fighters, 0)))
    row = len(json.dumps(campaign_document(0, 0, 1000))) - len(json.dumps(
        campaign_document(0, 0, 0)))
    rows = max(0, (MAX_BYTES * 98 // 100 - base) * 1000 // row)
    data = json.dumps(campaign_document(gangs, fighters, rows)).encode()
    assert len(data) <= MAX_BYTES, len(data)
    return data


# --------------------------------------------------------------------------- the cog's paths


@dataclass
class Bench:
    storage: Storage
    asker: Actor

    async def campaign(self, name: str) -> Campaign:
        async with self.storage.transaction(GUILD) as tx:
            return await tx.create_campaign(
                CampaignSettings(name=name), arbitrator_user_ids=[USER]
            )

    async def gang_ask(self, data: bytes, campaign: Campaign) -> str:
        """/gang import up to its question: read, stage, preview."""
        parsed = await gangflow.read(data, campaign, owner=str(USER))
        async with self.storage.transaction(GUILD) as tx:
            found = await tx.get_campaign(campaign.id)
            token, staged, existing = await gangflow.stage(
                tx, found, parsed, self.asker, read_for=campaign, rename=None
            )
        preview(staged, existing, found.name)
        return token

    async def gang_confirm(self, campaign: Campaign, token: str) -> None:
        async with self.storage.transaction(GUILD) as tx:
            done = await gangflow.confirm(tx, campaign.id, token, self.asker, mention=f"<@{USER}>")
        assert done.message.startswith("Done."), done.message

    async def trading_post(self, data: bytes, filename: str, campaign: Campaign) -> None:
        """/campaign tradingpost import."""
        parsed = await read_trading_post_file(data, filename)
        async with self.storage.transaction(GUILD) as tx:
            found = await tx.get_campaign(campaign.id)
            await tx.set_trading_post(
                found.id, parsed.entries, actor=str(USER), note="bench"
            )
        ruleset_for(found)

    async def campaign_import(self, data: bytes, name: str) -> None:
        """/campaign import (the grant is given whole: there is no server to ask)."""
        # Who may import: the cog lists the server's campaigns first, and again for the name.
        await self.storage.read(GUILD).list_campaigns()
        prepared = await prepare_campaign_file(data)
        document = prepared.document
        grant = ImportGrant(
            owner=str(USER), arbitrator_user_ids=(USER,),
            owners=frozenset(g.owner for g in document.gangs),
        )
        async with self.storage.transaction(GUILD) as tx:
            await tx.list_campaigns()
            await tx.import_campaign(prepared, actor=str(USER), name=name, grant=grant)
        await release_campaign(prepared)


# --------------------------------------------------------------------------- measuring


class StallSampler(threading.Thread):
    """Names what the loop's thread runs whenever a tick is SLOW_CALLBACK late.

    asyncio's slow-callback log names the task, not the line inside it (every case
    runs inside the one main task); this thread looks at the loop thread's stack
    while it is stalled and counts the innermost frame of the project's own code.
    """

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.loop_thread = threading.get_ident()
        self.last = time.perf_counter()
        self.seen: dict[str, int] = {}
        self.stopped = threading.Event()

    def beat(self) -> None:
        self.last = time.perf_counter()

    def run(self) -> None:
        marked = self.last
        while not self.stopped.wait(0.01):
            if time.perf_counter() - self.last < SLOW_CALLBACK or self.last == marked:
                continue
            marked = self.last
            frames = sys._current_frames()
            stack = traceback.extract_stack(frames.get(self.loop_thread))
            own = [f for f in stack if ROOT in f.filename and "/.venv/" not in f.filename
                   and "/bench/" not in f.filename]
            # The innermost frame (perhaps a library's), then the project's own callers.
            shown = [*stack[-1:], *reversed(own[-3:])]
            key = " < ".join(_place(f) for f in shown)
            # Waiting in select() for the GIL: then another thread holds it; name them.
            others = [_place(traceback.extract_stack(f)[-1]) for t, f in frames.items()
                      if t not in (self.loop_thread, threading.get_ident())]
            idle = ("threading.py", "queues.py", "thread.py:81", "selectors.py", "connection.py")
            busy = [o for o in others if not any(word in o for word in idle)]
            if busy:
                key += " | other threads: " + ", ".join(sorted(busy))
            self.seen[key] = self.seen.get(key, 0) + 1

    def report(self, case: str) -> None:
        for key, times in sorted(self.seen.items(), key=lambda kv: -kv[1]):
            print(f"  stalled {times}x in {case}: {key}", flush=True)
        self.seen.clear()


def _place(frame: traceback.FrameSummary) -> str:
    return f"{Path(frame.filename).parent.name}/{Path(frame.filename).name}:{frame.lineno} " \
        f"{frame.name}"


ROOT = str(Path(__file__).resolve().parent.parent)
SAMPLER: StallSampler | None = None


@dataclass
class Run:
    longest_ms: float
    p99_ms: float
    total_s: float
    # CPU time the process used during the longest gap, in % of the gap.
    cpu_share: float
    # The most CPU time the loop's own thread spent within one gap: its longest step,
    # which the machine's load does not lengthen (a gap may also be another thread
    # holding the GIL, or the machine not running the process).
    loop_cpu_ms: float


async def ticking(work: Awaitable[Any]) -> Run:
    """Run ``work`` while a coroutine ticks every 5 ms; the gaps between its ticks."""
    gaps: list[float] = []
    # The process's CPU time over each gap: a long gap with little CPU is the machine
    # not running this process (load), one with a full core is the process's own work.
    cpu: list[float] = []
    loop_cpu: list[float] = []
    done = False

    async def tick() -> None:
        last, last_cpu = time.perf_counter(), time.process_time()
        last_loop = time.thread_time()
        while not done:
            await asyncio.sleep(TICK)
            now, now_cpu = time.perf_counter(), time.process_time()
            now_loop = time.thread_time()
            if SAMPLER is not None:
                SAMPLER.beat()
            gaps.append(now - last)
            cpu.append(now_cpu - last_cpu)
            loop_cpu.append(now_loop - last_loop)
            last, last_cpu, last_loop = now, now_cpu, now_loop

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(TICK * 2)
    gaps.clear()
    cpu.clear()
    loop_cpu.clear()
    started = time.perf_counter()
    await work
    total = time.perf_counter() - started
    done = True
    await ticker
    ordered = sorted(gaps)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    longest = max(range(len(gaps)), key=gaps.__getitem__)
    return Run(ordered[-1] * 1000, p99 * 1000, total, cpu[longest] / gaps[longest] * 100,
               max(loop_cpu) * 1000)


Case = Callable[[Bench, int], Awaitable[Run]]


def gang_cases(build: Callable[[Campaign], bytes]) -> tuple[Case, Case]:
    async def ask(bench: Bench, run: int) -> Run:
        campaign = await bench.campaign(f"Ask {run} {new_id()}")
        data = build(campaign)
        return await ticking(bench.gang_ask(data, campaign))

    async def confirm(bench: Bench, run: int) -> Run:
        campaign = await bench.campaign(f"Confirm {run} {new_id()}")
        token = await bench.gang_ask(build(campaign), campaign)
        return await ticking(bench.gang_confirm(campaign, token))

    return ask, confirm


def cached(make: Callable[[], bytes]) -> Callable[[Any], bytes]:
    made: list[bytes] = []

    def get(_: Any = None) -> bytes:
        if not made:
            made.append(make())
        return made[0]

    return get


def file_cases() -> dict[str, tuple[Callable[[], int], Case]]:
    yaktribe = cached(yaktribe_at_bounds)
    csv_file = cached(trading_post_csv)
    json_file = cached(trading_post_json)
    campaign_gangs = cached(lambda: campaign_filling(200, 40))
    campaign_ledger = cached(lambda: campaign_filling(1, 1))
    gang_files: dict[str, bytes] = {}

    def gang_file(campaign: Campaign) -> bytes:
        if "file" not in gang_files:
            gang_files["file"] = gang_file_at_bounds(campaign)
        return gang_files["file"]

    yak_ask, yak_confirm = gang_cases(yaktribe)
    file_ask, file_confirm = gang_cases(gang_file)

    def size_of(get: Callable[[Any], bytes]) -> Callable[[], int]:
        return lambda: len(get(None))

    def tradingpost(get: Callable[[Any], bytes], name: str) -> Case:
        async def case(bench: Bench, run: int) -> Run:
            campaign = await bench.campaign(f"TP {run} {new_id()}")
            return await ticking(bench.trading_post(get(None), name, campaign))
        return case

    def campaign_case(get: Callable[[Any], bytes]) -> Case:
        async def case(bench: Bench, run: int) -> Run:
            return await ticking(bench.campaign_import(get(None), f"Imported {new_id()}"))
        return case

    gang_size = size_of(lambda _: gang_files.get("file", b""))
    return {
        "yaktribe-ask": (size_of(yaktribe), yak_ask),
        "yaktribe-confirm": (size_of(yaktribe), yak_confirm),
        "gangfile-ask": (gang_size, file_ask),
        "gangfile-confirm": (gang_size, file_confirm),
        "tradingpost-csv": (size_of(csv_file), tradingpost(csv_file, "post.csv")),
        "tradingpost-json": (size_of(json_file), tradingpost(json_file, "post.json")),
        "campaign-gangs": (size_of(campaign_gangs), campaign_case(campaign_gangs)),
        "campaign-ledger": (size_of(campaign_ledger), campaign_case(campaign_ledger)),
    }


def spread(values: list[float], fmt: str) -> str:
    return "/".join(format(v, fmt) for v in (min(values), statistics.median(values),
                                             max(values)))


async def main(runs: int, names: list[str], slow_callbacks: bool) -> None:
    if slow_callbacks:
        logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
        loop = asyncio.get_running_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = SLOW_CALLBACK
        global SAMPLER
        SAMPLER = StallSampler()
        SAMPLER.start()
    for cog in discover_cogs():
        importlib.import_module(cog)
    cases = file_cases()
    unknown = set(names) - set(cases)
    if unknown:
        raise SystemExit(f"unknown cases: {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(cases)}")
    asker = Actor(USER)
    with tempfile.TemporaryDirectory() as directory:
        storage = await Storage.open(Path(directory) / "bench.sqlite")
        # As the bot's start-up does (bot.app).
        await import_worker.warm_up()
        settle_heap()
        bench = Bench(storage, asker)
        print(f"runs: {runs}; tick: {TICK * 1000:.0f} ms; max_import_bytes: {MAX_BYTES}; "
              f"Python {sys.version.split()[0]}; {os.cpu_count()} CPUs")
        print(f"{'case':18} {'bytes':>9} {'longest gap ms':>18} {'p99 gap ms':>14} "
              f"{'total s':>16} {'cpu% longest':>13} {'loop cpu ms':>12}  load before/after")
        try:
            for name in names or list(cases):
                size, case = cases[name]
                before = os.getloadavg()[0]
                results = [await case(bench, run) for run in range(runs)]
                after = os.getloadavg()[0]
                print(f"{name:18} {size():>9} "
                      f"{spread([r.longest_ms for r in results], '.0f'):>18} "
                      f"{spread([r.p99_ms for r in results], '.0f'):>14} "
                      f"{spread([r.total_s for r in results], '.2f'):>16} "
                      f"{spread([r.cpu_share for r in results], '.0f'):>13} "
                      f"{spread([r.loop_cpu_ms for r in results], '.0f'):>12}  "
                      f"{before:.2f}/{after:.2f}", flush=True)
                if SAMPLER is not None:
                    SAMPLER.report(name)
        finally:
            await storage.close()
            import_worker.shutdown()
    print(f"longest and p99 gap between ticks, total time of the import: min/median/max; "
          f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--case", nargs="*", default=[], help="cases to run (default: all)")
    parser.add_argument("--slow-callbacks", action="store_true",
                        help="log every callback holding the loop 50 ms or more")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.case, args.slow_callbacks))
