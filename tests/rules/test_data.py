"""The shipped rule data sets and the loader (rules.data)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from rules.data import available_rulesets, default_ruleset, load_ruleset
from rules.dice import ScriptedRoller, parse, roll_flat_or_dice
from rules.errors import InvalidRequest, NotFound
from rules.models import (
    DEFAULT_RULESET,
    Alignment,
    Availability,
    CampaignSettings,
    FighterCategory,
    Rarity,
)
from rules.ruleset import (
    GangerAdvancementEntry,
    InjuryEffectKind,
    InjuryEntry,
    InjuryTable,
    RuleSet,
)
from tests.rules.campaign_tables import CRAWL_CREW

D66_RESULTS = [tens * 10 + units for tens in range(1, 7) for units in range(1, 7)]
SHIPPED = ["core-2023", "necromunda-2023", "core-2018-injuries"]


def _injury_tables(ruleset: RuleSet) -> list[InjuryTable]:
    return [ruleset.fighter_injuries, ruleset.crew_injuries]


def _entry(table: InjuryTable, name: str) -> InjuryEntry:
    matches = [entry for entry in table.entries if entry.name == name]
    assert len(matches) == 1, f"{table.name} has {len(matches)} entries called {name}"
    return matches[0]


def _effects(table: InjuryTable, name: str) -> list[tuple[str, str | None, int]]:
    return [(e.kind.value, e.stat, e.amount) for e in _entry(table, name).effects]


def _write(directory: Path, files: dict[str, str]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory


def _on_core(directory: Path, files: dict[str, str]) -> Path:
    """A data set of ``files`` over core-2023, written to ``directory``."""
    return _write(directory, {"manifest.toml": 'base = "core-2023"\n', **files})


# --------------------------------------------------------------------------- shipped sets


def test_shipped_sets_are_listed():
    assert set(SHIPPED) <= set(available_rulesets())


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_set_loads_by_name(name):
    ruleset = load_ruleset(name)
    assert ruleset.name == name
    assert ruleset.description


def test_data_files_are_package_resources():
    root = resources.files("rules").joinpath("data")
    for name in SHIPPED:
        assert root.joinpath(name).joinpath("manifest.toml").is_file()


def test_default_ruleset_is_the_necromunda_content_and_cached():
    assert default_ruleset().name == "necromunda-2023"
    assert [house.house for house in default_ruleset().houses] == [
        "Goliath", "Escher", "Orlock", "Van Saar", "Cawdor", "Delaque"]
    assert default_ruleset() is default_ruleset()


def test_a_new_campaign_plays_with_the_default_set():
    settings = CampaignSettings(name="Dust Falls")
    assert settings.ruleset == DEFAULT_RULESET == default_ruleset().name



@pytest.mark.parametrize("name", SHIPPED)
def test_each_d66_maps_to_exactly_one_entry_in_each_injury_table(name):
    ruleset = load_ruleset(name)
    for table in _injury_tables(ruleset):
        assert table.dice == "D66"
        for result in D66_RESULTS:
            hits = [e.name for e in table.entries if e.low <= result <= e.high]
            assert len(hits) == 1, f"{table.name}: {result} -> {hits}"


@pytest.mark.parametrize(("table", "expected"), [
    pytest.param("fighter_injuries", {
        11: "Lesson Learned", 12: "Impressive Scars", 13: "Horrid Scars", 14: "Bitter Enmity",
        15: "Out Cold", 26: "Out Cold", 31: "Convalescence", 36: "Convalescence",
        41: "Old Battle Wound", 42: "Partially Deafened", 43: "Humiliated", 44: "Eye Injury",
        45: "Hand Injury", 46: "Hobbled", 51: "Spinal Injury", 52: "Enfeebled",
        53: "Head Injury", 54: "Multiple Injuries", 55: "Captured", 56: "Captured",
        61: "Critical Injury", 65: "Critical Injury", 66: "Memorable Death",
    }, id="fighter table 2023"),
    pytest.param("crew_injuries", {
        11: "Lesson Learned", 12: "Out Cold", 26: "Out Cold", 31: "Convalescence",
        46: "Convalescence", 51: "Humiliated", 52: "Humiliated", 53: "Head Injury",
        54: "Head Injury", 55: "Eye Injury", 56: "Eye Injury", 61: "Critical Injury",
        65: "Critical Injury", 66: "Memorable Death",
    }, id="crew table"),
])
def test_injury_table_boundaries(table: str, expected: dict[int, str]) -> None:
    entries = getattr(default_ruleset(), table)
    assert {result: entries.lookup(result).name for result in expected} == expected


def test_injury_effects_are_generic_kinds():
    table = default_ruleset().fighter_injuries
    assert _effects(table, "Eye Injury") == [("recovery", None, 1), ("stat", "bs", 1)]
    assert _effects(table, "Humiliated") == [
        ("convalescence", None, 1), ("stat", "ld", 1), ("stat", "cl", 1)]
    assert _effects(table, "Head Injury") == [
        ("recovery", None, 1), ("stat", "int", 1), ("stat", "wil", 1)]
    lesson = _entry(table, "Lesson Learned").effects
    assert [e.kind for e in lesson] == [InjuryEffectKind.CONVALESCENCE, InjuryEffectKind.XP]
    assert lesson[1].expression == "D3"
    scars = _entry(table, "Impressive Scars").effects[0]
    assert (scars.kind, scars.stat, scars.amount, scars.repeat_as) == (
        InjuryEffectKind.STAT, "cl", -1, "Out Cold")
    horrid = _entry(table, "Horrid Scars").effects[0]
    assert (horrid.kind, horrid.skill, horrid.repeat_as) == (
        InjuryEffectKind.SKILL, "Fearsome", "Out Cold")
    deafened = _entry(table, "Partially Deafened").effects[0]
    assert (deafened.stat, deafened.on_repeat) == ("ld", True)
    multiple = _entry(table, "Multiple Injuries").effects[0]
    assert multiple.kind is InjuryEffectKind.MULTIPLE
    assert multiple.expression == "D3"
    assert set(multiple.reroll) == {
        "Captured", "Multiple Injuries", "Memorable Death", "Critical Injury", "Out Cold"}
    assert _entry(table, "Captured").effects[0].kind is InjuryEffectKind.CAPTURED
    assert _entry(table, "Critical Injury").effects[0].kind is InjuryEffectKind.CRITICAL
    assert _entry(table, "Memorable Death").effects[0].kind is InjuryEffectKind.DEAD


def test_2018_set_differs_only_in_its_fighter_table():
    new, old = default_ruleset(), load_ruleset("core-2018-injuries")
    ignore = {"name", "description", "fighter_injuries"}
    assert old.model_dump(exclude=ignore) == new.model_dump(exclude=ignore)
    names = {entry.name for entry in old.fighter_injuries.entries}
    assert "Captured" not in names
    assert "Multiple Injuries" not in names
    table = old.fighter_injuries
    assert table.lookup(31).name == table.lookup(45).name == "Grievous Injury"
    assert [table.lookup(n).name for n in (46, 51, 52, 53, 54, 55, 56)] == [
        "Humiliated", "Head Injury", "Eye Injury", "Hand Injury", "Hobbled",
        "Spinal Injury", "Enfeebled"]


@pytest.mark.rule("PB-5.6")
def test_pb_5_6_lasting_damage_table_is_d6_with_write_off_at_7_and_above():
    table = default_ruleset().lasting_damage
    assert table.dice == "D6"
    assert [table.lookup(n).name for n in range(1, 8)] == [
        "Persistent Rattle", "Handling Glitch", "Unreliable", "Loss of Power",
        "Damaged Bodywork", "Damaged Frame", "Write-off"]
    assert table.lookup(9).name == "Write-off"
    assert [e.kind for e in table.lookup(7).effects] == [InjuryEffectKind.RECOVERY]


@pytest.mark.rule("PRE-4")
def test_pre_4_scenario_chart_has_six_entries_for_2_to_4_gangs():
    scenarios = default_ruleset().scenarios
    assert [(s.roll, s.name) for s in scenarios] == [
        (1, "Battle Royale"), (2, "Blind Box Looting"), (3, "Race to Acquire Archeotech"),
        (4, "Take and Hold"), (5, "Eliminate High Value Targets"),
        (6, "Small Crews Bump Into Each Other")]
    assert all((s.min_gangs, s.max_gangs) == (2, 4) for s in scenarios)


@pytest.mark.rule("PB-6B.3")
@pytest.mark.parametrize(("reputation", "allowed"), [
    (1, 1), (4, 1), (5, 2), (9, 2), (10, 3), (14, 3), (15, 4), (19, 4), (20, 5), (60, 5)])
def test_pb_6b_3_hangers_on_limits_by_reputation(reputation, allowed):
    assert default_ruleset().max_hangers_on(reputation) == allowed


@pytest.mark.rule("PB-6E")
def test_pb_6e_advancement_costs():
    costs = {a.name: (a.xp_cost, a.credits, a.stats) for a in default_ruleset().advancements}
    assert costs["+1 Willpower or Intelligence"] == (3, 5, ["wil", "int"])
    assert costs["+1 Leadership or Cool"] == (4, 10, ["ld", "cl"])
    assert costs["+1 Weapon Skill or Ballistic Skill"] == (6, 20, ["ws", "bs"])
    assert costs["+1 Strength or Toughness"] == (8, 30, ["s", "t"])
    assert costs["+1 Wounds or Attacks"] == (12, 45, ["w", "a"])
    assert costs["Random skill from any set"] == (15, 50, [])
    assert len(costs) == 12
    promotion = next(a for a in default_ruleset().advancements if "Champion" in a.name)
    assert promotion.categories == [FighterCategory.SPECIALIST]
    assert all(FighterCategory.GANGER not in a.categories for a in default_ruleset().advancements)


@pytest.mark.rule("PB-6E")
def test_pb_6e_ganger_2d6_table_covers_2_to_12_once():
    table = default_ruleset().ganger_advancements
    assert table.xp_cost == 6

    def at(result: int) -> GangerAdvancementEntry:
        hits = [e for e in table.entries if e.low <= result <= e.high]
        assert len(hits) == 1
        return hits[0]

    assert at(2).promote_to is FighterCategory.SPECIALIST
    assert at(12).promote_to is FighterCategory.SPECIALIST
    assert (at(3).stats, at(4).credits) == (["ws", "bs"], 20)
    assert (at(5).stats, at(6).credits) == (["s", "t"], 30)
    assert (at(7).stats, at(7).credits) == (["m", "i"], 10)
    assert (at(8).stats, at(9).credits) == (["wil", "int"], 5)
    assert (at(10).stats, at(11).credits) == (["ld", "cl"], 10)


@pytest.mark.rule("PB-4")
def test_pb_4_territory_incomes_are_rollable():
    territories = {t.name: t for t in default_ruleset().territories}
    assert {name: t.income for name, t in territories.items()} == {
        "Settlement": "D6x10", "Old Ruins": "D3x10", "Slag Furnace": "D6x5",
        "Tech Bazaar": "D6x10", "Collapsed Dome": "2D6x10", "Rogue Doc Shop": "D6x10",
        "Workshop": "D6x10", "Tunnels": "0"}
    assert roll_flat_or_dice(ScriptedRoller([]), territories["Tunnels"].income, "income") == 0
    slag = roll_flat_or_dice(ScriptedRoller([6]), territories["Slag Furnace"].income, "income")
    assert not isinstance(slag, int)
    assert slag.total == 30
    assert [t.name for t in territories.values() if not t.can_be_staked] == ["Settlement"]
    assert territories["Rogue Doc Shop"].income_only_for is Alignment.OUTLAW
    assert territories["Workshop"].income_only_for is Alignment.OUTLAW
    assert territories["Old Ruins"].income_only_for is None
    assert "+1 Reputation" in territories["Settlement"].boons
    assert len({t.id for t in territories.values()}) == len(territories)


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_trading_post_availability_is_parsed():
    post = default_ruleset()
    assert post.trading_post_item("Autogun").availability == Availability.parse("Common")
    assert post.trading_post_item("Boltgun").availability == Availability(
        rarity=Rarity.RARE, level=8)
    assert post.trading_post_item("Archaeo-carapace").availability.level == 12
    chrono = post.trading_post_item("Chrono-crystal")
    assert (chrono.cost, chrono.availability.rarity, chrono.availability.level) == (
        500, Rarity.ILLEGAL, 14)
    assert len(post.trading_post) == 253


@pytest.mark.rule("PB-6B.1")
@pytest.mark.parametrize("house", ["Goliath", "Escher", "Orlock", "Van Saar", "Cawdor", "Delaque"])
def test_pb_6b_1_house_lists_can_found_a_gang(house):
    house_list = default_ruleset().house(house)
    categories = [f.category for f in house_list.fighters]
    for needed in (FighterCategory.LEADER, FighterCategory.CHAMPION, FighterCategory.GANGER,
                   FighterCategory.JUVE, FighterCategory.CREW):
        assert needed in categories
    for template in house_list.fighters:
        assert template.cost > 0
        assert template.gang_hierarchy == (
            template.category in (FighterCategory.LEADER, FighterCategory.CHAMPION))
        has_gang_fighter = any(r.startswith("Gang Fighter") for r in template.special_rules)
        # The 2023 lists give Gang Fighter (X) to the rank and file, never to a Leader or
        # Champion: Gang Composition counts on it.
        if template.category in (FighterCategory.GANGER, FighterCategory.JUVE,
                                 FighterCategory.PROSPECT):
            assert has_gang_fighter, template.fighter_type
        if template.gang_hierarchy:
            assert not has_gang_fighter, template.fighter_type
            assert template.equipment_list, template.fighter_type


# --------------------------------------------------------------------------- campaign data

def test_a_campaign_directory_can_replace_one_table(tmp_path):
    directory = _on_core(tmp_path / "our-campaign", {"crew.toml": CRAWL_CREW})
    ruleset = load_ruleset(directory)
    assert ruleset.name == "our-campaign"
    assert ruleset.crew_injuries.name == "Campaign crew table"
    assert ruleset.crew_injuries.lookup(44).name == "Out Cold"
    keep = {"name", "crew_injuries"}
    assert ruleset.model_dump(exclude=keep) == load_ruleset("core-2023").model_dump(exclude=keep)
    # A string path works too, and names the set from its manifest when given.
    (directory / "manifest.toml").write_text('base = "core-2023"\nname = "Ash Wastes"\n')
    assert load_ruleset(str(directory)).name == "Ash Wastes"


def test_a_campaign_can_build_on_a_base_directory(tmp_path):
    _write(tmp_path / "house", {"manifest.toml": 'base = "core-2018-injuries"\n'})
    child = _write(tmp_path / "child", {"manifest.toml": 'base = "../house"\n',
                                        "crew.toml": CRAWL_CREW})
    ruleset = load_ruleset(child)
    assert ruleset.fighter_injuries.name == "Lasting Injuries (2018)"
    assert ruleset.crew_injuries.name == "Campaign crew table"


def test_unknown_set_name_is_not_found():
    with pytest.raises(NotFound, match="no rule data set called 'core-1999'"):
        load_ruleset("core-1999")


def _error(directory: Path) -> str:
    with pytest.raises(InvalidRequest) as caught:
        load_ruleset(directory)
    return caught.value.message


def test_broken_toml_names_the_file_and_line(tmp_path):
    directory = _on_core(tmp_path / "broken", {"crew.toml": "[crew_injuries]\nname = \n"})
    message = _error(directory)
    assert str(directory / "crew.toml") in message
    assert "not valid TOML" in message
    assert "line 2" in message


def test_a_bad_value_names_the_file_and_the_field(tmp_path):
    directory = _on_core(tmp_path / "bad", {"crew.toml": CRAWL_CREW.replace("low = 11", "low = 0")})
    message = _error(directory)
    assert str(directory / "crew.toml") in message
    assert "crew_injuries > entries[1] (Out Cold) > low" in message
    assert "greater than or equal to 1" in message


def test_an_unknown_table_is_refused(tmp_path):
    directory = _on_core(tmp_path / "typo", {"extra.toml": "[crew_injurys]\nname = 'x'\n"})
    message = _error(directory)
    assert str(directory / "extra.toml") in message
    assert "crew_injurys" in message


def test_a_missing_table_is_named(tmp_path):
    directory = _write(tmp_path / "alone", {"manifest.toml": 'name = "alone"\n',
                                            "crew.toml": CRAWL_CREW})
    message = _error(directory)
    assert "the table 'fighter_injuries' is missing" in message


def test_a_gap_in_a_d66_table_is_refused(tmp_path):
    gap = CRAWL_CREW.replace("high = 56", "high = 54")
    directory = _on_core(tmp_path / "gap", {"crew.toml": gap})
    message = _error(directory)
    assert str(directory / "crew.toml") in message
    assert "no entry for the results [55, 56]" in message


def test_a_result_repeating_as_an_unknown_name_is_refused(tmp_path):
    text = CRAWL_CREW.replace('{ kind = "none" }', '{ kind = "none", repeat_as = "Nap" }')
    directory = _on_core(tmp_path / "nap", {"crew.toml": text})
    assert "repeats as 'Nap'" in _error(directory)


def test_a_bad_dice_expression_is_refused(tmp_path):
    text = CRAWL_CREW.replace('{ kind = "none" }', '{ kind = "xp", expression = "D7" }')
    directory = _on_core(tmp_path / "d7", {"crew.toml": text})
    message = _error(directory)
    assert "'Out Cold'" in message
    assert "not a dice expression" in message


def test_a_table_defined_twice_in_one_set_is_refused(tmp_path):
    directory = _on_core(tmp_path / "twice", {"a.toml": CRAWL_CREW, "b.toml": CRAWL_CREW})
    message = _error(directory)
    assert "already defined in" in message
    assert str(directory / "a.toml") in message


def test_missing_manifest_and_bad_base_are_explained(tmp_path):
    bare = _write(tmp_path / "bare", {"crew.toml": CRAWL_CREW})
    assert "has no manifest.toml" in _error(bare)
    unknown = _write(tmp_path / "unknown", {"manifest.toml": 'base = "core-1999"\n'})
    assert "the base set 'core-1999' does not exist" in _error(unknown)
    loop = _write(tmp_path / "loop", {"manifest.toml": 'base = "../loop"\n'})
    assert "leads back to itself" in _error(loop)


def test_scenario_rolls_must_be_unique(tmp_path):
    text = "\n".join(
        f'[[scenarios]]\nroll = {roll}\nname = "S{index}"\n'
        for index, roll in enumerate([1, 2, 2, 4]))
    directory = _on_core(tmp_path / "dup", {"scenarios.toml": text})
    message = _error(directory)
    assert str(directory / "scenarios.toml") in message
    assert "more than one scenario for the roll [2]" in message


def test_shipped_expressions_parse():
    ruleset = default_ruleset()
    for territory in ruleset.territories:
        if territory.income != "0":
            parse(territory.income)
