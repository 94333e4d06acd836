"""PB-3.1 to PB-3.3: scenario rewards, the 4D6 cap, Reputation gains before losses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import Battle
from rules.rewards import GangReward, ReputationChange, receive_rewards
from rules.world import World
from tests import factories as make


def _world(reputation: int = 5) -> World:
    wolves = make.gang("Ash Wolves", id="wolves", credits=100, reputation=reputation)
    rats = make.gang("Rust Rats", id="rats", credits=20)
    outsiders = make.gang("Outsiders", id="out")
    return make.world(wolves, rats, outsiders)


BATTLE = Battle(id="b1", gang_ids=["wolves", "rats"], winner="wolves")


def _rep(*amounts: int) -> list[ReputationChange]:
    return [ReputationChange(amount=a, reason=f"reason {a}") for a in amounts]


@pytest.mark.rule("PB-3.1")
def test_pb_3_1_credits_reputation_and_equipment_go_to_the_stash() -> None:
    world = _world()
    grenades = make.item("Frag grenades", 30, id="frag")
    reward = GangReward(
        gang_id="wolves", credit_dice=2, flat_credits=15, reputation_gains=_rep(2),
        items=[grenades],
    )
    result = receive_rewards(world, BATTLE, ScriptedRoller([3, 6]), [reward])
    gang = result.world.gang("wolves")
    assert gang.credits == 100 + 90 + 15
    assert gang.reputation == 7
    assert [i.id for i in gang.stash] == ["frag"]
    (outcome,) = result.gangs
    assert outcome.credits_gained == 105 and outcome.items_added == ["frag"]
    assert [(r.expression, r.faces, r.purpose) for r in result.rolls] == [
        ("2D6x10", (3, 6), "reward credits for Ash Wolves")
    ]
    assert world.gang("wolves").stash == [] and world.gang("wolves").credits == 100


@pytest.mark.rule("PB-3.1")
def test_pb_3_1_refuses_a_gang_that_did_not_fight_and_leaves_world_alone() -> None:
    world = _world()
    with pytest.raises(NotEligible, match="did not fight"):
        receive_rewards(world, BATTLE, ScriptedRoller([]), [GangReward(gang_id="out",
                                                                       flat_credits=10)])
    with pytest.raises(NotFound):
        receive_rewards(world, BATTLE, ScriptedRoller([]), [GangReward(gang_id="ghosts")])
    assert world.gang("out").credits == 100


@pytest.mark.rule("PB-3.1")
@pytest.mark.parametrize(
    "reward",
    [
        GangReward(gang_id="wolves", credit_dice=-1),
        GangReward(gang_id="wolves", credit_dice=21),
        GangReward(gang_id="wolves", flat_credits=-5),
        GangReward(gang_id="wolves", flat_credits=10_001),
        GangReward(gang_id="wolves", credit_dice=1, credit_multiplier=0),
        GangReward(gang_id="wolves", reputation_gains=_rep(-1)),
        GangReward(gang_id="wolves", reputation_losses=_rep(0)),
        GangReward(gang_id="wolves", reputation_gains=_rep(21)),
    ],
)
def test_pb_3_1_negative_or_absurd_rewards_are_refused(reward: GangReward) -> None:
    world = _world()
    roller = ScriptedRoller([6] * 20)
    with pytest.raises(InvalidRequest):
        receive_rewards(world, BATTLE, roller, [reward])
    assert roller.used == 0


@pytest.mark.rule("PB-3.1")
def test_pb_3_1_refuses_duplicate_entries_and_reused_item_ids() -> None:
    world = _world()
    twice = [GangReward(gang_id="rats"), GangReward(gang_id="rats")]
    with pytest.raises(InvalidRequest, match="one entry"):
        receive_rewards(world, BATTLE, ScriptedRoller([]), twice)
    clash = make.item("Autogun", 15, id="same")
    reused = [GangReward(gang_id="wolves", items=[clash]), GangReward(gang_id="rats",
                                                                      items=[clash])]
    with pytest.raises(InvalidRequest, match="already in use"):
        receive_rewards(world, BATTLE, ScriptedRoller([]), reused)
    carried = make.item("Autogun", 15, id="carried")
    world.gang("wolves").fighters[0].equipment.append(carried)
    again = [GangReward(gang_id="rats", items=[carried])]
    with pytest.raises(InvalidRequest, match="already in use"):
        receive_rewards(world, BATTLE, ScriptedRoller([]), again)
    assert world.gang("rats").stash == []


@pytest.mark.rule("PB-3.2")
@pytest.mark.parametrize(("asked", "rolled"), [(3, 3), (4, 4), (5, 4), (20, 4)])
def test_pb_3_2_never_more_than_four_reward_dice(asked: int, rolled: int) -> None:
    roller = ScriptedRoller([6] * rolled)
    result = receive_rewards(_world(), BATTLE, roller, [GangReward(gang_id="rats",
                                                                    credit_dice=asked)])
    assert roller.remaining == 0
    (dice,) = result.rolls
    assert len(dice.faces) == rolled and dice.total == 60 * rolled
    assert result.world.gang("rats").credits == 20 + 60 * rolled
    assert result.gangs[0].dice_capped == (asked > 4)
    assert any("capped" in n for n in result.notes) == (asked > 4)


@pytest.mark.rule("PB-3.2")
def test_pb_3_2_zero_dice_rolls_nothing_and_multiplier_applies() -> None:
    result = receive_rewards(
        _world(), BATTLE, ScriptedRoller([2]),
        [GangReward(gang_id="rats", credit_dice=1, credit_multiplier=5),
         GangReward(gang_id="wolves")],
    )
    assert [r.total for r in result.rolls] == [10]
    assert result.gangs[1].credit_roll is None and result.gangs[1].credits_gained == 0
    assert result.world.gang("wolves").credits == 100


@pytest.mark.rule("PB-3.3")
def test_pb_3_3_gains_before_losses_floor_applies_after() -> None:
    reward = GangReward(gang_id="wolves", reputation_gains=_rep(1), reputation_losses=_rep(3))
    result = receive_rewards(_world(reputation=2), BATTLE, ScriptedRoller([]), [reward])
    # Gains first: 2 + 1 = 3, then 3 - 3 = 0, raised to the floor of 1.
    # Losses first would have given max(1, 2 - 3) + 1 = 2.
    assert result.world.gang("wolves").reputation == 1
    assert (result.gangs[0].reputation_before, result.gangs[0].reputation_after) == (2, 1)


@pytest.mark.rule("PB-3.3")
def test_pb_3_3_gain_then_smaller_loss_is_net() -> None:
    reward = GangReward(gang_id="wolves", reputation_gains=_rep(3, 1),
                        reputation_losses=_rep(2))
    result = receive_rewards(_world(reputation=1), BATTLE, ScriptedRoller([]), [reward])
    assert result.world.gang("wolves").reputation == 3
    assert [c.after for c in result.changes if c.path == "reputation"] == [3]


@pytest.mark.rule("PB-3.3")
@given(
    start=st.integers(1, 30),
    gains=st.lists(st.integers(1, 20), max_size=4),
    losses=st.lists(st.integers(1, 20), max_size=4),
)
def test_pb_3_3_reputation_is_gains_minus_losses_never_below_one(
    start: int, gains: list[int], losses: list[int]
) -> None:
    reward = GangReward(gang_id="wolves", reputation_gains=_rep(*gains),
                        reputation_losses=_rep(*losses))
    result = receive_rewards(_world(reputation=start), BATTLE, ScriptedRoller([]), [reward])
    assert result.world.gang("wolves").reputation == max(1, start + sum(gains) - sum(losses))
