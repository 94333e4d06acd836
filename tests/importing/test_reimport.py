"""Re-importing a gang: what is kept, what changes, and the differences shown first."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.importing.diff import differences, fingerprint, merge, resolve_clashes
from bot.importing.gangdoc import gang_document, parse_gang_document
from bot.importing.parsed import ParsedGang
from bot.importing.plan import plan_import
from bot.importing.report import ImportReport
from bot.importing.yaktribe import parse_yaktribe
from bot.render import change_line
from bot.storage import Campaign
from rules.errors import InvalidRequest
from rules.models import Advancement, CampaignSettings, FighterStatus, Gang
from rules.ruleset import RuleSet
from tests import factories as f
from tests.importing.conftest import id_maker, slag_kings

NOW = datetime(2025, 1, 1, tzinfo=UTC)


def parse(data: dict[str, Any], ruleset: RuleSet, prefix: str) -> ParsedGang:
    return parse_yaktribe(data, ruleset=ruleset, owner="42", make_id=id_maker(prefix))


def first_import(ruleset: RuleSet) -> tuple[Gang, dict[str, str]]:
    """The gang as the first import stored it, and the fighter keys of its link."""
    staged = plan_import(
        parse(slag_kings(), ruleset, "a"), campaign_id="c", gangs=[], existing=None,
        known_fighters={}, rename=None, make_id=id_maker("x"), now=NOW,
    )
    assert staged.link is not None and staged.update_of is None
    assert staged.link.gang_id == staged.gang.id
    return staged.gang, staged.link.fighter_ids


def lines(before: Gang, after: Gang) -> list[str]:
    return [
        line for change in differences(before, after)
        if (line := change_line(change, plain=True)) is not None
    ]


def test_the_same_file_again_changes_nothing(ruleset: RuleSet) -> None:
    stored, known = first_import(ruleset)
    merged, keys = merge(stored, parse(slag_kings(), ruleset, "b"), known, id_maker("y"))
    assert differences(stored, merged) == []
    assert keys == known
    assert fingerprint(merged) == fingerprint(stored)


def test_changes_show_as_the_ledger_will_record_them(ruleset: RuleSet) -> None:
    stored, known = first_import(ruleset)
    data = slag_kings()
    data["credits"] = 300
    krug = data["gangers"][0]
    krug["xp"] = 15
    krug["name"] = "Krug the Unbowed"  # renamed on Yaktribe: found by ganger_id
    krug["equipment"] = [{"name": "Boltgun", "qty": 1}, {"name": "Mesh armour", "qty": 1}]
    data["gangers"][1]["status"] = "Recovery"
    del data["gangers"][3]  # Grund left the gang
    data["gangers"].append({**data["gangers"][4], "ganger_id": 9050, "name": "Newblood"})
    merged, keys = merge(stored, parse(data, ruleset, "b"), known, id_maker("y"))
    shown = lines(stored, merged)
    assert "The Slag Kings: credits 245 → 300" in shown
    assert "Krug the Unbowed: name Krug Ironhide → Krug the Unbowed" in shown
    assert "Krug the Unbowed: xp 12 → 15" in shown
    assert "➖ Grund leaves the roster" in shown
    assert "➕ Newblood joins the roster" in shown
    assert any("Brakka Vunn: status Active → In Recovery" in line for line in shown)
    assert any(line.startswith("➕ Mesh Armour") for line in shown)
    assert any(line.startswith("➖ Furnace plates") for line in shown)
    assert not any("Boltgun" in line for line in shown)  # same name: same item id
    old_krug = next(f for f in stored.fighters if f.name == "Krug Ironhide")
    new_krug = next(f for f in merged.fighters if f.name == "Krug the Unbowed")
    assert new_krug.id == old_krug.id
    assert keys["9001"] == old_krug.id and keys["9050"] not in {f.id for f in stored.fighters}
    assert "9004" not in keys


def test_what_yaktribe_does_not_carry_is_kept(ruleset: RuleSet) -> None:
    stored, known = first_import(ruleset)
    stored.battles_fought = 4
    stored.vehicles = [f.vehicle("Big Rig", id="v1")]
    krug = stored.fighters[0]
    krug.advancements = [Advancement(name="+1 BS", xp_cost=6, credits=20, stat="bs")]
    krug.special_rules.append("Fearsome")
    captive = stored.fighters[1]
    captive.capture("other-gang")
    sick = stored.fighters[2]
    sick.set_status(FighterStatus.CONVALESCENT)
    merged, _ = merge(stored, parse(slag_kings(), ruleset, "b"), known, id_maker("y"))
    assert merged.battles_fought == 4 and [v.name for v in merged.vehicles] == ["Big Rig"]
    assert merged.fighters[0].advancements == krug.advancements
    assert "Fearsome" in merged.fighters[0].special_rules
    assert merged.fighters[1].status is FighterStatus.CAPTURED
    assert merged.fighters[1].captured_by == "other-gang"
    assert merged.fighters[2].status is FighterStatus.CONVALESCENT
    assert merged.owner == stored.owner and merged.id == stored.id


def test_without_a_link_fighters_are_matched_by_name(ruleset: RuleSet) -> None:
    stored, _ = first_import(ruleset)
    merged, _ = merge(stored, parse(slag_kings(), ruleset, "b"), {}, id_maker("y"))
    assert differences(stored, merged) == []


def test_names_another_gang_has_are_numbered(ruleset: RuleSet) -> None:
    other = f.gang("Ash Wolves", id="g2", fighters=[f.fighter("Grund", id="o1")])
    staged = plan_import(
        parse(slag_kings(), ruleset, "a"), campaign_id="c", gangs=[other], existing=None,
        known_fighters={}, rename=None, make_id=id_maker("x"), now=NOW,
    )
    names = [fighter.name for fighter in staged.gang.fighters]
    assert "Grund (2)" in names and "Grund" not in names
    assert any("already has a fighter called 'Grund'" in p for p in staged.report.problems)
    report = ImportReport()
    gang = f.gang("X", fighters=[f.fighter("A", id="1"), f.fighter("A (2)", id="2")])
    resolve_clashes(gang, [f.gang("Y", id="y", fighters=[f.fighter("a", id="3")])], report)
    assert [x.name for x in gang.fighters] == ["A (3)", "A (2)"]


def test_a_gang_name_in_use_is_refused_unless_renamed(ruleset: RuleSet) -> None:
    other = f.gang("the slag kings", id="g2")
    with pytest.raises(InvalidRequest, match="name option"):
        plan_import(
            parse(slag_kings(), ruleset, "a"), campaign_id="c", gangs=[other], existing=None,
            known_fighters={}, rename=None, make_id=id_maker("x"), now=NOW,
        )
    staged = plan_import(
        parse(slag_kings(), ruleset, "a"), campaign_id="c", gangs=[other], existing=None,
        known_fighters={}, rename="Slag Kings II", make_id=id_maker("x"), now=NOW,
    )
    assert staged.gang.name == "Slag Kings II"


def test_an_update_is_planned_against_the_stored_gang(ruleset: RuleSet) -> None:
    stored, known = first_import(ruleset)
    staged = plan_import(
        parse(slag_kings(), ruleset, "b"), campaign_id="c", gangs=[stored], existing=stored,
        known_fighters=known, rename=None, make_id=id_maker("x"), now=NOW,
    )
    assert staged.update_of == stored.id
    assert staged.stored_fingerprint == fingerprint(stored)
    assert staged.gang.id == stored.id


def test_a_gang_file_round_trip_gets_fresh_ids(ruleset: RuleSet) -> None:
    crew = f.fighter("Driver", id="f-crew")
    held = f.fighter("Held", id="f-held")
    held.capture("elsewhere")
    van = f.vehicle("Van", id="v-van", crew_id="f-crew")
    gang = f.gang("Ash Wolves", id="g-1", fighters=[crew, held], vehicles=[van],
                  stash=[f.item("Lasgun", 15, id="i-1")], battles_fought=3)
    campaign = Campaign(id="camp-1", guild_id=1, settings=CampaignSettings(name="Old"),
                        created_at=NOW)
    territory = f.territory("Old Ruins", id="t1", controller="g-1")
    document = gang_document(1, campaign, gang, [territory])
    data = document.model_dump(mode="json", by_alias=True)
    parsed = parse_gang_document(data, owner="7", make_id=id_maker("n"), campaign_id="camp-2")
    new = parsed.gang
    assert new.id != "g-1" and new.owner == "7" and new.battles_fought == 3
    assert {x.id for x in new.fighters}.isdisjoint({"f-crew", "f-held"})
    assert new.vehicles[0].crew_id == new.fighters[0].id
    assert new.stash[0].id == "i-1"  # item ids are unique per gang only
    assert new.fighters[1].status is FighterStatus.ACTIVE
    assert parsed.external_id == "camp-1/g-1"
    assert parsed.fighter_keys == {new.fighters[0].id: "f-crew", new.fighters[1].id: "f-held"}
    assert any("Old Ruins" in n for n in parsed.report.notes)
    same = parse_gang_document(data, owner="7", make_id=id_maker("n"), campaign_id="camp-1")
    assert same.gang.fighters[1].status is FighterStatus.CAPTURED


def test_a_gang_file_update_replaces_everything_but_id_and_owner(ruleset: RuleSet) -> None:
    stored = f.gang("Ash Wolves", id="g-1", owner="1", fighters=[f.fighter("A", id="fa")],
                    vehicles=[f.vehicle("Van", id="v1", crew_id="fa")])
    campaign = Campaign(id="camp-1", guild_id=1, settings=CampaignSettings(name="Old"),
                        created_at=NOW)
    edited = stored.model_copy(deep=True)
    edited.battles_fought = 9
    edited.fighters[0].special_rules = ["Fearsome"]
    data = gang_document(1, campaign, edited, []).model_dump(mode="json", by_alias=True)
    parsed = parse_gang_document(data, owner="2", make_id=id_maker("n"), campaign_id="camp-1")
    merged, keys = merge(stored, parsed, {"fa": "fa"}, id_maker("y"))
    assert merged.owner == "1" and merged.battles_fought == 9
    assert merged.fighters[0].id == "fa" and merged.fighters[0].special_rules == ["Fearsome"]
    assert merged.vehicles[0].id == "v1" and merged.vehicles[0].crew_id == "fa"
    assert keys == {"fa": "fa"}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": "munda-arbitrator/gang", "version": 2}, "version 2"),
        ({"format": "munda-arbitrator/gang", "version": 1}, "damaged"),
        ({"format": "other"}, "not a Munda Arbitrator gang file"),
    ],
)
def test_bad_gang_files_are_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        parse_gang_document(data, owner="1", make_id=id_maker(), campaign_id="c")
