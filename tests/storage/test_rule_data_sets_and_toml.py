"""The shipped data sets are rule data files read by the campaign's reader; whole tables in a
campaign's file; the rule data export as TOML reads back as the same content."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import pytest

from bot.ruledata import document_bytes, export_bytes, export_file, read_rule_data
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Storage
from rules.data import available_rulesets, default_ruleset, load_ruleset
from rules.errors import InvalidRequest
from rules.ruledata import apply_rule_data, preview_lines, rule_data_of
from rules.ruledata_reader import rule_data_from
from tests.rules.campaign_tables import CRAWL_CREW

from .conftest import ACTOR, GUILD_A

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "rule-data-example.toml"


@pytest.mark.parametrize("name", ["core-2023", "core-2018-injuries"])
def test_every_shipped_file_is_a_rule_data_file(name: str) -> None:
    files = [f for f in resources.files("rules").joinpath("data", name).iterdir()
             if f.name.endswith(".toml")]
    assert files
    for entry in files:
        raw = tomllib.loads(entry.read_text(encoding="utf-8"))
        raw.pop("base", None)  # a manifest's, naming the set it is laid over
        assert rule_data_from(raw, entry.name).model_fields_set, entry.name


def test_the_shipped_trading_post_is_weapons_and_wargear() -> None:
    text = resources.files("rules").joinpath("data", "core-2023", "trading-post.toml")
    content = read_rule_data(text.read_bytes(), "trading-post.toml")
    assert [w.name for w in content.weapons][:2] == ["Autogun", "Lasgun"]
    assert {g.name for g in content.wargear} >= {"Mesh armour", "Medicae kit"}
    shipped = {e.name for e in load_ruleset("core-2023").trading_post}
    assert shipped == {e.name for e in content.equipment}


def test_a_set_directory_extends_the_house_lists_of_its_base(tmp_path: Path) -> None:
    (tmp_path / "manifest.toml").write_text('base = "core-2023"\n', encoding="utf-8")
    (tmp_path / "houses.toml").write_bytes(EXAMPLE.read_bytes())
    ruleset = load_ruleset(tmp_path)
    houses = [h.house for h in ruleset.houses]
    assert houses[-1] == "Quillon" and "Goliath" in houses
    assert ruleset.crew_injuries == default_ruleset().crew_injuries


def test_a_campaign_file_may_replace_a_whole_table() -> None:
    content = read_rule_data(CRAWL_CREW.encode(), "crew.toml")
    merged = apply_rule_data(default_ruleset(), content)
    assert merged.crew_injuries.lookup(44).name == "Out Cold"
    assert [e.name for e in merged.crew_injuries.entries] == ["Out Cold", "Memorable Death"]
    assert merged.fighter_injuries == default_ruleset().fighter_injuries
    assert "Replaces the whole table crew_injuries." in preview_lines(default_ruleset(), content)


async def _with_example(storage: Storage, campaign: Campaign) -> Campaign:
    content = read_rule_data(EXAMPLE.read_bytes(), "example.toml")
    return await storage.write(GUILD_A).set_rule_data(campaign.id,
                                       content.model_dump_json(by_alias=True),
                                       actor=ACTOR, note="Rule data imported.")


async def test_the_toml_export_reads_back_as_the_same_content(
    storage: Storage, campaign: Campaign
) -> None:
    played = await _with_example(storage, campaign)
    own = export_bytes(played, own_only=True, file_format="toml")
    assert tomllib.loads(own.decode())["format"] == "munda-arbitrator/rule-data"
    stored = read_rule_data(own, "own.toml")
    assert stored.model_dump() == read_rule_data(EXAMPLE.read_bytes(), "x.toml").model_dump()
    everything = export_bytes(played, own_only=False, file_format="toml")
    again = read_rule_data(everything, "all.toml")
    as_json = read_rule_data(export_bytes(played, own_only=False), "all.json")
    assert again == as_json
    assert apply_rule_data(default_ruleset(), again) == ruleset_for(played).model_copy(
        update={"name": default_ruleset().name})


def test_every_shipped_set_exports_as_toml_and_reads_back() -> None:
    for name in available_rulesets():
        ruleset = load_ruleset(name)
        text = document_bytes(rule_data_of(ruleset), "toml")
        back = read_rule_data(text, f"{name}.toml")
        assert apply_rule_data(ruleset, back) == ruleset


async def test_the_export_file_is_named_for_its_format(
    storage: Storage, campaign: Campaign
) -> None:
    played = await _with_example(storage, campaign)
    toml = export_file(played, own_only=True, file_format="toml", stem="c-rule-data",
                       limit=10_000_000)
    assert toml.filename == "c-rule-data.toml"
    json_one = export_file(played, own_only=True, file_format="json", stem="c-rule-data",
                           limit=10_000_000)
    assert json_one.filename == "c-rule-data.json"
    with pytest.raises(InvalidRequest, match="export it as JSON"):
        export_file(played, own_only=False, file_format="toml", stem="c", limit=100)
