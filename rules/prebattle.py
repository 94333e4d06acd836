"""The pre-battle sequence (PRE-1 to PRE-6): ratings and order, scenario, battlefield.

Nothing here changes a gang; the results say what was decided and show every
roll. Decisions where the texts are silent:

- PRE-1 uses :attr:`rules.models.Gang.rating` (fighters and vehicles with
  their equipment, Captives held by others excluded), as REFERENCE defines
  Gang Rating.
- PRE-2 with three or four gangs: the tie-breaks apply level by level inside
  each tied group (rating, then battles fought, then Reputation). Gangs still
  tied roll off together, each one a D6 in the order the gangs were given; the
  higher roll counts as the lower rating, so gangs are placed from the lowest
  roll to the highest. Gangs that tie the roll-off roll again among
  themselves, openly, until they are separated.
- PRE-4: the campaign's die is rolled (D6 unless the campaign chose D4, which
  reaches entries 1-4 only). A result whose scenario does not admit the number
  of gangs, or that the chart lacks, is rolled again openly; if no entry the
  die can reach admits them the request is refused.
- PB-1.7: a Rescue Mission replaces the scenario roll and is fought between
  the captive's gang and its captor only; it dictates no battlefield type.
- PRE-5: an agreement names Zone Mortalis, Sector Mechanicus or Hybrid (any
  case); an agreement that the scenario overrides is mentioned in the notes.
"""

from __future__ import annotations

from enum import StrEnum
from itertools import groupby

from pydantic import BaseModel, Field

from rules.dice import DiceRoll, Roller
from rules.errors import InvalidRequest, NotEligible
from rules.models import CampaignSettings, FighterStatus, Gang, ScenarioDie
from rules.ruleset import RuleSet, Scenario
from rules.world import RuleResult, Workspace, World

RESCUE_MISSION = "Rescue Mission"
MIN_GANGS = 2
MAX_GANGS = 4


class TieBreak(StrEnum):
    """What separated a gang from the gangs next to it in the order (PRE-2)."""

    NONE = "none"  # its Gang Rating alone
    BATTLES = "battles fought"
    REPUTATION = "reputation"
    ROLL_OFF = "roll-off"


class Battlefield(StrEnum):
    ZONE_MORTALIS = "Zone Mortalis"
    SECTOR_MECHANICUS = "Sector Mechanicus"
    HYBRID = "Hybrid"


class BattlefieldMethod(StrEnum):
    SCENARIO = "scenario"  # the scenario dictates it
    AGREED = "agreed"  # the players agreed
    ROLL = "roll"  # D6: 4+ Sector Mechanicus


class GangPlace(BaseModel):
    """One gang's place in the order, highest Gang Rating first."""

    gang_id: str
    gang_name: str
    rating: int
    battles_fought: int
    reputation: int
    position: int  # 1 is the highest Gang Rating
    tie_break: TieBreak
    reason: str
    rolloff: list[int] = Field(default_factory=list)  # its roll-off faces, re-rolls included
    underdog: bool = False


class RatingOrderResult(RuleResult):
    order: list[GangPlace]
    underdog_id: str
    rolloff_rolls: list[DiceRoll]


class StepResult(BaseModel):
    """A pre-battle step that changes no gang: what was decided and the rolls made."""

    clause: str
    title: str
    rolls: list[DiceRoll] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class RescueMission(BaseModel):
    """The owner of a Captive challenges its captor (PB-1.7)."""

    owner_gang_id: str
    captor_gang_id: str
    captive_fighter_id: str


class ScenarioResult(StepResult):
    name: str
    scenario: Scenario | None  # the chart entry; None for a Rescue Mission
    die: ScenarioDie | None  # the die rolled; None for a Rescue Mission
    roll: DiceRoll | None  # the roll that chose the scenario
    rescue: RescueMission | None = None


class BattlefieldResult(StepResult):
    battlefield: str
    method: BattlefieldMethod
    roll: DiceRoll | None = None


class PreBattleResult(RuleResult):
    order: list[GangPlace]
    underdog_id: str
    scenario: ScenarioResult
    battlefield: BattlefieldResult
    priority: str  # PRE-6


# --------------------------------------------------------------------------- public API


def order_by_rating(world: World, gang_ids: list[str], roller: Roller) -> RatingOrderResult:
    """PRE-1 to PRE-3: Gang Ratings, their order with tie-breaks, and the Underdog."""
    _check_gangs(world, gang_ids)
    ws = Workspace(world)
    order = _order(ws, gang_ids, roller)
    return ws.finish(
        RatingOrderResult,
        clause="PRE-2",
        title="Gang Ratings, order and Underdog",
        order=order,
        underdog_id=order[-1].gang_id,
        rolloff_rolls=list(ws.rolls),
    )


def roll_scenario(
    ruleset: RuleSet, settings: CampaignSettings, roller: Roller, gang_count: int
) -> ScenarioResult:
    """PRE-4: roll the campaign's die on the Scripted Scenario chart."""
    _check_count(gang_count)
    return _roll_scenario(Workspace(World()), ruleset, settings.scenario_die, roller, gang_count)


def declare_rescue_mission(
    world: World, owner_gang_id: str, captor_gang_id: str, captive_fighter_id: str
) -> ScenarioResult:
    """PB-1.7: the captive's owner plays a Rescue Mission instead of rolling a scenario."""
    request = RescueMission(
        owner_gang_id=owner_gang_id,
        captor_gang_id=captor_gang_id,
        captive_fighter_id=captive_fighter_id,
    )
    _check_rescue(world, request)
    return _rescue(Workspace(world), request)


def determine_battlefield(
    scenario: Scenario | None, roller: Roller, agreed: str | None
) -> BattlefieldResult:
    """PRE-5: the scenario's type, else the players' agreement, else a D6 (4+ Sector Mechanicus).

    ``scenario`` is None for a Rescue Mission, which dictates nothing.
    """
    choice = _parse_battlefield(agreed)
    return _battlefield(Workspace(World()), scenario, roller, choice)


def prebattle(
    world: World,
    gang_ids: list[str],
    ruleset: RuleSet,
    settings: CampaignSettings,
    roller: Roller,
    *,
    agreed_battlefield: str | None = None,
    rescue: RescueMission | None = None,
) -> PreBattleResult:
    """The whole pre-battle sequence in order (PRE-1 to PRE-6)."""
    _check_gangs(world, gang_ids)
    choice = _parse_battlefield(agreed_battlefield)
    if rescue is not None:
        _check_rescue(world, rescue)
        if sorted(gang_ids) != sorted([rescue.owner_gang_id, rescue.captor_gang_id]):
            raise InvalidRequest(
                "A Rescue Mission is fought between the captive's gang and its captor only."
            )
    ws = Workspace(world)
    order = _order(ws, gang_ids, roller)
    if rescue is not None:
        scenario = _rescue(ws, rescue)
    else:
        scenario = _roll_scenario(ws, ruleset, settings.scenario_die, roller, len(gang_ids))
    battlefield = _battlefield(ws, scenario.scenario, roller, choice)
    priority = (
        f"Priority, battlefield set-up and deployment follow the instructions of "
        f"{scenario.name}; the battle begins with the player who holds the priority "
        "marker activating an Active fighter."
    )
    ws.note(priority)
    return ws.finish(
        PreBattleResult,
        clause="PRE-1",
        title="Pre-battle sequence",
        order=order,
        underdog_id=order[-1].gang_id,
        scenario=scenario,
        battlefield=battlefield,
        priority=priority,
    )


# --------------------------------------------------------------------------- validation


def _check_count(gang_count: int) -> None:
    if not MIN_GANGS <= gang_count <= MAX_GANGS:
        raise InvalidRequest(
            f"A battle is fought by {MIN_GANGS} to {MAX_GANGS} gangs, not {gang_count}."
        )


def _check_gangs(world: World, gang_ids: list[str]) -> None:
    _check_count(len(gang_ids))
    for gang_id in gang_ids:
        gang = world.gang(gang_id)
        if gang_ids.count(gang_id) > 1:
            raise InvalidRequest(f"{gang.name} is listed more than once.")


def _check_rescue(world: World, request: RescueMission) -> None:
    owner = world.gang(request.owner_gang_id)
    captor = world.gang(request.captor_gang_id)
    if owner.id == captor.id:
        raise InvalidRequest("A gang cannot rescue a fighter from itself.")
    captive = owner.fighter(request.captive_fighter_id)
    if captive.status is not FighterStatus.CAPTURED or captive.captured_by != captor.id:
        raise NotEligible(
            f"{captor.name} does not hold {captive.name} captive, so there is no one to rescue."
        )


def _parse_battlefield(agreed: str | None) -> Battlefield | None:
    if agreed is None:
        return None
    for battlefield in Battlefield:
        if agreed.strip().casefold() == battlefield.value.casefold():
            return battlefield
    options = ", ".join(b.value for b in Battlefield)
    raise InvalidRequest(f"'{agreed[:40]}' is not a type of battlefield: choose {options}.")


# --------------------------------------------------------------------------- PRE-1 to PRE-3

_LEVELS = (TieBreak.NONE, TieBreak.BATTLES, TieBreak.REPUTATION)


def _level_key(gang: Gang, level: int) -> int:
    return (gang.rating, gang.battles_fought, gang.reputation)[level]


def _order(ws: Workspace, gang_ids: list[str], roller: Roller) -> list[GangPlace]:
    gangs = [ws.gang(gang_id) for gang_id in gang_ids]
    for gang in gangs:
        ws.note(f"{gang.name}: Gang Rating {gang.rating}.")
    faces: dict[str, list[int]] = {gang.id: [] for gang in gangs}
    ranked = _split(ws, roller, gangs, 0, faces)
    places = [
        GangPlace(
            gang_id=gang.id,
            gang_name=gang.name,
            rating=gang.rating,
            battles_fought=gang.battles_fought,
            reputation=gang.reputation,
            position=position,
            tie_break=tie_break,
            reason=_reason(gang, tie_break, faces[gang.id]),
            rolloff=faces[gang.id],
            underdog=position == len(gangs),
        )
        for position, (gang, tie_break) in enumerate(ranked, start=1)
    ]
    for place in places:
        ws.note(f"{place.position}. {place.gang_name}: {place.reason}.")
    ws.note(f"{places[-1].gang_name} has the lowest Gang Rating and is the Underdog.")
    return places


def _split(
    ws: Workspace, roller: Roller, group: list[Gang], level: int, faces: dict[str, list[int]]
) -> list[tuple[Gang, TieBreak]]:
    """Order ``group`` (tied on every earlier level) from highest to lowest."""
    if level == len(_LEVELS):
        return [(gang, TieBreak.ROLL_OFF) for gang in _roll_off(ws, roller, group, faces)]
    ranked: list[tuple[Gang, TieBreak]] = []
    # sorted() is stable, so gangs tied here keep the order they were given in.
    ordered = sorted(group, key=lambda g: _level_key(g, level), reverse=True)
    for _, tied in groupby(ordered, key=lambda g: _level_key(g, level)):
        same = list(tied)
        if len(same) == 1:
            ranked.append((same[0], _LEVELS[level]))
        else:
            ranked += _split(ws, roller, same, level + 1, faces)
    return ranked


def _roll_off(
    ws: Workspace, roller: Roller, group: list[Gang], faces: dict[str, list[int]]
) -> list[Gang]:
    """Highest rating first: the roll-off winner counts as the lower rating."""
    again = any(faces[gang.id] for gang in group)
    for gang in group:
        kind = "roll-off re-roll" if again else "roll-off"
        dice = ws.roll(roller, "D6", f"{kind} for {gang.name} (the winner counts as lower)")
        faces[gang.id].append(dice.total)
    ordered = sorted(group, key=lambda g: faces[g.id][-1])
    ranked: list[Gang] = []
    for face, tied in groupby(ordered, key=lambda g: faces[g.id][-1]):
        same = list(tied)
        if len(same) == 1:
            ranked.append(same[0])
        else:
            names = " and ".join(g.name for g in same)
            ws.note(f"{names} tie the roll-off with {face} and roll again.")
            ranked += _roll_off(ws, roller, same, faces)
    return ranked


def _reason(gang: Gang, tie_break: TieBreak, faces: list[int]) -> str:
    rating = f"Gang Rating {gang.rating}"
    if tie_break is TieBreak.NONE:
        return rating
    if tie_break is TieBreak.BATTLES:
        return f"{rating}, tied; {gang.battles_fought} battles fought"
    if tie_break is TieBreak.REPUTATION:
        return (
            f"{rating} and {gang.battles_fought} battles fought, tied; "
            f"Reputation {gang.reputation}"
        )
    rolled = ", then ".join(str(face) for face in faces)
    return (
        f"{rating}, battles fought and Reputation tied; rolled {rolled} in the roll-off "
        "(the higher roll counts as the lower rating)"
    )


# --------------------------------------------------------------------------- PRE-4, PB-1.7


def _roll_scenario(
    ws: Workspace, ruleset: RuleSet, die: ScenarioDie, roller: Roller, gang_count: int
) -> ScenarioResult:
    first_roll, first_note = len(ws.rolls), len(ws.notes)
    sides = int(die.value.removeprefix("D"))
    by_roll = {scenario.roll: scenario for scenario in ruleset.scenarios}
    reachable = [s for s in ruleset.scenarios if s.roll <= sides]
    if not any(s.min_gangs <= gang_count <= s.max_gangs for s in reachable):
        raise NotEligible(
            f"No scenario a {die.value} can give on the chart is for {gang_count} gangs."
        )
    reach = f" (entries 1-{sides} only)" if any(s.roll > sides for s in ruleset.scenarios) else ""
    ws.note(f"Rolling a {die.value} on the Scripted Scenario chart{reach}.")
    while True:
        dice = ws.roll(roller, die.value, f"scenario roll ({die.value}, Scripted Scenario chart)")
        scenario = by_roll.get(dice.total)
        if scenario is None:
            ws.note(f"The chart has no scenario for {dice.total}; rolling again.")
            continue
        if not scenario.min_gangs <= gang_count <= scenario.max_gangs:
            ws.note(
                f"{scenario.name} is for {scenario.min_gangs}-{scenario.max_gangs} gangs, "
                f"not {gang_count}; rolling again."
            )
            continue
        break
    ws.note(f"The {die.value} rolls {dice.total}: {scenario.name}.")
    return ScenarioResult(
        clause="PRE-4",
        title="Determine Scenario",
        rolls=ws.rolls[first_roll:],
        notes=ws.notes[first_note:],
        name=scenario.name,
        scenario=scenario,
        die=die,
        roll=dice,
    )


def _rescue(ws: Workspace, request: RescueMission) -> ScenarioResult:
    first_note = len(ws.notes)
    owner = ws.gang(request.owner_gang_id)
    captor = ws.gang(request.captor_gang_id)
    captive = owner.fighter(request.captive_fighter_id)
    ws.note(
        f"{owner.name} challenges {captor.name} to a Rescue Mission for {captive.name}; "
        "it replaces the scenario roll."
    )
    return ScenarioResult(
        clause="PB-1.7",
        title="Rescue Mission",
        notes=ws.notes[first_note:],
        name=RESCUE_MISSION,
        scenario=None,
        die=None,
        roll=None,
        rescue=request,
    )


# --------------------------------------------------------------------------- PRE-5


def _battlefield(
    ws: Workspace, scenario: Scenario | None, roller: Roller, agreed: Battlefield | None
) -> BattlefieldResult:
    first_roll, first_note = len(ws.rolls), len(ws.notes)
    dice: DiceRoll | None = None
    if scenario is not None and scenario.battlefield:
        battlefield, method = scenario.battlefield, BattlefieldMethod.SCENARIO
        overridden = f" (not the agreed {agreed.value})" if agreed else ""
        ws.note(f"{scenario.name} is fought as a {battlefield} battle{overridden}.")
    elif agreed is not None:
        battlefield, method = agreed.value, BattlefieldMethod.AGREED
        ws.note(f"The players agree on a {battlefield} battlefield.")
    else:
        dice = ws.roll(roller, "D6", "battlefield roll (4+ Sector Mechanicus)")
        chosen = Battlefield.SECTOR_MECHANICUS if dice.total >= 4 else Battlefield.ZONE_MORTALIS
        battlefield, method = chosen.value, BattlefieldMethod.ROLL
        ws.note(f"No agreement: the D6 rolls {dice.total}, a {battlefield} battle.")
    return BattlefieldResult(
        clause="PRE-5",
        title="Type of Battlefield",
        rolls=ws.rolls[first_roll:],
        notes=ws.notes[first_note:],
        battlefield=battlefield,
        method=method,
        roll=dice,
    )
