"""The rule data format (rules/ruledata.py, bot/ruledata.py): schema, messages that name the
line or field, extending and overriding the shipped set, and export read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.ruledata import read_rule_data
from rules.data import check_ruleset, default_ruleset
from rules.errors import InvalidRequest
from rules.ruledata import MAX_ENTRIES, RuleData, apply_rule_data, preview_lines, rule_data_of

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
    assert len(read_rule_data(weapons_file(MAX_ENTRIES).encode(), "most.json").weapons) \
        == MAX_ENTRIES
    message = refusal(weapons_file(MAX_ENTRIES + 1), "more.json")
    assert message.startswith("more.json is not valid rule data"), message
    assert f"- weapons: List should have at most {MAX_ENTRIES} items" in message, message


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
