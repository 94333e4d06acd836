"""The offline rules demo: the whole sequence, in order, replayable, plain text."""

from __future__ import annotations

import io

import pytest

from demo.rules_only import DemoRun, play_rules_demo, run_rules_demo
from rules.actions import MedicalEscortResult
from rules.sequence import Step, SubStep
from rules.tradingpost import AvailabilityResult, PurchaseResult, SaleResult
from rules.wrapup import WrapUpResult

SEED = 7


@pytest.fixture(scope="module")
def demo() -> DemoRun:
    return play_rules_demo(SEED)


@pytest.fixture(scope="module")
def printed() -> str:
    out = io.StringIO()
    assert run_rules_demo(seed=SEED, out=out) == 0
    return out.getvalue()


def positions(text: str, needles: list[str]) -> list[int]:
    found = []
    start = 0
    for needle in needles:
        index = text.find(needle, start)
        assert index >= 0, f"{needle!r} is missing or out of order"
        found.append(index)
        start = index + len(needle)
    return found


@pytest.mark.rule("PB-0")
def test_prints_the_seven_steps_in_order(printed: str) -> None:
    steps = [s.value for s in Step if s is not Step.FINISHED]
    assert len(steps) == 7
    positions(printed, ["Pre-battle sequence", *steps])


@pytest.mark.rule("PB-6")
def test_prints_the_six_update_roster_sub_steps_in_order(printed: str) -> None:
    labels = [f"Update Roster ({sub.value})" for sub in SubStep]
    assert len(labels) == 6
    positions(printed, [*labels, "Report Results"])


def test_the_sequence_is_driven_to_its_end(demo: DemoRun) -> None:
    assert demo.sequence.finished
    assert all(sorted(gangs) == sorted(demo.sequence.gang_ids)
               for gangs in demo.sequence.confirmations.values())
    assert len(demo.sequence.confirmations) == 12  # 5 steps, 6 sub-steps, the report


def test_prints_dice_with_expression_faces_total_and_purpose(printed: str) -> None:
    dice = [line for line in printed.splitlines() if "🎲" in line]
    assert len(dice) >= 15
    assert any("scenario roll" in line and "D6 → [" in line for line in dice)
    assert any("escape roll for" in line for line in dice)
    assert any("Rare & Illegal availability" in line for line in dice)


def test_terminal_output_is_plain_text(printed: str) -> None:
    assert "**" not in printed
    assert "\\" not in printed


def test_the_script_is_interesting_with_the_default_seed(demo: DemoRun, printed: str) -> None:
    kinds = {type(result) for result in demo.results}
    assert {WrapUpResult, MedicalEscortResult, SaleResult, PurchaseResult,
            AvailabilityResult} <= kinds
    wrap = next(r for r in demo.results if isinstance(r, WrapUpResult))
    assert wrap.injuries and wrap.scrap and wrap.recovered_fighters
    assert any(not escape.escaped for escape in wrap.escapes)  # a captive
    seek = next(r for r in demo.results if isinstance(r, AvailabilityResult))
    assert seek.unlocked_names and "On offer: " in printed
    # The one refusal is the scripted one, shown as the player reads it.
    assert len(demo.refusals) == 1
    assert f"Refused: {demo.refusals[0]}" in printed


def test_report_figures_match_the_final_world(demo: DemoRun, printed: str) -> None:
    world = demo.world
    for line in demo.report.gangs:
        gang = world.gang(line.gang_id)
        assert (line.gang_rating, line.wealth) == (gang.rating, gang.wealth)
        assert f"{gang.name}: " in printed
        assert f"Gang Rating {gang.rating}, Wealth {gang.wealth}." in printed
    assert demo.report.winner_name is not None


def test_same_seed_same_game_other_seed_other_game(printed: str) -> None:
    again = io.StringIO()
    run_rules_demo(seed=SEED, out=again)
    assert again.getvalue() == printed
    other = io.StringIO()
    run_rules_demo(seed=SEED + 1, out=other)
    assert other.getvalue() != printed


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 99])
def test_main_path_is_legal_with_other_seeds(seed: int) -> None:
    run = play_rules_demo(seed)
    assert run.sequence.finished
    # Only the scripted sale can be refused, and only if someone was captured.
    assert len(run.refusals) <= 1
    assert all("chance to rescue" in message for message in run.refusals)
