"""Post-battle step 1: the Wrap-up (PB-1.1 to PB-1.5).

In the order of the text: the XP and kills each fighter earned during the
battle, succumb rolls, Lasting Injuries, capture escape rolls, claiming
scrap, retrieving abandoned vehicles, then the other "end of battle" effects
(Lasting Damage of Wrecked vehicles, Old Battle Wounds) and (campaign only)
clearing the In Recovery box and Convalescence received before this battle.
Decisions where the text is silent:

- XP and kills (``FighterEndState.xp`` and ``kills``, as each player reports
  them) are added first: they were earned during the battle, before anything
  the Wrap-up rolls. They go on the fighter whatever else happens to it.

- Succumbing (PB-1.1): a fighter reported as fled whilst Prone & Seriously
  Injured whose gang did not bottle out is a contradictory report and is
  refused, as is a fighter reported both Out of Action and Prone & SI.
- Lasting Injuries are rolled here for every fighter Out of Action at the end
  (or succumbed) whose ``injuries_rolled`` is empty, first every succumb roll,
  then every injury, in the order of the battle report.
- Results already rolled during the battle (``injuries_rolled``, rolled at
  the table when the fighter went down) are not rolled again but applied as
  reported, each through the same injury rules as a roll made here: it is
  recorded as a D66 showing that result (its purpose says "as rolled during
  the battle") and any dice its effect needs (Lesson Learned's D3 XP) are
  rolled here. Several names are only possible after Multiple Injuries: the
  first name must then be Multiple Injuries and the others its extra results,
  none of the results it re-rolls, no more than its dice allow; Multiple
  Injuries itself is not applied again (that would roll new extras). Unknown
  names are refused before any die is rolled. A Captured result among them
  gets the escape roll like any other.
  ``FighterEndState.critical_injury`` sets the fighter's flag: it is an "end
  of battle" effect that the Wrap-up settles (PB-1.5).
- Capture (PB-1.2): one escape roll per captured fighter, modifiers added up
  (a draw -1, the fighter's gang lost -2, Webbed -2). The captor is, in this
  order: the gang named in ``captor_by_fighter``; the winner if it is an enemy
  of the fighter; the only enemy in a two-gang battle. Otherwise (a draw or a
  win by the fighter's own gang with several enemies) the request is refused
  with InvalidRequest asking who took the fighter. Because that refusal comes
  after the dice, the bot should roll the sequence with a seeded roller so
  that asking again replays the same dice. An escaped fighter goes into
  Convalescence unless the same battle already put it in a worse state.
- Scrap (PB-1.3) is claimed only if exactly one gang is reported in
  ``gangs_with_models_left``: an empty list means "not reported", and nobody
  claims. Only wrecks of other gangs pay; the wrecks stay on their owners'
  rosters.
- Recovery (PB-1.5): ``in_recovery_before`` lists the fighters In Recovery
  before this battle; those still In Recovery become Active at the very end,
  so a fighter put into Recovery by this battle stays In Recovery. Such a
  fighter could not have fought, so an end state that reports it doing
  anything is refused. Skirmishes skip this part.
- Convalescence (REFERENCE: no post-battle actions, may fight the next
  battle) lasts for the post-battle sequence in which it was received. So
  every fighter of a gang in this battle that was Convalescent when the
  Wrap-up began (received in an earlier battle) becomes Active at its end,
  unless this Wrap-up gave it Convalescence again (a Lesson Learned, an
  escape, an Old Battle Wound) or something worse. Nothing needs storing on
  the fighter: after this Wrap-up, a Convalescent fighter of these gangs got
  it in this battle, and post-battle actions refuse exactly those. Like In
  Recovery, this is campaign-only; a skirmish leaves Convalescence alone.
- Lasting Damage (REFERENCE: D6 per Wrecked result): one roll for each of a
  vehicle's ``wrecked_results``; results already rolled at the table
  (``lasting_damage_rolled``) count among them and are applied as entered,
  then the rest are rolled. A vehicle not reported Wrecked cannot have
  Wrecked results or Lasting Damage; more results entered than Wrecked
  results is refused. Crew injuries are the crew fighter's own end state.
  The rolls come after scrap and retrieval, when the wrecks are back with
  their gangs.
- Old Battle Wound: "after each battle" is each battle of the fighter's gang
  the fighter could have fought in: a D6 per Old Battle Wound it had before
  this Wrap-up (not one received now), for fighters not In Recovery before
  the battle, not Captured, not dead and not put In Recovery by it. On a 1
  it goes into Convalescence. The effect is data (``after battle``), so a
  data set can change the die and the results.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from rules.dice import DiceRoll, Roller, parse
from rules.errors import InvalidRequest, NotEligible
from rules.injuries import (
    InjuryOutcome,
    LastingDamageOutcome,
    apply_entered_lasting_damage,
    apply_lasting_damage,
    apply_lasting_injury,
    injury_table_for,
    lasting_damage_entry,
)
from rules.models import (
    Battle,
    Fighter,
    FighterEndState,
    FighterStatus,
    Gang,
    Vehicle,
    VehicleEndState,
)
from rules.multiple_injuries import entry_named, extra_results, more_rolls
from rules.ruleset import InjuryEffect, InjuryEffectKind, InjuryEntry, InjuryTable, RuleSet
from rules.wording import possessive
from rules.world import RuleResult, Workspace, World

SURVIVES_ON = 3
ESCAPES_ON = 4
ALWAYS_ESCAPES = 6
DRAW_MODIFIER = -1
LOST_MODIFIER = -2
WEBBED_MODIFIER = -2

S = TypeVar("S")
T = TypeVar("T", Fighter, Vehicle)


class SuccumbOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str
    fighter_id: str
    roll: DiceRoll
    survived: bool


class ReportedInjuries(BaseModel):
    """Lasting Injury results rolled during the battle, applied as reported."""

    model_config = ConfigDict(frozen=True)

    gang_id: str
    fighter_id: str
    results: list[str]  # as the table spells them, Multiple Injuries included
    outcomes: list[InjuryOutcome]  # one per result applied
    captured: bool
    critical_injury: bool
    dead: bool


class EscapeOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str
    fighter_id: str
    roll: DiceRoll
    modifier: int
    escaped: bool
    captor_id: str | None  # None when it escaped

    @property
    def modified_total(self) -> int:
        return self.roll.total + self.modifier


class ScrapAward(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str  # the gang that claims the scrap
    vehicle_gang_id: str
    vehicle_id: str
    roll: DiceRoll
    credits: int


class RetrievedVehicle(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str
    vehicle_id: str


class ExperienceGained(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str
    fighter_id: str
    xp: int
    kills: int


class BattleWoundRoll(BaseModel):
    """One after-battle roll for a lasting injury such as Old Battle Wound."""

    model_config = ConfigDict(frozen=True)

    gang_id: str
    fighter_id: str
    injury: str
    roll: DiceRoll
    convalescence: bool


class WrapUpResult(RuleResult):
    experience: list[ExperienceGained]
    succumb: list[SuccumbOutcome]
    injuries: list[InjuryOutcome]
    reported_injuries: list[ReportedInjuries]
    escapes: list[EscapeOutcome]
    scrap: list[ScrapAward]
    retrieved_vehicles: list[RetrievedVehicle]
    lasting_damage: list[LastingDamageOutcome]
    battle_wounds: list[BattleWoundRoll]
    recovered_fighters: list[str]
    # Fighters whose Convalescence from an earlier battle ended (campaign only).
    convalescence_ended: list[str]


def wrap_up(
    world: World,
    battle: Battle,
    ruleset: RuleSet,
    roller: Roller,
    *,
    in_recovery_before: list[str],
    captor_by_fighter: dict[str, str] | None = None,
) -> WrapUpResult:
    """Resolve the Wrap-up of ``battle`` (PB-1.1 to PB-1.5)."""
    ws = Workspace(world)
    captors = dict(captor_by_fighter or {})
    _validate(ws, battle, ruleset, in_recovery_before, captors)
    convalescent_before = _convalescent(ws, battle)
    wounds_before = _after_battle_wounds(ws, battle, ruleset, in_recovery_before)
    received: set[str] = set()  # fighters given Convalescence by this Wrap-up

    experience = _battle_experience(ws, battle)
    succumbed = _succumb(ws, battle, roller)
    injuries, reported, captured = _lasting_injuries(ws, battle, ruleset, roller, succumbed)
    received |= {o.fighter_id for o in injuries if o.convalescence}
    received |= {o.fighter_id for r in reported for o in r.outcomes if o.convalescence}
    escapes = [_escape(ws, battle, roller, gang_id, fid, captors) for gang_id, fid in captured]
    received |= {e.fighter_id for e in escapes if e.escaped}
    scrap = _claim_scrap(ws, battle, roller)
    retrieved = _retrieve_abandoned(ws, battle)
    damage = _lasting_damage(ws, battle, ruleset, roller)
    wounds = _roll_battle_wounds(ws, battle, roller, wounds_before)
    received |= {w.fighter_id for w in wounds if w.convalescence}
    recovered = _clear_recovery(ws, battle, in_recovery_before)
    ended = _end_convalescence(ws, battle, convalescent_before - received)
    return ws.finish(
        WrapUpResult,
        clause="PB-1.1",
        title="Wrap-up",
        experience=experience,
        succumb=[outcome for outcome, _ in succumbed],
        injuries=injuries,
        reported_injuries=reported,
        escapes=escapes,
        scrap=scrap,
        retrieved_vehicles=retrieved,
        lasting_damage=damage,
        battle_wounds=wounds,
        recovered_fighters=recovered,
        convalescence_ended=ended,
    )


# --------------------------------------------------------------------------- validation


def _validate(
    ws: Workspace,
    battle: Battle,
    ruleset: RuleSet,
    in_recovery_before: list[str],
    captors: dict[str, str],
) -> None:
    for gang_id in battle.gang_ids:
        ws.gang(gang_id)
    fighters = _reported_once(
        battle.fighters, lambda state: ws.gang(state.gang_id).fighter(state.fighter_id))
    for state, fighter in fighters:
        _validate_end_state(ws.gang(state.gang_id), fighter, state, battle)
        _reported_entries(injury_table_for(fighter, ruleset), state.injuries_rolled, fighter)
    vehicles = _reported_once(
        battle.vehicles, lambda vstate: ws.gang(vstate.gang_id).vehicle(vstate.vehicle_id))
    for vstate, _ in vehicles:
        _validate_vehicle_state(ws, vstate, ruleset)
    for fighter_id in in_recovery_before:
        gang, fighter = ws.world.find_fighter(fighter_id)
        if gang.id not in battle.gang_ids:
            raise InvalidRequest(
                f"{possessive(fighter.name)} gang {gang.name} did not fight this battle.")
        reported_state = battle.end_state(fighter_id)
        if reported_state is not None and _took_part(reported_state):
            raise InvalidRequest(
                f"{fighter.name} was In Recovery and could not take part in this battle."
            )
    for fighter_id, captor_id in captors.items():
        gang, fighter = ws.world.find_fighter(fighter_id)
        if captor_id not in battle.gang_ids:
            raise InvalidRequest(
                f"The gang that captured {fighter.name} did not fight this battle."
            )
        if captor_id == gang.id:
            raise InvalidRequest(f"{fighter.name} cannot be captured by its own gang.")


def _reported_once(
    states: Iterable[S], subject: Callable[[S], T]
) -> Iterator[tuple[S, T]]:
    """Each end state with the fighter or vehicle it reports on; refuse one reported twice."""
    seen: set[str] = set()
    for state in states:
        reported = subject(state)
        if reported.id in seen:
            raise InvalidRequest(f"{reported.name} is reported twice in the battle.")
        seen.add(reported.id)
        yield state, reported


def _validate_end_state(
    gang: Gang, fighter: Fighter, state: FighterEndState, battle: Battle
) -> None:
    if not fighter.on_roster or fighter.status is FighterStatus.CAPTURED:
        raise NotEligible(f"{fighter.name} is {fighter.status.value} and did not fight.")
    if state.fled_prone_seriously_injured and gang.id not in battle.bottled_out:
        raise InvalidRequest(
            f"{fighter.name} is reported as fleeing, but {gang.name} did not bottle out."
        )
    if state.out_of_action and (
        state.prone_seriously_injured or state.fled_prone_seriously_injured
    ):
        raise InvalidRequest(
            f"{fighter.name} cannot end the battle both Out of Action and Seriously Injured."
        )
    if state.injuries_rolled and not state.out_of_action:
        raise InvalidRequest(
            f"{fighter.name} has Lasting Injuries reported but did not go Out of Action."
        )


def _validate_vehicle_state(ws: Workspace, vstate: VehicleEndState, ruleset: RuleSet) -> None:
    vehicle = ws.gang(vstate.gang_id).vehicle(vstate.vehicle_id)
    entered = vstate.lasting_damage_rolled
    if not vstate.wrecked:
        if entered or vstate.wrecked_results != 1:
            raise InvalidRequest(
                f"{vehicle.name} has Wrecked results or Lasting Damage reported but was not "
                "Wrecked."
            )
        return
    if len(entered) > vstate.wrecked_results:
        raise InvalidRequest(
            f"{vehicle.name} has {len(entered)} Lasting Damage results entered for "
            f"{vstate.wrecked_results} Wrecked result(s): one result per Wrecked result."
        )
    # Check each entered result on a copy that has taken the ones before it,
    # since a Persistent Rattle changes what the next roll can reach.
    trial = vehicle.model_copy(deep=True)
    for name in entered:
        trial.lasting_damage.append(lasting_damage_entry(ruleset.lasting_damage, trial, name).name)


def _took_part(state: FighterEndState) -> bool:
    return (
        state.xp > 0
        or state.kills > 0
        or state.prone_seriously_injured
        or state.fled_prone_seriously_injured
        or state.out_of_action
        or state.webbed
        or state.critical_injury
        or bool(state.injuries_rolled)
    )


# --------------------------------------------------------------------------- PB-1.1


def _succumb(
    ws: Workspace, battle: Battle, roller: Roller
) -> list[tuple[SuccumbOutcome, FighterEndState]]:
    outcomes: list[tuple[SuccumbOutcome, FighterEndState]] = []
    for state in battle.fighters:
        if not (state.prone_seriously_injured or state.fled_prone_seriously_injured):
            continue
        fighter = ws.gang(state.gang_id).fighter(state.fighter_id)
        dice = ws.roll(roller, "D6", f"succumb roll for {fighter.name}")
        survived = dice.total >= SURVIVES_ON
        if survived:
            ws.note(f"{fighter.name} rolls {dice.total} and survives their injuries.")
        else:
            ws.note(f"{fighter.name} rolls {dice.total}, succumbs and goes Out of Action.")
        outcome = SuccumbOutcome(
            gang_id=state.gang_id, fighter_id=state.fighter_id, roll=dice, survived=survived
        )
        outcomes.append((outcome, state))
    return outcomes


# --------------------------------------------------------------------------- injuries


def _lasting_injuries(
    ws: Workspace,
    battle: Battle,
    ruleset: RuleSet,
    roller: Roller,
    succumbed: list[tuple[SuccumbOutcome, FighterEndState]],
) -> tuple[list[InjuryOutcome], list[ReportedInjuries], list[tuple[str, str]]]:
    went_down = {outcome.fighter_id for outcome, _ in succumbed if not outcome.survived}
    injuries: list[InjuryOutcome] = []
    reported: list[ReportedInjuries] = []
    captured: list[tuple[str, str]] = []
    for state in battle.fighters:
        fighter = ws.gang(state.gang_id).fighter(state.fighter_id)
        if state.critical_injury:
            fighter.critical_injury = True
            ws.note(f"{fighter.name} suffered a Critical Injury in the battle.")
        if state.injuries_rolled:
            taken = _apply_reported(ws, state, fighter, ruleset, roller)
            reported.append(taken)
            if taken.captured:
                captured.append((state.gang_id, state.fighter_id))
        elif state.out_of_action or state.fighter_id in went_down:
            outcome = apply_lasting_injury(
                ws,
                state.gang_id,
                state.fighter_id,
                injury_table_for(fighter, ruleset),
                roller,
                purpose=f"Lasting Injury for {fighter.name}",
            )
            injuries.append(outcome)
            if outcome.captured:
                captured.append((state.gang_id, state.fighter_id))
    return injuries, reported, captured


def _apply_reported(
    ws: Workspace, state: FighterEndState, fighter: Fighter, ruleset: RuleSet, roller: Roller
) -> ReportedInjuries:
    table = injury_table_for(fighter, ruleset)
    entries = _reported_entries(table, state.injuries_rolled, fighter)
    names = ", ".join(entry.name for entry in entries)
    ws.note(f"{possessive(fighter.name)} Lasting Injuries were rolled during the battle: {names}.")
    outcomes: list[InjuryOutcome] = []
    for entry in entries:
        if more_rolls(entry) is not None:
            continue  # its extra results follow it in the report
        outcomes.append(
            apply_lasting_injury(
                ws,
                state.gang_id,
                state.fighter_id,
                table,
                _ReportedResult(_faces_of(table, entry), roller),
                purpose=f"Lasting Injury for {fighter.name}: {entry.name}, "
                "as rolled during the battle",
            )
        )
    return ReportedInjuries(
        gang_id=state.gang_id,
        fighter_id=state.fighter_id,
        results=[entry.name for entry in entries],
        outcomes=outcomes,
        captured=any(o.captured for o in outcomes),
        critical_injury=any(o.critical_injury for o in outcomes),
        dead=any(o.dead for o in outcomes),
    )


class _ReportedResult:
    """A roller that shows the faces of a result already rolled, then rolls real dice."""

    def __init__(self, faces: list[int], roller: Roller) -> None:
        self._faces = list(faces)
        self._roller = roller

    def face(self, sides: int) -> int:
        if self._faces:
            return self._faces.pop(0)
        return self._roller.face(sides)


def _faces_of(table: InjuryTable, entry: InjuryEntry) -> list[int]:
    dice = parse(table.dice)
    if dice.d66:
        return [entry.low // 10, entry.low % 10]
    if dice.count == 1 and dice.multiplier == 1:
        return [entry.low]
    raise InvalidRequest(f"{table.name} is rolled with {table.dice}: roll it here instead.")


def check_injuries_rolled(
    fighter: Fighter, ruleset: RuleSet, names: list[str]
) -> list[InjuryEntry]:
    """The entries of Lasting Injuries rolled at the table, checked as the Wrap-up checks them.

    Raises InvalidRequest for what :func:`wrap_up` would refuse in
    ``FighterEndState.injuries_rolled`` (an unknown name, several results
    without Multiple Injuries first, one of the results it re-rolls, more
    than its dice allow, a table that cannot show a result), so a report can
    be refused while it is being filled in rather than at the Wrap-up.
    """
    table = injury_table_for(fighter, ruleset)
    entries = _reported_entries(table, names, fighter)
    for entry in entries:
        _faces_of(table, entry)
    return entries


def _reported_entries(table: InjuryTable, names: list[str], fighter: Fighter) -> list[InjuryEntry]:
    entries = [_entry_named(table, name, fighter) for name in names]
    if len(entries) <= 1:
        return entries
    first, extras = entries[0], entries[1:]
    multiple = more_rolls(first)
    if multiple is None:
        raise InvalidRequest(
            f"{fighter.name} has several Lasting Injuries reported: only a result that gives "
            "more rolls (Multiple Injuries) can lead to more, and it must come first."
        )
    barred = {name.casefold() for name in multiple.reroll} | {first.name.casefold()}
    for extra in extras:
        if extra.name.casefold() in barred or more_rolls(extra) is not None:
            raise InvalidRequest(
                f"{first.name} re-rolls {extra.name}: it cannot be one of its extra results."
            )
    most = extra_results(multiple)[1]
    if len(extras) > most:
        raise InvalidRequest(f"{first.name} gives at most {most} more result(s).")
    return entries


def _entry_named(table: InjuryTable, name: str, fighter: Fighter) -> InjuryEntry:
    found = entry_named(table, name)
    if found is not None:
        return found
    known = ", ".join(dict.fromkeys(entry.name for entry in table.entries))
    raise InvalidRequest(
        f"'{name}' (reported for {fighter.name}) is not a Lasting Injury result. "
        f"Known results: {known}."
    )


# --------------------------------------------------------------------------- PB-1.2


def escape_modifiers(battle: Battle, gang_id: str, *, webbed: bool) -> list[tuple[str, int]]:
    """The modifiers of a capture escape roll, each with its reason (PB-1.2)."""
    found: list[tuple[str, int]] = []
    if battle.draw:
        found.append(("draw", DRAW_MODIFIER))
    elif battle.lost(gang_id):
        found.append(("lost", LOST_MODIFIER))
    if webbed:
        found.append(("Webbed", WEBBED_MODIFIER))
    return found


def escapes(natural: int, modifier: int) -> bool:
    """4+ after modifiers escapes; a natural 6 always does (PB-1.2)."""
    return natural == ALWAYS_ESCAPES or natural + modifier >= ESCAPES_ON


def _escape(
    ws: Workspace,
    battle: Battle,
    roller: Roller,
    gang_id: str,
    fighter_id: str,
    captors: dict[str, str],
) -> EscapeOutcome:
    fighter = ws.gang(gang_id).fighter(fighter_id)
    state = battle.end_state(fighter_id)
    reasons = escape_modifiers(battle, gang_id, webbed=state is not None and state.webbed)
    modifier = sum(value for _, value in reasons)
    dice = ws.roll(roller, "D6", f"escape roll for {fighter.name}")
    escaped = escapes(dice.total, modifier)
    explained = f" ({', '.join(f'{v} {why}' for why, v in reasons)})" if reasons else ""
    score = f"{dice.total}{explained} = {dice.total + modifier}"
    if escaped:
        if fighter.status not in (FighterStatus.DEAD, FighterStatus.IN_RECOVERY):
            fighter.set_status(FighterStatus.CONVALESCENT)
        ws.note(f"{fighter.name} rolls {score} and escapes into Convalescence.")
        captor_id = None
    else:
        captor_id = _captor_of(ws, battle, gang_id, fighter, captors)
        fighter.capture(captor_id)
        ws.note(f"{fighter.name} rolls {score} and is Captured by {ws.gang(captor_id).name}.")
    return EscapeOutcome(
        gang_id=gang_id,
        fighter_id=fighter_id,
        roll=dice,
        modifier=modifier,
        escaped=escaped,
        captor_id=captor_id,
    )


def _captor_of(
    ws: Workspace, battle: Battle, gang_id: str, fighter: Fighter, captors: dict[str, str]
) -> str:
    if fighter.id in captors:
        return captors[fighter.id]
    if battle.winner is not None and battle.winner != gang_id:
        return battle.winner
    enemies = [g for g in battle.gang_ids if g != gang_id]
    if len(enemies) == 1:
        return enemies[0]
    names = ", ".join(ws.gang(g).name for g in enemies)
    raise InvalidRequest(f"{fighter.name} was captured: say which gang took them ({names}).")


# --------------------------------------------------------------------------- PB-1.3, PB-1.4


def _claim_scrap(ws: Workspace, battle: Battle, roller: Roller) -> list[ScrapAward]:
    if len(battle.gangs_with_models_left) != 1:
        return []
    claimant = ws.gang(battle.gangs_with_models_left[0])
    awards: list[ScrapAward] = []
    for vstate in battle.vehicles:
        if not vstate.wrecked or vstate.gang_id == claimant.id:
            continue
        owner = ws.gang(vstate.gang_id)
        wreck = owner.vehicle(vstate.vehicle_id)
        dice = ws.roll(roller, "D3x10", f"scrap from {possessive(owner.name)} wrecked {wreck.name}")
        claimant.credits += dice.total
        ws.note(
            f"{claimant.name} strips {dice.total} credits of scrap from {possessive(owner.name)} "
            f"wrecked {wreck.name}, which goes back to {owner.name}."
        )
        awards.append(
            ScrapAward(
                gang_id=claimant.id,
                vehicle_gang_id=owner.id,
                vehicle_id=wreck.id,
                roll=dice,
                credits=dice.total,
            )
        )
    return awards


def _retrieve_abandoned(ws: Workspace, battle: Battle) -> list[RetrievedVehicle]:
    retrieved: list[RetrievedVehicle] = []
    for vstate in battle.vehicles:
        if not vstate.abandoned:
            continue
        gang = ws.gang(vstate.gang_id)
        ws.note(f"{gang.name} retrieves its abandoned {gang.vehicle(vstate.vehicle_id).name}.")
        retrieved.append(RetrievedVehicle(gang_id=gang.id, vehicle_id=vstate.vehicle_id))
    return retrieved


# --------------------------------------------------------------------------- PB-1.5


def _clear_recovery(ws: Workspace, battle: Battle, in_recovery_before: list[str]) -> list[str]:
    if not battle.campaign:
        if in_recovery_before:
            ws.note("A skirmish does not clear the In Recovery box.")
        return []
    recovered: list[str] = []
    for fighter_id in in_recovery_before:
        _, fighter = ws.world.find_fighter(fighter_id)
        if fighter.status is FighterStatus.IN_RECOVERY:
            fighter.set_status(FighterStatus.ACTIVE)
            ws.note(f"{fighter.name} has made a full recovery.")
            recovered.append(fighter_id)
    return recovered


# --------------------------------------------------------------------------- XP and kills


def _battle_experience(ws: Workspace, battle: Battle) -> list[ExperienceGained]:
    gained: list[ExperienceGained] = []
    for state in battle.fighters:
        if not (state.xp or state.kills):
            continue
        fighter = ws.gang(state.gang_id).fighter(state.fighter_id)
        fighter.xp += state.xp
        fighter.kills += state.kills
        earned = [f"{state.xp} XP"] if state.xp else []
        earned += [f"{state.kills} Out of Action"] if state.kills else []
        ws.note(f"{fighter.name} earned {' and '.join(earned)} in the battle.")
        gained.append(ExperienceGained(gang_id=state.gang_id, fighter_id=state.fighter_id,
                                       xp=state.xp, kills=state.kills))
    return gained


# --------------------------------------------------------------------------- Lasting Damage


def _lasting_damage(
    ws: Workspace, battle: Battle, ruleset: RuleSet, roller: Roller
) -> list[LastingDamageOutcome]:
    table = ruleset.lasting_damage
    outcomes: list[LastingDamageOutcome] = []
    for vstate in battle.vehicles:
        if not vstate.wrecked:
            continue
        for name in vstate.lasting_damage_rolled:
            outcomes.append(
                apply_entered_lasting_damage(ws, vstate.gang_id, vstate.vehicle_id, table, name)
            )
        for _ in range(vstate.wrecked_results - len(vstate.lasting_damage_rolled)):
            outcomes.append(
                apply_lasting_damage(ws, vstate.gang_id, vstate.vehicle_id, table, roller)
            )
    return outcomes


# --------------------------------------------------------------------------- Old Battle Wound


def _after_battle_wounds(
    ws: Workspace, battle: Battle, ruleset: RuleSet, in_recovery_before: list[str]
) -> list[tuple[str, str, str, InjuryEffect]]:
    """(gang id, fighter id, injury, effect) for each after-battle roll owed, before the rolls."""
    owed: list[tuple[str, str, str, InjuryEffect]] = []
    for gang_id in battle.gang_ids:
        for fighter in ws.gang(gang_id).fighters:
            if not fighter.on_roster or fighter.status is FighterStatus.CAPTURED:
                continue
            if fighter.id in in_recovery_before:
                continue
            entries = {e.name: e for e in injury_table_for(fighter, ruleset).entries}
            for name in fighter.lasting_injuries:
                entry = entries.get(name)
                for effect in entry.effects if entry is not None else []:
                    if effect.kind is InjuryEffectKind.AFTER_BATTLE:
                        owed.append((gang_id, fighter.id, name, effect))
    return owed


def _roll_battle_wounds(
    ws: Workspace,
    battle: Battle,
    roller: Roller,
    owed: list[tuple[str, str, str, InjuryEffect]],
) -> list[BattleWoundRoll]:
    rolled: list[BattleWoundRoll] = []
    for gang_id, fighter_id, injury, effect in owed:
        fighter = ws.gang(gang_id).fighter(fighter_id)
        if fighter.status not in (FighterStatus.ACTIVE, FighterStatus.CONVALESCENT):
            continue  # dead, captured or In Recovery now: the roll could change nothing
        dice = ws.roll(roller, effect.expression or "D6", f"{injury} roll for {fighter.name}")
        convalescence = dice.total in effect.on_results
        if convalescence:
            fighter.set_status(FighterStatus.CONVALESCENT)
            ws.note(f"{fighter.name} rolls {dice.total} for {injury}: Convalescence.")
        else:
            ws.note(f"{fighter.name} rolls {dice.total} for {injury}: no effect this time.")
        rolled.append(BattleWoundRoll(gang_id=gang_id, fighter_id=fighter_id, injury=injury,
                                      roll=dice, convalescence=convalescence))
    return rolled


# --------------------------------------------------------------------------- Convalescence


def _convalescent(ws: Workspace, battle: Battle) -> set[str]:
    return {
        fighter.id
        for gang_id in battle.gang_ids
        for fighter in ws.gang(gang_id).fighters
        if fighter.status is FighterStatus.CONVALESCENT
    }


def _end_convalescence(ws: Workspace, battle: Battle, earlier: set[str]) -> list[str]:
    if not battle.campaign:
        if earlier:
            ws.note("A skirmish does not end Convalescence.")
        return []
    ended: list[str] = []
    for gang_id in battle.gang_ids:
        for fighter in ws.gang(gang_id).fighters:
            if fighter.id in earlier and fighter.status is FighterStatus.CONVALESCENT:
                fighter.set_status(FighterStatus.ACTIVE)
                ws.note(f"{possessive(fighter.name)} Convalescence from an earlier battle ends.")
                ended.append(fighter.id)
    return ended
