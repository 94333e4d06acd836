"""The post-battle sequence's stages, each declared once (PB-0 to PB-7).

One :class:`StageDeclaration` per step (and per Update Roster sub-step), in the
order the sequence goes through them. An entry says everything the bot and the
rules need about its stage:

- ``computes``: the rules functions the bot runs, in order, as the stage opens
  (each on the world the previous one left, each stored as its own action, so an
  undo takes them back one by one); empty for a stage that computes nothing;
- ``shows``: what players are told to do, under "What to do" in the stage's
  message (docs/player.md quotes it);
- ``interactive``: players act in it with the commands ``shows`` names;
- ``deferrable``: a gang may finish it later (PB-6B.8);
- ``campaign_only``: a skirmish skips it (PB-0).

Every stage is confirmed the same way: by the player of every participating
gang, or by an Arbitrator on a player's behalf (:meth:`PostBattleSequence.confirm
<rules.sequence.PostBattleSequence.confirm>`).

Adding a step is one entry here (with its ``Step`` or ``SubStep`` name), its
rules function in a module of its own, and their tests: docs/design.md walks
through an example.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from rules.battle_record import record_battle_fought
from rules.cleanhouse import clean_house
from rules.dice import Roller
from rules.income import collect_income
from rules.models import Battle
from rules.report import BattleReport, RatingResult
from rules.ruleset import RuleSet
from rules.steps import Step as Step
from rules.steps import SubStep as SubStep
from rules.territory import assign_territory
from rules.world import RuleResult, World
from rules.wrapup import wrap_up

# A step and, in Update Roster, its sub-step.
Stage = tuple[Step, SubStep | None]


def stage_label(step: Step, substep: SubStep | None = None) -> str:
    return step.value if substep is None else f"{step.value} ({substep.value})"


class SequenceAtStage(Protocol):
    """What a stage's computations ask of the sequence itself
    (:class:`rules.sequence.PostBattleSequence`, which reads its stages from here)."""

    def update_gang_rating(self, world: World) -> RatingResult: ...

    def report(self, world: World, battle: Battle) -> BattleReport: ...


class AtStage:
    """The ``stage`` and ``label`` of a model holding a step and, in Update Roster, its
    sub-step: the sequence itself, and each stage a post-battle run records."""

    # For the type checker only: an annotation here would make pydantic add the fields
    # again, ahead of the model's own.
    if TYPE_CHECKING:
        step: Step
        substep: SubStep | None

    @property
    def stage(self) -> Stage:
        return (self.step, self.substep)

    @property
    def label(self) -> str:
        return stage_label(self.step, self.substep)


@dataclass(frozen=True)
class StageInputs:
    """What the computations of a stage read besides the world and the dice."""

    battle: Battle
    sequence: SequenceAtStage
    ruleset: RuleSet
    in_recovery_before: list[str]
    captor_by_fighter: dict[str, str]
    # Territory id -> income dice its controller chose (/rewards dome).
    income_dice: dict[str, int] = field(default_factory=dict)


# One automatic computation: the world as the previous one left it, and the stage's dice.
Computation = Callable[[World, Roller], RuleResult]


def _none(_inputs: StageInputs) -> list[Computation]:
    return []


@dataclass(frozen=True)
class StageDeclaration(AtStage):
    """One stage of the sequence: what it computes, what it shows, and how it is played."""

    step: Step
    substep: SubStep | None = None
    shows: str = "Confirm to go on."
    computes: Callable[[StageInputs], list[Computation]] = _none
    interactive: bool = False
    deferrable: bool = False
    campaign_only: bool = False

    @property
    def rolls_as_it_opens(self) -> bool:
        """Whether the bot computes something as the stage opens (a stage that does not
        opens from gang names and owners alone: no roster, no battle)."""
        return self.computes is not _none


# --------------------------------------------------------------------------- computations


def _wrap_up(inputs: StageInputs) -> list[Computation]:
    battle = inputs.battle
    return [
        lambda world, roller: wrap_up(
            world, battle, inputs.ruleset, roller,
            in_recovery_before=list(inputs.in_recovery_before),
            captor_by_fighter=dict(inputs.captor_by_fighter),
        ),
        # The gangs' battles_fought goes up once, in the Wrap-up's transaction.
        lambda world, _roller: record_battle_fought(world, battle),
    ]


def _assign_territory(inputs: StageInputs) -> list[Computation]:
    return [lambda world, _roller: assign_territory(world, inputs.battle)]


def _collect_income(inputs: StageInputs) -> list[Computation]:
    battle = inputs.battle
    return [lambda world, roller: collect_income(
        world, battle, roller, ruleset=inputs.ruleset,
        income_dice=_still_held(world, battle, inputs.income_dice))]


def _still_held(world: World, battle: Battle, chosen: dict[str, int]) -> dict[str, int]:
    """The income dice chosen in Receive Rewards for Territories a gang of the battle still
    holds (an Arbitrator may have reassigned one since): one that changed hands is rolled
    as written."""
    held = {t.id for gang_id in battle.gang_ids for t in world.territories_of(gang_id)}
    return {territory: dice for territory, dice in chosen.items() if territory in held}


def _clean_house(inputs: StageInputs) -> list[Computation]:
    return [_clean_house_for(inputs.battle, gang_id) for gang_id in inputs.battle.gang_ids]


def _clean_house_for(battle: Battle, gang_id: str) -> Computation:
    return lambda world, _roller: clean_house(world, battle, gang_id)


def _gang_rating(inputs: StageInputs) -> list[Computation]:
    # Against the Gang Rating stored when the sequence started (PB-6F).
    return [lambda world, _roller: inputs.sequence.update_gang_rating(world)]


def _report(inputs: StageInputs) -> list[Computation]:
    # Its embed is posted in the report channel on the last confirmation.
    return [lambda world, _roller: inputs.sequence.report(world, inputs.battle)]


# --------------------------------------------------------------------------- the sequence

POST_BATTLE: tuple[StageDeclaration, ...] = (
    StageDeclaration(
        Step.WRAP_UP, computes=_wrap_up,
        shows="Rolled by the bot, openly in this thread: rolls for fighters who may succumb "
              "to their wounds, Lasting Injuries, captives' attempts to break free, scrap, "
              "abandoned vehicles; fighters In Recovery for this battle recover. Check the "
              "results, then press Confirm.",
    ),
    StageDeclaration(
        Step.ASSIGN_TERRITORY, computes=_assign_territory,
        shows="Settled by the bot from the battle's outcome (who won the Territory at stake, "
              "if any). Press Confirm to go on.",
    ),
    StageDeclaration(
        Step.RECEIVE_REWARDS, interactive=True,
        shows="Each player enters the scenario's rewards for their gang with `/rewards "
              "claim`: the reward dice the scenario gives (more than four are rolled as "
              "four), Reputation gained or lost, and items. A Territory with a choice of "
              "income dice (the Collapsed Dome) takes its controller's choice now, with "
              "`/rewards dome`. Press Confirm when done: a gang without rewards simply "
              "confirms.",
    ),
    StageDeclaration(
        Step.COLLECT_INCOME, computes=_collect_income,
        shows="Rolled by the bot for every Territory each gang holds. Press Confirm to go on.",
    ),
    StageDeclaration(
        Step.POST_BATTLE_ACTIONS, interactive=True, campaign_only=True,
        shows="Each eligible fighter may make one action with `/action take` (`/action list` "
              "shows who may): Trade, Sell to the Guilders, Claim Bounty, Dispose, Medical "
              "Escort, Negotiate Repairs. Press Confirm when done.",
    ),
    StageDeclaration(
        Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE, computes=_clean_house,
        shows="The bot has taken the dead off the roster. Retire fighters with `/roster "
              "retire` or scrap vehicles with `/roster scrap`, then press Confirm.",
    ),
    StageDeclaration(
        Step.UPDATE_ROSTER, SubStep.TRADING_POST, interactive=True, deferrable=True,
        shows="Spend credits with `/roster hire`, `/roster vehicle`, `/roster hangeron`, "
              "`/roster buy` and `/roster sell`; look for Rare and Illegal items with "
              "`/roster seek`, then buy what you found with `/roster buyrare`. Press Confirm "
              "when done, or `/roster defer` to finish later, before your next battle, if "
              "everyone and the Arbitrator agree.",
    ),
    StageDeclaration(
        Step.UPDATE_ROSTER, SubStep.TERRITORY_BOONS, interactive=True,
        shows="Claim your Territories' Boons with `/roster boon`, then press Confirm.",
    ),
    StageDeclaration(
        Step.UPDATE_ROSTER, SubStep.DISTRIBUTE_EQUIPMENT, interactive=True, deferrable=True,
        shows="Give Stash equipment to fighters with `/roster give` (three weapon slots each) "
              "or take it back with `/roster take`; press Confirm when done, or `/roster "
              "defer` to finish later.",
    ),
    StageDeclaration(
        Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS, interactive=True, deferrable=True,
        campaign_only=True,
        shows="Spend XP with `/roster advance`, then press Confirm, or `/roster defer` to "
              "finish later.",
    ),
    StageDeclaration(
        Step.UPDATE_ROSTER, SubStep.GANG_RATING, computes=_gang_rating,
        shows="The bot recalculates every gang's Rating and Wealth. Press Confirm to go on.",
    ),
    StageDeclaration(
        Step.REPORT_RESULTS, computes=_report, campaign_only=True,
        shows="Press Confirm to send this report to the campaign's report channel.",
    ),
)

# Where a finished sequence stands: after every stage, and no stage of its own.
FINISHED: Stage = (Step.FINISHED, None)

STAGES: tuple[Stage, ...] = (*(d.stage for d in POST_BATTLE), FINISHED)

DEFERRABLE: tuple[SubStep, ...] = tuple(
    d.substep for d in POST_BATTLE if d.deferrable and d.substep is not None)

_DECLARED: dict[Stage, StageDeclaration] = {d.stage: d for d in POST_BATTLE}
_FINISHED = StageDeclaration(Step.FINISHED)


def declared(stage: Stage) -> StageDeclaration:
    """The declaration of ``stage`` (the finished sequence's: nothing to compute or do)."""
    return _DECLARED.get(stage, _FINISHED)


def skipped_in_skirmish(step: Step, substep: SubStep | None = None) -> bool:
    """The campaign-only parts of PB-0."""
    return declared((step, substep)).campaign_only


def opening_computations(stage: Stage, inputs: StageInputs) -> list[Computation]:
    """The rules functions the bot runs, in order, when ``stage`` opens."""
    return declared(stage).computes(inputs)
