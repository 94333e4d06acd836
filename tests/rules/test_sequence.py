"""The post-battle sequence state machine (PB-0, PB-6, PB-6B.6 once, PB-6B.8)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from rules.actions import Actor, trade
from rules.boons import BoonClaim, claim_boons
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, OutOfStep
from rules.models import Battle, FighterCategory
from rules.ruleset import RuleSet
from rules.sequence import PostBattleSequence, Step, SubStep
from rules.tradingpost import buy_rare_item
from rules.world import World
from tests.factories import fighter, gang, territory, world

CAMPAIGN_ORDER = [
    "Wrap-up",
    "Assign/Reassign Territory",
    "Receive Rewards",
    "Collect Income",
    "Post-battle Actions",
    "Update Roster (A. Clean House)",
    "Update Roster (B. Visit the Trading Post)",
    "Update Roster (C. Gain Boons from Territories)",
    "Update Roster (D. Distribute Equipment)",
    "Update Roster (E. Purchase Advancements)",
    "Update Roster (F. Update Gang Rating)",
    "Report Results",
    "Finished",
]


def setup(gangs: int = 2) -> World:
    made = [
        gang(f"Gang {n}", id=f"g{n}", credits=200, reputation=5, fighters=[
            fighter("Boss", FighterCategory.LEADER, cost=120, id=f"boss{n}"),
            fighter("Champ", FighterCategory.CHAMPION, cost=90, id=f"champ{n}"),
            fighter("Grunt", cost=50, id=f"grunt{n}"),
        ])
        for n in range(1, gangs + 1)
    ]
    return world(*made, territories=[territory("Settlement", id="settle", controller="g1",
                                               boons=["+1 Reputation"])])


def battle(gangs: int = 2, campaign: bool = True) -> Battle:
    return Battle(id="b1", gang_ids=[f"g{n}" for n in range(1, gangs + 1)], winner="g1",
                  campaign=campaign)


def everyone_confirms(seq: PostBattleSequence) -> str:
    for gang_id in seq.gang_ids:
        seq.confirm(gang_id)
    return seq.advance()


def go_to(seq: PostBattleSequence, step: Step, substep: SubStep | None = None) -> None:
    while seq.stage != (step, substep):
        everyone_confirms(seq)


def at_the_trading_post(w: World, trader: str) -> PostBattleSequence:
    """A sequence of battle() in which Gang 1's ``trader`` made the Trade action, now at
    the Trading Post sub-step."""
    seq = PostBattleSequence.start("s1", battle(), w)
    go_to(seq, Step.POST_BATTLE_ACTIONS)
    seq.record_action("g1", trader, "Trade")
    go_to(seq, Step.UPDATE_ROSTER, SubStep.TRADING_POST)
    return seq


# --------------------------------------------------------------------------- PB-0


@pytest.mark.rule("PB-0")
def test_pb_0_seven_steps_in_order_in_a_campaign() -> None:
    seq = PostBattleSequence.start("s1", battle(), setup())
    visited = [seq.label]
    while not seq.finished:
        visited.append(everyone_confirms(seq))
    assert visited == CAMPAIGN_ORDER
    assert seq.clears_in_recovery


@pytest.mark.rule("PB-0")
def test_pb_0_skirmish_skips_the_campaign_only_parts() -> None:
    seq = PostBattleSequence.start("s1", battle(campaign=False), setup())
    assert seq.skirmish and not seq.clears_in_recovery
    visited = [seq.label]
    while not seq.finished:
        visited.append(everyone_confirms(seq))
    skipped = {"Post-battle Actions", "Update Roster (E. Purchase Advancements)",
               "Report Results"}
    assert visited == [label for label in CAMPAIGN_ORDER if label not in skipped]
    with pytest.raises(OutOfStep, match="campaign-only"):
        seq.require(Step.POST_BATTLE_ACTIONS)


@pytest.mark.rule("PB-0")
def test_pb_0_every_participating_player_must_confirm() -> None:
    seq = PostBattleSequence.start("s1", battle(gangs=3), setup(gangs=3))
    seq.confirm("g1")
    seq.confirm("g2")
    assert seq.waiting_for == ["g3"] and not seq.all_confirmed
    with pytest.raises(OutOfStep, match="waiting for g3"):
        seq.advance()
    assert seq.step is Step.WRAP_UP
    seq.confirm("g3")
    seq.confirm("g3")  # confirming twice is harmless
    assert seq.advance() == "Assign/Reassign Territory"
    assert seq.waiting_for == ["g1", "g2", "g3"]  # a new step needs new confirmations
    with pytest.raises(NotEligible):
        seq.confirm("g9")


@pytest.mark.rule("PB-0")
def test_pb_0_require_names_the_step_asked_for_and_the_current_one() -> None:
    seq = PostBattleSequence.start("s1", battle(), setup())
    seq.require(Step.WRAP_UP)
    with pytest.raises(OutOfStep) as caught:
        seq.require(Step.COLLECT_INCOME)
    assert caught.value.message == "That belongs to Collect Income; this battle is at Wrap-up."
    go_to(seq, Step.FINISHED)
    with pytest.raises(OutOfStep, match="is over"):
        seq.require(Step.WRAP_UP)
    with pytest.raises(OutOfStep):
        seq.confirm("g1")
    with pytest.raises(OutOfStep):
        seq.advance()


@pytest.mark.rule("PB-0")
def test_pb_0_state_round_trips_through_json(ruleset: RuleSet) -> None:
    w = setup()
    seq = at_the_trading_post(w, "champ1")
    seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([4, 4]), ruleset)
    seq.defer("g2", SubStep.ADVANCEMENTS, agreed_by=["g1", "g2"], arbitrator_agreed=True)
    seq.confirm("g1")
    text = seq.model_dump_json()
    assert PostBattleSequence.model_validate_json(text) == seq
    assert PostBattleSequence.model_validate(json.loads(text)) == seq


@pytest.mark.rule("PB-0")
def test_pb_0_inconsistent_state_is_refused_on_load() -> None:
    with pytest.raises(ValidationError):
        PostBattleSequence(id="s", battle_id="b", gang_ids=["a", "b"],
                           substep=SubStep.CLEAN_HOUSE)
    with pytest.raises(ValidationError):
        PostBattleSequence(id="s", battle_id="b", gang_ids=["a", "b"], step=Step.UPDATE_ROSTER)
    with pytest.raises(ValidationError):
        PostBattleSequence(id="s", battle_id="b", gang_ids=["a", "a"])


@pytest.mark.rule("PB-0")
def test_pb_0_start_stores_ratings_and_reads_skirmish_from_the_battle() -> None:
    w = setup()
    seq = PostBattleSequence.start("s1", battle(), w)
    assert seq.rating_before_update == {"g1": 260, "g2": 260} and not seq.skirmish
    assert PostBattleSequence.start("s1", battle(), w, skirmish=True).skirmish


# --------------------------------------------------------------------------- PB-6


@pytest.mark.rule("PB-6")
def test_pb_6_update_roster_sub_steps_are_gated_in_order() -> None:
    seq = PostBattleSequence.start("s1", battle(), setup())
    go_to(seq, Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE)
    seq.require(Step.UPDATE_ROSTER)
    seq.require(Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE)
    with pytest.raises(OutOfStep) as caught:
        seq.require(Step.UPDATE_ROSTER, SubStep.TRADING_POST)
    assert caught.value.message == (
        "That belongs to Update Roster (B. Visit the Trading Post); this battle is at "
        "Update Roster (A. Clean House)."
    )
    everyone_confirms(seq)
    seq.require(Step.UPDATE_ROSTER, SubStep.TRADING_POST)
    with pytest.raises(OutOfStep):
        seq.require(Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE)


@pytest.mark.rule("PB-6")
def test_pb_6_post_battle_actions_are_recorded_once_per_fighter() -> None:
    w = setup()
    seq = PostBattleSequence.start("s1", battle(), w)
    with pytest.raises(OutOfStep):
        seq.record_action("g1", "champ1", "Trade")
    go_to(seq, Step.POST_BATTLE_ACTIONS)
    actor = Actor(battle=battle(), gang_id="g1", fighter_id="champ1",
                  already_acted=seq.already_acted("g1"))
    seq.record_action_result(trade(w, actor))
    assert seq.post_battle_actions == {"g1": {"champ1": "Trade"}}
    assert seq.already_acted("g1") == frozenset({"champ1"})
    with pytest.raises(NotEligible, match="already made"):
        seq.record_action("g1", "champ1", "Medical Escort")
    with pytest.raises(InvalidRequest):
        seq.record_action("g1", "boss1", "  ")
    assert [f.id for f in seq.traders(w, "g1")] == ["champ1"]


@pytest.mark.rule("PB-6C")
def test_pb_6c_sequence_remembers_claimed_boons() -> None:
    w = setup()
    seq = PostBattleSequence.start("s1", battle(), w)
    claim = [BoonClaim(territory_id="settle", reputation=1)]
    result = claim_boons(w, "g1", seq.id, claim, claimed_before=seq.claimed_boons("g1"))
    seq.record_boons(result)
    assert seq.claimed_boons("g1") == ["settle"]
    with pytest.raises(NotEligible):
        claim_boons(result.world, "g1", seq.id, claim, claimed_before=seq.claimed_boons("g1"))
    other = claim_boons(w, "g1", "s2", claim)
    with pytest.raises(InvalidRequest):
        seq.record_boons(other)


# --------------------------------------------------------------------------- PB-6B.6


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_availability_rolled_once_per_sequence(ruleset: RuleSet) -> None:
    w = setup()
    seq = PostBattleSequence.start("s1", battle(), w)
    go_to(seq, Step.POST_BATTLE_ACTIONS)
    seq.record_action("g1", "boss1", "Trade")
    seq.record_action("g1", "champ1", "Trade")
    with pytest.raises(OutOfStep):
        seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([]), ruleset)
    go_to(seq, Step.UPDATE_ROSTER, SubStep.TRADING_POST)
    result = seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([2, 3]), ruleset)
    assert result.availability == 5 + 2 + 1  # Leader and one Champion traded
    assert seq.offer("g1") == result.offer
    with pytest.raises(NotEligible, match="once per post-battle sequence"):
        seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([6, 6]), ruleset)
    with pytest.raises(NotEligible, match="Trade"):
        seq.seek_rare_and_illegal(w, "g2", ScriptedRoller([]), ruleset)
    assert seq.offer("g2") is None


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_a_second_roll_is_refused_with_what_the_first_unlocked(
    ruleset: RuleSet,
) -> None:
    w = setup()
    seq = at_the_trading_post(w, "boss1")
    seq.require_unsought("g1", "Gang 1")  # nothing rolled yet: no refusal
    with pytest.raises(NotEligible, match="Gang 1 has not sought Rare & Illegal"):
        seq.sought_offer("g1", "Gang 1")
    offer = seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([1, 1]), ruleset).offer
    assert seq.sought_offer("g1", "Gang 1") == offer
    unlocked = ", ".join(offer.unlocked_names) or "nothing"
    expected = f"Gang 1 rolled {offer.availability} already: {unlocked} on offer"
    with pytest.raises(NotEligible, match=expected):
        seq.require_unsought("g1", "Gang 1")
    with pytest.raises(NotEligible, match=expected):
        seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([6, 6]), ruleset)


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_a_second_roll_names_a_long_offer_in_short(ruleset: RuleSet) -> None:
    w = setup()
    seq = at_the_trading_post(w, "boss1")
    offer = seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([6, 6]), ruleset).offer
    names = offer.unlocked_names
    assert len(names) > 100  # the Armoury at availability 14 and more
    with pytest.raises(NotEligible) as refused:
        seq.require_unsought("g1", "Gang 1")
    message = refused.value.message
    assert f"{', '.join(names[:8])} and {len(names) - 8} more on offer." in message
    assert len(message) < 400


# --------------------------------------------------------------------------- PB-6B.8


def at_trading_post(campaign: bool = True) -> PostBattleSequence:
    seq = PostBattleSequence.start("s1", battle(campaign=campaign), setup())
    go_to(seq, Step.UPDATE_ROSTER, SubStep.TRADING_POST)
    return seq


@pytest.mark.rule("PB-6B.8")
def test_pb_6b_8_deferral_needs_every_player_and_the_arbitrator() -> None:
    seq = at_trading_post()
    with pytest.raises(NotEligible, match="g2 has not agreed"):
        seq.defer("g1", SubStep.TRADING_POST, agreed_by=["g1"], arbitrator_agreed=True)
    with pytest.raises(NotEligible, match="Arbitrator"):
        seq.defer("g1", SubStep.TRADING_POST, agreed_by=["g1", "g2"])
    assert seq.deferred == {}
    seq.defer("g1", SubStep.TRADING_POST, agreed_by=["g1", "g2"], arbitrator_agreed=True)
    assert seq.deferred == {"g1": [SubStep.TRADING_POST]}
    skirmish = at_trading_post(campaign=False)
    skirmish.defer("g1", SubStep.DISTRIBUTE_EQUIPMENT, agreed_by=["g1", "g2"])
    assert skirmish.deferred == {"g1": [SubStep.DISTRIBUTE_EQUIPMENT]}
    with pytest.raises(OutOfStep):
        skirmish.defer("g1", SubStep.ADVANCEMENTS, agreed_by=["g1", "g2"])


@pytest.mark.rule("PB-6B.8")
def test_pb_6b_8_only_three_sub_steps_and_not_once_passed() -> None:
    seq = at_trading_post()
    agreed = {"agreed_by": ["g1", "g2"], "arbitrator_agreed": True}
    with pytest.raises(InvalidRequest):
        seq.defer("g1", SubStep.TERRITORY_BOONS, **agreed)
    with pytest.raises(InvalidRequest):
        seq.defer("g1", SubStep.CLEAN_HOUSE, **agreed)
    everyone_confirms(seq)
    with pytest.raises(OutOfStep, match="over"):
        seq.defer("g1", SubStep.TRADING_POST, **agreed)
    seq.defer("g1", SubStep.ADVANCEMENTS, **agreed)


@pytest.mark.rule("PB-6B.8")
def test_pb_6b_8_roll_now_spend_later_until_the_next_pre_battle(ruleset: RuleSet) -> None:
    w = setup()
    seq = at_the_trading_post(w, "champ1")
    offer = seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([3, 4]), ruleset).offer  # 8
    seq.defer("g1", SubStep.TRADING_POST, agreed_by=["g1", "g2"], arbitrator_agreed=True)
    go_to(seq, Step.FINISHED)

    with pytest.raises(OutOfStep):
        seq.require(Step.UPDATE_ROSTER, SubStep.TRADING_POST, "g1")  # not reopened yet
    seq.reopen("g1", SubStep.TRADING_POST)
    seq.require(Step.UPDATE_ROSTER, SubStep.TRADING_POST, "g1")
    with pytest.raises(OutOfStep):
        seq.require(Step.UPDATE_ROSTER, SubStep.TRADING_POST, "g2")
    with pytest.raises(NotEligible, match="once"):
        seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([]), ruleset)
    bought = buy_rare_item(w, "g1", "Boltgun", seq.offer("g1") or offer, "i1")
    assert bought.world.gang("g1").stash[0].name == "Boltgun"

    seq.end_deferred("g1", SubStep.TRADING_POST)
    with pytest.raises(OutOfStep):
        seq.require(Step.UPDATE_ROSTER, SubStep.TRADING_POST, "g1")
    with pytest.raises(NotEligible):
        seq.reopen("g1", SubStep.TRADING_POST)


@pytest.mark.rule("PB-6B.8")
def test_pb_6b_8_next_pre_battle_sequence_closes_deferrals() -> None:
    seq = at_trading_post()
    agreed = {"agreed_by": ["g1", "g2"], "arbitrator_agreed": True}
    seq.defer("g1", SubStep.TRADING_POST, **agreed)
    seq.defer("g1", SubStep.DISTRIBUTE_EQUIPMENT, **agreed)
    seq.defer("g2", SubStep.ADVANCEMENTS, **agreed)
    go_to(seq, Step.FINISHED)
    seq.reopen("g1", SubStep.DISTRIBUTE_EQUIPMENT)
    closed = seq.close_deferred_at_prebattle("g1")
    assert closed == {"g1": [SubStep.TRADING_POST, SubStep.DISTRIBUTE_EQUIPMENT]}
    with pytest.raises(OutOfStep, match="closed"):
        seq.reopen("g1", SubStep.TRADING_POST)
    with pytest.raises(OutOfStep):
        seq.require(Step.UPDATE_ROSTER, SubStep.DISTRIBUTE_EQUIPMENT, "g1")
    seq.reopen("g2", SubStep.ADVANCEMENTS)  # g2's next pre-battle has not come yet
    seq.require(Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS, "g2")
    assert seq.close_deferred_at_prebattle() == {"g2": [SubStep.ADVANCEMENTS]}
    with pytest.raises(OutOfStep):
        seq.require(Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS, "g2")


@pytest.mark.rule("PB-6B.6")
def test_pb_6b_6_a_trader_retired_in_clean_house_adds_nothing(ruleset: RuleSet) -> None:
    w = setup()
    seq = at_the_trading_post(w, "boss1")
    retired = w.model_copy(deep=True)
    retired.gang("g1").fighters.pop(0)  # Clean House deleted the Leader
    with pytest.raises(NotEligible, match="Trade"):
        seq.seek_rare_and_illegal(retired, "g1", ScriptedRoller([]), ruleset)
    assert seq.offer("g1") is None
    assert seq.seek_rare_and_illegal(w, "g1", ScriptedRoller([1, 1]), ruleset).availability == 4
