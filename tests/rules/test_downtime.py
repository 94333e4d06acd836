"""The Downtime steps (Dominion, "The Effects of Downtime" A-D) and their sequence."""

from __future__ import annotations

import pytest

from rules.downtime import (
    FRESH_RECRUITMENT_CREDITS,
    fighters_recover,
    fresh_recruitment,
    promote,
    promotion_candidates,
    promotion_note,
    promotion_types,
    return_captives,
    unspent_recruitment,
)
from rules.downtime_sequence import DOWNTIME, DowntimeSequence, Party
from rules.errors import NotEligible, OutOfStep
from rules.models import Advancement, FighterCategory, FighterStatus
from rules.ruleset import FighterTemplate
from rules.steps import DowntimeStep
from tests.factories import fighter, gang, item, world

PROMOTION = "Promotion (Goliath Forge Boss or Goliath Stimmer)"


def _advanced(times: int) -> list[Advancement]:
    return [Advancement(name="+1 WS", xp_cost=6, credits=10, stat="ws")] * times


@pytest.mark.rule("DT-0")
def test_the_steps_are_the_sources_four_in_order() -> None:
    assert [d.step for d in DOWNTIME] == [
        DowntimeStep.FIGHTERS_RECOVER, DowntimeStep.CAPTIVES_RETURNED,
        DowntimeStep.PROMOTIONS, DowntimeStep.FRESH_RECRUITMENT]
    assert FRESH_RECRUITMENT_CREDITS == 250


@pytest.mark.rule("DT-A")
def test_fighters_recover_clears_in_recovery_only() -> None:
    hurt = fighter("Hurt", status=FighterStatus.IN_RECOVERY)
    weak = fighter("Weak", status=FighterStatus.CONVALESCENT)
    wolves = gang(fighters=[hurt, weak])
    result = fighters_recover(world(wolves), wolves.id)
    after = result.gang(wolves.id)
    assert after.fighter(hurt.id).status is FighterStatus.ACTIVE
    assert after.fighter(weak.id).status is FighterStatus.CONVALESCENT
    assert result.clause == "DT-A" and "Hurt recovers." in result.notes


@pytest.mark.rule("DT-B")
def test_captives_are_returned_for_half_their_value_rounded_up_to_5() -> None:
    captor = gang("Captors", credits=10)
    captive = fighter("Prisoner", cost=55, equipment=[item("Knife", cost=6)])
    owners = gang("Owners", fighters=[captive])
    captive.capture(captor.id)
    result = return_captives(world(captor, owners), captor.id)
    # Half of 61 is 30.5, up to 35.
    assert result.gang(captor.id).credits == 10 + 35
    freed = result.gang(owners.id).fighter(captive.id)
    assert freed.status is FighterStatus.ACTIVE and freed.captured_by is None
    assert [i.name for i in freed.equipment] == ["Knife"]


@pytest.mark.rule("DT-B")
def test_a_gang_without_captives_changes_nothing() -> None:
    wolves = gang()
    assert return_captives(world(wolves), wolves.id).changes == []


@pytest.mark.rule("DT-C")
def test_promotion_needs_a_juve_or_prospect_with_three_advancements() -> None:
    ready = fighter("Ready", FighterCategory.PROSPECT, special_rules=[PROMOTION],
                    advancements=_advanced(3))
    green = fighter("Green", FighterCategory.JUVE, advancements=_advanced(2))
    veteran = fighter("Veteran", FighterCategory.GANGER, advancements=_advanced(5))
    wolves = gang(fighters=[ready, green, veteran])
    assert [f.name for f in promotion_candidates(world(wolves), wolves.id)] == ["Ready"]
    assert promotion_types(ready) == ["Goliath Forge Boss", "Goliath Stimmer"]
    assert "Ready (Prospect, 3 advancements) may be promoted to Goliath Forge Boss or " \
        "Goliath Stimmer." in promotion_note(world(wolves), wolves.id).notes
    with pytest.raises(NotEligible, match="Green is a Juve with 2"):
        promote(world(wolves), wolves.id, green.id, "Goliath Specialist")


@pytest.mark.rule("DT-C")
def test_promotion_changes_the_type_not_the_cost_and_takes_the_houses_category() -> None:
    ready = fighter("Ready", FighterCategory.PROSPECT, cost=80, special_rules=[PROMOTION],
                    advancements=_advanced(3))
    wolves = gang(fighters=[ready])
    template = FighterTemplate(fighter_type="Goliath Stimmer", category=FighterCategory.CHAMPION,
                               cost=100, gang_hierarchy=True)
    result = promote(world(wolves), wolves.id, ready.id, "goliath stimmer", template)
    promoted = result.gang(wolves.id).fighter(ready.id)
    assert promoted.fighter_type == "Goliath Stimmer"
    assert promoted.category is FighterCategory.CHAMPION and promoted.gang_hierarchy
    assert promoted.cost == 80 and promoted.profile == ready.profile
    assert PROMOTION not in promoted.special_rules
    with pytest.raises(NotEligible, match="not Goliath Specialist"):
        promote(world(wolves), wolves.id, ready.id, "Goliath Specialist")


@pytest.mark.rule("DT-D")
def test_fresh_recruitment_credits_not_spent_are_lost_never_the_stashs_own() -> None:
    wolves = gang(credits=40)
    given = fresh_recruitment(world(wolves), wolves.id, 250)
    assert given.gang(wolves.id).credits == 290
    spent = given.world.model_copy(deep=True)
    spent.gangs[wolves.id].credits = 190  # 100 spent out of the 250
    assert unspent_recruitment(spent, wolves.id, 40, 250).gang(wolves.id).credits == 40
    spent.gangs[wolves.id].credits = 10  # 280 spent: the Stash added 30
    assert unspent_recruitment(spent, wolves.id, 40, 250).gang(wolves.id).credits == 10


@pytest.mark.rule("DT-0")
def test_a_step_waits_for_every_party_then_moves_on() -> None:
    sequence = DowntimeSequence(id="d1", gang_id="g1", arbitrator_confirms=True)
    sequence.confirm(Party.OWNER)
    assert sequence.waiting_for == [Party.ARBITRATOR]
    with pytest.raises(OutOfStep, match="waiting for the arbitrator"):
        sequence.advance()
    sequence.confirm(Party.ARBITRATOR)
    assert sequence.advance() is DowntimeStep.CAPTIVES_RETURNED
    with pytest.raises(OutOfStep, match=r"is at B\. Captives are Returned"):
        sequence.require(DowntimeStep.PROMOTIONS)


@pytest.mark.rule("DT-0")
def test_without_the_arbitrators_say_the_owner_alone_confirms() -> None:
    sequence = DowntimeSequence(id="d1", gang_id="g1")
    for _step in DOWNTIME:
        sequence.confirm(Party.OWNER)
        sequence.advance()
    assert sequence.finished
    with pytest.raises(OutOfStep, match="needs no Arbitrator"):
        DowntimeSequence(id="d2", gang_id="g1").confirm(Party.ARBITRATOR)
