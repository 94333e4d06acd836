"""One gang's report panel as data: what it offers, what a click changes, what Submit checks.

Pure functions on the stored run and the battle's world (no Discord): the
panel's parts (sections, their options, pages), the injuries rolled at the
table, and :func:`apply_edit`, the change one select or toggle makes.
:mod:`bot.battle.views` draws the panel from these; :mod:`bot.battle.flow`
decides with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from bot.battle.state import GangReport, PostBattleRun, any_mark
from bot.render import safe
from rules.data import default_ruleset
from rules.errors import InvalidRequest
from rules.injuries import injury_table_for, lasting_damage_entry
from rules.models import Fighter, FighterStatus, Gang, Vehicle
from rules.multiple_injuries import entry_named, fewest_extra, is_complete, results_left
from rules.ruleset import InjuryEntry, InjuryTable, RuleSet
from rules.wording import count, possessive
from rules.world import World
from rules.wrapup import check_injuries_rolled

PER_SELECT = 25  # Discord's limit of options in one select
SELECTS_PER_PAGE = 2
PER_PAGE = PER_SELECT * SELECTS_PER_PAGE
MAX_ENEMIES_OOA = 24  # options 0..24 fill one select
LABEL_MAX = 100
PLACEHOLDER_MAX = 150
INJURIES = "inj"  # the section where injuries rolled at the table are entered
DAMAGE = "dmg"  # the section where Lasting Damage rolled at the table is entered
XP, KILLS, WRECKED_RESULTS = "xp", "kills", "wres"
# Sections that give each chosen fighter (or vehicle) an amount: the amounts offered.
MOST_WRECKED_RESULTS = 10  # VehicleEndState.wrecked_results' bound
AMOUNTS: dict[str, range] = {
    XP: range(0, PER_SELECT),
    KILLS: range(0, PER_SELECT),
    WRECKED_RESULTS: range(1, MOST_WRECKED_RESULTS + 1),
}
NOT_ROLLED = "-"  # the result select's "not rolled at the table: the bot rolls it"
# One option says "not rolled at the table"; the rest are the table's results.
MAX_RESULTS = PER_SELECT - 1


def gang_names(world: World) -> dict[str, str]:
    return {gang_id: gang.name for gang_id, gang in world.gangs.items()}


def injuries_text(names: Sequence[str]) -> str:
    """Lasting Injuries rolled at the table as one phrase: "Eye Injury", or "Multiple
    Injuries: Hobbled, Eye Injury" (the first result gave the others); "" for none."""
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return f"{names[0]}: {', '.join(names[1:])}"


# --------------------------------------------------------------------------- report scope


@dataclass(frozen=True)
class ReportScope:
    """One gang's report panel: who it can name, and what the panel shows now."""

    run: PostBattleRun
    gang_index: int
    gang: Gang
    fighters: list[Fighter]  # those who could have fought
    vehicles: list[Vehicle]
    enemies: list[tuple[str, str]]  # (gang id, name), in the battle's order
    ruleset: RuleSet  # the campaign's: its injury tables fill the injury select

    @property
    def report(self) -> GangReport:
        return self.run.reports[self.gang.id]


def eligible_fighters(run: PostBattleRun, gang: Gang) -> list[Fighter]:
    """Fighters that could have fought: on the roster, not a captive, not In Recovery."""
    return [
        f for f in gang.fighters
        if f.on_roster and f.status is not FighterStatus.CAPTURED
        and f.id not in run.in_recovery_before
    ]


def report_scope(
    run: PostBattleRun, world: World, gang_index: int, ruleset: RuleSet | None = None
) -> ReportScope:
    """One gang's panel; ``ruleset`` is the campaign's (None: the default set, for tests)."""
    gang = world.gang(run.gang_ids[gang_index])
    enemies = [(g, world.gang(g).name) for g in run.gang_ids if g != gang.id]
    return ReportScope(
        run=run, gang_index=gang_index, gang=gang,
        fighters=eligible_fighters(run, gang), vehicles=list(gang.vehicles), enemies=enemies,
        ruleset=ruleset or default_ruleset(),
    )


def sections(scope: ReportScope) -> list[tuple[str, str]]:
    """(value, label) of each part of the report the section select offers."""
    found = [("psi", "Prone & Seriously Injured")]
    if scope.report.bottled_out:
        found.append(("fled", "Fled whilst Prone & Seriously Injured"))
    found += [("ooa", "Out of Action"), ("web", "Out of Action while Webbed")]
    if out_of_action(scope):
        found.append((INJURIES, "Lasting Injuries rolled at the table"))
    found.append(("crit", "Critical Injury suffered"))
    found += [(XP, "XP earned by each fighter"),
              (KILLS, "Enemies each fighter took Out of Action")]
    if scope.vehicles:
        found.append(("wreck", "Vehicles Wrecked"))
        if wrecked_vehicles(scope):
            found += [(WRECKED_RESULTS, "Wrecked results of each vehicle"),
                      (DAMAGE, "Lasting Damage rolled at the table")]
        found.append(("aband", "Vehicles abandoned"))
    found.append(("enemies", "Enemies taken Out of Action"))
    if len(scope.run.gang_ids) > 2:
        found += [
            (f"by{index}", f"Taken Out of Action by {name}"[:LABEL_MAX])
            for index, (_gang_id, name) in enumerate(scope.enemies)
        ]
    return found


def current_section(scope: ReportScope) -> str:
    known = [value for value, _ in sections(scope)]
    return scope.report.section if scope.report.section in known else "psi"


def enemy_of(scope: ReportScope, section: str) -> str | None:
    if section.startswith("by") and section[2:].isdigit():
        index = int(section[2:])
        if index < len(scope.enemies):
            return scope.enemies[index][0]
    return None


def section_items(scope: ReportScope, section: str) -> list[tuple[str, str, bool]]:
    """(value, label, chosen) of every option the section offers, across all pages."""
    report = scope.report
    marks = report.fighters
    if section in AMOUNTS:
        return [(subject_id, f"{name[:70]} ({amount_label(section, amount)})",
                 subject_id in report.chosen)
                for subject_id, name, amount in amount_subjects(scope, section)]
    if section == DAMAGE:
        target = damage_target(scope)
        return [(v.id, v.name, target is not None and v.id == target.id)
                for v in wrecked_vehicles(scope)]
    if section in ("wreck", "aband"):
        chosen = report.wrecked if section == "wreck" else report.abandoned
        return [(v.id, v.name, v.id in chosen) for v in scope.vehicles]
    if section == "enemies":
        return [(str(n), str(n), n == report.enemies_out_of_action)
                for n in range(MAX_ENEMIES_OOA + 1)]
    if section == "fled":
        pool = [f for f in scope.fighters if f.id in marks and marks[f.id].prone_seriously_injured]
    elif section.startswith("by"):
        pool = [f for f in scope.fighters if f.id in marks and marks[f.id].out_of_action]
    else:
        pool = scope.fighters
    flag = {
        "psi": "prone_seriously_injured", "fled": "fled_prone_seriously_injured",
        "ooa": "out_of_action", "web": "webbed", "crit": "critical_injury",
    }.get(section)
    enemy = enemy_of(scope, section)
    items: list[tuple[str, str, bool]] = []
    for fighter in pool:
        mark = marks.get(fighter.id)
        if flag is not None:
            chosen_now = bool(mark is not None and getattr(mark, flag))
        else:
            chosen_now = mark is not None and enemy is not None and mark.taken_by == enemy
        items.append((fighter.id, fighter.name, chosen_now))
    return items


def page_count(scope: ReportScope, section: str) -> int:
    if section == "enemies":
        return 1
    if section == INJURIES:  # one select of fighters; the result select takes the other row
        return max(1, -(-len(out_of_action(scope)) // PER_SELECT))
    if section in AMOUNTS or section == DAMAGE:  # likewise: the amount or result select
        return max(1, -(-len(section_items(scope, section)) // PER_SELECT))
    return max(1, -(-len(section_items(scope, section)) // PER_PAGE))


def current_page(scope: ReportScope, section: str) -> int:
    return min(scope.report.page, page_count(scope, section) - 1)


def slot_items(
    scope: ReportScope, section: str, page: int, slot: int
) -> list[tuple[str, str, bool]]:
    items = section_items(scope, section)
    if section == "enemies":
        return items if slot == 0 else []
    if section in AMOUNTS or section == DAMAGE:
        return items[page * PER_SELECT:(page + 1) * PER_SELECT] if slot == 0 else []
    start = page * PER_PAGE + slot * PER_SELECT
    return items[start:start + PER_SELECT]


# --------------------------------------------------------------------------- injuries at the table
#
# Many groups roll a Lasting Injury at the table when a fighter goes down. In the
# "Lasting Injuries rolled at the table" section a player picks an Out of Action
# fighter, then its result in a select filled from the campaign rule set's table for
# that fighter (the crew table for Crew). A pick replaces the result, except after a
# result that gives more rolls (Multiple Injuries): then each pick adds one of its
# extra results. Every pick is checked as the Wrap-up will check it
# (rules.wrapup.check_injuries_rolled), so an impossible list is refused in the panel
# and never stored. Left unset, the Wrap-up rolls the injury as before.


def out_of_action(scope: ReportScope) -> list[Fighter]:
    """The fighters the report has Out of Action (Webbed ones included), in roster order."""
    marks = scope.report.fighters
    return [f for f in scope.fighters
            if (mark := marks.get(f.id)) is not None and mark.out_of_action]


class _Listed(Protocol):
    @property
    def id(self) -> str: ...


Listed = TypeVar("Listed", bound=_Listed)


def _picked_or_first(listed: Sequence[Listed], picked: str | None) -> Listed | None:
    """The one a select last picked while it is still listed, else the first (if any)."""
    return next((thing for thing in listed if thing.id == picked),
                listed[0] if listed else None)


def _still_listed(listed: Sequence[Listed], thing_id: str, refusal: str) -> Listed:
    """The thing a select was drawn for, refused when the report no longer lists it."""
    found = next((thing for thing in listed if thing.id == thing_id), None)
    if found is None:
        raise InvalidRequest(refusal)
    return found


def injury_target(scope: ReportScope) -> Fighter | None:
    """The fighter whose results the injury select shows: the one picked, else the first."""
    return _picked_or_first(out_of_action(scope), scope.report.injury_fighter)


def injury_results(table: InjuryTable) -> list[InjuryEntry]:
    """The results the injury select offers: the table's, each name once, in table order.

    The shipped tables have at most 19 results; one select holds 24 besides "not
    rolled", so a longer table would lose its last results here (and be rolled by
    the bot in the Wrap-up instead).
    """
    seen: dict[str, InjuryEntry] = {}
    for entry in sorted(table.entries, key=lambda e: e.low):
        seen.setdefault(entry.name.casefold(), entry)
    return list(seen.values())[:MAX_RESULTS]


def faces(table: InjuryTable, entry: InjuryEntry) -> str:
    span = str(entry.low) if entry.low == entry.high else f"{entry.low}-{entry.high}"
    return f"{table.dice} {span}"


def _restart_hint(fighter: Fighter) -> str:
    return (f"Nothing was changed. Pick \"Not rolled at the table\" for {fighter.name} to "
            "enter the results again from the start.")


def pick_injury_fighter(scope: ReportScope, values: Sequence[str]) -> bool:
    """Show another Out of Action fighter's results; the report itself does not change."""
    if not values:
        return False
    shown = _still_listed(out_of_action(scope), values[0],
                          "That fighter is no longer reported Out of Action.")
    scope.report.injury_fighter = shown.id
    return False


def enter_injury(scope: ReportScope, fighter_id: str, values: Sequence[str]) -> bool:
    """A pick in the injury select for ``fighter_id``; True when the report changed.

    Refuses (InvalidRequest, nothing changed) a fighter no longer Out of Action,
    a name not in its table, and any list the Wrap-up would refuse.
    """
    fighter = _still_listed(out_of_action(scope), fighter_id,
                            "That fighter is no longer reported Out of Action: pick the "
                            "fighter again in the report.")
    if not values:
        return False
    mark = scope.report.fighters[fighter.id]
    if values[0] == NOT_ROLLED:
        chosen: list[str] = []
    else:
        table = injury_table_for(fighter, scope.ruleset)
        entry = entry_named(table, values[0])
        if entry is None:
            raise InvalidRequest(f"{values[0]} is not a result of {table.name}, the table "
                                 f"{fighter.name} rolls on. {_restart_hint(fighter)}")
        adding = results_left(table, mark.injuries_rolled) is not None
        chosen = [*mark.injuries_rolled, entry.name] if adding else [entry.name]
        try:
            check_injuries_rolled(fighter, scope.ruleset, chosen)
        except InvalidRequest as refusal:
            raise InvalidRequest(f"{refusal.message} {_restart_hint(fighter)}") from refusal
    scope.report.injury_fighter = fighter.id
    if chosen == mark.injuries_rolled:
        return False
    mark.injuries_rolled = chosen
    return True


def check_injuries(scope: ReportScope) -> None:
    """Before Submit: every list as the Wrap-up reads it, and Multiple Injuries complete.

    The rules accept Multiple Injuries with fewer extra results than its dice can
    give; with none at all nothing would be applied, which no roll can do, so the
    panel asks for them.
    """
    for fighter in out_of_action(scope):
        names = scope.report.fighters[fighter.id].injuries_rolled
        if not names:
            continue
        entries = check_injuries_rolled(fighter, scope.ruleset, names)
        if not is_complete(entries):
            raise InvalidRequest(
                f"{possessive(fighter.name)} {entries[0].name} gives at least "
                f"{fewest_extra(entries)} more result(s): enter them in \"Lasting Injuries "
                "rolled at the table\", or pick \"Not rolled at the table\" to let the bot "
                "roll in the Wrap-up."
            )


def injury_placeholder(fighter: Fighter, table: InjuryTable, names: Sequence[str]) -> str:
    who = fighter.name[:40]
    if not names:
        text = f"{who}: result rolled at the table? (unset: the bot rolls it)"
    else:
        left = results_left(table, names)
        if left is None:
            text = f"{who}: {names[0]}; pick another result to replace it"
        elif left:
            text = f"{who}: {injuries_text(names)}; pick its next extra result ({left} more)"
        else:
            text = f"{who}: {injuries_text(names)} (complete)"
    return text[:PLACEHOLDER_MAX]


# --------------------------------------------------------------------------- amounts
#
# XP, enemies taken Out of Action and Wrecked results are numbers per fighter (or
# vehicle). A section of them shows a select of its fighters, where the player chooses
# any number of them, and a select of amounts: an amount picked is given to every
# fighter chosen. So a gang whose fighters earned 1, 1, 2 and 0 XP is reported with
# four picks, not one command per fighter.


def wrecked_vehicles(scope: ReportScope) -> list[Vehicle]:
    wrecked = set(scope.report.wrecked)
    return [v for v in scope.vehicles if v.id in wrecked]


def amount_of(scope: ReportScope, section: str, subject_id: str) -> int:
    report = scope.report
    if section == WRECKED_RESULTS:
        return report.wrecked_results.get(subject_id, 1)
    mark = report.fighters.get(subject_id)
    if mark is None:
        return 0
    return mark.xp if section == XP else mark.kills


def amount_label(section: str, amount: int) -> str:
    if section == XP:
        return f"{amount} XP"
    if section == KILLS:
        return f"{amount} Out of Action"
    return count(amount, "Wrecked result")


def amount_subjects(scope: ReportScope, section: str) -> list[tuple[str, str, int]]:
    """(id, name, amount) of every fighter (or Wrecked vehicle) the section numbers."""
    pool: Sequence[Fighter | Vehicle] = (
        wrecked_vehicles(scope) if section == WRECKED_RESULTS else scope.fighters
    )
    return [(s.id, s.name, amount_of(scope, section, s.id)) for s in pool]


def amount_placeholder(scope: ReportScope, section: str) -> str:
    chosen = chosen_subjects(scope, section)
    what = "vehicle" if section == WRECKED_RESULTS else "fighter"
    if not chosen:
        return f"Choose {what}s above, then their amount here"
    if len(chosen) == 1:
        return f"{chosen[0][1][:60]}: {amount_label(section, chosen[0][2])}; pick another amount"
    return f"The amount for each of the {len(chosen)} {what}s chosen"


def chosen_subjects(scope: ReportScope, section: str) -> list[tuple[str, str, int]]:
    chosen = set(scope.report.chosen)
    return [s for s in amount_subjects(scope, section) if s[0] in chosen]


def choose_subjects(scope: ReportScope, section: str, shown: Sequence[str],
                    values: Sequence[str]) -> None:
    """Of the ids ``shown`` in the section's select, exactly ``values`` are now chosen."""
    report = scope.report
    report.chosen = [c for c in report.chosen if c not in shown] + [
        v for v in shown if v in values]


def give_amount(scope: ReportScope, section: str, values: Sequence[str]) -> bool:
    """An amount picked: every fighter (or vehicle) chosen gets it; True when one changed."""
    if section not in AMOUNTS or not values:
        return False
    if not values[0].isdigit() or int(values[0]) not in AMOUNTS[section]:
        raise InvalidRequest("That amount is not one the report offers.")
    amount = int(values[0])
    chosen = chosen_subjects(scope, section)
    if not chosen:
        what = "vehicles" if section == WRECKED_RESULTS else "fighters"
        raise InvalidRequest(f"Choose the {what} in the select above first, then the amount. "
                             "Nothing was changed.")
    report = scope.report
    if section == WRECKED_RESULTS:
        names = {v.id: v.name for v in scope.vehicles}
        over = [names[vid] for vid, _, _ in chosen
                if len(report.damage_rolled.get(vid, [])) > amount]
        if over:
            raise InvalidRequest(
                f"{', '.join(safe(n, 40) for n in over)} already has more Lasting Damage "
                f"entered than {amount_label(section, amount)}: pick \"Not rolled at the "
                "table\" in \"Lasting Damage rolled at the table\" first. Nothing was changed.")
        changed = any(report.wrecked_results.get(vid, 1) != amount for vid, _, _ in chosen)
        for vid, _, _ in chosen:
            if amount == 1:
                report.wrecked_results.pop(vid, None)
            else:
                report.wrecked_results[vid] = amount
        return changed
    changed = False
    for fid, _, before in chosen:
        if before == amount:
            continue
        mark = report.fighter(fid)
        setattr(mark, section, amount)
        changed = True
    report.fighters = {fid: m for fid, m in report.fighters.items() if any_mark(m)}
    return changed


# ----------------------------------------------------------------- Lasting Damage at the table
#
# Like injuries: a player picks a Wrecked vehicle, then a result from the campaign's
# Lasting Damage table. A vehicle with one Wrecked result takes one result (a pick
# replaces it); with more, each pick adds one, up to its Wrecked results. Each pick is
# checked as the Wrap-up checks it (the die and the vehicle's Persistent Rattles must
# reach it); the results not entered are rolled by the bot in the Wrap-up.


def damage_target(scope: ReportScope) -> Vehicle | None:
    return _picked_or_first(wrecked_vehicles(scope), scope.report.damage_vehicle)


def check_damage(vehicle: Vehicle, table: InjuryTable, names: Sequence[str]) -> list[str]:
    """The entered results as the table spells them; each must be reachable in turn
    (a Persistent Rattle entered first moves the next roll, as in the Wrap-up)."""
    trial = vehicle.model_copy(deep=True)
    spelled: list[str] = []
    for name in names:
        entry = lasting_damage_entry(table, trial, name)
        trial.lasting_damage.append(entry.name)
        spelled.append(entry.name)
    return spelled


def enter_damage(scope: ReportScope, vehicle_id: str, values: Sequence[str]) -> bool:
    """A pick in the Lasting Damage select for ``vehicle_id``; True when the report changed."""
    vehicle = _still_listed(wrecked_vehicles(scope), vehicle_id,
                            "That vehicle is no longer reported Wrecked: pick it again in "
                            "the report.")
    if not values:
        return False
    report = scope.report
    entered = report.damage_rolled.get(vehicle.id, [])
    results = report.wrecked_results.get(vehicle.id, 1)
    if values[0] == NOT_ROLLED:
        chosen: list[str] = []
    else:
        if results > 1 and len(entered) >= results:
            raise InvalidRequest(
                f"{vehicle.name} has {amount_label(WRECKED_RESULTS, results)} and as many "
                "Lasting Damage results entered. Raise its Wrecked results first, or pick "
                "\"Not rolled at the table\" to enter them again. Nothing was changed.")
        chosen = [*entered, values[0]] if results > 1 else [values[0]]
        chosen = check_damage(vehicle, scope.ruleset.lasting_damage, chosen)
    report.damage_vehicle = vehicle.id
    if chosen == entered:
        return False
    if chosen:
        report.damage_rolled[vehicle.id] = chosen
    else:
        report.damage_rolled.pop(vehicle.id, None)
    return True


def damage_placeholder(scope: ReportScope, vehicle: Vehicle) -> str:
    entered = scope.report.damage_rolled.get(vehicle.id, [])
    results = scope.report.wrecked_results.get(vehicle.id, 1)
    who = vehicle.name[:40]
    if not entered:
        text = f"{who}: Lasting Damage rolled at the table? (unset: the bot rolls it)"
    elif results == 1:
        text = f"{who}: {entered[0]}; pick another result to replace it"
    else:
        text = f"{who}: {', '.join(entered)} ({len(entered)} of {results} Wrecked results)"
    return text[:PLACEHOLDER_MAX]


# --------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class ReportEdit:
    """One change to a gang's report panel (a select or a toggle)."""

    kind: str  # section | pick | bottled | left | prev | next | injfighter | injury
    #            | amount | damage
    section: str = ""
    slot: int = 0
    values: list[str] = field(default_factory=list)
    fighter: str = ""  # injury: the fighter whose results the select showed
    vehicle: str = ""  # damage: the vehicle whose results the select showed


def apply_edit(scope: ReportScope, edit: ReportEdit) -> bool:
    """Apply ``edit`` to the scope's report; True when the report itself changed."""
    report = scope.report
    if edit.kind == "section":
        if edit.section not in [value for value, _ in sections(scope)]:
            raise InvalidRequest("That part of the report is not available.")
        report.section, report.page, report.chosen = edit.section, 0, []
        return False
    if edit.kind in ("prev", "next"):
        section = current_section(scope)
        last = page_count(scope, section) - 1
        page = current_page(scope, section) + (1 if edit.kind == "next" else -1)
        report.page = max(0, min(last, page))
        return False
    if edit.kind == "bottled":
        report.set_bottled_out(not report.bottled_out)
        return True
    if edit.kind == "left":
        report.models_left = not report.models_left
        return True
    if edit.kind == "pick":
        section = edit.section
        if section not in [value for value, _ in sections(scope)]:
            raise InvalidRequest("That part of the report is not available any more.")
        page = current_page(scope, section)
        shown = [value for value, _, _ in slot_items(scope, section, page, edit.slot)]
        chosen = [value for value in edit.values if value in shown]
        if section in AMOUNTS:
            choose_subjects(scope, section, shown, chosen)
            return False
        if section == DAMAGE:
            report.damage_vehicle = chosen[0] if chosen else report.damage_vehicle
            return False
        report.choose(section, shown, chosen, enemy_of(scope, section))
        return True
    if edit.kind == "injfighter":
        return pick_injury_fighter(scope, edit.values)
    if edit.kind == "injury":
        return enter_injury(scope, edit.fighter, edit.values)
    if edit.kind == "amount":
        return give_amount(scope, edit.section, edit.values)
    if edit.kind == "damage":
        return enter_damage(scope, edit.vehicle, edit.values)
    raise InvalidRequest("Unknown report change.")


def check_complete(scope: ReportScope) -> None:
    """Injuries rolled at the table as the Wrap-up will read them; in a 3-4 gang battle,
    every fighter Out of Action names the enemy that took it."""
    check_injuries(scope)
    if len(scope.run.gang_ids) <= 2:
        return
    missing = [
        f.name for f in scope.fighters
        if (mark := scope.report.fighters.get(f.id)) is not None
        and mark.out_of_action and mark.taken_by is None
    ]
    if missing:
        shown = ", ".join(safe(name, 40) for name in missing[:10])
        raise InvalidRequest(
            f"Say which enemy took each fighter Out of Action (the 'Taken Out of Action by' "
            f"parts of the report): {shown}."
        )
