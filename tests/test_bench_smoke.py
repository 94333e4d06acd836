"""The benchmark against bare discord.py still works: a small run, no timings checked.

CI runs ``bench/bot_bench.py --quick`` (N = 10 campaigns, M = 1 and 2
sequences at once) as a user would, in its own process with a database
built into a temporary cache. What is checked is that it ran: the real bot
and the baseline each answered every interaction of every sequence, and the
figures it reports are there. How fast they were is the benchmark's business,
not a test's (the machine is shared).

The same smoke run on PostgreSQL (``--database`` the tests' server, one bot
process, and two as shards 0 and 1 of 2) is skipped without a server and fails
under CI, like every PostgreSQL test (tests/conftest.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bench.bot_bench import percentile, plans
from bench.build_db import (
    BATTLES_PER_CAMPAIGN,
    GANGS,
    PLAYER_IDS,
    build_world,
    guild_id,
    template_name,
)
from fakediscord import FakeDiscord
from fakediscord.gateway import Session

ROOT = Path(__file__).resolve().parent.parent
PER_SEQUENCE = 29  # /postbattle start, 2 selects, 2 Submits, 2 Confirms x 12 steps


def test_quick_run_drives_both_bots_through_every_interaction(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bot_bench.py"), "--quick", "--by-kind",
         "--json", str(out), "--cache", str(tmp_path / "cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    cases = json.loads(out.read_text(encoding="utf-8"))
    assert [(c["n"], c["m"], c["sequences"]) for c in cases] == [(10, 1, 1), (10, 2, 2)]
    for case in cases:
        expected = PER_SEQUENCE * case["m"]
        assert case["bot"]["count"] == expected
        assert case["base"]["count"] == expected
        assert sum(k["count"] for k in case["kinds"].values()) == expected
        assert case["kinds"]["pb:confirm"]["count"] == 24 * case["m"]
        assert case["kinds"]["/postbattle start"]["count"] == case["m"]
        for figures in (case["bot"], case["base"]):
            assert 0 < figures["p50"] <= figures["p99"] <= figures["max"]
        assert case["peak_mb"] > 0 and case["base_peak_mb"] > 0
        assert case["rate"] > 0 and case["base_capacity"] > 0
    assert "by kind (N=10, M=2)" in done.stdout
    assert (tmp_path / "cache").is_dir()


async def _bench_databases(admin_url: str) -> set[str]:
    conn = await asyncpg.connect(admin_url)
    try:
        rows = await conn.fetch("SELECT datname FROM pg_database WHERE datname LIKE 'munda_bench%'")
    finally:
        await conn.close()
    return {row["datname"] for row in rows}


@pytest.mark.parametrize("processes", [1, 2])
async def test_quick_run_on_postgresql(tmp_path: Path, postgres_admin_url: str,
                                       processes: int) -> None:
    had = await _bench_databases(postgres_admin_url)
    out = tmp_path / "figures.json"
    try:
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "bot_bench.py"), "--quick",
             "--database", postgres_admin_url, "--processes", str(processes),
             "--json", str(out), "--cache", str(tmp_path / "cache")],
            cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        )
        left = await _bench_databases(postgres_admin_url)
    finally:
        for name in await _bench_databases(postgres_admin_url) - had:
            conn = await asyncpg.connect(postgres_admin_url)
            try:
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            finally:
                await conn.close()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # The template stays for the next run; each case's copy was dropped.
    assert left - had <= {template_name(10)}
    assert template_name(10) in left
    cases: list[dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    assert [(c["n"], c["m"], c["sequences"]) for c in cases] == [(10, 1, 1), (10, 2, 2)]
    for case in cases:
        expected = PER_SEQUENCE * case["m"]
        assert (case["database"], case["processes"]) == ("postgresql", processes)
        assert case["bot"]["count"] == expected
        assert case["base"]["count"] == expected
        assert 0 < case["bot"]["p50"] <= case["bot"]["p99"] <= case["bot"]["max"]
        assert case["peak_mb"] > 0 and case["cpu_ms"] > 0
        # asyncpg's statements were counted (SQLite's trace callback sees none here).
        assert case["writer"]["statements_per_int"] > 0
        assert case["writer"]["round_trips_per_int"] > 0
    assert f"pg x{processes}" in done.stdout
    if processes == 2:
        # M = 2: one sequence in a server of each shard, each played by its own process.
        parts = cases[1]["parts"]
        assert [(p["shard"], p["bot"]["count"]) for p in parts] == [
            (0, PER_SEQUENCE), (1, PER_SEQUENCE)]
        assert sum(p["peak_mb"] for p in parts) == cases[1]["peak_mb"]
        assert all(p["peak_mb"] > 0 and p["cpu_ms"] > 0 for p in parts)
    else:
        assert all(case["parts"] == [] for case in cases)


def test_the_servers_alternate_between_two_shards() -> None:
    """Discord's routing (the fake's): even servers to shard 0, odd ones to shard 1."""
    shard0, shard1 = Session("0", 0, (0, 2)), Session("1", 0, (1, 2))
    ids = [guild_id(i) for i in range(1000)]
    assert len(set(ids)) == len(ids)
    assert [shard0.handles(g) for g in ids[:4]] == [True, False, True, False]
    assert [shard1.handles(g) for g in ids[:4]] == [False, True, False, True]
    assert sum(shard0.handles(g) for g in ids) == sum(shard1.handles(g) for g in ids) == 500


def test_sequences_fill_every_campaign_before_a_second_battle_in_one() -> None:
    fake = FakeDiscord()
    world = build_world(fake, 3)
    assert [g.id for g in world.guilds] == [guild_id(i) for i in range(3)]
    assert [p.id for p in world.players] == list(PLAYER_IDS)
    assert all(len(g.members) == GANGS + 2 for g in world.guilds)  # players, owner, the bot
    found = plans(world, 7)
    assert [(world.channels.index(p.channel), p.battle) for p in found] == [
        (0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2)]
    assert [(p.first.id, p.second.id) for p in found[3:5]] == [(PLAYER_IDS[2], PLAYER_IDS[3])] * 2
    # A gang is in one sequence at a time: no more than 4 battles per campaign.
    assert len(plans(world, 100)) == 3 * BATTLES_PER_CAMPAIGN


@pytest.mark.parametrize(("samples", "q", "expected"), [
    ([float(n) for n in range(1, 101)], 0.99, 99.0),
    ([float(n) for n in range(1, 101)], 0.5, 50.0),
    ([float(n) for n in range(1, 30)], 0.99, 29.0),  # 29 samples: p99 is the largest
    ([7.0], 0.99, 7.0),
])
def test_percentile_is_nearest_rank(samples: list[float], q: float, expected: float) -> None:
    assert percentile(samples, q) == expected
