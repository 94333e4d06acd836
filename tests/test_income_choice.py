"""Collect Income takes the dice chosen in Receive Rewards (stored on the post-battle run)."""

from __future__ import annotations

import pytest

from bot.battle.state import PostBattleRun
from rules.data import default_ruleset
from rules.dice import ScriptedRoller
from rules.income import IncomeResult
from rules.models import Battle
from rules.sequence import PostBattleSequence, Step
from rules.stages import StageInputs, opening_computations
from rules.world import World
from tests import factories as make


def _inputs(chosen: dict[str, int], world: World) -> StageInputs:
    battle = Battle(id="b1", gang_ids=["wolves", "rats"])
    return StageInputs(battle=battle, sequence=PostBattleSequence.start("s1", battle, world),
                         ruleset=default_ruleset(), in_recovery_before=[],
                         captor_by_fighter={}, income_dice=chosen)


@pytest.mark.rule("PB-4")
def test_collect_income_rolls_the_dice_chosen_for_a_collapsed_dome() -> None:
    dome = make.territory("Old Dome", "2D6x10", id="dome", controller="wolves",
                          income_max_dice=6, income_double_injures=True)
    gone = make.territory("Lost Dome", "2D6x10", id="lost", controller="out",
                          income_max_dice=6, income_double_injures=True)
    world = make.world(make.gang("Ash Wolves", id="wolves", credits=0),
                       make.gang("Rust Rats", id="rats"), make.gang("Outsiders", id="out"),
                       territories=[dome, gone])
    # The Lost Dome changed hands after its choice: it is left out, not refused.
    inputs = _inputs({"dome": 4, "lost": 6}, world)
    [collect] = opening_computations((Step.COLLECT_INCOME, None), inputs)
    result = collect(world, ScriptedRoller([1, 2, 3, 4]))
    assert isinstance(result, IncomeResult)
    assert result.totals["wolves"] == 100
    assert any("chooses to roll 4D6x10 for Old Dome" in line for line in result.notes)


def test_a_run_stored_before_the_choice_existed_still_loads() -> None:
    battle = Battle(id="b1", gang_ids=["wolves", "rats"])
    world = make.world(make.gang("Ash Wolves", id="wolves"), make.gang("Rust Rats", id="rats"))
    run = PostBattleRun(campaign_id="c", battle_id="b1", started_by=1, channel_id=2,
                        sequence=PostBattleSequence.start("s1", battle, world))
    stored = run.model_dump(mode="json")
    del stored["income_dice"]
    assert PostBattleRun.model_validate(stored).income_dice == {}
