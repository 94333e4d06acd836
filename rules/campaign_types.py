"""Campaign types as rule data: the phases of a campaign, what each allows, and its Triumphs.

A campaign type (the Dominion campaign, Law and Misrule) is data in the rule
data set (``rules/data/core-2023/campaign-types.toml``) and can be replaced or
extended by a campaign's own rule data, by name, like a Territory. Every figure
carries the source file it comes from; a figure no source gives is left out
(``None``) and is then a setting the Arbitrator gives for their campaign.

Decisions where the sources are silent:

- A phase without a number of cycles in its source lasts one cycle until the
  Arbitrator sets another count (:func:`with_cycles`); the calendar says so.
- A tie for a Triumph is shared unless the type says no one is awarded it
  (Law and Misrule's rule); the Dominion text says nothing about ties.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field, model_validator

from rules.errors import InvalidRequest, NotFound
from rules.models import Model, Name
from rules.names import did_you_mean, same_name

MAX_PHASES = 12
MAX_CYCLES = 52  # a year of weekly cycles; more is a typo
MAX_TRIUMPHS = 20
SOURCE_MAX = 200


class Stake(StrEnum):
    """What a challenge in a phase may be fought over."""

    # Unclaimed Territories while any remain, then one the defender holds (Occupation).
    UNCLAIMED_FIRST = "unclaimed first"
    # A Territory the defender holds (Takeover).
    DEFENDERS = "defender's"
    # An unclaimed Territory or one the defender holds.
    UNCLAIMED_OR_DEFENDERS = "unclaimed or defender's"
    # Battles without a Territory at stake.
    NONE = "none"
    # No challenges at all (Downtime).
    NO_CHALLENGES = "no challenges"


class Measure(StrEnum):
    """What a Triumph counts, from the bot's records."""

    TERRITORIES = "territories"
    ENEMIES_OUT_OF_ACTION = "enemies out of action"
    WEALTH = "wealth"
    BATTLES = "battles"
    REPUTATION = "reputation"
    # Nothing the bot records measures it: the Arbitrator awards it by hand.
    NOT_TRACKED = "not tracked"


class Ties(StrEnum):
    SHARED = "shared"
    NO_ONE = "no one"


class CampaignPhase(Model):
    name: Name
    # None: the source gives no number; the Arbitrator sets it (one cycle until then).
    cycles: int | None = Field(default=None, ge=1, le=MAX_CYCLES)
    stake: Stake
    downtime: bool = False
    # A Downtime phase: the Fresh Recruitment credits each gang gains when it opens; None:
    # no source gives them, so the Arbitrator opens Downtime with their own figure.
    recruitment_credits: int | None = Field(default=None, ge=0, le=10_000)
    # A Downtime phase: every step also waits for an Arbitrator's confirmation.
    arbitrator_confirms: bool = False
    source: str = Field(default="", max_length=SOURCE_MAX)

    @property
    def opens_downtime_by_itself(self) -> bool:
        """The bot opens each gang's Downtime when this phase begins (its credits known)."""
        return self.downtime and self.recruitment_credits is not None

    @property
    def allows_challenges(self) -> bool:
        return self.stake is not Stake.NO_CHALLENGES

    @property
    def cycle_count(self) -> int:
        return self.cycles if self.cycles is not None else 1


class Triumph(Model):
    name: Name
    measure: Measure
    source: str = Field(default="", max_length=SOURCE_MAX)


class CampaignType(Model):
    name: Name
    phases: list[CampaignPhase] = Field(min_length=1, max_length=MAX_PHASES)
    triumphs: list[Triumph] = Field(default_factory=list, max_length=MAX_TRIUMPHS)
    # Territories in the campaign per player; None: the source gives no table.
    territories_per_player: int | None = Field(default=None, ge=1, le=20)
    # Challenges a gang may make in one cycle before its battles are played; None: any.
    challenges_per_cycle: int | None = Field(default=None, ge=1, le=20)
    # A gang already in a challenge this cycle may not be challenged again (an
    # Arbitrator's setting: the Dominion lets the defender decline a second one instead).
    one_battle_per_cycle: bool = False
    # A cycle's length in days when the Arbitrator gives no end.
    cycle_days: int | None = Field(default=None, ge=1, le=365)
    ties: Ties = Ties.SHARED
    source: str = Field(default="", max_length=SOURCE_MAX)

    @model_validator(mode="after")
    def _names_once(self) -> CampaignType:
        for what, names in (("phases", [p.name for p in self.phases]),
                            ("triumphs", [t.name for t in self.triumphs])):
            for index, name in enumerate(names):
                if any(same_name(name, other) for other in names[:index]):
                    raise ValueError(f"{what}: '{name}' is given twice")
        return self

    @property
    def total_cycles(self) -> int:
        return sum(phase.cycle_count for phase in self.phases)

    def phase_named(self, name: str) -> tuple[int, CampaignPhase]:
        for index, phase in enumerate(self.phases):
            if same_name(phase.name, name):
                return index, phase
        raise NotFound(f"{self.name} has no phase called '{name}'."
                       f"{did_you_mean(name, (p.name for p in self.phases))}")

    def place_of(self, cycle: int) -> tuple[int, int]:
        """(phase index, cycle within the phase, from 1) of the campaign's ``cycle`` (from 1)."""
        if cycle < 1:
            raise InvalidRequest("Cycles are numbered from 1.")
        left = cycle
        for index, phase in enumerate(self.phases):
            if left <= phase.cycle_count:
                return index, left
            left -= phase.cycle_count
        raise InvalidRequest(f"{self.name} has {self.total_cycles} cycles, not {cycle}.")


def find_type(types: list[CampaignType], name: str) -> CampaignType:
    for found in types:
        if same_name(found.name, name):
            return found
    known = ", ".join(t.name for t in types) or "none"
    raise NotFound(f"The rule data has no campaign type called '{name}' (it has: {known}).")


def with_cycles(campaign_type: CampaignType, phase: str, cycles: int) -> CampaignType:
    """The type with the Arbitrator's count of cycles for one phase."""
    if not 1 <= cycles <= MAX_CYCLES:
        raise InvalidRequest(f"A phase lasts 1 to {MAX_CYCLES} cycles, not {cycles}.")
    index, found = campaign_type.phase_named(phase)
    phases = list(campaign_type.phases)
    phases[index] = found.model_copy(update={"cycles": cycles, "source": "Arbitrator"})
    return campaign_type.model_copy(update={"phases": phases})


def territories_for(campaign_type: CampaignType, players: int) -> int | None:
    """How many Territories a campaign of ``players`` plays with; None: the type says not."""
    if campaign_type.territories_per_player is None:
        return None
    return campaign_type.territories_per_player * players
