"""Captives: availability, the rescue chance and trading (PB-1.6 to PB-1.8)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rules.captives import (
    CaptiveOption,
    CaptiveTradeTerms,
    RescueChanceResult,
    TradeOffer,
    captive_options,
    fighter_available_for_battle,
    record_rescue_declined,
    record_rescue_failed,
    require_captive_option,
    trade_captive,
)
from rules.errors import InsufficientCredits, InvalidRequest, NotEligible, NotFound
from rules.models import Alignment, FighterCategory, FighterStatus
from rules.world import World
from tests.assertions import unchanged
from tests.factories import LAW, OUTLAW, fighter, gang, item, territory, world


def hold_captive(w: World, name: str, *, of: str, by: str) -> None:
    """Add ``name`` (id: the name in lower case) to gang ``of``, held Captive by gang ``by``."""
    held = fighter(name, id=name.lower())
    held.capture(by)
    w.gangs[of].fighters.append(held)


def setup(
    captor_alignment: Alignment = LAW,
    owner_alignment: Alignment = OUTLAW,
    chance_given: bool = False,
) -> World:
    """Captor "cap" holds Skab ("skab") of owner "own"; a third gang "oth" looks on."""
    skab = fighter("Skab", id="skab", cost=60, equipment=[item("Autogun", 15)])
    skab.capture("cap")
    skab.rescue_chance_given = chance_given
    return world(
        gang("Captors", id="cap", alignment=captor_alignment, credits=100),
        gang("Owners", id="own", alignment=owner_alignment, credits=100,
             fighters=[fighter("Boss", FighterCategory.LEADER, id="own-boss"), skab]),
        gang("Others", id="oth", credits=100),
    )


# --------------------------------------------------------------------------- PB-1.6


@pytest.mark.rule("PB-1.6")
def test_pb_1_6_captive_is_unavailable_for_battle_until_recovered() -> None:
    w = setup()
    _, skab = w.find_fighter("skab")
    assert not fighter_available_for_battle(skab)
    assert [f.id for _, f in w.captives_held_by("cap")] == ["skab"]

    back = trade_captive(w, "skab", "own", CaptiveTradeTerms())
    assert fighter_available_for_battle(back.world.find_fighter("skab")[1])


@pytest.mark.rule("PB-1.6")
@pytest.mark.parametrize(
    ("status", "available"),
    [
        (FighterStatus.ACTIVE, True),
        (FighterStatus.CONVALESCENT, True),
        (FighterStatus.IN_RECOVERY, False),
        (FighterStatus.DEAD, False),
        (FighterStatus.RETIRED, False),
    ],
)
def test_pb_1_6_availability_by_status(status: FighterStatus, available: bool) -> None:
    assert fighter_available_for_battle(fighter(status=status)) is available


# --------------------------------------------------------------------------- PB-1.7


@pytest.mark.rule("PB-1.7")
def test_pb_1_7_before_the_rescue_chance_only_trade_to_owner() -> None:
    w = setup(captor_alignment=OUTLAW)
    assert captive_options(w, "cap", "skab") == [CaptiveOption.TRADE_TO_OWNER]
    with pytest.raises(NotEligible, match="only trade Skab back to Owners"):
        require_captive_option(w, "cap", "skab", CaptiveOption.SELL_TO_GUILDERS)


@pytest.mark.rule("PB-1.7")
@pytest.mark.parametrize(
    ("captor", "owner", "expected"),
    [
        (LAW, OUTLAW, {CaptiveOption.CLAIM_BOUNTY}),
        (LAW, LAW, set()),
        (OUTLAW, OUTLAW, {CaptiveOption.DISPOSE}),
        (OUTLAW, LAW, {CaptiveOption.DISPOSE}),
    ],
)
def test_pb_1_7_after_the_rescue_chance_alignment_decides(
    captor: Alignment, owner: Alignment, expected: set[CaptiveOption]
) -> None:
    w = setup(captor, owner, chance_given=True)
    always = {
        CaptiveOption.TRADE_TO_OWNER,
        CaptiveOption.TRADE_TO_ANY_GANG,
        CaptiveOption.SELL_TO_GUILDERS,
    }
    assert set(captive_options(w, "cap", "skab")) == always | expected


@pytest.mark.rule("PB-1.7")
def test_pb_1_7_refusals_say_why() -> None:
    law_on_law = setup(LAW, LAW, chance_given=True)
    with pytest.raises(NotEligible, match="Owners is Law Abiding"):
        require_captive_option(law_on_law, "cap", "skab", CaptiveOption.CLAIM_BOUNTY)
    with pytest.raises(NotEligible, match="Only an Outlaw gang may dispose"):
        require_captive_option(law_on_law, "cap", "skab", CaptiveOption.DISPOSE)
    outlaw = setup(OUTLAW, OUTLAW, chance_given=True)
    with pytest.raises(NotEligible, match="Only a Law Abiding gang may claim a bounty"):
        require_captive_option(outlaw, "cap", "skab", CaptiveOption.CLAIM_BOUNTY)


@pytest.mark.rule("PB-1.7")
def test_pb_1_7_options_refused_for_a_gang_that_does_not_hold_the_captive() -> None:
    w = setup(chance_given=True)
    with pytest.raises(NotEligible, match="Others does not hold Skab"):
        captive_options(w, "oth", "skab")
    with pytest.raises(NotEligible, match="Boss of Owners is not held captive"):
        captive_options(w, "cap", "own-boss")


@pytest.mark.rule("PB-1.7")
@pytest.mark.parametrize("record", [record_rescue_declined, record_rescue_failed])
def test_pb_1_7_recording_the_rescue_chance_frees_the_captor(
    record: Callable[[World, str], RescueChanceResult],
) -> None:
    w = setup(captor_alignment=OUTLAW)
    result = record(w, "skab")
    assert result.newly_given is True
    assert result.captor_gang_id == "cap" and result.owner_gang_id == "own"
    assert result.world.find_fighter("skab")[1].rescue_chance_given is True
    assert CaptiveOption.DISPOSE in captive_options(result.world, "cap", "skab")
    assert [(c.path, c.before, c.after) for c in result.changes] == [
        ("rescue_chance_given", False, True)
    ]
    # The input world is untouched.
    assert w.find_fighter("skab")[1].rescue_chance_given is False

    again = record(result.world, "skab")
    assert again.newly_given is False and again.changes == []


@pytest.mark.rule("PB-1.7")
def test_pb_1_7_rescue_chance_refused_for_a_fighter_not_captured() -> None:
    w = setup()
    with pytest.raises(NotEligible):
        record_rescue_declined(w, "own-boss")


# --------------------------------------------------------------------------- PB-1.8


@pytest.mark.rule("PB-1.8")
def test_pb_1_8_trade_back_to_owner_before_the_chance_returns_it_active() -> None:
    w = setup()
    terms = CaptiveTradeTerms(from_receiver=TradeOffer(credits=40))
    result = trade_captive(w, "skab", "own", terms)

    skab = result.world.find_fighter("skab")[1]
    assert skab.status is FighterStatus.ACTIVE
    assert skab.captured_by is None
    assert result.world.captives_held_by("cap") == []
    assert result.gang("cap").credits == 140
    assert result.gang("own").credits == 60
    assert result.credits_to_captor == 40 and result.credits_to_receiver == 0
    [transfer] = result.captives
    assert transfer.returned_home and transfer.to_gang_id == "own"


@pytest.mark.rule("PB-1.8")
def test_pb_1_8_trade_to_another_gang_refused_before_the_chance() -> None:
    w = setup()
    with unchanged(w), pytest.raises(NotEligible, match="has not yet had its chance"):
        trade_captive(w, "skab", "oth", CaptiveTradeTerms())


@pytest.mark.rule("PB-1.8")
def test_pb_1_8_trade_to_another_gang_after_the_chance_changes_captor() -> None:
    w = setup(chance_given=True)
    terms = CaptiveTradeTerms(from_receiver=TradeOffer(credits=100))
    result = trade_captive(w, "skab", "oth", terms)

    skab = result.world.find_fighter("skab")[1]
    assert skab.status is FighterStatus.CAPTURED
    assert skab.captured_by == "oth"
    # The owner gets its chance against the new captor.
    assert skab.rescue_chance_given is False
    assert result.gang("oth").credits == 0
    assert result.gang("cap").credits == 200
    assert not result.captives[0].returned_home


@pytest.mark.rule("PB-1.8")
def test_pb_1_8_trade_with_items_territory_and_a_captive_swap() -> None:
    # Owners hold one of the captors' fighters; the two swap and settle with gear and turf.
    w = setup()
    hold_captive(w, "Grunt", of="cap", by="own")
    w.gangs["own"].stash.append(item("Frag grenades", 30, id="frag"))
    w.gangs["cap"].stash.append(item("Mesh armour", 15, id="mesh"))
    ruins = territory("Old Ruins", id="ruins", controller="own")
    w.territories["ruins"] = ruins

    terms = CaptiveTradeTerms(
        from_captor=TradeOffer(stash_item_ids=["mesh"]),
        from_receiver=TradeOffer(captive_ids=["grunt"], stash_item_ids=["frag"],
                                 territory_ids=["ruins"]),
    )
    result = trade_captive(w, "skab", "own", terms)

    assert result.world.find_fighter("skab")[1].status is FighterStatus.ACTIVE
    assert result.world.find_fighter("grunt")[1].status is FighterStatus.ACTIVE
    assert [i.id for i in result.gang("cap").stash] == ["frag"]
    assert [i.id for i in result.gang("own").stash] == ["mesh"]
    assert result.world.territory("ruins").controller == "cap"
    assert {t.captive_id for t in result.captives} == {"skab", "grunt"}
    assert all(t.returned_home for t in result.captives)
    assert result.territories_to_captor == ["ruins"]


@pytest.mark.rule("PB-1.8")
@pytest.mark.parametrize(
    ("terms", "error", "message"),
    [
        (CaptiveTradeTerms(from_receiver=TradeOffer(credits=101)), InsufficientCredits,
         "has 100 credits"),
        (CaptiveTradeTerms(from_captor=TradeOffer(credits=101)), InsufficientCredits,
         "Captors has 100 credits"),
        (CaptiveTradeTerms(from_receiver=TradeOffer(stash_item_ids=["nope"])), NotFound,
         "no item with id nope"),
        (CaptiveTradeTerms(from_receiver=TradeOffer(territory_ids=["ruins"])), NotEligible,
         "does not control"),
        (CaptiveTradeTerms(from_receiver=TradeOffer(captive_ids=["skab"])), InvalidRequest,
         "more than once"),
        (CaptiveTradeTerms(from_receiver=TradeOffer(captive_ids=["own-boss"])), NotEligible,
         "not held captive"),
    ],
)
def test_pb_1_8_impossible_terms_are_refused_and_change_nothing(
    terms: CaptiveTradeTerms, error: type[Exception], message: str
) -> None:
    w = setup()
    w.territories["ruins"] = territory("Old Ruins", id="ruins", controller="oth")
    with unchanged(w), pytest.raises(error, match=message):
        trade_captive(w, "skab", "own", terms)


@pytest.mark.rule("PB-1.8")
def test_pb_1_8_exact_credits_can_be_paid() -> None:
    w = setup()
    result = trade_captive(w, "skab", "own",
                           CaptiveTradeTerms(from_receiver=TradeOffer(credits=100)))
    assert result.gang("own").credits == 0
    assert result.gang("cap").credits == 200


@pytest.mark.rule("PB-1.8")
def test_pb_1_8_cannot_trade_to_the_captor_itself() -> None:
    with pytest.raises(InvalidRequest, match="already holds"):
        trade_captive(setup(), "skab", "cap", CaptiveTradeTerms())


@pytest.mark.rule("PB-1.8")
def test_pb_1_8_a_third_captive_in_the_deal_needs_its_own_rescue_chance() -> None:
    # Captors also hold Other's fighter; handing it to Owners needs its chance given.
    w = setup()
    hold_captive(w, "Lost", of="oth", by="cap")
    terms = CaptiveTradeTerms(from_captor=TradeOffer(captive_ids=["lost"]))
    with pytest.raises(NotEligible, match="Others has not yet had its chance to rescue Lost"):
        trade_captive(w, "skab", "own", terms)

    w.gangs["oth"].fighters[-1].rescue_chance_given = True
    result = trade_captive(w, "skab", "own", terms)
    assert result.world.find_fighter("lost")[1].captured_by == "own"
