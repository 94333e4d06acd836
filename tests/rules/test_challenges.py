"""Challenges: challenge order, stakes by phase, limits and what a decline does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rules.campaign_types import Stake, find_type
from rules.challenge_order import Entrant
from rules.challenges import answer, declined_claim, make_challenge, pass_turn
from rules.cycles import Calendar, ChallengeStatus, close_current, new_calendar, open_next
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, OutOfStep
from rules.models import Gang
from rules.ruleset import RuleSet
from tests.factories import gang, territory, world

NOW = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)
ASH, BONE, CINDER = gang("Ash", id="a"), gang("Bone", id="b"), gang("Cinder", id="c")
NAMES = {g.id: g.name for g in (ASH, BONE, CINDER)}


def entrants(*gangs: Gang) -> list[Entrant]:
    return [Entrant(g.id, g.name, g.rating) for g in gangs]


def opened(ruleset: RuleSet, order_faces: list[int], cycles: int = 1,
           **type_fields: object) -> Calendar:
    """A Dominion calendar at cycle ``cycles``; the first order from ``order_faces``."""
    dominion = find_type(ruleset.campaign_types, "Dominion").model_copy(update=type_fields)
    calendar, _, _ = open_next(new_calendar(dominion, 1), entrants(ASH, BONE, CINDER), NOW,
                               ScriptedRoller(order_faces))
    for _ in range(cycles - 1):
        calendar, _, _ = close_current(calendar, NOW, lambda _: False)
        calendar, _, _ = open_next(calendar, entrants(ASH, BONE, CINDER), NOW,
                                   ScriptedRoller([1, 2, 3, 4, 5, 6] * 3))
    return calendar


RUINS = territory("Old Ruins", id="t1")
DOME = territory("Collapsed Dome", id="t2")
HELD = territory("Toll Crossing", id="t3", controller="b")
HOME = territory("Settlement", id="t4", controller="b", can_be_staked=False)
ALL = [RUINS, DOME, HELD, HOME]


def test_challenges_follow_the_order_and_passing_moves_it_on(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])  # Ash, Bone, Cinder
    with pytest.raises(NotEligible, match="Out of turn: Ash challenges next"):
        make_challenge(calendar, BONE, ASH, RUINS, ALL, NAMES, NOW)
    calendar = pass_turn(calendar, ASH, NAMES)
    calendar, made = make_challenge(calendar, BONE, CINDER, RUINS, ALL, NAMES, NOW)
    assert (made.number, made.territory, made.status) == (1, "t1", ChallengeStatus.OPEN)
    with pytest.raises(NotEligible, match="no turn waiting"):
        pass_turn(calendar, ASH, NAMES)


def test_a_cycle_planned_to_start_later_takes_challenges_from_its_start(
        ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])  # Ash, Bone, Cinder
    early = NOW - timedelta(minutes=1)
    with pytest.raises(NotEligible, match="Cycle 1 starts 2026-01-05 19:00 UTC"):
        make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, early)
    _, made = make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    assert made.cycle == 1


def test_occupation_stakes_unclaimed_territories_while_any_remain(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])
    with pytest.raises(NotEligible, match="only unclaimed Territories may be challenged for "
                                          "while any remain \\(2 left\\)"):
        make_challenge(calendar, ASH, BONE, HELD, ALL, NAMES, NOW)
    with pytest.raises(NotEligible, match="never be at stake"):
        make_challenge(calendar, ASH, BONE, HOME, ALL, NAMES, NOW)
    with pytest.raises(InvalidRequest, match="Name the Territory at stake: Old Ruins, "
                                             "Collapsed Dome"):
        make_challenge(calendar, ASH, BONE, None, ALL, NAMES, NOW)
    calendar, _ = make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    with pytest.raises(NotEligible, match="out of the pool"):
        make_challenge(calendar, BONE, CINDER, RUINS, ALL, NAMES, NOW)


def test_with_no_unclaimed_left_the_stake_is_the_defenders(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])
    claimed = [t.model_copy(update={"controller": "c"}) for t in (RUINS, DOME)]
    with pytest.raises(NotEligible, match="No unclaimed Territory remains"):
        make_challenge(calendar, ASH, BONE, claimed[0], [*claimed, HELD], NAMES, NOW)
    _, made = make_challenge(calendar, ASH, BONE, HELD, [*claimed, HELD], NAMES, NOW)
    assert made.territory == "t3"


def test_takeover_stakes_the_defenders_territory(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2], cycles=5)
    while calendar.open_cycle().turn != ASH.id:  # equal ratings: the roll-off decided
        calendar = pass_turn(calendar, BONE if calendar.open_cycle().turn == "b" else CINDER,
                             NAMES)
    with pytest.raises(NotEligible, match="the defender holds; Bone does not hold Old"):
        make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    _, made = make_challenge(calendar, ASH, BONE, HELD, ALL, NAMES, NOW)
    assert made.territory == "t3"


def test_downtime_allows_no_challenges(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2], cycles=4)
    with pytest.raises(NotEligible, match="Downtime phase allows no challenges"):
        make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)


def test_one_challenge_a_cycle_until_its_battles_are_played(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])
    calendar, _ = make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    calendar = pass_turn(pass_turn(calendar, BONE, NAMES), CINDER, NAMES)
    with pytest.raises(NotEligible, match="another only once all its battles are played"):
        make_challenge(calendar, ASH, CINDER, DOME, ALL, NAMES, NOW)
    calendar, _ = answer(calendar, 1, False, NOW, 0)  # declined: nothing waits any more
    calendar, again = make_challenge(calendar, ASH, CINDER, DOME, ALL, NAMES, NOW)
    assert again.number == 2


def test_one_battle_per_cycle_when_the_campaign_says_so(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2], one_battle_per_cycle=True)
    calendar, _ = make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    calendar = pass_turn(calendar, BONE, NAMES)
    with pytest.raises(NotEligible, match="Bone is already fighting this cycle"):
        make_challenge(calendar, CINDER, BONE, DOME, ALL, NAMES, NOW)


def test_a_declined_first_challenge_gives_the_stake_to_the_challenger(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])
    calendar, first = make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    calendar = pass_turn(calendar, BONE, NAMES)
    calendar, second = make_challenge(calendar, CINDER, BONE, DOME, ALL, NAMES, NOW)
    calendar, declined = answer(calendar, first.number, False, NOW, 0)
    assert declined.claimed
    result = declined_claim(world(ASH, BONE, territories=ALL), declined)
    assert result.world.territory("t1").controller == "a"
    assert [c.path for c in result.changes] == ["controller"]
    calendar, again = answer(calendar, second.number, False, NOW, 0)
    assert not again.claimed  # the second challenge this cycle: no penalty
    assert declined_claim(world(CINDER, BONE, territories=ALL), again).changes == []
    with pytest.raises(OutOfStep, match="declined already"):
        answer(calendar, second.number, True, NOW, 0)


def test_accepting_remembers_the_battles_so_far(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])
    calendar, made = make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    calendar, accepted = answer(calendar, made.number, True, NOW, 3)
    assert accepted.status is ChallengeStatus.ACCEPTED and accepted.battles_before == 3


def test_a_phase_without_stakes_refuses_a_territory(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])
    brawl = calendar.campaign_type.phases[0].model_copy(update={"stake": Stake.NONE})
    calendar = calendar.model_copy(update={"campaign_type": calendar.campaign_type.model_copy(
        update={"phases": [brawl, *calendar.campaign_type.phases[1:]]})})
    with pytest.raises(NotEligible, match="put no Territory at stake"):
        make_challenge(calendar, ASH, BONE, RUINS, ALL, NAMES, NOW)
    _, made = make_challenge(calendar, ASH, BONE, None, ALL, NAMES, NOW)
    assert made.territory is None


def test_no_gang_challenges_itself(ruleset: RuleSet) -> None:
    with pytest.raises(InvalidRequest, match="itself"):
        make_challenge(opened(ruleset, [6, 4, 2]), ASH, ASH, RUINS, ALL, NAMES, NOW)




def test_a_gang_deleted_since_the_draw_has_no_turn(ruleset: RuleSet) -> None:
    calendar = opened(ruleset, [6, 4, 2])  # Ash, Bone, Cinder; Ash is gone
    without_ash = {g: n for g, n in NAMES.items() if g != ASH.id}
    _, made = make_challenge(calendar, BONE, CINDER, RUINS, ALL, without_ash, NOW)
    assert made.challenger == BONE.id
    with pytest.raises(NotEligible, match="Out of turn: Ash"):
        make_challenge(calendar, BONE, CINDER, RUINS, ALL, NAMES, NOW)
