"""One post-battle action sells, claims bounties on, or disposes of any number of captives
(PB-5.2 to PB-5.4): each priced and noted on its own."""

from __future__ import annotations

import pytest

from rules.actions import Actor, claim_bounty, dispose_of_captive, sell_to_guilders
from rules.errors import InvalidRequest, NotEligible
from rules.models import Alignment, Battle, FighterCategory
from rules.world import World
from tests.assertions import unchanged
from tests.factories import fighter, gang, item, world

BATTLE = Battle(id="b1", gang_ids=["a", "b"], winner="a")


def _world(captor: Alignment = Alignment.LAW_ABIDING, *, chance_for_vek: bool = True) -> World:
    """Gang "a" holds Skab (100 + a 15 gun = 115), Vek (53) and Mox (20) of Outlaw gang "b"."""
    captives = [
        fighter("Skab", id="skab", cost=100, equipment=[item("Autogun", 15)]),
        fighter("Vek", id="vek", cost=53),
        fighter("Mox", id="mox", cost=20),
    ]
    for captive in captives:
        captive.capture("a")
        captive.rescue_chance_given = True
    captives[1].rescue_chance_given = chance_for_vek
    return world(
        gang("Ash Wolves", id="a", alignment=captor, credits=100,
             fighters=[fighter("Boss", FighterCategory.LEADER, id="boss")]),
        gang("Rust Rats", id="b", alignment=Alignment.OUTLAW, fighters=[
            fighter("Rat King", FighterCategory.LEADER, id="rat"), *captives]),
    )


def _actor() -> Actor:
    return Actor(battle=BATTLE, gang_id="a", fighter_id="boss")


@pytest.mark.rule("PB-5.2")
def test_one_action_sells_several_captives_each_priced_on_its_own() -> None:
    result = sell_to_guilders(_world(), _actor(), ["skab", "vek"])
    # 57.5 -> 60 and 26.5 -> 30, each rounded on its own (not 84 -> 85 together).
    assert [(d.captive_id, d.total_cost, d.credits) for d in result.captives] == [
        ("skab", 115, 60), ("vek", 53, 30)]
    assert result.credits_gained == 90 and result.gang("a").credits == 190
    assert [f.id for f in result.gang("b").fighters] == ["rat", "mox"]
    sold = [n for n in result.notes if "gains" in n]
    assert sold == [
        "50% of Skab's total cost of 115 credits, rounded up to 5: Ash Wolves gains 60 credits.",
        "50% of Vek's total cost of 53 credits, rounded up to 5: Ash Wolves gains 30 credits.",
    ]
    assert result.actor_id == "boss" and result.title == "Sell to the Guilders: Skab, Vek"
    # The one-captive call of the existing callers still works.
    one = sell_to_guilders(_world(), _actor(), "mox")
    assert (one.captive_id, one.captive_name, one.owner_gang_id) == ("mox", "Mox", "b")
    assert one.credits_gained == 10


@pytest.mark.rule("PB-5.3")
def test_one_action_claims_bounties_on_several_captives() -> None:
    result = claim_bounty(_world(), _actor(), ["skab", "vek", "mox"])
    assert [d.credits for d in result.captives] == [115, 55, 20]
    assert result.credits_gained == 190
    assert [f.id for f in result.gang("b").fighters] == ["rat"]


@pytest.mark.rule("PB-5.4")
def test_one_action_disposes_of_several_captives() -> None:
    result = dispose_of_captive(_world(Alignment.OUTLAW), _actor(), ["vek", "mox"])
    assert result.credits_gained == 0 and [d.credits for d in result.captives] == [0, 0]
    assert [f.id for f in result.gang("b").fighters] == ["rat", "skab"]


@pytest.mark.rule("PB-5.2")
def test_a_list_with_one_captive_not_yet_open_to_sale_changes_nothing() -> None:
    w = _world(chance_for_vek=False)
    with unchanged(w), pytest.raises(NotEligible, match="not yet had its chance to rescue Vek"):
        sell_to_guilders(w, _actor(), ["skab", "vek"])


@pytest.mark.rule("PB-5.2")
@pytest.mark.parametrize(("ids", "match"), [
    ([], "at least one captive"),
    (["skab", "skab"], "each captive once"),
])
def test_empty_or_repeated_lists_are_refused(ids: list[str], match: str) -> None:
    with pytest.raises(InvalidRequest, match=match):
        sell_to_guilders(_world(), _actor(), ids)
