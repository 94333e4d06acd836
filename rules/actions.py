"""Post-battle actions, step 5 of the post-battle sequence (PB-5.0 to PB-5.6).

An :class:`Actor` names the fighter making the action, the battle whose
sequence this is and the fighters of the gang that have acted already; the
caller adds ``result.actor_id`` to that set after each action.

Decisions where the texts are silent:

- Eligible actors (PB-5.0) have Gang Hierarchy, are on the roster and are
  neither In Recovery nor Captured, as the text says, nor Convalescent:
  REFERENCE.md says Convalescence means no post-battle actions, and we follow
  it. A fighter still carrying a Critical Injury is dying and cannot act.
- In a skirmish (no campaign) there are no post-battle actions (PB-0): the
  queries return nothing and the actions raise :class:`OutOfStep`.
- Selling, bounties and disposal are open in any post-battle sequence of the
  captor once the owner has had its rescue chance (see ``rules.captives``).
  "The fighter can sell any number of Captive fighters": one action deals
  with one captive or a list of them, each priced on its own (its own
  percentage of its own total cost, rounded up to 5) with its own note. Every
  captive of the list must be open to that deal, or nothing happens; a
  captive named twice is refused.
- Medical Escort and Negotiate Repairs are split so that the cost is rolled
  and shown before the player decides to pay: ``*_cost`` only rolls (it does
  not use up the action), the second step takes the rolled value and uses the
  action whether or not the gang pays. Asking to pay more than the Stash holds
  is refused (:class:`InsufficientCredits`); a gang that cannot pay answers
  "do not pay".
- Medical Escort: the patient is marked ``escorted_to_doc`` whenever the gang
  paid, so Clean House keeps its gear should it die. A paid escort ending in a
  Lasting Injury leaves the fighter In Recovery even if the injury itself only
  meant Convalescence ("then Recovery").
- Negotiate Repairs may be made for a vehicle in the Stash too. A repaired
  vehicle that was In Repair (Write-off) is Active again; one in the Stash
  stays there.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from enum import StrEnum
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from rules.captives import CaptiveOption, captive_options, find_captive, require_captive_option
from rules.dice import DiceRoll, Roller
from rules.errors import InsufficientCredits, InvalidRequest, NotEligible, OutOfStep
from rules.injuries import (
    PERSISTENT_RATTLE,
    InjuryOutcome,
    apply_lasting_injury,
    injury_table_for,
)
from rules.models import (
    Battle,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Vehicle,
    VehicleStatus,
)
from rules.money import percent_of
from rules.ruleset import RuleSet
from rules.wording import possessive
from rules.world import RuleResult, Workspace, World

ESCORT_COST = "2D6x10"
ESCORT_COSTS = frozenset(range(20, 121, 10))
# Results a paid Medical Escort's Lasting Injury re-rolls (PB-5.5).
ESCORT_REROLLS = frozenset({"Captured", "Critical Injury", "Memorable Death"})


class ActionKind(StrEnum):
    TRADE = "Trade"
    SELL_TO_GUILDERS = "Sell to the Guilders"
    CLAIM_BOUNTY = "Claim Bounties"
    DISPOSE_OF_CAPTIVE = "Dispose of Captives"
    MEDICAL_ESCORT = "Medical Escort"
    NEGOTIATE_REPAIRS = "Negotiate Repairs"


class Actor(BaseModel):
    """Who makes a post-battle action, in which battle's sequence, and who has acted."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    battle: Battle
    gang_id: str
    fighter_id: str
    already_acted: frozenset[str] = frozenset()


class ActionResult(RuleResult):
    action: ActionKind
    gang_id: str
    actor_id: str
    actor_name: str


A = TypeVar("A", bound=ActionResult)


# --------------------------------------------------------------------------- eligibility


def eligible_actors(world: World, gang_id: str, battle: Battle) -> list[Fighter]:
    """Fighters of ``gang_id`` that may make a post-battle action in this sequence (PB-5.0)."""
    gang = world.gang(gang_id)
    _require_in_battle(gang, battle)
    if not battle.campaign:
        return []
    return [f for f in gang.fighters if actor_refusal(f) is None]


def available_actions(
    world: World,
    gang_id: str,
    fighter_id: str,
    battle: Battle,
    already_acted: Set[str] = frozenset(),
) -> list[ActionKind]:
    """The actions ``fighter_id`` could make now; empty if it cannot act."""
    gang = world.gang(gang_id)
    _require_in_battle(gang, battle)
    fighter = gang.fighter(fighter_id)
    if not battle.campaign or fighter_id in already_acted or actor_refusal(fighter):
        return []
    open_now = [ActionKind.TRADE]
    options = {
        option
        for _, captive in world.captives_held_by(gang_id)
        for option in captive_options(world, gang_id, captive.id)
    }
    for option, kind in _CAPTIVE_ACTIONS.items():
        if option in options:
            open_now.append(kind)
    if any(_patient_refusal(f) is None for f in gang.fighters):
        open_now.append(ActionKind.MEDICAL_ESCORT)
    if any(v.lasting_damage for v in (*gang.vehicles, *gang.stash_vehicles)):
        open_now.append(ActionKind.NEGOTIATE_REPAIRS)
    return open_now


_CAPTIVE_ACTIONS = {
    CaptiveOption.SELL_TO_GUILDERS: ActionKind.SELL_TO_GUILDERS,
    CaptiveOption.CLAIM_BOUNTY: ActionKind.CLAIM_BOUNTY,
    CaptiveOption.DISPOSE: ActionKind.DISPOSE_OF_CAPTIVE,
}


def _require_in_battle(gang: Gang, battle: Battle) -> None:
    if gang.id not in battle.gang_ids:
        raise NotEligible(f"{gang.name} did not fight in this battle.")


def actor_refusal(fighter: Fighter) -> str | None:
    """Why ``fighter`` can make no post-battle action at all; None if it may act."""
    if not fighter.gang_hierarchy:
        return f"{fighter.name} has no Gang Hierarchy and makes no post-battle actions."
    if fighter.critical_injury:
        return f"{fighter.name} has a Critical Injury and cannot act."
    refusals = {
        FighterStatus.IN_RECOVERY: "is In Recovery",
        FighterStatus.CAPTURED: "is held captive",
        FighterStatus.CONVALESCENT: "is convalescing",
        FighterStatus.DEAD: "is dead",
        FighterStatus.RETIRED: "has retired",
    }
    if fighter.status in refusals:
        return f"{fighter.name} {refusals[fighter.status]} and cannot act."
    return None


def _begin(world: World, actor: Actor) -> tuple[Workspace, Gang, Fighter]:
    """Open a workspace and check that the actor may act now."""
    ws = Workspace(world)
    gang = ws.gang(actor.gang_id)
    _require_in_battle(gang, actor.battle)
    if not actor.battle.campaign:
        raise OutOfStep("There are no post-battle actions after a skirmish.")
    fighter = gang.fighter(actor.fighter_id)
    if fighter.id in actor.already_acted:
        raise NotEligible(f"{fighter.name} has already made a post-battle action.")
    refusal = actor_refusal(fighter)
    if refusal is not None:
        raise NotEligible(refusal)
    return ws, gang, fighter


def _finish(
    ws: Workspace,
    result_type: type[A],
    kind: ActionKind,
    clause: str,
    title: str,
    gang: Gang,
    actor: Fighter,
    **fields: object,
) -> A:
    return ws.finish(
        result_type,
        clause=clause,
        title=title,
        action=kind,
        gang_id=gang.id,
        actor_id=actor.id,
        actor_name=actor.name,
        **fields,
    )


# --------------------------------------------------------------------------- trade


class TradeResult(ActionResult):
    # The Trading Post's availability roll needs these (PB-6B.6).
    leader: bool
    champion: bool


def trade(world: World, actor: Actor) -> TradeResult:
    """Make a Trade action: it unlocks Seek Rare & Illegal Equipment (PB-5.1)."""
    ws, gang, fighter = _begin(world, actor)
    leader = fighter.category is FighterCategory.LEADER
    champion = fighter.category is FighterCategory.CHAMPION
    ws.note(f"{fighter.name} trades: {gang.name} may seek Rare and Illegal equipment.")
    return _finish(
        ws, TradeResult, ActionKind.TRADE, "PB-5.1", f"{fighter.name} trades", gang, fighter,
        leader=leader, champion=champion,
    )


# --------------------------------------------------------------------------- captives


class CaptiveDeal(BaseModel):
    """One captive of a sale, bounty or disposal, priced on its own."""

    model_config = ConfigDict(frozen=True)

    captive_id: str
    captive_name: str
    owner_gang_id: str
    total_cost: int
    credits: int


class CaptiveActionResult(ActionResult):
    captives: list[CaptiveDeal]
    credits_gained: int  # all the captives together

    @property
    def captive_id(self) -> str:
        """The first captive dealt with (the only one of a one-captive action)."""
        return self.captives[0].captive_id

    @property
    def captive_name(self) -> str:
        return self.captives[0].captive_name

    @property
    def owner_gang_id(self) -> str:
        return self.captives[0].owner_gang_id


CaptiveIds = str | Sequence[str]


def sell_to_guilders(world: World, actor: Actor, captive_ids: CaptiveIds) -> CaptiveActionResult:
    """Sell captives as slaves: half of each one's total cost, rounded up to 5 (PB-5.2)."""
    return _deal_with_captives(
        world, actor, captive_ids, CaptiveOption.SELL_TO_GUILDERS,
        ActionKind.SELL_TO_GUILDERS, "PB-5.2", percent=50,
    )


def claim_bounty(world: World, actor: Actor, captive_ids: CaptiveIds) -> CaptiveActionResult:
    """Law Abiding captor, Outlaw captives: each one's full total cost (PB-5.3)."""
    return _deal_with_captives(
        world, actor, captive_ids, CaptiveOption.CLAIM_BOUNTY,
        ActionKind.CLAIM_BOUNTY, "PB-5.3", percent=100,
    )


def dispose_of_captive(
    world: World, actor: Actor, captive_ids: CaptiveIds
) -> CaptiveActionResult:
    """Outlaw captor, any captives: they are gone, nothing is gained (PB-5.4)."""
    return _deal_with_captives(
        world, actor, captive_ids, CaptiveOption.DISPOSE,
        ActionKind.DISPOSE_OF_CAPTIVE, "PB-5.4", percent=0,
    )


def _deal_with_captives(
    world: World,
    actor: Actor,
    captive_ids: CaptiveIds,
    option: CaptiveOption,
    kind: ActionKind,
    clause: str,
    percent: int,
) -> CaptiveActionResult:
    ids = [captive_ids] if isinstance(captive_ids, str) else list(captive_ids)
    if not ids:
        raise InvalidRequest("Name at least one captive.")
    if len(set(ids)) != len(ids):
        raise InvalidRequest("Name each captive once.")
    ws, gang, fighter = _begin(world, actor)
    for captive_id in ids:
        require_captive_option(ws.world, gang.id, captive_id, option)
    deals = [_deal_with_one(ws, gang, captive_id, percent) for captive_id in ids]
    names = ", ".join(deal.captive_name for deal in deals)
    return _finish(
        ws, CaptiveActionResult, kind, clause, f"{kind.value}: {names}", gang, fighter,
        captives=deals, credits_gained=sum(deal.credits for deal in deals),
    )


def _deal_with_one(ws: Workspace, gang: Gang, captive_id: str, percent: int) -> CaptiveDeal:
    owner, captive = find_captive(ws.world, captive_id)
    # Total cost: the captive goes with all its weapons and wargear.
    gained = percent_of(captive.total_cost, percent)
    gang.credits += gained
    owner.fighters = [f for f in owner.fighters if f.id != captive_id]
    if gained:
        ws.note(
            f"{percent}% of {possessive(captive.name)} total cost of {captive.total_cost} credits, "
            f"rounded up to 5: {gang.name} gains {gained} credits."
        )
    ws.note(f"{captive.name} and all its gear are deleted from the roster of {owner.name}.")
    return CaptiveDeal(
        captive_id=captive_id, captive_name=captive.name, owner_gang_id=owner.id,
        total_cost=captive.total_cost, credits=gained,
    )


# --------------------------------------------------------------------------- medical escort


class EscortOutcome(StrEnum):
    DIED_UNPAID = "died: the escort was not paid"
    DIED_AT_DOC = "died at the Doc"
    LASTING_INJURY = "survived with a Lasting Injury, In Recovery"
    FULL_RECOVERY = "In Recovery, no lasting effect"


class MedicalEscortCost(RuleResult):
    patient_id: str
    patient_name: str
    cost: int
    cost_roll: DiceRoll
    affordable: bool


class MedicalEscortResult(ActionResult):
    patient_id: str
    patient_name: str
    cost: int
    paid: bool
    outcome: EscortOutcome
    treatment_roll: DiceRoll | None
    injury: InjuryOutcome | None


def medical_escort_cost(
    world: World, actor: Actor, patient_id: str, roller: Roller
) -> MedicalEscortCost:
    """Roll, openly, what the Doc will charge (2D6x10) before the gang decides (PB-5.5)."""
    ws, gang, _ = _begin(world, actor)
    patient = _patient(gang, patient_id)
    cost_roll = _roll_escort_cost(ws, gang, patient, roller)
    return ws.finish(
        MedicalEscortCost,
        clause="PB-5.5",
        title=f"Medical Escort cost for {patient.name}",
        patient_id=patient.id,
        patient_name=patient.name,
        cost=cost_roll.total,
        cost_roll=cost_roll,
        affordable=cost_roll.total <= gang.credits,
    )


def medical_escort_treat(
    world: World,
    actor: Actor,
    patient_id: str,
    roller: Roller,
    ruleset: RuleSet,
    *,
    cost: int,
    pay: bool,
) -> MedicalEscortResult:
    """Pay the rolled ``cost`` and treat the patient, or let it die (PB-5.5)."""
    if cost not in ESCORT_COSTS:
        raise InvalidRequest(f"{cost} credits is not a cost that 2D6x10 can roll.")
    ws, gang, fighter = _begin(world, actor)
    return _treat(ws, gang, fighter, _patient(gang, patient_id), roller, ruleset, cost, pay)


def medical_escort(
    world: World,
    actor: Actor,
    patient_id: str,
    roller: Roller,
    ruleset: RuleSet,
    pay: bool,
) -> MedicalEscortResult:
    """Roll the cost and act on it at once, when the player decided beforehand (PB-5.5)."""
    ws, gang, fighter = _begin(world, actor)
    patient = _patient(gang, patient_id)
    cost = _roll_escort_cost(ws, gang, patient, roller).total
    return _treat(ws, gang, fighter, patient, roller, ruleset, cost, pay)


def _patient(gang: Gang, patient_id: str) -> Fighter:
    patient = gang.fighter(patient_id)
    refusal = _patient_refusal(patient)
    if refusal is not None:
        raise NotEligible(refusal)
    return patient


def _patient_refusal(patient: Fighter) -> str | None:
    if not patient.critical_injury or not patient.on_roster:
        return f"{patient.name} has no Critical Injury to be treated."
    return None


def _roll_escort_cost(ws: Workspace, gang: Gang, patient: Fighter, roller: Roller) -> DiceRoll:
    cost_roll = ws.roll(roller, ESCORT_COST, f"Medical Escort cost for {patient.name}")
    ws.note(
        f"The Doc asks {cost_roll.total} credits to treat {patient.name}; "
        f"{gang.name} has {gang.credits}."
    )
    return cost_roll


def _treat(
    ws: Workspace,
    gang: Gang,
    actor: Fighter,
    patient: Fighter,
    roller: Roller,
    ruleset: RuleSet,
    cost: int,
    pay: bool,
) -> MedicalEscortResult:
    treatment: DiceRoll | None = None
    injury: InjuryOutcome | None = None
    if not pay:
        outcome = EscortOutcome.DIED_UNPAID
        patient.set_status(FighterStatus.DEAD)
        ws.note(f"{gang.name} does not pay: {patient.name} dies of its injuries.")
    else:
        if cost > gang.credits:
            raise InsufficientCredits(
                f"{gang.name} has {gang.credits} credits and cannot pay the Doc {cost}."
            )
        gang.credits -= cost
        patient.escorted_to_doc = True
        ws.note(f"{gang.name} pays the Doc {cost} credits.")
        treatment = ws.roll(roller, "D6", f"Medical Escort treatment for {patient.name}")
        outcome, injury = _treatment_outcome(ws, gang, patient, treatment, roller, ruleset)
    # Re-read the patient: the injury helper may have replaced its record.
    patient = gang.fighter(patient.id)
    patient.critical_injury = False
    title = f"Medical Escort for {patient.name}"
    return _finish(
        ws, MedicalEscortResult, ActionKind.MEDICAL_ESCORT, "PB-5.5", title, gang, actor,
        patient_id=patient.id, patient_name=patient.name, cost=cost, paid=pay,
        outcome=outcome, treatment_roll=treatment, injury=injury,
    )


def _treatment_outcome(
    ws: Workspace,
    gang: Gang,
    patient: Fighter,
    treatment: DiceRoll,
    roller: Roller,
    ruleset: RuleSet,
) -> tuple[EscortOutcome, InjuryOutcome | None]:
    if treatment.total == 1:
        patient.set_status(FighterStatus.DEAD)
        ws.note(f"{patient.name} dies on the Doc's table; its gear is kept.")
        return EscortOutcome.DIED_AT_DOC, None
    if treatment.total == 6:
        patient.set_status(FighterStatus.IN_RECOVERY)
        ws.note(f"{patient.name} pulls through with no lasting effect and goes into Recovery.")
        return EscortOutcome.FULL_RECOVERY, None
    injury = apply_lasting_injury(
        ws, gang.id, patient.id, injury_table_for(patient, ruleset), roller,
        reroll=ESCORT_REROLLS, purpose=f"Lasting Injury for {patient.name} after the Doc",
    )
    patient = gang.fighter(patient.id)
    if injury.dead:
        patient.set_status(FighterStatus.DEAD)
        return EscortOutcome.DIED_AT_DOC, injury
    patient.set_status(FighterStatus.IN_RECOVERY)
    ws.note(f"{patient.name} survives with {', '.join(injury.results)} and goes into Recovery.")
    return EscortOutcome.LASTING_INJURY, injury


# --------------------------------------------------------------------------- repairs


class RepairQuote(RuleResult):
    vehicle_id: str
    vehicle_name: str
    die: int
    percent: int
    cost: int
    # 1-3: all Lasting Damage becomes one Persistent Rattle instead of going.
    becomes_rattle: bool
    affordable: bool


class RepairResult(ActionResult):
    vehicle_id: str
    vehicle_name: str
    die: int
    cost: int
    paid: bool
    damage_removed: list[str]
    lasting_damage_after: list[str]


def negotiate_repairs_cost(
    world: World, actor: Actor, vehicle_id: str, roller: Roller
) -> RepairQuote:
    """Roll the D6 that sets the price of the repairs, before the gang decides (PB-5.6)."""
    ws, gang, _ = _begin(world, actor)
    vehicle = _damaged_vehicle(gang, vehicle_id)
    die = ws.roll(roller, "D6", f"Negotiate Repairs for {vehicle.name}").total
    percent, cost, rattle = _repair_terms(vehicle, die)
    ws.note(
        f"{percent}% of {possessive(vehicle.name)} {vehicle.cost_with_upgrades} credits with "
        "Upgrades, "
        f"rounded up to 5: {cost} credits"
        + (", and its Lasting Damage becomes one Persistent Rattle." if rattle else ".")
    )
    return ws.finish(
        RepairQuote,
        clause="PB-5.6",
        title=f"Repair price for {vehicle.name}",
        vehicle_id=vehicle.id,
        vehicle_name=vehicle.name,
        die=die,
        percent=percent,
        cost=cost,
        becomes_rattle=rattle,
        affordable=cost <= gang.credits,
    )


def negotiate_repairs(
    world: World, actor: Actor, vehicle_id: str, *, die: int, pay: bool
) -> RepairResult:
    """Pay for the repairs at the price the rolled ``die`` set, or leave the vehicle (PB-5.6)."""
    if not 1 <= die <= 6:
        raise InvalidRequest(f"{die} is not a face of a D6.")
    ws, gang, fighter = _begin(world, actor)
    vehicle = _damaged_vehicle(gang, vehicle_id)
    _, cost, rattle = _repair_terms(vehicle, die)
    removed: list[str] = []
    if pay:
        if cost > gang.credits:
            raise InsufficientCredits(
                f"{gang.name} has {gang.credits} credits and cannot pay {cost} for repairs."
            )
        gang.credits -= cost
        removed = list(vehicle.lasting_damage)
        vehicle.lasting_damage = [PERSISTENT_RATTLE] if rattle else []
        if vehicle.status is VehicleStatus.IN_REPAIR:
            vehicle.status = VehicleStatus.ACTIVE
        ws.note(f"{gang.name} pays {cost} credits: {possessive(vehicle.name)} Lasting Damage is "
                "repaired" + (" but leaves a Persistent Rattle." if rattle else "."))
    else:
        ws.note(f"{gang.name} does not pay; {vehicle.name} stays as it is.")
    return _finish(
        ws, RepairResult, ActionKind.NEGOTIATE_REPAIRS, "PB-5.6",
        f"Negotiate Repairs for {vehicle.name}", gang, fighter,
        vehicle_id=vehicle.id, vehicle_name=vehicle.name, die=die, cost=cost, paid=pay,
        damage_removed=removed, lasting_damage_after=list(vehicle.lasting_damage),
    )


def _damaged_vehicle(gang: Gang, vehicle_id: str) -> Vehicle:
    for vehicle in (*gang.vehicles, *gang.stash_vehicles):
        if vehicle.id == vehicle_id:
            if not vehicle.lasting_damage:
                raise NotEligible(f"{vehicle.name} has no Lasting Damage to repair.")
            return vehicle
    return gang.vehicle(vehicle_id)  # raises NotFound with a readable message


def _repair_terms(vehicle: Vehicle, die: int) -> tuple[int, int, bool]:
    """Percent, cost and whether the damage becomes a Persistent Rattle, for a D6 face."""
    percent = 10 if die == 6 else 25
    return percent, percent_of(vehicle.cost_with_upgrades, percent), die <= 3
