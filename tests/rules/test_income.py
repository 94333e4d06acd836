"""PB-4: each controlled Territory's income goes to the Stash, rolled openly."""

from __future__ import annotations

import pytest

from rules.data import default_ruleset
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotFound
from rules.income import collect_income
from rules.models import Alignment, Battle
from rules.territory import assign_territory
from rules.world import World
from tests import factories as make


def _world(*territories) -> World:
    wolves = make.gang("Ash Wolves", id="wolves", credits=100)
    rats = make.gang("Rust Rats", id="rats", credits=50)
    outsiders = make.gang("Outsiders", id="out", credits=0)
    return make.world(wolves, rats, outsiders, territories=list(territories))


def _battle(**fields) -> Battle:
    return Battle(id="b1", gang_ids=["wolves", "rats"], **fields)


@pytest.mark.rule("PB-4")
def test_pb_4_income_from_two_territories_is_rolled_and_added() -> None:
    world = _world(
        make.territory("Old Ruins", "D3x10", id="ruins", controller="wolves"),
        make.territory("Slag Furnace", "D6x5", id="slag", controller="wolves"),
    )
    roller = ScriptedRoller([5, 4])  # D3 from a 5 is 3 -> 30; D6 4 x5 -> 20
    result = collect_income(world, _battle(), roller)
    assert result.world.gang("wolves").credits == 150
    assert result.totals == {"wolves": 50, "rats": 0}
    assert [(i.territory_id, i.credits) for i in result.incomes] == [("ruins", 30), ("slag", 20)]
    assert [(r.expression, r.faces, r.total, r.purpose) for r in result.rolls] == [
        ("D3x10", (3,), 30, "income from Old Ruins for Ash Wolves"),
        ("D6x5", (4,), 20, "income from Slag Furnace for Ash Wolves"),
    ]
    assert world.gang("wolves").credits == 100
    assert roller.remaining == 0


@pytest.mark.rule("PB-4")
def test_pb_4_no_roll_for_territory_without_income_and_flat_income_is_added() -> None:
    world = _world(
        make.territory("Tunnels", "0", id="tunnels", controller="rats"),
        make.territory("Toll Gate", "15", id="toll", controller="rats"),
    )
    result = collect_income(world, _battle(), ScriptedRoller([]))
    assert result.rolls == []
    assert result.world.gang("rats").credits == 65
    assert [(i.territory_id, i.roll, i.credits) for i in result.incomes] == [("toll", None, 15)]


@pytest.mark.rule("PB-4")
def test_pb_4_only_participating_gangs_collect() -> None:
    world = _world(make.territory("Tech Bazaar", "D6x10", id="bazaar", controller="out"))
    result = collect_income(world, _battle(), ScriptedRoller([]))
    assert result.world.gang("out").credits == 0
    assert result.changes == []


@pytest.mark.rule("PB-4")
def test_pb_4_territory_won_in_this_battle_pays_already() -> None:
    world = _world(make.territory("Old Ruins", "D3x10", id="ruins", controller="rats"))
    battle = _battle(winner="wolves", staked_territory="ruins")
    after_territory = assign_territory(world, battle).world
    result = collect_income(after_territory, battle, ScriptedRoller([1]))
    assert result.totals == {"wolves": 10, "rats": 0}
    assert result.world.gang("wolves").credits == 110
    assert result.world.gang("rats").credits == 50


@pytest.mark.rule("PB-4")
def test_pb_4_unknown_gang_or_bad_expression_is_refused() -> None:
    world = _world(make.territory("Odd", "lots", id="odd", controller="wolves"))
    with pytest.raises(InvalidRequest):
        collect_income(world, _battle(), ScriptedRoller([6]))
    with pytest.raises(NotFound):
        collect_income(_world(), Battle(id="b", gang_ids=["wolves", "ghosts"]), ScriptedRoller([]))
    assert world.gang("wolves").credits == 100


@pytest.mark.rule("PB-4")
def test_pb_4_outlaw_only_income_is_not_paid_to_law_abiding_gangs() -> None:
    doc_shop = next(t for t in default_ruleset().territories if t.name == "Rogue Doc Shop")
    assert doc_shop.income_only_for is Alignment.OUTLAW
    lawful = make.gang("Ash Wolves", id="wolves", credits=0)
    outlaws = make.gang("Rust Rats", id="rats", credits=0, alignment=Alignment.OUTLAW)
    shops = [doc_shop.model_copy(update={"id": "shop1", "controller": "wolves"}),
             doc_shop.model_copy(update={"id": "shop2", "controller": "rats"})]
    result = collect_income(make.world(lawful, outlaws, territories=shops), _battle(),
                            ScriptedRoller([2]))
    assert result.totals == {"wolves": 0, "rats": 20}
    assert [(i.gang_id, i.territory_id) for i in result.incomes] == [("rats", "shop2")]
    assert [r.purpose for r in result.rolls] == ["income from Rogue Doc Shop for Rust Rats"]
    assert any("only to Outlaw" in n for n in result.notes)


@pytest.mark.rule("PB-4")
def test_pb_4_default_territory_incomes_all_roll() -> None:
    territories = [t.model_copy(update={"controller": "wolves"})
                   for t in default_ruleset().territories if t.income_only_for is None]
    world = make.world(make.gang("Ash Wolves", id="wolves", credits=0),
                       make.gang("Rust Rats", id="rats"), territories=territories)
    # Every income rolls a 1, but the Collapsed Dome's 2D6 shows 1 and 2: no double.
    result = collect_income(world, _battle(), ScriptedRoller([1, 1, 1, 1, 1, 2]),
                            ruleset=default_ruleset())
    paying = [t for t in territories if t.income != "0"]
    assert [i.territory_id for i in result.incomes] == [t.id for t in paying]
    assert result.world.gang("wolves").credits == sum(i.credits for i in result.incomes) > 0
