"""The post-battle sequence as a state machine (PB-0, PB-6, PB-6B.8).

:class:`PostBattleSequence` is the stored state of one battle's post-battle
sequence: which step (and which Update Roster sub-step) it is at, which gangs
have confirmed it, the Gang Ratings taken when it started, the post-battle
actions made, each gang's Rare & Illegal availability roll, the Boons claimed
and the sub-steps a gang has deferred. It is plain data (JSON round-trips
through ``model_validate``); rules functions stay free functions, and the bot
asks :meth:`PostBattleSequence.require` before calling one.

Decisions where the texts are silent:

- A step ends when every participating player has confirmed it; only then
  does :meth:`~PostBattleSequence.advance` move on ("both players present").
- Skirmish play skips the campaign-only parts (PB-0): the Post-battle
  Actions step, the Advancements sub-step and Report Results are passed
  over, and :attr:`~PostBattleSequence.clears_in_recovery` is False so the
  Wrap-up leaves the In Recovery boxes alone. Asking for a skipped part
  raises :class:`OutOfStep`.
- The Gang Rating of every gang is stored when the sequence starts; anything
  before Update Gang Rating reads :meth:`~PostBattleSequence.rating_before`
  (PB-6F).
- Seek Rare & Illegal is rolled at most once per gang per sequence, from the
  fighters recorded as having made a Trade action; a trader retired in Clean
  House no longer adds its bonus. The roll is stored so the gang can still buy
  what it unlocked later.
- Deferral (PB-6B.8): the Trading Post, Distribute Equipment and Advancements
  can be deferred by a gang while the sequence has not passed them, when the
  player of every participating gang agrees and, in campaign play, the
  Arbitrator too (no Arbitrator in a skirmish). The sequence then moves on
  as usual; later the gang :meth:`~PostBattleSequence.reopen` s a deferred
  sub-step to act in it, and ends it with
  :meth:`~PostBattleSequence.end_deferred`. Everything still deferred is
  closed when that gang's next pre-battle sequence starts
  (:meth:`~PostBattleSequence.close_deferred_at_prebattle`). The Gang Rating
  of purchases made later is simply the roster's rating at the next
  pre-battle sequence (PRE-1).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.boons import BoonsResult
from rules.dice import Roller
from rules.errors import InvalidRequest, NotEligible, OutOfStep
from rules.models import Battle, Fighter
from rules.report import BattleReport, RatingResult, battle_report, update_gang_rating
from rules.ruleset import RuleSet
from rules.stages import (
    DEFERRABLE,
    STAGES,
    AtStage,
    Stage,
    Step,
    SubStep,
    skipped_in_skirmish,
    stage_label,
)
from rules.steps import confirm_once, not_confirmed
from rules.tradingpost import AvailabilityResult, RareOffer, seek_rare_and_illegal
from rules.wording import first_of
from rules.world import World

TRADE_ACTION = "Trade"

# The stages themselves (their order, and which are deferrable or campaign-only) are
# declared in rules/stages.py; these names are also read from here.
__all__ = [
    "DEFERRABLE", "STAGES", "ActionRecord", "AtStage", "PostBattleSequence", "Stage", "Step",
    "SubStep", "skipped_in_skirmish", "stage_label",
]


class ActionRecord(Protocol):
    """What a post-battle action result exposes (``rules.actions.ActionResult``)."""

    @property
    def gang_id(self) -> str: ...

    @property
    def actor_id(self) -> str: ...

    @property
    def action(self) -> str: ...


class PostBattleSequence(BaseModel, AtStage):
    """The stored state of one battle's post-battle sequence."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(min_length=1, max_length=64)
    battle_id: str = Field(min_length=1, max_length=64)
    gang_ids: list[str] = Field(min_length=2, max_length=4)
    skirmish: bool = False
    step: Step = Step.WRAP_UP
    substep: SubStep | None = None
    # Stage label -> gang ids that confirmed it.
    confirmations: dict[str, list[str]] = Field(default_factory=dict)
    # Gang id -> Gang Rating when the sequence started (PB-6F).
    rating_before_update: dict[str, int] = Field(default_factory=dict)
    # Gang id -> fighter id -> the post-battle action it made.
    post_battle_actions: dict[str, dict[str, str]] = Field(default_factory=dict)
    # Gang id -> its Seek Rare & Illegal roll (PB-6B.6: once per sequence).
    availability: dict[str, RareOffer] = Field(default_factory=dict)
    # Gang id -> Territory ids whose Boon it claimed (PB-6C).
    boons_claimed: dict[str, list[str]] = Field(default_factory=dict)
    # Gang id -> sub-steps it deferred and has not ended (PB-6B.8).
    deferred: dict[str, list[SubStep]] = Field(default_factory=dict)
    # Gang id -> the deferred sub-step it is acting in now.
    reopened: dict[str, SubStep] = Field(default_factory=dict)
    # Gangs whose next pre-battle sequence has closed their deferrals.
    deferrals_closed: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> PostBattleSequence:
        if len(set(self.gang_ids)) != len(self.gang_ids):
            raise ValueError("a gang cannot take part twice")
        if (self.step is Step.UPDATE_ROSTER) != (self.substep is not None):
            raise ValueError("a sub-step belongs to Update Roster and Update Roster needs one")
        return self

    # ----------------------------------------------------------------- creation

    @classmethod
    def start(
        cls, sequence_id: str, battle: Battle, world: World, skirmish: bool | None = None
    ) -> PostBattleSequence:
        """Open the sequence of ``battle``, storing each gang's Gang Rating now."""
        ratings = {gang_id: world.gang(gang_id).rating for gang_id in battle.gang_ids}
        return cls(
            id=sequence_id,
            battle_id=battle.id,
            gang_ids=list(battle.gang_ids),
            skirmish=(not battle.campaign) if skirmish is None else skirmish,
            rating_before_update=ratings,
        )

    # ----------------------------------------------------------------- where we are

    @property
    def finished(self) -> bool:
        return self.step is Step.FINISHED

    @property
    def clears_in_recovery(self) -> bool:
        """Whether the Wrap-up clears In Recovery boxes (campaign only, PB-1.5/PB-0)."""
        return not self.skirmish

    def require(
        self, step: Step, substep: SubStep | None = None, gang_id: str | None = None
    ) -> None:
        """Refuse, with a readable message, a request that does not belong to now.

        ``gang_id`` lets a gang act in a sub-step it deferred and reopened.
        """
        if self.skirmish and skipped_in_skirmish(step, substep):
            raise OutOfStep(f"{stage_label(step, substep)} is campaign-only; this is a skirmish.")
        if gang_id is not None and substep is not None and self._acting_in_deferred(
            gang_id, substep
        ):
            return
        at_step = self.step is step
        if at_step and (substep is None or substep is self.substep):
            return
        if self.finished:
            raise OutOfStep(
                f"That belongs to {stage_label(step, substep)}; this battle's post-battle "
                "sequence is over."
            )
        raise OutOfStep(
            f"That belongs to {stage_label(step, substep)}; this battle is at {self.label}."
        )

    def _acting_in_deferred(self, gang_id: str, substep: SubStep) -> bool:
        return self.reopened.get(gang_id) is substep and substep in self.deferred.get(gang_id, [])

    # ----------------------------------------------------------------- confirming

    def confirm(self, gang_id: str) -> None:
        """Record that ``gang_id``'s player is done with the current step."""
        self._require_participant(gang_id)
        if self.finished:
            raise OutOfStep("This post-battle sequence is over; there is nothing to confirm.")
        confirm_once(self.confirmations, self.label, gang_id)

    @property
    def waiting_for(self) -> list[str]:
        return not_confirmed(self.confirmations, self.label, self.gang_ids)

    @property
    def all_confirmed(self) -> bool:
        return not self.waiting_for

    def advance(self) -> str:
        """Move to the next step every player must go through; returns its label."""
        if self.finished:
            raise OutOfStep("This post-battle sequence is already over.")
        if not self.all_confirmed:
            raise OutOfStep(
                f"{self.label} is not done: waiting for {', '.join(self.waiting_for)} to confirm."
            )
        index = STAGES.index(self.stage) + 1
        while self.skirmish and skipped_in_skirmish(*STAGES[index]):
            index += 1
        step, substep = STAGES[index]
        # Both fields change together; assigning them one by one would trip the
        # validator that wants a sub-step exactly while in Update Roster.
        self.__dict__.update(step=step, substep=substep)
        return self.label

    # ----------------------------------------------------------------- ratings (PB-6F)

    def rating_before(self, gang_id: str) -> int:
        """The Gang Rating every reference before Update Gang Rating uses."""
        self._require_participant(gang_id)
        return self.rating_before_update[gang_id]

    def update_gang_rating(self, world: World) -> RatingResult:
        self.require(Step.UPDATE_ROSTER, SubStep.GANG_RATING)
        return update_gang_rating(world, list(self.gang_ids), self.rating_before_update)

    def report(self, world: World, battle: Battle) -> BattleReport:
        self.require(Step.REPORT_RESULTS)
        if battle.id != self.battle_id:
            raise InvalidRequest("That is not the battle of this post-battle sequence.")
        return battle_report(world, battle)

    # ----------------------------------------------------------------- post-battle actions

    def already_acted(self, gang_id: str) -> frozenset[str]:
        """Fighter ids of ``gang_id`` that have made their post-battle action."""
        return frozenset(self.post_battle_actions.get(gang_id, {}))

    def record_action(self, gang_id: str, fighter_id: str, action: str) -> None:
        """Remember that a fighter made its one post-battle action (PB-5.0)."""
        self.require(Step.POST_BATTLE_ACTIONS)
        self._require_participant(gang_id)
        if not action.strip() or len(action) > 100:
            raise InvalidRequest("Name the post-battle action in 1 to 100 characters.")
        made = self.post_battle_actions.setdefault(gang_id, {})
        if fighter_id in made:
            raise NotEligible(
                f"That fighter has already made a post-battle action ({made[fighter_id]})."
            )
        made[fighter_id] = action.strip()

    def record_action_result(self, result: ActionRecord) -> None:
        self.record_action(result.gang_id, result.actor_id, str(result.action))

    def traders(self, world: World, gang_id: str) -> list[Fighter]:
        """The fighters of ``gang_id`` that made a Trade action and are still on its roster."""
        gang = world.gang(gang_id)
        made = self.post_battle_actions.get(gang_id, {})
        return [
            f for f in gang.fighters
            if f.on_roster and made.get(f.id) == TRADE_ACTION
        ]

    # ----------------------------------------------------------------- Trading Post (PB-6B.6)

    def seek_rare_and_illegal(
        self,
        world: World,
        gang_id: str,
        roller: Roller,
        ruleset: RuleSet,
        special_modifier: int = 0,
    ) -> AvailabilityResult:
        """Roll ``gang_id``'s availability once in this sequence and keep the roll."""
        self._require_participant(gang_id)
        self.require(Step.UPDATE_ROSTER, SubStep.TRADING_POST, gang_id)
        self.require_unsought(gang_id, world.gang(gang_id).name)
        result = seek_rare_and_illegal(
            world, gang_id, self.traders(world, gang_id), roller, ruleset, special_modifier
        )
        self.record_availability(result.offer)
        return result

    def record_availability(self, offer: RareOffer) -> None:
        self._require_participant(offer.gang_id)
        if offer.gang_id in self.availability:
            raise NotEligible("Rare & Illegal availability is rolled once per sequence.")
        self.availability[offer.gang_id] = offer

    def offer(self, gang_id: str) -> RareOffer | None:
        return self.availability.get(gang_id)

    def require_unsought(self, gang_id: str, gang_name: str) -> None:
        """Refuse a second availability roll in this sequence, saying what the first one gave."""
        offer = self.offer(gang_id)
        if offer is not None:
            raise NotEligible(
                "Rare & Illegal availability is rolled once per post-battle sequence; "
                f"{gang_name} rolled {offer.availability} already: "
                f"{first_of(offer.unlocked_names) or 'nothing'} on offer."
            )

    def sought_offer(self, gang_id: str, gang_name: str) -> RareOffer:
        """What the gang's availability roll unlocked; refused before it has sought."""
        offer = self.offer(gang_id)
        if offer is None:
            raise NotEligible(f"{gang_name} has not sought Rare & Illegal equipment in this "
                              "sequence: use /roster seek first (after a Trade action).")
        return offer

    # ----------------------------------------------------------------- boons (PB-6C)

    def claimed_boons(self, gang_id: str) -> list[str]:
        return list(self.boons_claimed.get(gang_id, []))

    def record_boons(self, result: BoonsResult) -> None:
        self._require_participant(result.gang_id)
        if result.sequence_id != self.id:
            raise InvalidRequest("Those Boons were claimed in another post-battle sequence.")
        claimed = self.boons_claimed.setdefault(result.gang_id, [])
        claimed += [t for t in result.territory_ids if t not in claimed]

    # ----------------------------------------------------------------- deferral (PB-6B.8)

    def defer(
        self,
        gang_id: str,
        substep: SubStep,
        agreed_by: Collection[str],
        arbitrator_agreed: bool = False,
    ) -> None:
        """Let ``gang_id`` end ``substep`` now without spending and come back to it."""
        self._require_participant(gang_id)
        if substep not in DEFERRABLE:
            raise InvalidRequest(
                "Only the Trading Post, Distribute Equipment and Advancements can be "
                "finished later."
            )
        if self.skirmish and skipped_in_skirmish(Step.UPDATE_ROSTER, substep):
            raise OutOfStep(f"{substep.value} is campaign-only; this is a skirmish.")
        if STAGES.index((Step.UPDATE_ROSTER, substep)) < STAGES.index(self.stage):
            raise OutOfStep(
                f"{substep.value} is over for this battle; it can no longer be deferred."
            )
        missing = [g for g in self.gang_ids if g not in agreed_by]
        if missing:
            raise NotEligible(
                f"Finishing {substep.value} later needs every player's agreement; "
                f"{', '.join(missing)} has not agreed."
            )
        if not self.skirmish and not arbitrator_agreed:
            raise NotEligible(f"Finishing {substep.value} later needs the Arbitrator's agreement.")
        if gang_id in self.deferrals_closed:
            raise OutOfStep("This gang's next pre-battle sequence has already begun.")
        pending = self.deferred.setdefault(gang_id, [])
        if substep not in pending:
            pending.append(substep)

    def reopen(self, gang_id: str, substep: SubStep) -> None:
        """Come back to a deferred sub-step (until the gang's next pre-battle sequence)."""
        self._require_participant(gang_id)
        if gang_id in self.deferrals_closed:
            raise OutOfStep(
                f"{substep.value} was deferred until the next pre-battle sequence, which has "
                "begun: it is closed."
            )
        if substep not in self.deferred.get(gang_id, []):
            raise NotEligible(f"This gang has not deferred {substep.value}.")
        self.reopened[gang_id] = substep

    def end_deferred(self, gang_id: str, substep: SubStep) -> None:
        """The gang is done with a deferred sub-step."""
        self._require_participant(gang_id)
        pending = self.deferred.get(gang_id, [])
        if substep not in pending:
            raise NotEligible(f"This gang has no deferred {substep.value} open.")
        pending.remove(substep)
        if self.reopened.get(gang_id) is substep:
            del self.reopened[gang_id]

    def close_deferred_at_prebattle(self, gang_id: str | None = None) -> dict[str, list[SubStep]]:
        """Close what is still deferred when a gang's next pre-battle sequence starts.

        Without ``gang_id`` every participating gang is closed. Returns what was closed.
        """
        gangs = self.gang_ids if gang_id is None else [gang_id]
        closed: dict[str, list[SubStep]] = {}
        for gang in gangs:
            self._require_participant(gang)
            left = self.deferred.pop(gang, [])
            if left:
                closed[gang] = left
            self.reopened.pop(gang, None)
            if gang not in self.deferrals_closed:
                self.deferrals_closed.append(gang)
        return closed

    # ----------------------------------------------------------------- helpers

    def _require_participant(self, gang_id: str) -> None:
        if gang_id not in self.gang_ids:
            raise NotEligible("That gang did not fight this battle.")
