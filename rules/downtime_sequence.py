"""Downtime as a sequence: its steps, each declared once, and the state of one gang's run.

The table :data:`DOWNTIME` is written as the post-battle one (rules/stages.py): one
:class:`DowntimeDeclaration` per step, in order, saying what the bot computes as the step
opens (``computes``), what it computes as the step closes (``closes``: the Fresh
Recruitment credits not spent), what players are told to do (``shows``, quoted by
docs/player.md) and whether they act in it with commands (``interactive``). None of the
steps rolls a die.

:class:`DowntimeSequence` is the stored state of one gang's Downtime: the step it is at,
who confirmed each step, and the gang's credits as each step opened. A step is
confirmed by the gang's owner and, when the campaign asks for it, by an Arbitrator too;
an Arbitrator may confirm for the owner (recorded as such by the bot).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from rules.downtime import (
    FRESH_RECRUITMENT_CREDITS,
    fighters_recover,
    fresh_recruitment,
    promotion_note,
    return_captives,
    unspent_recruitment,
)
from rules.errors import OutOfStep
from rules.steps import DowntimeStep, confirm_once, not_confirmed
from rules.world import RuleResult, World


class Party(StrEnum):
    """Who confirms a Downtime step."""

    OWNER = "owner"
    ARBITRATOR = "arbitrator"


@dataclass(frozen=True)
class DowntimeInputs:
    """What a step's computations read besides the world."""

    gang_id: str
    sequence: DowntimeSequence


# One computation: the world as the previous one left it. Downtime rolls no dice.
DowntimeComputation = Callable[[World], RuleResult]


def _none(_inputs: DowntimeInputs) -> list[DowntimeComputation]:
    return []


@dataclass(frozen=True)
class DowntimeDeclaration:
    """One Downtime step: what it computes as it opens and closes, and what it shows."""

    step: DowntimeStep
    shows: str = "Confirm to go on."
    computes: Callable[[DowntimeInputs], list[DowntimeComputation]] = _none
    closes: Callable[[DowntimeInputs], list[DowntimeComputation]] = _none
    interactive: bool = False

    @property
    def label(self) -> str:
        return self.step.value


# --------------------------------------------------------------------------- computations


def _recover(inputs: DowntimeInputs) -> list[DowntimeComputation]:
    return [lambda world: fighters_recover(world, inputs.gang_id)]


def _captives(inputs: DowntimeInputs) -> list[DowntimeComputation]:
    return [lambda world: return_captives(world, inputs.gang_id)]


def _promotions(inputs: DowntimeInputs) -> list[DowntimeComputation]:
    return [lambda world: promotion_note(world, inputs.gang_id)]


def _recruitment(inputs: DowntimeInputs) -> list[DowntimeComputation]:
    return [lambda world: fresh_recruitment(world, inputs.gang_id, inputs.sequence.budget)]


def _unspent(inputs: DowntimeInputs) -> list[DowntimeComputation]:
    sequence = inputs.sequence
    before = sequence.credits_at_open.get(DowntimeStep.FRESH_RECRUITMENT.value, 0)
    return [lambda world: unspent_recruitment(world, inputs.gang_id, before, sequence.budget)]


# --------------------------------------------------------------------------- the sequence

DOWNTIME: tuple[DowntimeDeclaration, ...] = (
    DowntimeDeclaration(
        DowntimeStep.FIGHTERS_RECOVER, computes=_recover,
        shows="The bot has cleared every In Recovery box of the gang. Press Confirm to go on.",
    ),
    DowntimeDeclaration(
        DowntimeStep.CAPTIVES_RETURNED, computes=_captives,
        shows="The bot has released the captives this gang held; it received half of each "
              "one's credits value. Press Confirm to go on.",
    ),
    DowntimeDeclaration(
        DowntimeStep.PROMOTIONS, computes=_promotions, interactive=True,
        shows="Promote a Juve or Prospect with three or more advancements with `/campaign "
              "downtime promote` (it is your choice), then press Confirm.",
    ),
    DowntimeDeclaration(
        DowntimeStep.FRESH_RECRUITMENT, computes=_recruitment, closes=_unspent,
        interactive=True,
        shows="The Fresh Recruitment credits are in the Stash: spend them now. Hire with "
              "`/fighter add pay:True` or `/vehicle add pay:True`; for equipment, write it "
              "down with `/fighter equip` and take its price out with `/stash remove`. Stash "
              "credits may add to them. Press Confirm when done: what is left of them is "
              "lost; your own Stash credits stay.",
    ),
)

# Where a finished Downtime stands: after every step.
FINISHED = DowntimeDeclaration(DowntimeStep.FINISHED, shows="This gang's Downtime is over.")
STEPS: tuple[DowntimeStep, ...] = (*(d.step for d in DOWNTIME), DowntimeStep.FINISHED)
_DECLARED = {d.step: d for d in DOWNTIME}


def declared(step: DowntimeStep) -> DowntimeDeclaration:
    return _DECLARED.get(step, FINISHED)


class DowntimeSequence(BaseModel):
    """The stored state of one gang's Downtime."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(min_length=1, max_length=64)
    gang_id: str = Field(min_length=1, max_length=64)
    step: DowntimeStep = DowntimeStep.FIGHTERS_RECOVER
    # The campaign asks an Arbitrator to confirm each step too.
    arbitrator_confirms: bool = False
    # The Fresh Recruitment credits (3-running-the-campaign.md; a campaign setting).
    budget: int = Field(default=FRESH_RECRUITMENT_CREDITS, ge=0, le=100_000)
    # Step label -> the parties that confirmed it.
    confirmations: dict[str, list[Party]] = Field(default_factory=dict)
    # Step label -> the gang's credits when the step opened, before its computations.
    credits_at_open: dict[str, int] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.step.value

    @property
    def finished(self) -> bool:
        return self.step is DowntimeStep.FINISHED

    @property
    def parties(self) -> list[Party]:
        return [Party.OWNER, Party.ARBITRATOR] if self.arbitrator_confirms else [Party.OWNER]

    def require(self, step: DowntimeStep) -> None:
        """Refuse a request that does not belong to the step the Downtime is at."""
        if self.step is step:
            return
        if self.finished:
            raise OutOfStep(f"That belongs to {step.value}; this gang's Downtime is over.")
        raise OutOfStep(f"That belongs to {step.value}; this gang's Downtime is at "
                        f"{self.label}.")

    def confirm(self, party: Party) -> None:
        """Record that ``party`` is done with the current step."""
        if self.finished:
            raise OutOfStep("This gang's Downtime is over; there is nothing to confirm.")
        if party not in self.parties:
            raise OutOfStep("This campaign's Downtime needs no Arbitrator's confirmation.")
        confirm_once(self.confirmations, self.label, party)

    @property
    def waiting_for(self) -> list[Party]:
        return not_confirmed(self.confirmations, self.label, self.parties)

    def advance(self) -> DowntimeStep:
        """Move to the next step once every party confirmed; returns it."""
        if self.finished:
            raise OutOfStep("This gang's Downtime is already over.")
        if self.waiting_for:
            raise OutOfStep(f"{self.label} is not done: waiting for the "
                            f"{' and the '.join(self.waiting_for)} to confirm.")
        self.step = STEPS[STEPS.index(self.step) + 1]
        return self.step
