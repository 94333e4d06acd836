"""PB-2: the winner takes the staked Territory; a draw leaves it where it was."""

from __future__ import annotations

import pytest

from rules.data import default_ruleset
from rules.errors import NotEligible, NotFound
from rules.models import Battle
from rules.territory import assign_territory
from tests import factories as make


def _setup(controller: str | None = None, *, staked: bool = True, can_be_staked: bool = True):
    wolves = make.gang("Ash Wolves", id="wolves")
    rats = make.gang("Rust Rats", id="rats")
    bystander = make.gang("Bystanders", id="by")
    ruins = make.territory("Old Ruins", id="ruins", controller=controller,
                           can_be_staked=can_be_staked)
    world = make.world(wolves, rats, bystander, territories=[ruins])
    return world, ("ruins" if staked else None)


def _battle(winner: str | None, staked: str | None) -> Battle:
    return Battle(id="b1", gang_ids=["wolves", "rats"], winner=winner, staked_territory=staked)


@pytest.mark.rule("PB-2")
@pytest.mark.parametrize("holder", [None, "rats", "wolves", "by"])
def test_pb_2_winner_takes_the_staked_territory_from_anyone(holder: str | None) -> None:
    world, staked = _setup(holder)
    result = assign_territory(world, _battle("wolves", staked))
    assert result.world.territory("ruins").controller == "wolves"
    assert result.controller_before == holder
    assert result.controller_after == "wolves"
    assert result.changed_hands == (holder != "wolves")
    assert world.territory("ruins").controller == holder  # input untouched
    expected = [] if holder == "wolves" else [("controller", holder, "wolves")]
    assert [(c.path, c.before, c.after) for c in result.changes] == expected


@pytest.mark.rule("PB-2")
def test_pb_2_draw_over_uncontrolled_territory_leaves_it_unclaimed() -> None:
    world, staked = _setup(None)
    result = assign_territory(world, _battle(None, staked))
    assert result.world.territory("ruins").controller is None
    assert not result.changed_hands
    assert result.changes == []
    assert "unclaimed" in result.notes[0]


@pytest.mark.rule("PB-2")
def test_pb_2_draw_over_controlled_territory_does_not_change_hands() -> None:
    world, staked = _setup("rats")
    result = assign_territory(world, _battle(None, staked))
    assert result.world.territory("ruins").controller == "rats"
    assert result.controller_before == result.controller_after == "rats"
    assert result.changes == []
    assert "Rust Rats" in result.notes[0]


@pytest.mark.rule("PB-2")
def test_pb_2_no_staked_territory_changes_nothing() -> None:
    world, staked = _setup("rats", staked=False)
    result = assign_territory(world, _battle("wolves", staked))
    assert result.territory_id is None
    assert result.changes == []
    assert result.world.territory("ruins").controller == "rats"


@pytest.mark.rule("PB-2")
def test_pb_2_refuses_a_territory_that_cannot_be_staked() -> None:
    world, staked = _setup(None, can_be_staked=False)
    with pytest.raises(NotEligible, match="cannot be staked"):
        assign_territory(world, _battle("wolves", staked))
    assert world.territory("ruins").controller is None


@pytest.mark.rule("PB-2")
def test_pb_2_refuses_an_unknown_territory() -> None:
    world, _ = _setup(None)
    with pytest.raises(NotFound):
        assign_territory(world, _battle("wolves", "nowhere"))


@pytest.mark.rule("PB-2")
def test_pb_2_default_settlement_cannot_be_staked() -> None:
    settlement = next(t for t in default_ruleset().territories if t.name == "Settlement")
    world = make.world(make.gang(id="wolves"), make.gang(id="rats"),
                       territories=[settlement.model_copy(update={"controller": "rats"})])
    with pytest.raises(NotEligible):
        assign_territory(world, _battle("wolves", settlement.id))
    assert world.territory(settlement.id).controller == "rats"
