"""A campaign's own Trading Post from CSV or JSON, and the availability roll listing from it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.importing.tradingpost import kind_of_category, parse_trading_post, require_clean
from bot.rulesets import ruleset_for
from bot.storage import Campaign, TradingPostEntry
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest
from rules.models import Alignment, CampaignSettings, EquipmentKind, FighterCategory, Rarity
from rules.tradingpost import seek_rare_and_illegal
from tests import factories as f
from tests.importing.conftest import fixture_bytes


def campaign_with(entries: list[TradingPostEntry] | None) -> Campaign:
    return Campaign(
        id="c1", guild_id=1, settings=CampaignSettings(name="Dust Falls"),
        created_at=datetime.now(UTC), trading_post=entries,
    )


def test_the_csv_fixture_reads_every_shape_of_availability() -> None:
    parsed = parse_trading_post(fixture_bytes("trading_post.csv"), "trading_post.csv")
    assert parsed.format == "CSV" and parsed.problems == []
    assert parsed.ignored_columns == ["source"]
    by_name = {e.name: e for e in parsed.entries}
    assert len(by_name) == 13
    assert str(by_name["Autogun"].availability) == "Common"
    assert str(by_name["Boltgun"].availability) == "Rare (8)"
    assert str(by_name["Grav-chute"].availability) == "Rare (10)"  # "Rarity rating 10"
    assert str(by_name["Obscura"].availability) == "Illegal (8)"  # "Legality rating 8"
    assert str(by_name["Goliath stimm-slug"].availability) == "Illegal (9)"
    assert by_name["Hive Lord's seal"].availability.rarity is Rarity.EXCLUSIVE
    assert by_name["Needle rifle, Cawdor pattern"].cost == 120  # a quoted comma
    assert by_name["Boltgun"].category == "Basic Weapons"


def test_kinds_follow_the_category() -> None:
    by_name = {
        e.name: e.kind
        for e in parse_trading_post(fixture_bytes("trading_post.csv")).entries
    }
    assert by_name["Autogun"] is EquipmentKind.WEAPON
    assert by_name["Frag grenades"] is EquipmentKind.WEAPON
    assert by_name["Mesh armour"] is EquipmentKind.ARMOUR
    assert by_name["Infra-sight"] is EquipmentKind.WARGEAR  # an accessory takes no weapon slot
    assert by_name["Obscura"] is EquipmentKind.WARGEAR
    assert kind_of_category("Vehicle Weapons") is EquipmentKind.WEAPON
    assert kind_of_category("Vehicle Wargear") is EquipmentKind.VEHICLE_UPGRADE
    assert kind_of_category("Close Combat Weapons") is EquipmentKind.WEAPON


def test_the_json_fixture_with_optional_columns() -> None:
    parsed = parse_trading_post(fixture_bytes("trading_post.json"), "tp.json")
    assert parsed.format == "JSON" and parsed.problems == []
    by_name = {e.name: e for e in parsed.entries}
    assert by_name["Heavy stubber"].two_slots and by_name["Heavy stubber"].cost == 130
    assert str(by_name["Photo-goggles"].availability) == "Rare (9)"  # "Rare 9"
    assert by_name["Photo-goggles"].cost == 35  # "35 credits"
    assert str(by_name["Armoured undersuit"].availability) == "Rare (9)"
    assert by_name["Chem-synth"].kind is EquipmentKind.WARGEAR


def test_bad_rows_are_listed_by_line_and_nothing_is_kept() -> None:
    parsed = parse_trading_post(fixture_bytes("trading_post_bad.csv"))
    assert parsed.problems == [
        "line 3: the name is empty",
        "line 4: cost 'lots' is not a number",
        "line 5: availability 'Very Rare' is not Common, Rare (X), Illegal (X), Exclusive "
        "or Rarity rating N",
        "line 6: 'autogun' is already on line 2",
    ]
    with pytest.raises(InvalidRequest) as refused:
        require_clean(parsed)
    message = refused.value.message
    assert message.startswith("The Trading Post was not imported: 4 rows are not right.")
    assert "nothing was changed" in message and "line 6" in message


def test_a_long_list_of_problems_is_cut_for_discord() -> None:
    rows = "\n".join(f"Item {n},Wargear,{n},Sometimes" for n in range(40))
    parsed = parse_trading_post(f"name,category,cost,availability\n{rows}\n".encode())
    with pytest.raises(InvalidRequest, match="and 28 more") as refused:
        require_clean(parsed)
    assert len(refused.value.message) < 1900


def test_headers_semicolons_bom_and_aliases() -> None:
    data = "\ufeffItem;Type;Price;Rarity;Kind\nLasgun;Basic Weapons;15;Common;weapon\n\n"
    parsed = parse_trading_post(data.encode())
    assert parsed.problems == []
    assert [(e.name, e.cost, e.category) for e in parsed.entries] == [
        ("Lasgun", 15, "Basic Weapons")
    ]


def test_a_missing_column_or_an_empty_file_is_refused() -> None:
    with pytest.raises(InvalidRequest, match="lacks cost, availability"):
        parse_trading_post(b"name,category\nLasgun,Basic\n")
    with pytest.raises(InvalidRequest, match="empty"):
        parse_trading_post(b"")
    with pytest.raises(InvalidRequest, match="lists no items"):
        require_clean(parse_trading_post(b"name,category,cost,availability\n"))
    with pytest.raises(InvalidRequest, match="list of items"):
        parse_trading_post(b'{"weapons": 3}')


def test_bad_json_items_and_kinds() -> None:
    parsed = parse_trading_post(
        b'{"items": [3, {"name": "Axe", "cost": 10, "availability": "Common", "kind": "spoon",'
        b' "two_slots": "maybe", "colour": "red"}]}'
    )
    assert parsed.problems == [
        "item #1: not an object",
        "item #2: kind 'spoon' is not weapon, wargear, armour or vehicle upgrade; "
        "two_slots 'maybe' is not yes or no",
    ]
    assert parsed.ignored_columns == ["colour"]


def test_more_cells_than_columns_is_a_bad_row() -> None:
    parsed = parse_trading_post(b"name,category,cost,availability\nA,B,1,Common,extra\n")
    assert parsed.problems == ["line 2: more cells than the header has columns"]


def test_the_availability_roll_lists_from_the_campaigns_own_trading_post() -> None:
    entries = require_clean(parse_trading_post(fixture_bytes("trading_post.csv")))
    ruleset = ruleset_for(campaign_with(entries))
    assert [e.name for e in ruleset.trading_post] == [e.name for e in entries]
    leader = f.fighter("Boss", FighterCategory.LEADER, id="boss", gang_hierarchy=True)
    gang = f.gang("Ash Wolves", fighters=[leader], alignment=Alignment.OUTLAW, reputation=5)
    # 2D6 = 6 + Leader 2 = availability 8.
    result = seek_rare_and_illegal(
        f.world(gang), gang.id, [leader], ScriptedRoller([3, 3]), ruleset
    )
    assert result.availability == 8
    assert sorted(result.unlocked_names) == ["Boltgun", "Infra-sight", "Obscura"]
    core = ruleset_for(campaign_with(None))
    assert "Boltgun" in [e.name for e in core.trading_post]
    assert "Infra-sight" not in [e.name for e in core.trading_post]


def test_ruleset_for_is_cached_by_content() -> None:
    entries = require_clean(parse_trading_post(fixture_bytes("trading_post.json")))
    first = ruleset_for(campaign_with(entries))
    assert ruleset_for(campaign_with([e.model_copy() for e in entries])) is first
    changed = [entries[0].model_copy(update={"cost": 99}), *entries[1:]]
    assert ruleset_for(campaign_with(changed)).trading_post[0].cost == 99
    assert first.trading_post[0].cost == 15
    assert ruleset_for(campaign_with(None)) is ruleset_for(campaign_with(None))
