"""Challenges in a cycle: who may challenge whom, for what, and what an answer does.

From dominion-campaign/2-setting-up-the-campaign.md (its section on
challenges), as the campaign type's data says it for each phase:

- challenges are made in the cycle's challenge order (rules/challenge_order.py):
  until every gang has had its turn (challenged or passed), only the gang whose
  turn it is may challenge;
- a gang makes as many challenges a cycle as its type allows, and another only
  once it has no challenge still waiting (answer or battle);
- the stake is as the phase says (campaign type ``stake``): during Occupation an
  unclaimed Territory while any remains, then one the defender holds; during
  Takeover one the defender holds; a Territory at stake in a waiting challenge
  is out of the pool until that is settled; a Settlement is never at stake;
- a declined challenge gives the stake to the challenger, unless it is the second
  or a later challenge the defender received this cycle (declined without penalty);
- where the type limits gangs to one battle a cycle (an Arbitrator's setting), a
  gang already in a waiting challenge cannot be challenged.

Every refusal names the rule it applies.
"""

from __future__ import annotations

from datetime import datetime

from rules.campaign_types import Stake
from rules.cycles import Calendar, Challenge, ChallengeStatus, Cycle
from rules.errors import InvalidRequest, NotEligible, OutOfStep
from rules.models import Gang, Territory
from rules.world import RuleResult, Workspace, World

CLAUSE = "CAMPAIGN-CHALLENGE"


def whose_turn(cycle: Cycle, gang: Gang, names: dict[str, str]) -> None:
    """Refuse a gang that challenges (or passes) out of the cycle's challenge order;
    ``names``: the campaign's gangs now (a gang deleted since the draw has no turn)."""
    turn = cycle.turn_among(names)
    if turn is not None and turn != gang.id:
        if gang.id not in cycle.order:
            return  # joined after the order was drawn: challenges once the order is through
        raise NotEligible(f"Out of turn: {names.get(turn, 'another gang')} challenges next "
                          f"in cycle {cycle.number}'s challenge order.")


def make_challenge(
    calendar: Calendar, challenger: Gang, defender: Gang, territory: Territory | None,
    territories: list[Territory], names: dict[str, str], now: datetime,
) -> tuple[Calendar, Challenge]:
    """A new challenge in the open cycle, or a refusal naming the rule."""
    cycle = calendar.open_cycle()
    if cycle.starts_at > now:
        # A cycle the Arbitrator planned to start later is open so that its order can be
        # drawn and posted; its challenges wait for its start.
        raise NotEligible(f"Cycle {cycle.number} starts {cycle.starts_at:%Y-%m-%d %H:%M} "
                          "UTC: its challenges open then.")
    phase = calendar.phase(cycle)
    if not phase.allows_challenges:
        raise NotEligible(f"The {phase.name} phase allows no challenges.")
    if challenger.id == defender.id:
        raise InvalidRequest("A gang cannot challenge itself.")
    if challenger.id not in cycle.order and cycle.turn_among(names) is not None:
        raise NotEligible(f"{challenger.name} joined after cycle {cycle.number}'s challenge "
                          "order was drawn: it challenges once every gang in it has had "
                          "its turn.")
    whose_turn(cycle, challenger, names)
    this_cycle = calendar.challenges_in(cycle.number)
    _limit(calendar, this_cycle, challenger)
    if calendar.campaign_type.one_battle_per_cycle:
        for gang in (challenger, defender):
            if any(c.involves(gang.id) and c.status.outstanding for c in this_cycle):
                raise NotEligible(f"{gang.name} is already fighting this cycle: this campaign "
                                  "allows one battle per gang per cycle.")
    staked = _stake(calendar, cycle, this_cycle, defender, territory, territories)
    challenge = Challenge(
        number=max((c.number for c in calendar.challenges), default=0) + 1,
        cycle=cycle.number, challenger=challenger.id, defender=defender.id,
        territory=staked, made_at=now,
    )
    turned = cycle.model_copy(update={"had_turn": [*cycle.had_turn, challenger.id]}) \
        if challenger.id not in cycle.had_turn else cycle
    changed = calendar.model_copy(update={
        "challenges": [*calendar.challenges, challenge],
        "cycles": [*calendar.cycles[:-1], turned],
    })
    return changed, challenge


def pass_turn(calendar: Calendar, gang: Gang, names: dict[str, str]) -> Calendar:
    """The gang lets its turn in the challenge order go without challenging."""
    cycle = calendar.open_cycle()
    if gang.id not in cycle.order or gang.id in cycle.had_turn:
        raise NotEligible(f"{gang.name} has no turn waiting in cycle {cycle.number}'s "
                          "challenge order.")
    whose_turn(cycle, gang, names)
    turned = cycle.model_copy(update={"had_turn": [*cycle.had_turn, gang.id]})
    return calendar.model_copy(update={"cycles": [*calendar.cycles[:-1], turned]})


def answer(
    calendar: Calendar, number: int, accept: bool, now: datetime, battles_between: int
) -> tuple[Calendar, Challenge]:
    """The defender accepts or declines; a decline of the defender's first challenge of
    the cycle hands the stake to the challenger (:func:`declined_claim` moves it)."""
    challenge = calendar.challenge(number)
    if challenge.status is not ChallengeStatus.OPEN:
        raise OutOfStep(f"Challenge #{number} is {challenge.status.value} already.")
    cycle = calendar.open_cycle()
    if challenge.cycle != cycle.number:
        raise OutOfStep(f"Challenge #{number} belonged to cycle {challenge.cycle}, which "
                        "is over.")
    if accept:
        answered = challenge.model_copy(update={
            "status": ChallengeStatus.ACCEPTED, "answered_at": now,
            "battles_before": battles_between})
    else:
        earlier = [c for c in calendar.challenges_in(cycle.number)
                   if c.defender == challenge.defender and c.number < challenge.number]
        answered = challenge.model_copy(update={
            "status": ChallengeStatus.DECLINED, "answered_at": now,
            "claimed": challenge.territory is not None and not earlier})
    changed = calendar.model_copy(update={
        "challenges": [answered if c.number == number else c for c in calendar.challenges]})
    return changed, answered


def declined_claim(world: World, challenge: Challenge) -> RuleResult:
    """The stake of a declined challenge goes to the challenger (or, without penalty,
    stays where it was: the ledger line says which)."""
    ws = Workspace(world)
    challenger = ws.gang(challenge.challenger)
    defender = ws.gang(challenge.defender)
    if challenge.territory is None:
        ws.note(f"{defender.name} declined {challenger.name}'s challenge; no Territory "
                "was at stake.")
    elif not challenge.claimed:
        ws.note(f"{defender.name} declined {challenger.name}'s challenge without penalty: "
                "it had been challenged already this cycle.")
    else:
        territory = ws.world.territory(challenge.territory)
        territory.controller = challenger.id
        ws.note(f"{defender.name} declined: {challenger.name} claims {territory.name}.")
    return ws.finish(RuleResult, clause=CLAUSE, title=f"Challenge #{challenge.number} declined")


def _limit(calendar: Calendar, this_cycle: list[Challenge], challenger: Gang) -> None:
    limit = calendar.campaign_type.challenges_per_cycle
    if limit is None:
        return
    made = [c for c in this_cycle if c.challenger == challenger.id]
    waiting = [c for c in this_cycle if c.involves(challenger.id) and c.status.outstanding]
    if len(made) >= limit and waiting:
        raise NotEligible(
            f"{challenger.name} has made its {limit} challenge{'s' if limit > 1 else ''} "
            "this cycle: another only once all its battles are played (challenge "
            + ", ".join(f"#{c.number}" for c in waiting) + " still waiting).")


def _stake(
    calendar: Calendar, cycle: Cycle, this_cycle: list[Challenge], defender: Gang,
    territory: Territory | None, territories: list[Territory],
) -> str | None:
    phase = calendar.phase(cycle)
    if phase.stake is Stake.NONE:
        if territory is not None:
            raise NotEligible(f"Challenges of the {phase.name} phase put no Territory at stake.")
        return None
    at_stake = {c.territory for c in this_cycle if c.territory and c.status.outstanding}
    pool = [t for t in territories if t.can_be_staked and t.id not in at_stake]
    unclaimed = [t for t in pool if t.controller is None]
    held = [t for t in pool if t.controller == defender.id]
    if territory is None:
        options = _choices(phase.stake, unclaimed, held)
        raise InvalidRequest(f"Name the Territory at stake: {options}.")
    if not territory.can_be_staked:
        raise NotEligible(f"{territory.name} can never be at stake (a gang's Settlement).")
    if territory.id in at_stake:
        raise NotEligible(f"{territory.name} is at stake in a challenge already this cycle: "
                          "it is out of the pool until that is settled.")
    if phase.stake is Stake.UNCLAIMED_FIRST:
        if unclaimed and territory.controller is not None:
            raise NotEligible(
                f"{territory.name} is held: during the {phase.name} phase only unclaimed "
                f"Territories may be challenged for while any remain ({len(unclaimed)} left).")
        if not unclaimed and territory.controller != defender.id:
            raise NotEligible(f"No unclaimed Territory remains: the stake is one {defender.name} "
                              "holds.")
    elif phase.stake is Stake.DEFENDERS and territory.controller != defender.id:
        raise NotEligible(f"During the {phase.name} phase the stake is a Territory the "
                          f"defender holds; {defender.name} does not hold {territory.name}.")
    elif phase.stake is Stake.UNCLAIMED_OR_DEFENDERS and territory.controller not in (
            None, defender.id):
        raise NotEligible(f"The stake is an unclaimed Territory or one {defender.name} holds.")
    return territory.id


def _choices(stake: Stake, unclaimed: list[Territory], held: list[Territory]) -> str:
    if stake is Stake.DEFENDERS or (stake is Stake.UNCLAIMED_FIRST and not unclaimed):
        options = held
    elif stake is Stake.UNCLAIMED_FIRST:
        options = unclaimed
    else:
        options = unclaimed + held
    if not options:
        return "none is open to this challenge"
    return ", ".join(t.name for t in options[:10]) + (" ..." if len(options) > 10 else "")
