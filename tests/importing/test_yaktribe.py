"""Parsing a Yaktribe gang export: the hand-written fixture and one broken thing at a time."""

from __future__ import annotations

from typing import Any

import pytest

from bot.importing.yaktribe import parse_yaktribe
from rules.errors import InvalidRequest
from rules.models import Alignment, EquipmentKind, FighterCategory, FighterStatus, Gang
from rules.ruleset import RuleSet
from tests.importing.conftest import id_maker, slag_kings

OWNER = "42"


def parse(data: Any, ruleset: RuleSet) -> Any:
    return parse_yaktribe(data, ruleset=ruleset, owner=OWNER, make_id=id_maker())


def one_fighter(ruleset: RuleSet, **fields: Any) -> tuple[Gang, list[str]]:
    """The fixture cut down to Krug Ironhide with ``fields`` changed; the report lines."""
    data = slag_kings()
    krug = {**data["gangers"][0], **fields}
    data["gangers"] = [{k: v for k, v in krug.items() if v is not None}]
    parsed = parse(data, ruleset)
    return parsed.gang, parsed.report.lines()


def test_twenty_fighters_import_and_the_malformed_one_is_reported(ruleset: RuleSet) -> None:
    parsed = parse(slag_kings(), ruleset)
    gang = parsed.gang
    assert (gang.name, gang.house, gang.owner) == ("The Slag Kings", "Goliath", OWNER)
    assert gang.alignment is Alignment.OUTLAW
    assert (gang.credits, gang.reputation) == (245, 9)  # "245" was text
    assert len(gang.fighters) == 20
    assert "Twitch" not in [f.name for f in gang.fighters]
    problems = parsed.report.problems
    assert problems == [
        "Fighter #21 'Twitch': ws 'four' is not a number; cost is missing; not imported."
    ]
    # Each fighter keeps Yaktribe's total, so the Gang Rating is Yaktribe's.
    assert gang.rating == 1715 == parsed.declared_rating
    assert not any("Gang Rating" in n for n in parsed.report.notes)
    assert parsed.external_id == "48213"
    assert parsed.source == "yaktribe" and not parsed.has_vehicles
    assert sorted(parsed.fighter_keys.values()) == [str(n) for n in range(9001, 9021)]


def test_mixed_text_and_number_fields_read_the_same(ruleset: RuleSet) -> None:
    gang = parse(slag_kings(), ruleset).gang
    by_name = {f.name: f for f in gang.fighters}
    krug, brakka, skarr = by_name["Krug Ironhide"], by_name["Brakka Vunn"], by_name["Skarr"]
    assert krug.profile.get("m") == 5 and krug.profile.get("ws") == 2  # '5"' and "2+"
    assert krug.profile.get("ld") == 5 and krug.profile.get("int") == 6
    assert brakka.profile.get("ws") == 3 and brakka.kills == 2  # numbers and "2"
    assert skarr.profile.get("wil") == 8 and skarr.xp == 0  # "8" and "0"
    assert krug.xp == 12 and krug.skills == ["Unstoppable"]
    assert by_name["Gorl"].lasting_injuries == ["Humiliated"]
    assert by_name["Brannoc"].status is FighterStatus.IN_RECOVERY


def test_categories_come_from_the_house_list_then_keywords(ruleset: RuleSet) -> None:
    by_name = {f.name: f for f in parse(slag_kings(), ruleset).gang.fighters}
    krug = by_name["Krug Ironhide"]
    assert krug.category is FighterCategory.LEADER and krug.gang_hierarchy
    assert "Gang Leader" in krug.special_rules  # from the House List template
    assert by_name["Mogg Slagfist"].category is FighterCategory.CHAMPION
    assert by_name["Grund"].category is FighterCategory.GANGER
    assert by_name["Kett"].category is FighterCategory.JUVE
    assert by_name["Dozer"].category is FighterCategory.CREW
    stimmer = by_name["Ghazz the Stimmer"]
    assert stimmer.category is FighterCategory.CHAMPION and stimmer.gang_hierarchy
    assert stimmer.fighter_type == "Stimmer" and stimmer.cost == 125
    assert by_name["Old Sawbones"].category is FighterCategory.HANGER_ON
    # A type the list lacks takes the category its name says.
    gene_smith, _ = one_fighter(ruleset, type="Goliath Gene-smith (Specialist)")
    (smith,) = gene_smith.fighters
    assert smith.category is FighterCategory.SPECIALIST and not smith.gang_hierarchy
    assert smith.fighter_type == "Goliath Gene-smith (Specialist)"


def test_equipment_is_priced_from_the_own_list_then_the_trading_post(ruleset: RuleSet) -> None:
    parsed = parse(slag_kings(), ruleset)
    by_name = {f.name: f for f in parsed.gang.fighters}
    krug = by_name["Krug Ironhide"]
    # The Forge Tyrant's list: Furnace plates at 5 (no Trading Post price); a Stub gun is
    # the Trading Post's, spelt as the list spells it.
    assert [(i.name, i.cost) for i in krug.equipment] == [
        ("Boltgun", 55), ("Furnace plates", 5), ("Stub Gun", 5)
    ]
    assert krug.cost == 135 and krug.total_cost == 200
    assert by_name["Mogg Slagfist"].equipment[0].two_slots  # Heavy stubber from the list
    # An Autogun is not on a Bruiser's list: the Trading Post's price; "Frag grenades" is
    # the list's Frag grenade.
    dreg = by_name["Dreg"]
    assert [(i.name, i.cost) for i in dreg.equipment] == [("Autogun", 15), ("Frag grenade", 30)]
    assert dreg.cost == 55
    assert [i.name for i in by_name["Hulk Morrow"].equipment] == ["Stub Gun", "Stub Gun"]
    varg = by_name["Varg"]
    # The Spud-jacker is Exclusive to the Goliath lists: the list prices it.
    assert (varg.equipment[0].name, varg.equipment[0].cost) == ("Spud-Jacker", 15)
    assert varg.equipment[1].name == "Scrap totem" and varg.equipment[1].cost == 0
    assert varg.equipment[1].kind is EquipmentKind.WARGEAR
    assert parsed.report.unknown_items == {"Scrap totem": 1}
    assert [(i.name, i.cost) for i in parsed.gang.stash] == [
        ("Frag grenade", 30), ("Frag grenade", 30), ("Medicae Kit", 30)
    ]
    ids = [i.id for f in parsed.gang.fighters for i in f.equipment] + [
        i.id for i in parsed.gang.stash
    ]
    assert len(ids) == len(set(ids))


def test_the_report_names_skipped_fields_and_territories(ruleset: RuleSet) -> None:
    report = parse(slag_kings(), ruleset).report
    assert report.skipped_fields == {"fighter.portrait": 1, "gang.gang_image": 1}
    lines = report.lines()
    assert "Fields not read: fighter.portrait, gang.gang_image" in lines
    assert any("Slag Furnace, Old Ruins" in line for line in lines)
    assert any("advance_count" in line for line in lines)


def test_a_wrapped_export_is_unwrapped(ruleset: RuleSet) -> None:
    parsed = parse({"gang": slag_kings()}, ruleset)
    assert parsed.gang.name == "The Slag Kings"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"gang_name": ""}, "gang_name is empty"),
        ({"gang_name": None}, "gang_name is not text"),
        ({"gang_type": ["Goliath"]}, "gang_type is not text"),
        ({"gangers": "many"}, "gangers is missing or not a list"),
        ({"gangers": [{}] * 201}, "at most 200"),
    ],
)
def test_broken_gang_fields_refuse_the_whole_gang(
    ruleset: RuleSet, change: dict[str, Any], message: str
) -> None:
    data = {**slag_kings(), **change}
    with pytest.raises(InvalidRequest, match=message) as refused:
        parse(data, ruleset)
    assert "Nothing was imported" in refused.value.message


@pytest.mark.parametrize("data", [[], "gang", 3, None, {"name": "x"}])
def test_not_an_export_at_all(ruleset: RuleSet, data: Any) -> None:
    with pytest.raises(InvalidRequest):
        parse(data, ruleset)


def test_optional_gang_fields_fall_back_with_a_line(ruleset: RuleSet) -> None:
    data = {**slag_kings(), "credits": "plenty", "reputation": "0", "alignment": "Chaotic"}
    del data["gang_id"]
    parsed = parse(data, ruleset)
    assert (parsed.gang.credits, parsed.gang.reputation) == (0, 1)
    assert parsed.gang.alignment is Alignment.LAW_ABIDING
    lines = " ".join(parsed.report.lines())
    assert "the gang's credits: 'plenty' is not a number; read as 0" in lines
    assert "Reputation 0 is kept as 1" in lines
    assert "alignment 'Chaotic' is unknown" in lines
    assert parsed.external_id is None and "founds another gang" in lines


def test_dead_and_retired_fighters_are_not_imported(ruleset: RuleSet) -> None:
    data = slag_kings()
    data["gangers"][1]["status"] = "Dead"
    data["gangers"][2]["status"] = "retired"
    parsed = parse(data, ruleset)
    names = [f.name for f in parsed.gang.fighters]
    assert "Brakka Vunn" not in names and "Mogg Slagfist" not in names
    assert len(names) == 18
    assert any("'Brakka Vunn' is Dead on Yaktribe" in n for n in parsed.report.notes)


def test_captured_and_unknown_statuses_come_in_active(ruleset: RuleSet) -> None:
    gang, lines = one_fighter(ruleset, status="Captured")
    assert gang.fighters[0].status is FighterStatus.ACTIVE
    assert any("Captured on Yaktribe" in line for line in lines)
    gang, lines = one_fighter(ruleset, status="Sulking")
    assert gang.fighters[0].status is FighterStatus.ACTIVE
    assert any("status 'Sulking' is unknown" in line for line in lines)


def test_a_profile_outside_the_bots_bounds_skips_the_fighter(ruleset: RuleSet) -> None:
    gang, lines = one_fighter(ruleset, ws="13+", m="25")
    assert gang.fighters == []
    assert lines[0].startswith("Problem: Fighter #1 'Krug Ironhide': ")
    assert "m 25" in lines[0] and "ws 13" in lines[0]


def test_missing_name_or_type_skips_the_fighter(ruleset: RuleSet) -> None:
    gang, lines = one_fighter(ruleset, name="   ")
    assert gang.fighters == [] and "Fighter #1: the name is empty" in lines[0]
    gang, lines = one_fighter(ruleset, type=None)
    assert gang.fighters == [] and "the type is not text" in lines[0]
    data = slag_kings()
    data["gangers"] = ["Krug", *data["gangers"][:1]]
    parsed = parse(data, ruleset)
    assert len(parsed.gang.fighters) == 1
    assert "Fighter #1: it is not an object; not imported." in parsed.report.problems


def test_optional_fighter_values_fall_back(ruleset: RuleSet) -> None:
    gang, lines = one_fighter(ruleset, xp="lots", kills=-2, skills="Fearsome")
    krug = gang.fighters[0]
    assert (krug.xp, krug.kills, krug.skills) == (0, 0, [])
    text = " ".join(lines)
    assert "xp 'lots' is not a number; read as 0" in text
    assert "kills -2 is outside" in text
    assert "skills is not a list; left out" in text


def test_bad_equipment_entries_are_left_out_or_counted_once(ruleset: RuleSet) -> None:
    gang, lines = one_fighter(
        ruleset,
        equipment=[{"name": "Boltgun", "qty": "a few"}, {"qty": 2}, 7, {"name": "Autogun",
                   "qty": 0}, "Stub gun", {"name": "Boltgun", "colour": "red"}],
    )
    assert [i.name for i in gang.fighters[0].equipment] == ["Boltgun", "Stub Gun", "Boltgun"]
    text = " ".join(lines)
    assert "Boltgun qty 'a few' is not a number; counted as 1" in text
    assert "equipment #2: the item name is not text" in text
    assert "equipment #3 is not an item" in text
    assert "equipment.colour" in text


def test_a_cost_below_the_equipment_keeps_the_fighters_own_cost_at_0(ruleset: RuleSet) -> None:
    gang, lines = one_fighter(ruleset, cost=50)
    assert gang.fighters[0].cost == 0
    assert any("costs 50 but its equipment is worth 65" in line for line in lines)


def test_a_type_nothing_settles_is_asked_for_not_made_a_ganger(ruleset: RuleSet) -> None:
    data = slag_kings()
    data["gangers"] = [{**data["gangers"][0], "type": "Ogryn Bodyguard of Doom"}]
    parsed = parse(data, ruleset)
    assert [(q.name, q.places) for q in parsed.questions if q.about == "category"] == [
        ("Ogryn Bodyguard of Doom", [(0, -1)])
    ]
    answered = parse_yaktribe(data, ruleset=ruleset, owner=OWNER, make_id=id_maker(),
                              categories={"ogryn bodyguard of doom": FighterCategory.BRUTE})
    assert not any(q.about == "category" for q in answered.questions)
    assert answered.gang.fighters[0].category is FighterCategory.BRUTE
    # The file's own category settles it too.
    gang, _ = one_fighter(ruleset, type="Ogryn Bodyguard of Doom", category="Leader")
    assert gang.fighters[0].category is FighterCategory.LEADER


def cult_gang() -> dict[str, Any]:
    """A made-up gang of a house the campaign's rule data lacks, in Yaktribe's shape: a
    fighter without BS (written 0), items the Trading Post lacks with their own costs,
    kinds and profiles, "Mesh Armor" spelt the American way, notes."""
    def fighter(gid: int, name: str, kind: str, bs: Any, cost: int,
                equipment: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
        return {"ganger_id": gid, "name": name, "type": kind, "m": 5, "ws": "3+", "bs": bs,
                "s": 3, "t": 3, "w": 1, "i": "4+", "a": 1, "ld": "7+", "cl": "7+",
                "wil": "7+", "int": "7+", "cost": cost, "equipment": equipment, **more}
    sword = {"name": "Vein Sword", "qty": 1, "cost": 30, "type": "Weapon", "profiles": [
        {"name": "", "rng_s": "E", "rng_l": "-", "acc_s": "-", "acc_l": "-", "str": "S+1",
         "ap": "-2", "d": "1", "am": "-", "traits": "Melee, Parry"}]}
    caster = {"name": "Hush Caster", "qty": 1, "cost": 45, "category": "weapons",
              "profiles": [
                  {"profile": "Low", "range_short": '6"', "range_long": '18"', "str": "3",
                   "ap": "-", "d": "1", "am": "4+"},
                  {"profile": "High", "range_short": '6"', "range_long": '18"', "str": "5",
                   "ap": "-1", "d": "2", "am": "6+", "traits": ["Unstable"]}]}
    return {
        "gang_id": 777, "gang_name": "The Hushed Brood", "gang_type": "Whisper Cult",
        "credits": 40, "reputation": 3, "alignment": "Outlaw",
        "notes": "Meets under the old pump house.",
        "gangers": [
            fighter(1, "Mother Hush", "Hush Matron", "3+", 180, [sword, caster],
                    category="Leader", notes="Never speaks.", special_rules=["Quiet"]),
            fighter(2, "Skitter", "Hush Familiar", 0, 40, [], category="Hanger-on"),
            fighter(3, "Pale Jon", "Hush Acolyte", "4+", 70,
                    [{"name": "Mesh Armor", "qty": 1}]),
        ],
    }


def test_a_real_shaped_export_of_an_unknown_house_imports_whole(ruleset: RuleSet) -> None:
    parsed = parse_yaktribe(cult_gang(), ruleset=ruleset, owner=OWNER, make_id=id_maker(),
                            categories={"hush acolyte": FighterCategory.GANGER})
    gang = parsed.gang
    assert [f.name for f in gang.fighters] == ["Mother Hush", "Skitter", "Pale Jon"]
    assert not any(q.about == "category" for q in parsed.questions)
    mother, skitter, jon = gang.fighters
    assert mother.category is FighterCategory.LEADER and mother.gang_hierarchy
    assert skitter.category is FighterCategory.HANGER_ON
    assert skitter.profile is not None and skitter.profile.bs is None  # "bs": 0
    assert gang.notes == "Meets under the old pump house." and mother.notes == "Never speaks."
    assert mother.special_rules == ["Quiet"]
    sword, caster = mother.equipment
    assert (sword.kind, sword.cost, caster.kind, caster.cost) == (
        EquipmentKind.WEAPON, 30, EquipmentKind.WEAPON, 45)
    assert mother.weapon_slots == 2 and mother.cost == 180 - 75
    assert sword.profiles[0].strength == "S+1" and sword.profiles[0].traits == ["Melee", "Parry"]
    assert [p.name for p in caster.profiles] == ["Low", "High"]
    assert caster.profiles[1].ammo == "6+" and caster.profiles[1].traits == ["Unstable"]
    # "Mesh Armor" is the Trading Post's "Mesh Armour", priced and kinded from it.
    assert jon.equipment[0].name == "Mesh Armour" and jon.equipment[0].cost == 15
    assert jon.equipment[0].kind is EquipmentKind.ARMOUR
    assert "Mesh Armor" not in parsed.report.unknown_items


def test_a_yaktribe_campaign_export_is_answered_for_what_it_is(ruleset: RuleSet) -> None:
    campaign = {"campaign_id": 12, "campaign_name": "Dust Falls",
                "gangs": [cult_gang(), slag_kings()]}
    with pytest.raises(InvalidRequest, match=r"Yaktribe campaign export .*Dust Falls.* 2 gangs"):
        parse(campaign, ruleset)


def test_types_with_a_house_prefix_or_category_suffix_find_the_template(
    ruleset: RuleSet,
) -> None:
    gang, _ = one_fighter(ruleset, type="Forge Tyrant")
    assert gang.fighters[0].fighter_type == "Goliath Forge Tyrant"
    gang, _ = one_fighter(ruleset, type="Forge Boss (Champion)")
    assert gang.fighters[0].category is FighterCategory.CHAMPION
    assert gang.fighters[0].fighter_type == "Goliath Forge Boss"


def test_repeated_names_are_numbered(ruleset: RuleSet) -> None:
    data = slag_kings()
    data["gangers"][4]["name"] = "grund"
    parsed = parse(data, ruleset)
    names = [f.name for f in parsed.gang.fighters]
    assert "Grund" in names and "grund (2)" in names
    assert any("Two fighters are called 'grund'" in p for p in parsed.report.problems)


def test_a_different_stated_rating_is_noted(ruleset: RuleSet) -> None:
    parsed = parse({**slag_kings(), "gang_rating": 1700}, ruleset)
    assert any("Gang Rating of 1700; the bot counts 1715" in n for n in parsed.report.notes)


def test_an_unknown_house_keeps_its_name_and_says_so(ruleset: RuleSet) -> None:
    parsed = parse({**slag_kings(), "gang_type": "House Goliath"}, ruleset)
    assert parsed.gang.house == "Goliath"  # "House X" finds the list X
    parsed = parse({**slag_kings(), "gang_type": "Ash Waste Nomads"}, ruleset)
    assert parsed.gang.house == "Ash Waste Nomads"
    assert any("not a House List" in n for n in parsed.report.notes)
    by_name = {f.name: f for f in parsed.gang.fighters}
    # The shared House Lists still give the types they know.
    assert by_name["Krug Ironhide"].category is FighterCategory.LEADER


def test_the_campaigns_own_trading_post_prices_items(ruleset: RuleSet) -> None:
    own = ruleset.model_copy(update={"trading_post": [
        ruleset.trading_post_item("Frag grenade").model_copy(update={"cost": 25}),
    ]})
    parsed = parse(slag_kings(), own)
    assert [i.cost for i in parsed.gang.stash] == [25, 25, 0]  # Medicae kit: not on it
    assert parsed.report.unknown_items["Medicae kit"] == 2  # the Stash's and the Doc's


@pytest.mark.parametrize(("house", "types"), [
    ("Goliath", [("Forge Tyrant", FighterCategory.LEADER),
                 ("Goliath Bruiser", FighterCategory.GANGER),
                 ("Zerker", FighterCategory.BRUTE)]),
    ("Escher", [("Gang Queen (Leader)", FighterCategory.LEADER),
                ("Death Maiden", FighterCategory.CHAMPION),
                ("Phelynx", FighterCategory.EXOTIC_BEAST)]),
    ("Orlock", [("Orlock Road Captain", FighterCategory.LEADER),
                ("Wreckers", FighterCategory.PROSPECT),
                ("Iron Rider", FighterCategory.CREW)]),
    ("Van Saar", [("Prime", FighterCategory.LEADER), ("Subtek", FighterCategory.JUVE),
                  ("Arachni-Rig Servo Suit", FighterCategory.BRUTE)]),
    ("Cawdor", [("Word-Keeper", FighterCategory.LEADER),
                ("Redemptionist Deacon", FighterCategory.CHAMPION),
                ("Bonepickers", FighterCategory.JUVE)]),
    ("Delaque", [("Master of Shadows", FighterCategory.LEADER),
                 ("Nacht Ghul", FighterCategory.CHAMPION),
                 ("Ghosts", FighterCategory.GANGER)]),
])
def test_a_gang_of_each_house_matches_the_shipped_lists_without_a_question(
        house: str, types: list[tuple[str, FighterCategory]]) -> None:
    from rules.data import load_ruleset

    content = load_ruleset("necromunda-2023")
    data = slag_kings()
    data["gang_type"] = house
    items = [{"name": "Frag Grenades", "qty": 1}, {"name": "Mesh Armor", "qty": 1},
             {"name": "Stub Guns", "qty": 1}]
    data["gangers"] = [{**data["gangers"][0], "ganger_id": n + 1, "name": f"F{n}",
                        "type": kind, "equipment": items}
                       for n, (kind, _) in enumerate(types)]
    for ganger in data["gangers"]:
        ganger.pop("category", None)
    parsed = parse(data, content)
    assert parsed.questions == []
    assert [f.category for f in parsed.gang.fighters] == [c for _, c in types]
    assert not parsed.report.unknown_items
    names = {i.name for f in parsed.gang.fighters for i in f.equipment}
    assert names == {content.trading_post_item(n).name
                     for n in ("Frag grenade", "Mesh armour", "Stub gun")}
