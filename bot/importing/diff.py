"""A re-import: the stored gang updated from the file, and the differences it makes.

Pure functions. Decisions:

- Fighters are matched by the source's key first (Yaktribe's ganger_id, kept
  from the last import), then by name; a matched fighter keeps its id, so its
  ledger history goes on. Stored fighters the file no longer lists are
  removed; fighters new in the file are added.
- A Yaktribe file carries only some of a fighter: what it carries (name, type,
  category, cost, profile, XP, kills, skills, injuries, equipment, status)
  replaces the stored values; the rest (advancements, special rules, Gang
  Hierarchy, captivity, flags of a sequence in progress) stays. A Captured or
  Convalescent fighter the file calls Alive stays as stored: Yaktribe does
  not track those. The gang keeps its owner, battles fought and, since
  Yaktribe lists none, its vehicles.
- A gang file of this bot carries everything, so it replaces the gang but for
  its id and owner.
- Items keep their ids where an item of the same name was there before, so
  an unchanged loadout shows no changes.
- Fighter and vehicle names are unique in a campaign: one taken by another
  gang gets a number ("Grok (2)") and a report line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping

from bot.importing.parsed import ParsedGang
from bot.importing.report import ImportReport
from rules.models import Fighter, FighterStatus, Gang, Item, Vehicle
from rules.names import name_key
from rules.world import Change, World, diff_worlds

# Statuses the bot tracks and Yaktribe does not: "Alive" does not end them.
_KEPT_STATUSES = frozenset({FighterStatus.CAPTURED, FighterStatus.CONVALESCENT})
# What a Yaktribe fighter carries, and so replaces on a re-import.
_CARRIED = ("name", "category", "fighter_type", "cost", "profile", "xp", "kills", "skills",
            "lasting_injuries")


def fingerprint(gang: Gang) -> str:
    """A digest of the stored gang: a confirmation is refused if it changed meanwhile."""
    return hashlib.sha256(gang.model_dump_json(by_alias=True).encode()).hexdigest()


def merge(
    stored: Gang,
    parsed: ParsedGang,
    known: Mapping[str, str],
    make_id: Callable[[], str],
) -> tuple[Gang, dict[str, str]]:
    """``stored`` updated from ``parsed``; also the source's fighter keys -> fighter ids.

    ``known`` is the key -> fighter id map the previous import left.
    """
    imported = parsed.gang
    matches = _match_fighters(stored.fighters, imported.fighters, parsed.fighter_keys, known)
    fighters: list[Fighter] = []
    final_ids: dict[str, str] = {}
    for new in imported.fighters:
        old = matches.get(new.id)
        merged = new.model_copy(deep=True) if old is None else _merge_fighter(old, new, parsed)
        final_ids[new.id] = merged.id
        fighters.append(merged)
    result = stored.model_copy(deep=True)
    result.name = imported.name
    result.house = imported.house
    result.alignment = imported.alignment
    result.credits = imported.credits
    result.reputation = imported.reputation
    result.stash = _reuse_item_ids(stored.stash, imported.stash)
    result.fighters = fighters
    if parsed.has_vehicles:
        result.battles_fought = imported.battles_fought
        result.vehicles = _merge_vehicles(stored.vehicles, imported.vehicles, final_ids)
        result.stash_vehicles = _merge_vehicles(
            stored.stash_vehicles, imported.stash_vehicles, final_ids
        )
    _unique_item_ids(result, make_id)
    keys = {
        key: final_ids[fighter_id]
        for fighter_id, key in parsed.fighter_keys.items()
        if fighter_id in final_ids
    }
    return result, keys


def _match_fighters(
    stored: list[Fighter],
    imported: list[Fighter],
    keys: Mapping[str, str],
    known: Mapping[str, str],
) -> dict[str, Fighter]:
    """Imported fighter id -> the stored fighter it updates."""
    unmatched = {f.id: f for f in stored}
    matches: dict[str, Fighter] = {}
    for fighter in imported:
        stored_id = known.get(keys.get(fighter.id, ""))
        if stored_id is not None and stored_id in unmatched:
            matches[fighter.id] = unmatched.pop(stored_id)
    for fighter in imported:
        if fighter.id in matches:
            continue
        wanted = name_key(fighter.name)
        same = next((f for f in unmatched.values() if name_key(f.name) == wanted), None)
        if same is not None:
            matches[fighter.id] = unmatched.pop(same.id)
    return matches


def _merge_fighter(old: Fighter, new: Fighter, parsed: ParsedGang) -> Fighter:
    if parsed.has_vehicles:  # a full gang file: everything but the id
        merged = new.model_copy(deep=True)
        merged.id = old.id
    else:
        merged = old.model_copy(deep=True)
        carried = new.model_copy(deep=True)
        for field in _CARRIED:
            setattr(merged, field, getattr(carried, field))
        kept = new.status is FighterStatus.ACTIVE and old.status in _KEPT_STATUSES
        if new.status is not old.status and not kept:
            merged.set_status(new.status)
    merged.equipment = _reuse_item_ids(old.equipment, new.equipment)
    return merged


def _reuse_item_ids(old: list[Item], new: list[Item]) -> list[Item]:
    free: dict[str, list[str]] = {}
    for item in old:
        free.setdefault(item.name.casefold(), []).append(item.id)
    result = []
    for item in new:
        ids = free.get(item.name.casefold())
        result.append(item.model_copy(update={"id": ids.pop(0)} if ids else {}))
    return result


def _merge_vehicles(
    old: list[Vehicle], new: list[Vehicle], fighter_ids: Mapping[str, str]
) -> list[Vehicle]:
    by_name = {name_key(v.name): v for v in old}
    result = []
    for vehicle in new:
        copy = vehicle.model_copy(deep=True)
        same = by_name.pop(name_key(vehicle.name), None)
        if same is not None:
            copy.id = same.id
            copy.upgrades = _reuse_item_ids(same.upgrades, vehicle.upgrades)
            copy.equipment = _reuse_item_ids(same.equipment, vehicle.equipment)
        if copy.crew_id is not None:
            copy.crew_id = fighter_ids.get(copy.crew_id)
        result.append(copy)
    return result


def _all_items(gang: Gang) -> Iterable[Item]:
    yield from gang.stash
    for fighter in gang.fighters:
        yield from fighter.equipment
    for vehicle in [*gang.vehicles, *gang.stash_vehicles]:
        yield from vehicle.upgrades
        yield from vehicle.equipment


def _unique_item_ids(gang: Gang, make_id: Callable[[], str]) -> None:
    """Item ids are unique per gang; reusing old ids must never make two the same."""
    seen: set[str] = set()
    for item in _all_items(gang):
        if item.id in seen:
            item.id = make_id()
        seen.add(item.id)


def resolve_clashes(gang: Gang, others: Iterable[Gang], report: ImportReport) -> None:
    """Number the fighters and vehicles whose names another gang of the campaign has."""
    others = list(others)
    fighters_elsewhere = {name_key(f.name) for o in others for f in o.fighters}
    vehicles_elsewhere = {
        name_key(v.name) for o in others for v in [*o.vehicles, *o.stash_vehicles]
    }
    own_fighters = {name_key(f.name) for f in gang.fighters}
    for fighter in gang.fighters:
        fighter.name = _free_name(
            fighter.name, fighters_elsewhere, own_fighters, report, "fighter"
        )
    vehicles = [*gang.vehicles, *gang.stash_vehicles]
    own_vehicles = {name_key(v.name) for v in vehicles}
    for vehicle in vehicles:
        vehicle.name = _free_name(
            vehicle.name, vehicles_elsewhere, own_vehicles, report, "vehicle"
        )


def _free_name(
    name: str, elsewhere: set[str], own: set[str], report: ImportReport, what: str
) -> str:
    if name_key(name) not in elsewhere:
        return name
    number = 2
    candidate = f"{name[:94]} ({number})"
    while name_key(candidate) in elsewhere or name_key(candidate) in own:
        number += 1
        candidate = f"{name[:94]} ({number})"
    own.add(name_key(candidate))
    report.problem(
        f"Another gang of this campaign already has a {what} called '{name}': "
        f"this one is imported as '{candidate}'."
    )
    return candidate


def differences(stored: Gang, updated: Gang) -> list[Change]:
    """The changes a re-import makes, as the ledger will record them."""
    return diff_worlds(World.of([stored]), World.of([updated]))
