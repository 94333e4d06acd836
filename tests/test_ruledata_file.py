"""The rule data format (rules/ruledata.py, bot/ruledata.py): schema, messages that name the
line or field, extending and overriding the shipped set, and export read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.ruledata import ExportFormat, document_bytes, read_rule_data
from rules.data import check_ruleset, default_ruleset
from rules.errors import InvalidRequest
from rules.limits import (
    MAX_EQUIPMENT_LIST,
    MAX_FIGHTER_TYPES,
    MAX_HOUSES,
    MAX_ITEMS,
    MAX_JSON_VALUES,
    MAX_RULE_TERRITORIES,
    MAX_RULE_TEXT,
    MAX_SKILL_SETS,
    MAX_SKILLS,
)
from rules.ruledata import RuleData, apply_rule_data, preview_lines, rule_data_of
from rules.ruledata_reader import check_exportable

EXAMPLE = Path(__file__).parents[1] / "docs" / "examples" / "rule-data-example.toml"
HEAD = 'format = "munda-arbitrator/rule-data"\nversion = 1\n'


def refusal(text: str, filename: str = "mine.toml") -> str:
    with pytest.raises(InvalidRequest) as refused:
        read_rule_data(text.encode(), filename)
    return refused.value.message


def test_the_documented_example_is_valid_and_consistent() -> None:
    content = read_rule_data(EXAMPLE.read_bytes(), EXAMPLE.name)
    merged = apply_rule_data(default_ruleset(), content)
    check_ruleset(merged, EXAMPLE.name)
    assert [h.house for h in merged.houses][-1] == "Quillon"
    # The shipped set itself is untouched.
    assert "Quillon" not in [h.house for h in default_ruleset().houses]


def test_syntax_errors_name_the_line() -> None:
    assert "mine.toml, line 3" in refusal(HEAD + "[[weapons]\n")
    assert "mine.json, line 2, column" in refusal('{"format": "munda-arbitrator/rule-data",\n'
                                                  ' "weapons": [}', "mine.json")


def test_schema_errors_name_the_field_and_the_entries_around_it() -> None:
    text = HEAD + (
        '[[houses]]\nhouse = "Quillon"\n[[houses.fighters]]\nfighter_type = "Sister"\n'
        'category = "Ganger"\ncost = 50\nprofile = "M5 WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+"\n'
        '[[weapons]]\nname = "Cloak"\ncost = 5\nkind = "armour"\n'
    )
    message = refusal(text)
    assert "houses[1] (Quillon) > fighters[1] (Sister) > profile: The profile has no Cl, " \
           "Wil, Int" in message
    assert "weapons: Cloak is listed as armour" in refusal(
        HEAD + '[[weapons]]\nname = "Cloak"\ncost = 5\nkind = "armour"\n')
    assert "weapons and wargear: 'quill Pistol' is given twice" in refusal(
        HEAD + '[[weapons]]\nname = "Quill pistol"\ncost = 5\n'
        '[[wargear]]\nname = "quill  Pistol"\ncost = 5\n')
    assert "version" in refusal('format = "munda-arbitrator/rule-data"\nversion = 2\n')


def weapons_file(count: int) -> str:
    return json.dumps({"format": "munda-arbitrator/rule-data", "version": 1,
                       "weapons": [{"name": f"Gun {n}", "cost": 5} for n in range(count)]})


def test_the_number_of_weapons_is_bounded() -> None:
    assert len(read_rule_data(weapons_file(MAX_ITEMS).encode(), "most.json").weapons) \
        == MAX_ITEMS
    message = refusal(weapons_file(MAX_ITEMS + 1), "more.json")
    assert message.startswith("more.json is not valid rule data"), message
    assert f"- weapons: List should have at most {MAX_ITEMS} items" in message, message


def test_the_file_extends_and_overrides_by_name() -> None:
    base = default_ruleset()
    goliath = base.house("Goliath")
    autogun = base.trading_post_item("Autogun")
    content = RuleData.model_validate({
        "houses": [{"house": "GOLIATH", "fighters": [
            {"fighter_type": "Forge Tyrant", "category": "Leader", "cost": 140,
             "profile": 'M5" WS3+ BS4+ S4 T4 W2 I4+ A2 Ld5+ Cl5+ Wil7+ Int7+'}]}],
        "weapons": [{"name": "autogun", "cost": 99, "profiles": [{"strength": "3"}]},
                    {"name": "Sling", "cost": 1}],
    })
    merged = apply_rule_data(base, content)
    assert [h.house.casefold() for h in merged.houses] == [h.house.casefold() for h in base.houses]
    assert [t.fighter_type for t in merged.house("Goliath").fighters] == ["Forge Tyrant"]
    assert merged.trading_post_item("Autogun").cost == 99
    assert merged.trading_post_item("Sling").cost == 1
    assert len(merged.trading_post) == len(base.trading_post) + 1
    assert base.house("Goliath") == goliath and base.trading_post_item("Autogun") == autogun
    lines = preview_lines(base, content)
    assert "Replaces 1 House Lists: GOLIATH." in lines
    assert "Adds 1 weapons: Sling." in lines and "Replaces 1 weapons: autogun." in lines


def test_an_export_reads_back_as_the_same_rule_set() -> None:
    merged = apply_rule_data(default_ruleset(),
                             read_rule_data(EXAMPLE.read_bytes(), EXAMPLE.name))
    exported = rule_data_of(merged).model_dump(mode="json", by_alias=True,
                                               exclude_defaults=True)
    text = json.dumps({"format": "munda-arbitrator/rule-data", "version": 1, **exported})
    again = apply_rule_data(default_ruleset(), read_rule_data(text.encode(), "back.json"))
    for table in ("houses", "trading_post", "skill_sets", "hangers_on", "territories"):
        assert getattr(again, table) == getattr(merged, table), table


# --------------------------------------------------------------------------- hostile files


@pytest.mark.parametrize(("filename", "text", "expected"), [
    ("deep.json", '{"houses": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "deep.json is nested too deeply to be rule data."),
    ("deep.toml", "houses = " + "[" * 100_000 + "]" * 100_000,
     "deep.toml is nested too deeply to be rule data."),
    ("deep.toml", "houses = " + "[" * 70 + "]" * 70,
     "deep.toml is nested more than 64 levels deep"),
    ("long.json", '{"weapons": [{"name": "x", "cost": ' + "9" * 5000 + "}]}",
     "long.json holds a number of more than 30 digits, too long to be rule data."),
    ("long.toml", '[[weapons]]\nname = "x"\ncost = ' + "9" * 5000 + "\n",
     "long.toml holds a number of more than 30 digits, too long to be rule data."),
    ("long.toml", '[[weapons]]\nname = "x"\ncost = ' + "9" * 400 + "\n",
     "long.toml holds a number of more than 30 digits"),
    ("half.json", '{"houses": [{"house": "\\ud800x", "fighters": 5}]}',
     "half.json holds text with half a character in it"),
    ("twice.json", '{"weapons": [{"name": "Sling", "cost": 1, "cost": 99}]}',
     'twice.json gives the key "cost" twice in one object, so it is not rule data'),
    ("inf.toml", '[[weapons]]\nname = "x"\ncost = inf\n', "not finite"),
])
def test_hostile_files_get_a_sentence(filename: str, text: str, expected: str) -> None:
    assert expected in refusal(text, filename)


def test_a_cost_beyond_the_credits_bound_is_refused_naming_the_field() -> None:
    fighter = {"fighter_type": "Ink", "category": "Ganger", "cost": 10**29}
    text = json.dumps({"houses": [{"house": "Quillon", "fighters": [fighter]}]})
    assert "fighters[1] (Ink) > cost: Input should be less than or equal to 1000000" in \
        refusal(text, "mine.json")


@pytest.mark.parametrize(("where", "entry", "limit"), [
    ("houses", {"house": "H{n}"}, MAX_HOUSES),
    ("skill_sets", {"name": "S{n}", "skills": ["a", "b", "c", "d", "e", "f"]}, MAX_SKILL_SETS),
    ("territories", {"id": "t{n}", "name": "T{n}"}, MAX_RULE_TERRITORIES),
])
def test_every_top_level_list_is_bounded(where: str, entry: dict[str, Any], limit: int) -> None:
    many = [json.loads(json.dumps(entry).replace("{n}", str(n))) for n in range(limit + 1)]
    message = refusal(json.dumps({where: many}), "many.json")
    assert f"{where}: List should have at most {limit} items" in message


def test_the_lists_of_a_fighter_type_are_bounded() -> None:
    """A fighter type with more skills than a fighter of a gang file may have is refused:
    its fighters' roster could not be exported and imported again."""
    fighter = {"fighter_type": "Ink", "category": "Ganger", "cost": 5,
               "skills": [f"Skill {n}" for n in range(MAX_SKILLS + 1)],
               "special_rules": ["x" * (MAX_RULE_TEXT + 1)],
               "equipment_list": [{"name": f"Item {n}", "cost": 1}
                                  for n in range(MAX_EQUIPMENT_LIST + 1)]}
    houses = [{"house": "Quillon", "fighters": [fighter] * 2}]
    message = refusal(json.dumps({"houses": houses}), "mine.json")
    assert f"fighters[1] (Ink) > skills: List should have at most {MAX_SKILLS} items" in message
    assert f"special_rules[1]: String should have at most {MAX_RULE_TEXT} characters" in message
    assert f"equipment_list: List should have at most {MAX_EQUIPMENT_LIST} items" in message
    over = [{"fighter_type": f"T{n}", "category": "Ganger", "cost": 5}
            for n in range(MAX_FIGHTER_TYPES + 1)]
    assert f"fighters: List should have at most {MAX_FIGHTER_TYPES} items" in refusal(
        json.dumps({"houses": [{"house": "Quillon", "fighters": over}]}), "mine.json")


def test_too_many_values_are_refused_before_the_model_reads_them() -> None:
    text = json.dumps({"description": "x", "houses": [[1] * MAX_JSON_VALUES]})
    assert f"at most {MAX_JSON_VALUES} in rule data" in refusal(text, "many.json")
    toml = "houses = [" + "1," * MAX_JSON_VALUES + "]\n"
    assert f"at most {MAX_JSON_VALUES} in rule data" in refusal(toml, "many.toml")


def test_content_whose_export_could_not_be_read_back_is_refused() -> None:
    """A file within every bound, over the shipped set, may hold more than one file may:
    the campaign's own export would then fail to import. It is refused at the import."""
    base = default_ruleset()
    room = MAX_HOUSES - len(base.houses) + 1
    content = RuleData.model_validate({"houses": [{"house": f"House {n}"}
                                                  for n in range(room)]})
    with pytest.raises(InvalidRequest) as refused:
        check_exportable(apply_rule_data(base, content), "many.json")
    assert f"houses: List should have at most {MAX_HOUSES} items" in refused.value.message
    fits = content.model_copy(update={"houses": content.houses[:-1]})
    check_exportable(apply_rule_data(base, fits), "fits.json")


def full_set() -> dict[str, Any]:
    """A rule data file the size of every House's content: 20 Houses of 12 fighter types,
    each with an Equipment List of 50 (weapons among them), 600 weapons, 300 wargear, 40
    skill sets, 60 Hangers-on and Brutes, 60 Territories."""
    profile = 'M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+'
    weapons = [{"name": f"Gun {n}", "cost": 10 + n % 50, "availability": "Rare (8)",
                "profiles": [{"name": "Frag", "short_range": '8"', "strength": "3",
                              "traits": ["Blast (3\")", "Knockback"]}, {"name": "Krak"}]}
               for n in range(600)]
    types = [{"fighter_type": f"Type {t}", "category": "Ganger", "cost": 50, "profile": profile,
              "skills": ["Nerves of Steel"], "special_rules": ["Gang Fighter (Ganger)"],
              "equipment_list": [{"name": f"Gun {n}", "cost": 5} for n in range(50)]}
             for t in range(12)]
    return {
        "houses": [{"house": f"House {h}", "fighters": types} for h in range(20)],
        "weapons": weapons,
        "wargear": [{"name": f"Gear {n}", "cost": 5} for n in range(300)],
        "skill_sets": [{"name": f"Set {s}", "skills": [f"Skill {s}-{k}" for k in range(6)]}
                       for s in range(40)],
        "hangers_on": [{"fighter_type": f"Hanger {n}", "category": "Hanger-on", "cost": 30}
                       for n in range(60)],
        "territories": [{"id": f"t{n}", "name": f"Territory {n}", "income": "D6x10",
                         "boons": ["Reputation: +1"]} for n in range(60)],
    }


@pytest.mark.parametrize("file_format", ["json", "toml"])
def test_a_full_set_exported_by_the_bot_imports_back(file_format: ExportFormat) -> None:
    played = apply_rule_data(default_ruleset(),
                             read_rule_data(json.dumps(full_set()).encode(), "full.json"))
    check_exportable(played, "full.json")
    exported = document_bytes(rule_data_of(played), file_format)
    again = apply_rule_data(default_ruleset(),
                            read_rule_data(exported, f"back.{file_format}"))
    assert again == played.model_copy(update={"name": again.name})
