"""What the bot computes by itself when a stage opens, and what players do in the others.

A stage that opens runs its automatic computations in order, each on the
world the previous one left, each stored as its own action (so an undo can
take them back one by one). Interactive stages compute nothing: they open with
instructions and the players act with the stage commands.

- Wrap-up: :func:`rules.wrapup.wrap_up`, then :func:`rules.battle_record.record_battle_fought`
  (the gangs' ``battles_fought`` goes up once, in the Wrap-up's transaction).
- Assign/Reassign Territory: :func:`rules.territory.assign_territory`.
- Collect Income: :func:`rules.income.collect_income`, with the income dice chosen in
  Receive Rewards (``/rewards dome``, stored on the run).
- Update Roster A: :func:`rules.cleanhouse.clean_house` for each gang, at opening.
- Update Roster F: the Gang Rating against the one stored at the start (PB-6F).
- Report Results: :func:`rules.report.battle_report` (the embed is posted on the last confirmation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rules.battle_record import record_battle_fought
from rules.cleanhouse import clean_house
from rules.dice import Roller
from rules.income import collect_income
from rules.models import Battle
from rules.ruleset import RuleSet
from rules.sequence import PostBattleSequence, Stage, Step, SubStep
from rules.territory import assign_territory
from rules.world import RuleResult, World
from rules.wrapup import wrap_up

Computation = Callable[[World, Roller], RuleResult]


@dataclass(frozen=True)
class StageInputs:
    """What the automatic computations of a stage read besides the world."""

    battle: Battle
    sequence: PostBattleSequence
    ruleset: RuleSet
    in_recovery_before: list[str]
    captor_by_fighter: dict[str, str]
    # Territory id -> income dice its controller chose (/rewards dome).
    income_dice: dict[str, int] = field(default_factory=dict)


# The stages that compute something as they open (opening_computations); the others
# open with their instructions only, from names and owners: no battle, no roster.
ROLLING_AT_OPENING: frozenset[Stage] = frozenset({
    (Step.WRAP_UP, None),
    (Step.ASSIGN_TERRITORY, None),
    (Step.COLLECT_INCOME, None),
    (Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE),
    (Step.UPDATE_ROSTER, SubStep.GANG_RATING),
    (Step.REPORT_RESULTS, None),
})


def rolls_as_it_opens(stage: Stage) -> bool:
    """Whether :func:`opening_computations` has anything to run for ``stage``."""
    return stage in ROLLING_AT_OPENING


def opening_computations(stage: Stage, inputs: StageInputs) -> list[Computation]:
    """The rules functions the bot runs, in order, when ``stage`` opens (none for a
    stage that does not :func:`rolls_as_it_opens`)."""
    if not rolls_as_it_opens(stage):
        return []
    step, substep = stage
    battle = inputs.battle
    if step is Step.WRAP_UP:
        return [
            lambda world, roller: wrap_up(
                world, battle, inputs.ruleset, roller,
                in_recovery_before=list(inputs.in_recovery_before),
                captor_by_fighter=dict(inputs.captor_by_fighter),
            ),
            lambda world, _roller: record_battle_fought(world, battle),
        ]
    if step is Step.ASSIGN_TERRITORY:
        return [lambda world, _roller: assign_territory(world, battle)]
    if step is Step.COLLECT_INCOME:
        return [lambda world, roller: collect_income(
            world, battle, roller, ruleset=inputs.ruleset,
            income_dice=_still_held(world, battle, inputs.income_dice))]
    if substep is SubStep.CLEAN_HOUSE:
        return [_clean_house_for(battle, gang_id) for gang_id in battle.gang_ids]
    if substep is SubStep.GANG_RATING:
        return [lambda world, _roller: inputs.sequence.update_gang_rating(world)]
    if step is Step.REPORT_RESULTS:
        return [lambda world, _roller: inputs.sequence.report(world, battle)]
    return []


def _still_held(world: World, battle: Battle, chosen: dict[str, int]) -> dict[str, int]:
    """The choices for Territories a gang of the battle still holds (an Arbitrator may have
    reassigned one since): a Territory that changed hands is rolled as written."""
    held = {t.id for gang_id in battle.gang_ids for t in world.territories_of(gang_id)}
    return {territory: dice for territory, dice in chosen.items() if territory in held}


def _clean_house_for(battle: Battle, gang_id: str) -> Computation:
    return lambda world, _roller: clean_house(world, battle, gang_id)


# What players do in each stage, with the commands of the interactive stages.
INSTRUCTIONS: dict[Stage, str] = {
    (Step.WRAP_UP, None): (
        "Rolled by the bot, openly in this thread: rolls for fighters who may succumb to "
        "their wounds, Lasting Injuries, captives' attempts to break free, scrap, "
        "abandoned vehicles; fighters In Recovery for this battle recover. Check the "
        "results, then press Confirm."
    ),
    (Step.ASSIGN_TERRITORY, None): (
        "Settled by the bot from the battle's outcome (who won the Territory at stake, "
        "if any). Press Confirm to go on."
    ),
    (Step.RECEIVE_REWARDS, None): (
        "Each player enters the scenario's rewards for their gang with `/rewards claim`: "
        "the reward dice the scenario gives (more than four are rolled as four), Reputation "
        "gained or lost, and items. A Territory with a choice of income dice (the Collapsed "
        "Dome) takes its controller's choice now, with `/rewards dome`. Press Confirm when "
        "done: a gang without rewards simply confirms."
    ),
    (Step.COLLECT_INCOME, None): (
        "Rolled by the bot for every Territory each gang holds. Press Confirm to go on."
    ),
    (Step.POST_BATTLE_ACTIONS, None): (
        "Each eligible fighter may make one action with `/action take` (`/action list` shows "
        "who may): Trade, Sell to the Guilders, Claim Bounty, Dispose, Medical Escort, "
        "Negotiate Repairs. Press Confirm when done."
    ),
    (Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE): (
        "The bot has taken the dead off the roster. Retire fighters with `/roster retire` "
        "or scrap vehicles with `/roster scrap`, then press Confirm."
    ),
    (Step.UPDATE_ROSTER, SubStep.TRADING_POST): (
        "Spend credits with `/roster hire`, `/roster vehicle`, `/roster hangeron`, "
        "`/roster buy` and `/roster sell`; look for Rare and Illegal items with "
        "`/roster seek`, then buy what you found with `/roster buyrare`. Press Confirm when "
        "done, or `/roster defer` to finish later, before your next battle, if everyone and "
        "the Arbitrator agree."
    ),
    (Step.UPDATE_ROSTER, SubStep.TERRITORY_BOONS): (
        "Claim your Territories' Boons with `/roster boon`, then press Confirm."
    ),
    (Step.UPDATE_ROSTER, SubStep.DISTRIBUTE_EQUIPMENT): (
        "Give Stash equipment to fighters with `/roster give` (three weapon slots each) or "
        "take it back with `/roster take`; press Confirm when done, or `/roster defer` to "
        "finish later."
    ),
    (Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS): (
        "Spend XP with `/roster advance`, then press Confirm, or `/roster defer` to finish "
        "later."
    ),
    (Step.UPDATE_ROSTER, SubStep.GANG_RATING): (
        "The bot recalculates every gang's Rating and Wealth. Press Confirm to go on."
    ),
    (Step.REPORT_RESULTS, None): (
        "Press Confirm to send this report to the campaign's report channel."
    ),
}


def instructions(stage: Stage) -> str:
    return INSTRUCTIONS.get(stage, "Confirm to go on.")


def is_interactive(stage: Stage) -> bool:
    """Players act with commands in this stage (it computes nothing by itself)."""
    return stage in {
        (Step.RECEIVE_REWARDS, None),
        (Step.POST_BATTLE_ACTIONS, None),
        (Step.UPDATE_ROSTER, SubStep.TRADING_POST),
        (Step.UPDATE_ROSTER, SubStep.TERRITORY_BOONS),
        (Step.UPDATE_ROSTER, SubStep.DISTRIBUTE_EQUIPMENT),
        (Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS),
    }
