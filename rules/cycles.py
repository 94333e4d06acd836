"""A campaign's calendar: its cycles with their dates, challenge order and challenges.

The calendar is one value (:class:`Calendar`) the bot stores whole with each
change, so that an undo puts back the calendar as it was. The functions here
are pure: they take the calendar and the time ("now", read from the bot's one
clock by the caller) and return a changed copy, or refuse.

Decisions where the sources are silent (docs/arbitrator.md, "The campaign week"):

- A cycle's end is the start given plus the type's cycle length (a week in the
  Dominion); a type without one leaves the end open until the Arbitrator sets it.
- At a cycle's end every challenge not answered lapses, and so does an accepted
  one whose battle was not recorded by then: its Territory returns to the pool.
- The next cycle starts when the previous one ends (or at the start the
  Arbitrator planned for it, if later). A planned end already passed when the
  cycle opens is dropped for the type's length.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import Field

from rules.campaign_types import CampaignPhase, CampaignType, with_cycles
from rules.challenge_order import DrawnOrder, Entrant, draw_order
from rules.dice import Roller
from rules.errors import InvalidRequest, OutOfStep
from rules.models import Model

MAX_CHALLENGES = 2000
MAX_CHALLENGES_PER_CYCLE = 20


class ChallengeStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    LAPSED = "lapsed"
    PLAYED = "played"

    @property
    def outstanding(self) -> bool:
        """Still waiting: for an answer, or for its battle."""
        return self in (ChallengeStatus.OPEN, ChallengeStatus.ACCEPTED)


class Challenge(Model):
    number: int = Field(ge=1)
    cycle: int = Field(ge=1)
    challenger: str = Field(min_length=1, max_length=64)
    defender: str = Field(min_length=1, max_length=64)
    # The Territory at stake (its id); None where the phase fights for none.
    territory: str | None = Field(default=None, max_length=64)
    status: ChallengeStatus = ChallengeStatus.OPEN
    made_at: datetime
    answered_at: datetime | None = None
    # Battles the two gangs had fought each other when it was accepted: one more is its own.
    battles_before: int = Field(default=0, ge=0)
    # Declined as the defender's first challenge of the cycle: the challenger took the stake.
    claimed: bool = False

    def involves(self, gang_id: str) -> bool:
        return gang_id in (self.challenger, self.defender)


class Cycle(Model):
    number: int = Field(ge=1)
    phase: int = Field(ge=0)
    in_phase: int = Field(ge=1)
    starts_at: datetime
    # None: the Arbitrator has not set an end.
    ends_at: datetime | None = None
    # Gang ids in challenge order; gangs that challenged or passed have had their turn.
    order: list[str] = Field(default_factory=list)
    had_turn: list[str] = Field(default_factory=list)
    ended_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.ended_at is None

    @property
    def turn(self) -> str | None:
        """The gang whose turn it is to challenge; None once every gang had its turn."""
        return next((g for g in self.order if g not in self.had_turn), None)

    def turn_among(self, present: Collection[str]) -> str | None:
        """:attr:`turn`, passing over gangs no longer in the campaign (deleted since)."""
        return next((g for g in self.order if g not in self.had_turn and g in present), None)


class PlannedCycle(Model):
    number: int = Field(ge=1)
    starts_at: datetime | None = None
    ends_at: datetime | None = None


class Calendar(Model):
    campaign_type: CampaignType
    # Where the cycle posts go (the campaign's channel).
    channel_id: int = Field(ge=0)
    cycles: list[Cycle] = Field(default_factory=list)
    planned: list[PlannedCycle] = Field(default_factory=list)
    challenges: list[Challenge] = Field(default_factory=list, max_length=MAX_CHALLENGES)
    finished_at: datetime | None = None

    @property
    def current(self) -> Cycle | None:
        last = self.cycles[-1] if self.cycles else None
        return last if last is not None and last.is_open else None

    def open_cycle(self) -> Cycle:
        found = self.current
        if found is None:
            raise OutOfStep("No cycle is open: the Arbitrator starts one with "
                            "/campaign cycle start." if self.finished_at is None
                            else "The campaign is over: no cycle is open.")
        return found

    def phase(self, cycle: Cycle) -> CampaignPhase:
        return self.campaign_type.phases[cycle.phase]

    def challenges_in(self, cycle: int) -> list[Challenge]:
        return [c for c in self.challenges if c.cycle == cycle]

    def challenge(self, number: int) -> Challenge:
        for found in self.challenges:
            if found.number == number:
                return found
        raise InvalidRequest(f"There is no challenge #{number} in this campaign.")

    def plan_of(self, number: int) -> PlannedCycle | None:
        return next((p for p in self.planned if p.number == number), None)


def new_calendar(campaign_type: CampaignType, channel_id: int) -> Calendar:
    return Calendar(campaign_type=campaign_type, channel_id=channel_id)


def cycle_end(campaign_type: CampaignType, starts_at: datetime) -> datetime | None:
    if campaign_type.cycle_days is None:
        return None
    return starts_at + timedelta(days=campaign_type.cycle_days)


def open_next(
    calendar: Calendar, entrants: Sequence[Entrant], now: datetime, roller: Roller,
    *, ends_at: datetime | None = None,
) -> tuple[Calendar, Cycle, DrawnOrder]:
    """Open the next cycle (the first when none was): its dates and its challenge order,
    random in the campaign's first cycle, by ascending Gang Rating after."""
    if calendar.current is not None:
        raise OutOfStep(f"Cycle {calendar.current.number} is still open; end it first.")
    if calendar.finished_at is not None:
        raise OutOfStep("The campaign is over.")
    number = len(calendar.cycles) + 1
    phase_index, in_phase = calendar.campaign_type.place_of(number)
    phase = calendar.campaign_type.phases[phase_index]
    plan = calendar.plan_of(number)
    starts_at = now
    if plan is not None and plan.starts_at is not None and plan.starts_at > now:
        starts_at = plan.starts_at
    passed: list[str] = []
    if ends_at is None:
        ends_at = plan.ends_at if plan is not None and plan.ends_at is not None \
            else cycle_end(calendar.campaign_type, starts_at)
        if ends_at is not None and ends_at <= starts_at:
            # The planned end passed before the cycle could open (the cycle before it was
            # extended past it, or the bot was down): the cycle's timer must not fail for
            # ever, so it runs the type's length instead, and the ledger says why.
            ends_at = cycle_end(calendar.campaign_type, starts_at)
            instead = "the type's length" if ends_at else "until the Arbitrator ends it"
            passed.append(f"Cycle {number}'s planned end had passed when it opened: it "
                          f"runs {instead} instead.")
    if ends_at is not None and ends_at <= starts_at:
        raise InvalidRequest("A cycle must end after it starts.")
    drawn = DrawnOrder()
    if phase.allows_challenges and entrants:
        drawn = draw_order(entrants, by_rating=number > 1, roller=roller)
    drawn.notes[:0] = passed
    cycle = Cycle(number=number, phase=phase_index, in_phase=in_phase, starts_at=starts_at,
                  ends_at=ends_at, order=drawn.order)
    changed = calendar.model_copy(update={"cycles": [*calendar.cycles, cycle]})
    return changed, cycle, drawn


def close_current(
    calendar: Calendar, now: datetime, played: Callable[[Challenge], bool]
) -> tuple[Calendar, Cycle, list[Challenge]]:
    """End the open cycle: challenges still waiting lapse (an accepted one whose battle
    ``played`` says was fought is played). Returns the calendar, the cycle and the lapsed."""
    cycle = calendar.open_cycle()
    lapsed: list[Challenge] = []
    challenges: list[Challenge] = []
    for challenge in calendar.challenges:
        if challenge.cycle == cycle.number and challenge.status.outstanding:
            if challenge.status is ChallengeStatus.ACCEPTED and played(challenge):
                challenge = challenge.model_copy(update={"status": ChallengeStatus.PLAYED})
            else:
                challenge = challenge.model_copy(update={"status": ChallengeStatus.LAPSED})
                lapsed.append(challenge)
        challenges.append(challenge)
    ended = cycle.model_copy(update={"ended_at": now})
    last = len(calendar.cycles) >= calendar.campaign_type.total_cycles
    changed = calendar.model_copy(update={
        "cycles": [*calendar.cycles[:-1], ended], "challenges": challenges,
        "finished_at": now if last else None,
    })
    return changed, ended, lapsed


def extend(calendar: Calendar, until: datetime) -> Calendar:
    """Move the open cycle's end later."""
    cycle = calendar.open_cycle()
    if cycle.ends_at is not None and until <= cycle.ends_at:
        raise InvalidRequest("Extending moves the end later than it is; use /campaign cycle "
                             "end to end the cycle early.")
    if until <= cycle.starts_at:
        raise InvalidRequest("A cycle must end after it starts.")
    return _with_cycle(calendar, cycle.model_copy(update={"ends_at": until}))


def plan(
    calendar: Calendar, number: int, starts_at: datetime | None, ends_at: datetime | None
) -> Calendar:
    """Set a cycle's dates: a cycle to come (start and end), or the open one's end."""
    if not 1 <= number <= calendar.campaign_type.total_cycles:
        raise InvalidRequest(f"This campaign has cycles 1 to "
                             f"{calendar.campaign_type.total_cycles}, not {number}.")
    if starts_at is not None and ends_at is not None and ends_at <= starts_at:
        raise InvalidRequest("A cycle must end after it starts.")
    if number < len(calendar.cycles) or (number == len(calendar.cycles)
                                         and calendar.current is None):
        raise InvalidRequest(f"Cycle {number} is over; its dates stay as they were.")
    if number == len(calendar.cycles):
        cycle = calendar.open_cycle()
        if starts_at is not None:
            raise InvalidRequest(f"Cycle {number} has started; only its end can be set.")
        if ends_at is None or ends_at <= cycle.starts_at:
            raise InvalidRequest("A cycle must end after it starts.")
        return _with_cycle(calendar, cycle.model_copy(update={"ends_at": ends_at}))
    kept = [p for p in calendar.planned if p.number != number]
    old = calendar.plan_of(number)
    made = PlannedCycle(number=number,
                        starts_at=starts_at or (old.starts_at if old else None),
                        ends_at=ends_at or (old.ends_at if old else None))
    if made.starts_at and made.ends_at and made.ends_at <= made.starts_at:
        raise InvalidRequest("A cycle must end after it starts.")
    return calendar.model_copy(update={"planned": sorted([*kept, made],
                                                         key=lambda p: p.number)})


def set_phase_cycles(calendar: Calendar, phase: str, cycles: int) -> Calendar:
    """The Arbitrator's count of cycles for one phase of their campaign; a phase already
    past, or one that would end before the cycles already played, is refused."""
    changed = with_cycles(calendar.campaign_type, phase, cycles)
    index, _ = changed.phase_named(phase)
    played = len(calendar.cycles)
    if played:
        current_phase = calendar.cycles[-1].phase
        if index < current_phase:
            raise InvalidRequest(f"The {changed.phases[index].name} phase is over.")
        if index == current_phase and cycles < calendar.cycles[-1].in_phase:
            raise InvalidRequest(f"{calendar.cycles[-1].in_phase} cycles of the "
                                 f"{changed.phases[index].name} phase have begun already.")
    return calendar.model_copy(update={"campaign_type": changed})


def set_limits(
    calendar: Calendar, challenges_per_cycle: int | None, one_battle_per_cycle: bool | None
) -> Calendar:
    """The Arbitrator's limits for their campaign: challenges a gang makes a cycle before
    its battles are played (0: no limit), and whether a gang fights once a cycle at most.
    ``None`` leaves a limit as it is."""
    update: dict[str, object] = {}
    if challenges_per_cycle is not None:
        if not 0 <= challenges_per_cycle <= MAX_CHALLENGES_PER_CYCLE:
            raise InvalidRequest(f"A gang makes 0 (no limit) to {MAX_CHALLENGES_PER_CYCLE} "
                                 f"challenges a cycle, not {challenges_per_cycle}.")
        update["challenges_per_cycle"] = challenges_per_cycle or None
    if one_battle_per_cycle is not None:
        update["one_battle_per_cycle"] = one_battle_per_cycle
    if not update:
        raise InvalidRequest("Give a limit to change.")
    return calendar.model_copy(update={
        "campaign_type": calendar.campaign_type.model_copy(update=update)})


def _with_cycle(calendar: Calendar, cycle: Cycle) -> Calendar:
    return calendar.model_copy(update={
        "cycles": [c if c.number != cycle.number else cycle for c in calendar.cycles]})
