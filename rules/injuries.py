"""Lasting Injuries (fighters and crew) and Lasting Damage (vehicles), applied from data.

Each result is an entry of a data table (:class:`rules.ruleset.InjuryTable`);
its effects are applied generically, so another edition's table is another
data file, never another branch here. These are helpers that work inside a
caller's :class:`rules.world.Workspace` (the Wrap-up, a Medical Escort): every
roll they make is recorded there and returned in the outcome too.

Decisions where the texts are silent:

- Status: Dead beats Recovery, which beats Convalescence, which beats no
  change. A fighter already In Recovery is not eased into Convalescence, and a
  Captive keeps its status unless it dies. Several injuries still mean one
  Recovery.
- A result the caller or a Multiple Injuries asks to re-roll is rolled again
  openly, as its own recorded roll, until another result comes up. A re-roll
  list that covers the whole table is refused, since it could never end.
- Multiple Injuries' extra rolls re-roll its own list *and* the caller's (a
  Medical Escort's list stays in force). As REFERENCE prints it, Multiple
  Injuries itself changes no status; its extra results do.
- A "once" result (an effect with ``repeat_as``) counts as that other result
  when the fighter already has it, or, for a skill, already has the skill
  (Horrid Scars: "Out Cold if it has it").
- An ``on_repeat`` effect (Partially Deafened's -1 Leadership) applies only if
  the fighter already has the result; each occurrence is recorded.
- ``lasting_injuries`` records the results that leave a mark on the Fighter
  card: those with a characteristic, skill or note effect, or a once-only
  one. Out Cold, Convalescence, Lesson Learned, Captured, Critical Injury and
  Memorable Death are held by the status, the XP and the flags instead.
- Captured changes nothing here: the Wrap-up's escape roll decides (PB-1.2).
  Critical Injury sets ``critical_injury`` and leaves the status alone: the
  Medical Escort (PB-5.5) or Clean House (PB-6A.1) settles it.
- Lasting Damage: the table's die +1 per Persistent Rattle the vehicle already
  has; a total above the table takes its highest entry (7+ Write-off). Every
  result is written on the vehicle, so a Write-off counts as Lasting Damage
  for Negotiate Repairs; a ``recovery`` effect puts the vehicle In Repair.
- Lasting Damage rolled at the table is applied as entered, without a made-up
  roll (its total may have included Persistent Rattles); a result that die
  plus those rattles cannot reach (a Persistent Rattle on a vehicle that has
  one, a Write-off on a vehicle with none) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from rules.dice import DiceRoll, Roller, parse, roll_flat_or_dice
from rules.errors import InvalidRequest, NotEligible
from rules.models import (
    TARGET_STATS,
    Fighter,
    FighterCategory,
    FighterStatus,
    Vehicle,
    VehicleStatus,
)
from rules.ruleset import InjuryEffect, InjuryEffectKind, InjuryEntry, InjuryTable, RuleSet
from rules.wording import count, possessive
from rules.world import Workspace

PERSISTENT_RATTLE = "Persistent Rattle"

# Effects that leave a mark on the Fighter card, so the result is recorded.
_MARKING = frozenset({
    InjuryEffectKind.STAT, InjuryEffectKind.SKILL, InjuryEffectKind.NOTE,
    InjuryEffectKind.AFTER_BATTLE,
})
# How serious a status an injury can leave; higher wins.
_SEVERITY = {
    FighterStatus.ACTIVE: 0,
    FighterStatus.CONVALESCENT: 1,
    FighterStatus.IN_RECOVERY: 2,
}
_STATUS_OF = {
    InjuryEffectKind.CONVALESCENCE: FighterStatus.CONVALESCENT,
    InjuryEffectKind.RECOVERY: FighterStatus.IN_RECOVERY,
}


class InjuryOutcome(BaseModel):
    """What one Lasting Injury did to one fighter."""

    fighter_id: str
    rolls: list[DiceRoll]  # every roll made, in order (also recorded in the workspace)
    results: list[str]  # names of the results applied, in order
    captured: bool  # a Captured result: the caller makes the escape roll (PB-1.2)
    critical_injury: bool  # fighter.critical_injury was set
    dead: bool  # Memorable Death: status Dead
    # Its worst result was Convalescence (received now, whatever the status was before).
    convalescence: bool = False


class LastingDamageOutcome(BaseModel):
    """What one Lasting Damage roll did to one vehicle."""

    vehicle_id: str
    # None when the result was rolled at the table and entered as it was.
    roll: DiceRoll | None
    modifier: int  # +1 per Persistent Rattle the vehicle already had
    total: int  # the roll plus the modifier, looked up on the table
    result: str
    in_repair: bool  # the result put the vehicle In Repair (Write-off)


def injury_table_for(fighter: Fighter, ruleset: RuleSet) -> InjuryTable:
    """The Lasting Injury table this fighter rolls on: the crew table for Crew."""
    if fighter.category is FighterCategory.CREW:
        return ruleset.crew_injuries
    return ruleset.fighter_injuries


@dataclass
class _Tally:
    rolls: list[DiceRoll] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    status: FighterStatus = FighterStatus.ACTIVE
    captured: bool = False
    critical: bool = False
    dead: bool = False


@dataclass(frozen=True)
class _Context:
    ws: Workspace
    fighter: Fighter
    table: InjuryTable
    roller: Roller
    tally: _Tally


def apply_lasting_injury(
    ws: Workspace,
    gang_id: str,
    fighter_id: str,
    table: InjuryTable,
    roller: Roller,
    *,
    reroll: frozenset[str] = frozenset(),
    purpose: str | None = None,
) -> InjuryOutcome:
    """Roll on ``table`` for the fighter, re-rolling results named in ``reroll``, and apply it."""
    fighter = ws.gang(gang_id).fighter(fighter_id)
    if not fighter.on_roster:
        raise NotEligible(
            f"{fighter.name} is {fighter.status.value.lower()} and cannot suffer a Lasting Injury."
        )
    rerolled = _known_names(table, reroll)
    if {entry.name for entry in table.entries} <= rerolled:
        raise InvalidRequest(f"Re-rolling every result of {table.name} would never end.")
    context = _Context(ws, fighter, table, roller, _Tally())
    label = purpose or f"Lasting Injury for {fighter.name}"
    _apply_entry(context, _roll_entry(context, rerolled, label), rerolled, label)
    _settle_status(context)
    tally = context.tally
    return InjuryOutcome(
        fighter_id=fighter.id,
        rolls=tally.rolls,
        results=tally.results,
        captured=tally.captured and not tally.dead,
        critical_injury=tally.critical,
        dead=tally.dead,
        convalescence=tally.status is FighterStatus.CONVALESCENT and not tally.dead,
    )


def persistent_rattles(vehicle: Vehicle) -> int:
    """How many Persistent Rattles the vehicle has: +1 each to its Lasting Damage rolls."""
    return sum(1 for d in vehicle.lasting_damage if d.casefold() == PERSISTENT_RATTLE.casefold())


def apply_lasting_damage(
    ws: Workspace, gang_id: str, vehicle_id: str, table: InjuryTable, roller: Roller
) -> LastingDamageOutcome:
    """Roll Lasting Damage for a Wrecked vehicle: +1 per Persistent Rattle it already has."""
    vehicle = ws.gang(gang_id).vehicle(vehicle_id)
    rattles = persistent_rattles(vehicle)
    purpose = f"Lasting Damage for {vehicle.name}"
    if rattles:
        purpose += f" (+{rattles} for {PERSISTENT_RATTLE})"
    dice = ws.roll(roller, table.dice, purpose)
    total = dice.total + rattles
    entry = table.lookup(total)
    modifier = f" +{rattles} = {total}" if rattles else ""
    in_repair = _damage(vehicle, entry)
    ws.note(
        f"{vehicle.name} rolls {dice.total}{modifier} for Lasting Damage: {entry.name}."
        + (" It is In Repair until repaired." if in_repair else "")
    )
    return LastingDamageOutcome(
        vehicle_id=vehicle.id, roll=dice, modifier=rattles, total=total,
        result=entry.name, in_repair=in_repair,
    )


def lasting_damage_entry(table: InjuryTable, vehicle: Vehicle, name: str) -> InjuryEntry:
    """The entry ``name`` of ``table``, refused unless the vehicle's roll could reach it."""
    entry = next((e for e in table.entries if e.name.casefold() == name.strip().casefold()), None)
    if entry is None:
        known = ", ".join(e.name for e in table.entries)
        raise InvalidRequest(
            f"'{name}' (entered for {vehicle.name}) is not a {table.name} result. "
            f"Known results: {known}."
        )
    rattles = persistent_rattles(vehicle)
    dice = parse(table.dice)
    lowest, highest = dice.count + rattles, dice.count * dice.sides + rattles
    top = max(table.entries, key=lambda e: e.high)
    reachable = entry.low <= highest and (entry.high >= lowest or entry is top)
    if not reachable:
        with_rattles = f" with {count(rattles, PERSISTENT_RATTLE, PERSISTENT_RATTLE + 's')}"
        raise InvalidRequest(
            f"{vehicle.name} cannot roll {entry.name}: {table.dice}"
            f"{with_rattles if rattles else ''} gives {lowest} to {highest}."
        )
    return entry


def apply_entered_lasting_damage(
    ws: Workspace, gang_id: str, vehicle_id: str, table: InjuryTable, name: str
) -> LastingDamageOutcome:
    """Apply a Lasting Damage result rolled at the table, as entered (no roll is made)."""
    vehicle = ws.gang(gang_id).vehicle(vehicle_id)
    rattles = persistent_rattles(vehicle)
    entry = lasting_damage_entry(table, vehicle, name)
    in_repair = _damage(vehicle, entry)
    ws.note(
        f"{vehicle.name} suffered {entry.name} (Lasting Damage rolled during the battle)."
        + (" It is In Repair until repaired." if in_repair else "")
    )
    return LastingDamageOutcome(
        vehicle_id=vehicle.id, roll=None, modifier=rattles, total=entry.low,
        result=entry.name, in_repair=in_repair,
    )


def _damage(vehicle: Vehicle, entry: InjuryEntry) -> bool:
    """Write ``entry`` on the vehicle; True when it puts the vehicle In Repair."""
    vehicle.lasting_damage.append(entry.name)
    in_repair = any(effect.kind is InjuryEffectKind.RECOVERY for effect in entry.effects)
    if in_repair:
        vehicle.status = VehicleStatus.IN_REPAIR
    return in_repair


# --------------------------------------------------------------------------- rolling


def _known_names(table: InjuryTable, names: frozenset[str] | list[str]) -> frozenset[str]:
    """The table's own spelling of each name asked for (matched case-insensitively)."""
    wanted = {name.casefold() for name in names}
    return frozenset(e.name for e in table.entries if e.name.casefold() in wanted)


def _roll_entry(context: _Context, rerolled: frozenset[str], purpose: str) -> InjuryEntry:
    dice = _roll(context, context.table.dice, purpose)
    entry = context.table.lookup(dice.total)
    while entry.name in rerolled:
        context.ws.note(f"{entry.name} ({dice.total}) is re-rolled.")
        dice = _roll(context, context.table.dice, f"{purpose}, re-roll of {entry.name}")
        entry = context.table.lookup(dice.total)
    context.ws.note(injury_rolled_note(context.fighter.name, dice.total, entry.name))
    return entry


def injury_rolled_note(fighter_name: str, total: int, result: str) -> str:
    """The note of one Lasting Injury roll; :func:`injury_of_note` reads it back."""
    return f"{fighter_name} rolls {total}: {result}."


def injury_of_note(fighter_name: str, note: str) -> str | None:
    """The result named by ``note`` when it is :func:`injury_rolled_note` of this fighter
    (the battle report reads the Wrap-up's notes in the ledger this way)."""
    head, _, rest = note.partition(" rolls ")
    total, colon, result = rest.partition(": ")
    if head != fighter_name or not colon or not total.isdigit() or not result.endswith("."):
        return None
    return result[:-1]


def _roll(context: _Context, expression: str, purpose: str) -> DiceRoll:
    dice = context.ws.roll(context.roller, expression, purpose)
    context.tally.rolls.append(dice)
    return dice


def _amount(context: _Context, expression: str, purpose: str) -> int:
    rolled = roll_flat_or_dice(context.roller, expression, purpose)
    if isinstance(rolled, int):
        return rolled
    context.ws.record(rolled)
    context.tally.rolls.append(rolled)
    return rolled.total


# --------------------------------------------------------------------------- applying


def _apply_entry(
    context: _Context, rolled: InjuryEntry, rerolled: frozenset[str], purpose: str
) -> None:
    fighter = context.fighter
    entry = _once_only(context, rolled)
    repeated = entry.name in fighter.lasting_injuries
    context.tally.results.append(entry.name)
    for effect in entry.effects:
        _apply_effect(context, entry, effect, repeated, rerolled, purpose)
    if _leaves_mark(entry):
        fighter.lasting_injuries.append(entry.name)


def _once_only(context: _Context, entry: InjuryEntry) -> InjuryEntry:
    repeat_as = next((e.repeat_as for e in entry.effects if e.repeat_as), None)
    if repeat_as is None:
        return entry
    fighter = context.fighter
    has_skill = any(
        effect.kind is InjuryEffectKind.SKILL
        and effect.skill is not None
        and effect.skill in (*fighter.skills, *fighter.special_rules)
        for effect in entry.effects
    )
    if entry.name not in fighter.lasting_injuries and not has_skill:
        return entry
    context.ws.note(f"{fighter.name} already has {entry.name}: it counts as {repeat_as}.")
    for candidate in context.table.entries:
        if candidate.name == repeat_as:
            return candidate
    raise InvalidRequest(f"{context.table.name} has no result called {repeat_as}.")


def _apply_effect(
    context: _Context,
    entry: InjuryEntry,
    effect: InjuryEffect,
    repeated: bool,
    rerolled: frozenset[str],
    purpose: str,
) -> None:
    fighter, tally = context.fighter, context.tally
    kind = effect.kind
    if kind in _STATUS_OF:
        status = _STATUS_OF[kind]
        if _SEVERITY[status] > _SEVERITY[tally.status]:
            tally.status = status
    elif kind is InjuryEffectKind.STAT:
        if effect.on_repeat and not repeated:
            context.ws.note(f"{entry.name} has no effect the first time.")
            return
        _change_stat(context, effect)
    elif kind is InjuryEffectKind.XP:
        gained = _amount(context, effect.expression or "0", f"{entry.name} XP for {fighter.name}")
        fighter.xp += gained
        context.ws.note(f"{fighter.name} gains {gained} XP.")
    elif kind is InjuryEffectKind.SKILL and effect.skill is not None:
        if effect.skill not in fighter.skills:
            fighter.skills.append(effect.skill)
            context.ws.note(f"{fighter.name} gains {effect.skill}.")
    elif kind is InjuryEffectKind.CAPTURED:
        tally.captured = True
        context.ws.note(f"{fighter.name} is taken: the escape roll of the Wrap-up decides.")
    elif kind is InjuryEffectKind.CRITICAL:
        tally.critical = True
        fighter.critical_injury = True
        context.ws.note(f"{fighter.name} dies in Clean House unless a Medical Escort saves them.")
    elif kind is InjuryEffectKind.DEAD:
        tally.dead = True
    elif kind is InjuryEffectKind.MULTIPLE:
        _multiple(context, entry, effect, rerolled, purpose)


def _change_stat(context: _Context, effect: InjuryEffect) -> None:
    if effect.stat is None:
        raise InvalidRequest("A characteristic effect must name its characteristic.")
    profile = context.fighter.profile
    label = effect.stat.upper()
    if profile is None or not profile.has(effect.stat):
        # Never invent the characteristic to change: the injury stays on the
        # fighter's card, and whoever sets the profile applies it.
        lacks = "profile is not set" if profile is None else f"profile has no {label}"
        context.ws.note(
            f"{possessive(context.fighter.name)} {lacks}: the change to {label} is not "
            "applied; give the profile with this injury counted."
        )
        return
    before = profile.get(effect.stat)
    try:
        profile.worsen(effect.stat, effect.amount)
    except ValueError as exc:
        raise InvalidRequest(f"The injury table is wrong: {exc}.") from None
    after = profile.get(effect.stat)
    suffix = "+" if effect.stat.lower() in TARGET_STATS else ""
    context.ws.note(
        f"{possessive(context.fighter.name)} {label} goes from "
        f"{before}{suffix} to {after}{suffix}."
    )


def _multiple(
    context: _Context,
    entry: InjuryEntry,
    effect: InjuryEffect,
    rerolled: frozenset[str],
    purpose: str,
) -> None:
    extra = _amount(context, effect.expression or "1",
                    f"{entry.name}: how many more rolls for {context.fighter.name}")
    widened = rerolled | _known_names(context.table, effect.reroll)
    if {e.name for e in context.table.entries} <= widened:
        raise InvalidRequest(f"Re-rolling every result of {context.table.name} would never end.")
    times = count(extra, "more time", "more times")
    context.ws.note(f"{context.fighter.name} rolls {times} on {context.table.name}.")
    for number in range(1, extra + 1):
        label = f"{purpose}: {entry.name}, extra roll {number} of {extra}"
        _apply_entry(context, _roll_entry(context, widened, label), widened, label)


def _leaves_mark(entry: InjuryEntry) -> bool:
    return any(e.kind in _MARKING or e.repeat_as is not None for e in entry.effects)


def _settle_status(context: _Context) -> None:
    fighter, tally = context.fighter, context.tally
    if tally.dead:
        fighter.set_status(FighterStatus.DEAD)
        context.ws.note(f"{fighter.name} is dead.")
        return
    current = _SEVERITY.get(fighter.status)
    # A Captive (no severity) keeps its status; otherwise the worse status wins.
    if current is not None and _SEVERITY[tally.status] > current:
        fighter.set_status(tally.status)
        context.ws.note(f"{fighter.name} is now {tally.status.value}.")
