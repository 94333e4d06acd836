"""The rule data set written from the sources: files, manifest, notices and cross-check."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from rules.models import Profile
from rules.names import loose_keys
from rules.profiles import profile_line
from tools.content import gyrinx, necrovox, vehicles
from tools.content.necrovox import Fighter, Report

SET_NAME = "necromunda-2023"
SOURCES = (
    {"name": "necrovox", "repository": "yakuzadave/necroman_v2", "commit": "4b03c0d9",
     "folder": "necrovox_docs/", "licence": "MIT", "rules": "2023", "wins": True},
    {"name": "gyrinx", "repository": "gyrinx-app/gyrinx", "commit": "5cf97c15",
     "folder": "content/necromunda-2018/", "licence": "Apache-2.0", "rules": "2018",
     "wins": False},
)
# The Gyrinx House each House's 2023 list is compared with (its "House of X" book).
GYRINX_HOUSES = {"Goliath": "Goliath (HoC)", "Escher": "Escher (HoB)",
                 "Orlock": "Orlock (HoI)", "Van Saar": "Van Saar (HoA)",
                 "Cawdor": "Cawdor (HoF)", "Delaque": "Delaque (HoS)"}
HEADER = ("# Written by `python -m tools.content` from the sources named in manifest.toml;\n"
          "# do not edit by hand: change the converter and run it again (docs/rule-data.md).\n")


@dataclass
class Converted:
    """Every file of the set, by name, as the bytes to write."""

    files: dict[str, bytes]
    report: Report
    differences: list[str]
    counts: dict[str, int]


def convert(sources: Path) -> Converted:
    necro = sources / "necrovox"
    report = Report()
    houses: list[dict[str, Any]] = []
    all_fighters: dict[str, list[Fighter]] = {}
    weapon_list, own_weapons = necrovox.weapons(necro, report)
    wargear_list = necrovox.wargear(necro, report)
    catalogue = {key: item for item in [*weapon_list, *wargear_list]
                 for key in loose_keys(item["name"])[:1]}
    # A House List's own weapons (no Trading Post cost) travel with the list's entries.
    own_profiles = {loose_keys(w["name"])[0]: w for w in own_weapons}
    counts: dict[str, int] = {}
    crew_list, crew_costs = vehicles.crew_list(necro), vehicles.crew_costs(necro)
    others = gyrinx.fighters(sources / "gyrinx")
    own_vehicles: dict[str, list[dict[str, Any]]] = {}
    house_fighters: dict[str, list[Fighter]] = {}
    for house in necrovox.HOUSES:
        house_fighters[house], own_vehicles[house] = necrovox.house_fighters(necro, house,
                                                                             report)
    vehicle_lists = vehicles.house_vehicles(necro, report, own_vehicles)
    for house in necrovox.HOUSES:
        fighters = house_fighters[house]
        fighters = _costed(house, fighters, others, report)
        _repair_profiles(house, fighters, others, report)
        lists = necrovox.equipment_lists(necro, house, fighters, report)
        _crew_weapons(house, fighters, lists, crew_list, report)
        _crew_costs(house, fighters, crew_costs, report)
        all_fighters[house] = fighters
        counts[house] = len(fighters)
        entry: dict[str, Any] = {
            "house": house,
            "fighters": [_fighter(f, _matched(lists[f.name], catalogue, own_profiles))
                         for f in fighters],
        }
        if vehicle_lists[house]:
            entry["vehicles"] = [_vehicle(v, _matched(v.get("equipment_list", []), catalogue,
                                                      own_profiles))
                                 for v in vehicle_lists[house]]
        houses.append(entry)
    _two_slots(houses, weapon_list)
    skill_list = necrovox.skill_sets(necro, report)
    hanger_list = [_with_profile_line(h) for h in necrovox.hangers_on(necro, report)]
    differences = cross_check(all_fighters, others, report)
    counts["vehicle types"] = len({v["vehicle_type"] for h in houses
                                   for v in h.get("vehicles", [])})
    counts.update({"weapons": len(weapon_list), "wargear": len(wargear_list),
                   "skill_sets": len(skill_list), "hangers_on": len(hanger_list)})
    files = {
        "manifest.toml": _manifest(),
        "houses.toml": _toml({"houses": houses}),
        "weapons.toml": _toml({"weapons": weapon_list}),
        "wargear.toml": _toml({"wargear": wargear_list}),
        "skills.toml": _toml({"skill_sets": skill_list}),
        "hangers-on.toml": _toml({"hangers_on": hanger_list}),
        "CROSSCHECK.md": _cross_check_text(report, differences, counts),
        "NOTICE": _notice(),
        "LICENSE-necrovox": (necro / "LICENSE").read_bytes(),
        "LICENSE-gyrinx": (sources / "gyrinx" / "LICENSE").read_bytes(),
    }
    return Converted(files, report, differences, counts)


def write(converted: Converted, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(converted.files.items()):
        (out / name).write_bytes(data)


# --------------------------------------------------------------------------- entries


def _fighter(fighter: Fighter, equipment: list[dict[str, Any]]) -> dict[str, Any]:
    entry: dict[str, Any] = {"fighter_type": fighter.name, "category": fighter.category,
                             "cost": fighter.cost}
    if fighter.profile is not None:
        entry["profile"] = profile_line(Profile.model_validate(fighter.profile))
    if fighter.category in ("Leader", "Champion"):
        entry["gang_hierarchy"] = True
    if fighter.limit is not None:
        entry["max_in_gang"] = fighter.limit
    if fighter.special_rules:
        entry["special_rules"] = fighter.special_rules
    if fighter.skills:
        entry["skills"] = fighter.skills
    if fighter.primary:
        entry["primary_skills"] = fighter.primary
    if fighter.secondary:
        entry["secondary_skills"] = fighter.secondary
    if equipment:
        entry["equipment_list"] = equipment
    entry["source"] = fighter.source
    return entry


def _crew_weapons(house: str, fighters: list[Fighter], lists: dict[str, list[dict[str, Any]]],
                  universal: list[dict[str, Any]], report: Report) -> None:
    """A Crew type whose House list offers it no weapon (the Escher Helion: Flak only) takes
    the Universal Crew Equipment List beside its own entries, as the crew of any gang may."""
    for fighter in fighters:
        entries = lists[fighter.name]
        if fighter.category != "Crew" or any(e["kind"] == "weapon" for e in entries):
            continue
        names = {e["name"].casefold() for e in entries}
        entries += [e for e in universal if e["name"].casefold() not in names]
        report.slip(f"{house}: the list offers {fighter.name} (Crew) no weapon; the "
                    "Universal Crew Equipment List is added to its own")


def _crew_costs(house: str, fighters: list[Fighter], costs: dict[str, int],
                report: Report) -> None:
    """Where the vehicles index prices a House's crew apart from its House List, say so
    (the House List's cost is kept: it is the list a gang hires from)."""
    for fighter in fighters:
        other = costs.get(fighter.name.casefold())
        if fighter.category == "Crew" and other is not None and other != fighter.cost:
            report.slip(f"{house}: {fighter.name} costs {fighter.cost} in its House List and "
                        f"{other} in the vehicles index; the House List's is kept")


def _vehicle(vehicle: dict[str, Any], equipment: list[dict[str, Any]]) -> dict[str, Any]:
    entry = {k: v for k, v in vehicle.items() if k not in ("equipment_list", "source")}
    if equipment:
        entry["equipment_list"] = equipment
    entry["source"] = vehicle["source"]
    return entry


def _with_profile_line(entry: dict[str, Any]) -> dict[str, Any]:
    if "profile" in entry:
        entry = {**entry, "profile": profile_line(Profile.model_validate(entry["profile"]))}
    return entry


def _matched(entries: list[dict[str, Any]], catalogue: dict[str, dict[str, Any]],
             own: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """List entries named as the Armoury names them, with the Armoury's kind; a House's
    own weapon carries its profile lines."""
    result = []
    names: set[str] = set()
    for entry in entries:
        keys = loose_keys(entry["name"])
        if entry["kind"] == "weapon":
            # Grenades sections list "Frag" for the Armoury's "Frag grenade".
            keys += loose_keys(f"{entry['name']} grenade")
        if entry["kind"] == "armour":
            # Armour sections list "Flak" for the Armoury's "Flak Armour".
            keys += loose_keys(f"{entry['name']} armour")
        item = next((catalogue[k] for k in keys if k in catalogue), None)
        if item is not None:
            entry = {**entry, "name": item["name"]}
            if "kind" in item:
                entry["kind"] = item["kind"]
        elif entry["kind"] == "weapon":
            weapon = next((own[k] for k in keys if k in own), None)
            if weapon is not None:
                entry = {**{k: v for k, v in entry.items() if k != "source"},
                         "name": weapon["name"], "availability": "Exclusive",
                         "profiles": weapon["profiles"], "source": entry["source"]}
        if entry["name"] in names:
            continue
        names.add(entry["name"])
        result.append(entry)
    return result


def _two_slots(houses: list[dict[str, Any]], weapons: list[dict[str, Any]]) -> None:
    """A weapon some Equipment List marks "*" takes two slots wherever it is offered."""
    marked = {e["name"] for h in houses for f in h["fighters"]
              for e in f.get("equipment_list", []) if e.get("two_slots")}
    for weapon in weapons:
        if weapon["name"] in marked:
            weapon["two_slots"] = True
    for house in houses:
        for fighter in house["fighters"]:
            for entry in fighter.get("equipment_list", []):
                if entry["name"] in marked and entry.get("kind", "weapon") == "weapon":
                    entry["two_slots"] = True


# --------------------------------------------------------------------------- cross-check


def _costed(house: str, fighters: list[Fighter], others: list[gyrinx.GyrinxFighter],
            report: Report) -> list[Fighter]:
    """Fighter types with a cost: necrovox's, else Gyrinx's (reported), else left out."""
    kept = []
    for fighter in fighters:
        if fighter.cost is None:
            match = _gyrinx_match(house, fighter, others)
            if match is None or match.cost is None:
                report.slip(f"{house}: {fighter.name} has no cost in either source; left out")
                continue
            report.slip(f"{house}: {fighter.name} has no cost in necrovox; Gyrinx's "
                        f"{match.cost} is taken ({match.source})")
            fighter.cost = match.cost
            fighter.source = f"{fighter.source}; cost: {match.source}"
        kept.append(fighter)
    return kept


def _repair_profiles(house: str, fighters: list[Fighter], others: list[gyrinx.GyrinxFighter],
                     report: Report) -> None:
    """A profile printed with a figure out of any bound ("68+") takes Gyrinx's figure for
    it where Gyrinx gives the type with every other characteristic the same; else it is
    left not set."""
    for fighter in fighters:
        if fighter.read is None:
            continue
        read = fighter.read
        match = next((g for g in others if _compact(g.name) == _compact(fighter.name)
                      and all(_gyrinx_stat(g, s) == v for s, v in read.items()
                              if s not in fighter.unread)), None)
        missing = [s for s in fighter.unread if match is None or not _gyrinx_stat(match, s)]
        if match is None or missing:
            report.slip(f"{house}: {fighter.name} has a characteristic out of any bound "
                        f"({fighter.printed}); its profile is left not set")
            continue
        fighter.profile = {**read, **{s: _gyrinx_stat(match, s) for s in fighter.unread}}
        taken = ", ".join(f"{s.upper()} {fighter.profile[s]}" for s in fighter.unread)
        report.slip(f"{house}: {fighter.name} prints a characteristic out of any bound "
                    f"({fighter.printed}); Gyrinx's {taken} is taken ({match.source}), "
                    "its other figures being the same")


def _gyrinx_stat(fighter: gyrinx.GyrinxFighter, stat: str) -> int | None:
    """A Gyrinx characteristic as necrovox reads it: 0 is one the fighter lacks ("-")."""
    return fighter.stats.get(stat) or None


def _gyrinx_match(house: str, fighter: Fighter,
                  others: list[gyrinx.GyrinxFighter]) -> gyrinx.GyrinxFighter | None:
    pool = [g for g in others if g.house == GYRINX_HOUSES[house]]
    key = _compact(fighter.name)
    return next((g for g in pool if _compact(g.name) == key), None) or next(
        (g for g in pool if len(_compact(g.name)) >= 5 and key.endswith(_compact(g.name))),
        None)


def _compact(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.casefold())


def cross_check(houses: dict[str, list[Fighter]], others: list[gyrinx.GyrinxFighter],
                report: Report) -> list[str]:
    """Where both sources give a fighter's profile or cost, what differs (necrovox wins)."""
    differences: list[str] = []
    for house, fighters in houses.items():
        for fighter in fighters:
            match = _gyrinx_match(house, fighter, others)
            if match is None:
                continue
            if match.stats and all(v == 0 for v in match.stats.values()):
                report.slip(f"Gyrinx: {house} {match.name} has every characteristic 0; "
                            "not compared")
                continue
            if match.category == "Champion" and fighter.category == "Leader":
                report.slip(f"Gyrinx: {house} {match.name} is filed as a Champion; "
                            "necrovox's Leader is kept")
            if match.cost is not None and fighter.cost is not None \
                    and match.cost != fighter.cost:
                differences.append(f"{house} | {fighter.name} | cost | {fighter.cost} | "
                                   f"{match.cost}")
            if fighter.profile is None:
                continue
            for stat in necrovox.STATS:
                mine, theirs = fighter.profile.get(stat), match.stats.get(stat)
                if mine is not None and theirs is not None and mine != theirs:
                    differences.append(f"{house} | {fighter.name} | {stat.upper()} | {mine} | "
                                       f"{theirs}")
    return differences


def _cross_check_text(report: Report, differences: list[str], counts: dict[str, int]) -> bytes:
    lines = ["# Cross-check of the necromunda-2023 rule data", "",
             "Written by `python -m tools.content`. Where both sources give a figure, "
             "necrovox (2023) is kept.", "",
             "## Counts", "", "| what | count |", "| --- | ---: |"]
    lines += [f"| {name} | {count} |" for name, count in counts.items()]
    lines += ["", f"## Differences with Gyrinx ({len(differences)})", "",
              "| House | fighter type | figure | necrovox (kept) | Gyrinx |",
              "| --- | --- | --- | --- | --- |"]
    lines += [f"| {d} |" for d in differences]
    lines += ["", f"## Source slips handled, not copied ({len(report.slips)})", ""]
    lines += [f"- {s}" for s in report.slips]
    lines += ["", f"## Left out ({len(report.skipped)})", ""]
    lines += [f"- {s}" for s in report.skipped]
    return ("\n".join(lines) + "\n").encode("utf-8")


# --------------------------------------------------------------------------- files


def _toml(data: dict[str, Any]) -> bytes:
    return (HEADER + "\n" + tomli_w.dumps(data)).encode("utf-8")


def _manifest() -> bytes:
    data = {
        "format": "munda-arbitrator/rule-data", "version": 1, "name": SET_NAME,
        "description": ("Necromunda 2023: the six Houses' lists with profiles, costs, skill "
                        "access and Equipment Lists, the Armoury, skill sets, Hangers-on "
                        "and Brutes; the tables of core-2023."),
        "base": "core-2023",
        "replaces": ["houses", "trading_post", "skill_sets", "hangers_on"],
        "sources": list(SOURCES),
    }
    return _toml(data)


def _notice() -> bytes:
    text = (
        "necromunda-2023 rule data\n\n"
        "Figures and names in this rule data set come from two sources:\n\n"
        "- necrovox: yakuzadave/necroman_v2 at 4b03c0d9, folder necrovox_docs/,\n"
        "  MIT licence (LICENSE-necrovox).\n"
        "- Gyrinx: gyrinx-app/gyrinx at 5cf97c15, folder content/necromunda-2018/,\n"
        "  Copyright the Gyrinx authors, Apache License 2.0 (LICENSE-gyrinx).\n"
        "  Used to cross-check fighter profiles and costs (CROSSCHECK.md).\n\n"
        "Necromunda is a trademark of Games Workshop Limited; this set holds\n"
        "figures and names only, no rules text.\n"
    )
    return text.encode("utf-8")
