"""The shipped Necromunda content and the converter that writes it (tools/content)."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rules.data import load_ruleset
from rules.models import FighterCategory
from rules.profiles import profile_line
from rules.ruleset import RuleSet

REPO = Path(__file__).resolve().parents[2]
# ../shared/content beside the repository; a checkout elsewhere names it in the environment.
SOURCES = Path(os.environ.get("MUNDA_CONTENT_SOURCES", REPO.parent / "shared" / "content"))
SET = REPO / "rules" / "data" / "necromunda-2023"
needs_sources = pytest.mark.skipif(not SOURCES.is_dir(), reason="content sources not here")

# Fighter types per House, as the 2023 lists give them (Cawdor: Cawdor and Redemptionist).
COUNTS = {"Goliath": 9, "Escher": 10, "Orlock": 9, "Van Saar": 10, "Cawdor": 14,
          "Delaque": 11}
DIFFERENCES = 15
MAX_WORDS = 12


@pytest.fixture(scope="module")
def ruleset() -> RuleSet:
    return load_ruleset("necromunda-2023")


def test_every_house_with_every_fighter_type_and_a_profile(ruleset: RuleSet) -> None:
    assert {h.house: len(h.fighters) for h in ruleset.houses} == COUNTS
    for house in ruleset.houses:
        categories = {t.category for t in house.fighters}
        assert {FighterCategory.LEADER, FighterCategory.CHAMPION,
                FighterCategory.JUVE} <= categories, house.house
        for template in house.fighters:
            assert template.cost > 0 and template.source.startswith("necrovox/")
            if template.fighter_type != "Delaque Wraith":
                assert template.profile is not None, template.fighter_type


def test_the_armoury_skills_and_hangers_on(ruleset: RuleSet) -> None:
    weapons = [e for e in ruleset.trading_post if e.kind.value == "weapon"]
    assert len(weapons) >= 100 and all(w.profiles for w in weapons)
    assert len(ruleset.trading_post) - len(weapons) >= 100
    assert {s.name for s in ruleset.skill_sets} >= {
        "Agility", "Brawn", "Combat", "Cunning", "Driving", "Ferocity", "Leadership",
        "Savant", "Shooting", "Muscle", "Finesse", "Bravado", "Tech", "Obfuscation", "Piety"}
    names = {t.fighter_type for t in ruleset.hangers_on}
    assert {"Ammo Jack", "Rogue Doc", "Iron Automata"} <= names
    # The example House Lists and items of core-2023 are replaced, not merged.
    assert "Forge Tyrant" not in {t.fighter_type for t in ruleset.house("Goliath").fighters}


def test_sample_fighters_and_weapons_read_as_the_sources_print_them(ruleset: RuleSet) -> None:
    tyrant = ruleset.house("Goliath").fighters[0]
    assert (tyrant.fighter_type, tyrant.category, tyrant.cost) == (
        "Goliath Forge Tyrant", FighterCategory.LEADER, 135)
    assert tyrant.profile is not None
    assert profile_line(tyrant.profile) == 'M4" WS3+ BS3+ S4 T4 W2 I3+ A3 Ld5+ Cl4+ Wil8+ Int7+'
    assert tyrant.primary_skills == ["Brawn", "Ferocity", "Leadership"]
    mastiff = next(t for t in ruleset.house("Orlock").fighters
                   if t.fighter_type == "Cyber-Mastiff")
    assert (mastiff.category, mastiff.max_in_gang, mastiff.cost) == (
        FighterCategory.EXOTIC_BEAST, 3, 100)
    assert mastiff.profile is not None and mastiff.profile.bs is None
    lasgun = ruleset.trading_post_item("Lasgun")
    assert (lasgun.cost, str(lasgun.availability)) == (15, "Common")
    main = lasgun.profiles[0]
    assert (main.short_range, main.long_range, main.strength, main.ammo, main.traits) == (
        '18"', '24"', "3", "2+", ["Plentiful"])
    assert [p.name for p in lasgun.profiles[1:]] == ["hotshot las pack", "focusing crystal"]


@needs_sources
def test_sample_checked_against_the_sources_by_the_converter_s_parser(ruleset: RuleSet) -> None:
    from tools.content import necrovox

    report = necrovox.Report()
    necro = SOURCES / "necrovox"
    for house in necrovox.HOUSES:
        fighters, _ = necrovox.house_fighters(necro, house, report)
        shipped = {t.fighter_type: t for t in ruleset.house(house).fighters}
        for fighter in fighters[:4]:
            template = shipped[fighter.name]
            if fighter.cost is not None:
                assert template.cost == fighter.cost
            assert template.profile is not None and fighter.profile is not None
            assert template.profile.model_dump(by_alias=True) == fighter.profile
    weapons, _ = necrovox.weapons(necro, report)
    for weapon in weapons[::10]:
        item = ruleset.trading_post_item(weapon["name"])
        assert item.cost == weapon["cost"]
        assert [p.strength for p in item.profiles] == [p["strength"] for p in weapon["profiles"]]


def test_vehicle_types_with_profile_cost_gangs_and_equipment_list(ruleset: RuleSet) -> None:
    goliath = {v.vehicle_type: v for v in ruleset.house("Goliath").vehicles}
    orlock = {v.vehicle_type: v for v in ruleset.house("Orlock").vehicles}
    # The House's own vehicle (its card writes the Hull Points "W") and the universal ones.
    mauler = goliath["Mauler"]
    assert mauler.cost == 100 and mauler.profile is not None
    assert mauler.profile.line == 'M7" Front5 Side4 Rear4 HP3 Hnd5+ Sv5+'
    assert "Outrider Quad" in orlock and "Outrider Quad" not in goliath
    for house in ruleset.houses:
        names = {v.vehicle_type for v in house.vehicles}
        assert {"Wolfquad", "Ridgerunner", "Rockgrinder", "Cargo-8 Ridgehauler",
                "Chronos Pattern Ironcrawler", "Sludge Barge", "Scrap Skiff"} <= names
        assert all(v.profile is not None and v.source.startswith("necrovox/")
                   for v in house.vehicles), house.house
    wolfquad = goliath["Wolfquad"]
    assert wolfquad.cost == 70 and wolfquad.profile is not None
    assert wolfquad.profile.line == 'M8" Front3 Side3 Rear3 HP2 Hnd5+ Sv5+'
    offered = {e.name: (e.cost, e.kind.value) for e in wolfquad.equipment_list}
    assert offered["Heavy stubber"] == (130, "weapon")
    assert offered["Nitro Burner"] == (15, "vehicle upgrade")
    # The Goliath Vehicle Equipment List adds to every vehicle of the House.
    assert offered["Boltgun"] == (55, "weapon")
    # "inc." rows are fitted already, not bought.
    ridgehauler = goliath["Cargo-8 Ridgehauler"]
    assert "Transport Bed" not in {e.name for e in ridgehauler.equipment_list}


def test_source_slips_are_mended_not_copied(ruleset: RuleSet) -> None:
    hangers = {t.fighter_type for t in ruleset.hangers_on}
    assert {"Rogue Doc", "Underhive Trader"} <= hangers and "Rogue Docs" not in hangers
    # "+ Digi (D060-K13)" is a Hired Gun's own grenade, not a line of the Frag grenade.
    assert [p.name for p in ruleset.trading_post_item("Frag grenade").profiles] == [""]
    flak = ruleset.trading_post_item("Flak Armour")
    assert (flak.cost, flak.kind.value) == (10, "armour")
    escher = {t.fighter_type: t for t in ruleset.house("Escher").fighters}
    assert "Flak Armour" in {e.name for e in escher["Gang Queen"].equipment_list}
    helion = {e.name: e.kind.value for e in escher["Helion"].equipment_list}
    assert helion["Laspistol"] == "weapon" and "Flak Armour" in helion
    zerker = next(t for t in ruleset.house("Goliath").fighters if t.fighter_type == "'Zerker")
    assert zerker.skills == ["Impetuous"]
    sumpkroc = next(t for t in ruleset.house("Goliath").fighters
                    if t.fighter_type == "Sumpkroc")
    assert sumpkroc.profile is not None and sumpkroc.profile.cl == 6
    assert ruleset.trading_post_item("Kroot long rifle").profiles
    assert not [e.name for e in ruleset.trading_post if "†" in e.name or "t(" in e.name]
    for path in sorted(SET.glob("*.toml")):
        assert "&nbsp;" not in path.read_text(encoding="utf-8"), path.name


@needs_sources
def test_sample_vehicles_checked_against_the_sources_by_the_converter_s_parser(
        ruleset: RuleSet) -> None:
    from tools.content import necrovox, vehicles

    shipped = {v.vehicle_type: v for v in ruleset.house("Escher").vehicles}
    for entry, gangs in vehicles.universal(SOURCES / "necrovox", necrovox.Report()):
        vehicle = shipped[entry["vehicle_type"]]
        assert gangs == ["Any"] and vehicle.cost == entry["cost"]
        assert vehicle.profile is not None
        assert vehicle.profile.model_dump() == entry["profile"]


@needs_sources
def test_the_converter_reruns_byte_for_byte(tmp_path: Path) -> None:
    from tools.content.__main__ import main

    assert main([str(SOURCES), str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in SET.iterdir())
    for name in written:
        assert (tmp_path / name).read_bytes() == (SET / name).read_bytes(), name


def test_the_cross_check_report_is_pinned() -> None:
    text = (SET / "CROSSCHECK.md").read_text(encoding="utf-8")
    assert f"## Differences with Gyrinx ({DIFFERENCES})" in text
    rows = [line for line in text.splitlines()
            if line.startswith("| ") and line.count("|") == 6 and "---" not in line]
    assert len(rows) - 1 == DIFFERENCES
    assert "Gang Queen (Leader) is given twice" in text
    assert "every characteristic 0" in text or "Iron Rider" not in text


def test_the_manifest_names_sources_commits_licences_and_the_notice_travels() -> None:
    manifest = tomllib.loads((SET / "manifest.toml").read_text(encoding="utf-8"))
    sources = {s["name"]: s for s in manifest["sources"]}
    assert sources["necrovox"]["commit"] == "4b03c0d9"
    assert sources["gyrinx"]["commit"] == "5cf97c15"
    assert (sources["necrovox"]["licence"], sources["gyrinx"]["licence"]) == (
        "MIT", "Apache-2.0")
    assert "Apache License 2.0" in (SET / "NOTICE").read_text(encoding="utf-8")
    assert "Apache License" in (SET / "LICENSE-gyrinx").read_text(encoding="utf-8")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_no_sentence_from_the_sources() -> None:
    for path in sorted(SET.glob("*.toml")):
        if path.name == "manifest.toml":
            continue
        for text in _strings(tomllib.loads(path.read_text(encoding="utf-8"))):
            words = re.findall(r"\S+", text)
            assert len(words) <= MAX_WORDS, f"{path.name}: {text!r}"
