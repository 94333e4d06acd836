"""The benchmark against bare discord.py still works (issue 7): a small run, no timings checked.

CI runs ``bench/bot_bench.py --quick`` (N = 10 campaigns, M = 1 and 2
sequences at once) as a user would, in its own process with a database
built into a temporary cache. What is checked is that it ran: the real bot
and the baseline each answered every interaction of every sequence, and the
figures it reports are there. How fast they were is the benchmark's business,
not a test's (the machine is shared).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.bot_bench import percentile, plans
from bench.build_db import BATTLES_PER_CAMPAIGN, GANGS, PLAYER_IDS, build_world, guild_id
from fakediscord import FakeDiscord

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
