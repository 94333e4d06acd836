"""A campaign's calendar: opening, extending, planning and closing cycles."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rules.campaign_types import find_type
from rules.challenge_order import Entrant
from rules.cycles import (
    Calendar,
    Challenge,
    ChallengeStatus,
    close_current,
    extend,
    new_calendar,
    open_next,
    plan,
    set_limits,
    set_phase_cycles,
)
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, OutOfStep
from rules.ruleset import RuleSet

NOW = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)
GANGS = [Entrant("a", "Ash", 900), Entrant("b", "Bone", 700), Entrant("c", "Cinder", 800)]


@pytest.fixture
def calendar(ruleset: RuleSet) -> Calendar:
    return new_calendar(find_type(ruleset.campaign_types, "Dominion"), channel_id=7)


def test_the_first_cycle_lasts_a_week_and_draws_a_random_order(calendar: Calendar) -> None:
    opened, cycle, drawn = open_next(calendar, GANGS, NOW, ScriptedRoller([2, 6, 4]))
    assert (cycle.number, cycle.phase, cycle.in_phase) == (1, 0, 1)
    assert cycle.ends_at == NOW + timedelta(days=7)
    assert cycle.order == ["b", "c", "a"] and len(drawn.rolls) == 3
    assert opened.current == cycle and calendar.current is None


def test_later_cycles_go_by_rating_and_downtime_draws_nothing(calendar: Calendar) -> None:
    for number in range(1, 5):
        calendar, cycle, drawn = open_next(calendar, GANGS, NOW, ScriptedRoller([1, 2, 3]))
        if number > 1 and number != 4:
            assert cycle.order == ["b", "c", "a"] and drawn.rolls == []
        calendar, _, _ = close_current(calendar, NOW, lambda _: False)
    assert cycle.number == 4 and calendar.phase(cycle).downtime and cycle.order == []


def test_a_second_open_cycle_is_refused(calendar: Calendar) -> None:
    calendar, _, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([1, 2, 3]))
    with pytest.raises(OutOfStep, match="still open"):
        open_next(calendar, GANGS, NOW, ScriptedRoller([]))


def test_closing_lapses_what_waits_and_keeps_what_was_played(calendar: Calendar) -> None:
    calendar, _, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([1, 2, 3]))
    waiting = [Challenge(number=n, cycle=1, challenger="a", defender="b", made_at=NOW,
                         status=status)
               for n, status in ((1, ChallengeStatus.OPEN), (2, ChallengeStatus.ACCEPTED),
                                 (3, ChallengeStatus.ACCEPTED), (4, ChallengeStatus.DECLINED))]
    calendar = calendar.model_copy(update={"challenges": waiting})
    closed, cycle, lapsed = close_current(calendar, NOW, lambda c: c.number == 3)
    assert [c.number for c in lapsed] == [1, 2]
    assert [c.status for c in closed.challenges] == [
        ChallengeStatus.LAPSED, ChallengeStatus.LAPSED, ChallengeStatus.PLAYED,
        ChallengeStatus.DECLINED]
    assert cycle.ended_at == NOW and closed.current is None and closed.finished_at is None


def test_the_last_cycle_ends_the_campaign(calendar: Calendar) -> None:
    for _ in range(7):
        calendar, _, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([1, 2, 3]))
        calendar, _, _ = close_current(calendar, NOW, lambda _: False)
    assert calendar.finished_at == NOW
    with pytest.raises(OutOfStep, match="over"):
        open_next(calendar, GANGS, NOW, ScriptedRoller([]))


def test_extend_moves_the_end_later_only(calendar: Calendar) -> None:
    calendar, cycle, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([1, 2, 3]))
    assert cycle.ends_at is not None
    later = extend(calendar, cycle.ends_at + timedelta(days=2))
    assert later.cycles[0].ends_at == cycle.ends_at + timedelta(days=2)
    with pytest.raises(InvalidRequest, match="later"):
        extend(calendar, cycle.ends_at - timedelta(days=1))


def test_planned_dates_are_used_when_the_cycle_opens(calendar: Calendar) -> None:
    start, end = NOW + timedelta(days=10), NOW + timedelta(days=20)
    planned = plan(calendar, 2, start, end)
    planned, _, _ = open_next(planned, GANGS, NOW, ScriptedRoller([1, 2, 3]))
    planned, _, _ = close_current(planned, NOW, lambda _: False)
    planned, second, _ = open_next(planned, GANGS, NOW, ScriptedRoller([]))
    assert (second.starts_at, second.ends_at) == (start, end)
    with pytest.raises(InvalidRequest, match="after it starts"):
        plan(calendar, 3, end, start)
    with pytest.raises(InvalidRequest, match="cycles 1 to 7"):
        plan(calendar, 9, start, end)


def test_a_planned_end_that_passed_before_the_cycle_opened_gives_the_types_length(
        calendar: Calendar) -> None:
    planned = plan(calendar, 2, None, NOW + timedelta(days=10))
    planned, _, _ = open_next(planned, GANGS, NOW, ScriptedRoller([1, 2, 3]))
    late = NOW + timedelta(days=12)  # cycle 1 was extended past cycle 2's planned end
    planned, _, _ = close_current(planned, late, lambda _: False)
    planned, second, drawn = open_next(planned, GANGS, late, ScriptedRoller([]))
    assert (second.starts_at, second.ends_at) == (late, late + timedelta(days=7))
    assert "planned end had passed" in drawn.notes[0]


def test_the_open_cycles_end_can_be_set_but_not_its_start(calendar: Calendar) -> None:
    calendar, _, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([1, 2, 3]))
    moved = plan(calendar, 1, None, NOW + timedelta(days=3))
    assert moved.cycles[0].ends_at == NOW + timedelta(days=3)
    with pytest.raises(InvalidRequest, match="only its end"):
        plan(calendar, 1, NOW, NOW + timedelta(days=3))


def test_phase_counts_change_only_ahead(calendar: Calendar) -> None:
    longer = set_phase_cycles(calendar, "Occupation", 4)
    assert longer.campaign_type.total_cycles == 8
    for _ in range(2):
        calendar, _, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([1, 2, 3]))
        calendar, _, _ = close_current(calendar, NOW, lambda _: False)
    calendar, _, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([]))
    with pytest.raises(InvalidRequest, match="have begun already"):
        set_phase_cycles(calendar, "Occupation", 2)
    calendar, _, _ = close_current(calendar, NOW, lambda _: False)
    calendar, _, _ = open_next(calendar, GANGS, NOW, ScriptedRoller([]))
    with pytest.raises(InvalidRequest, match="is over"):
        set_phase_cycles(calendar, "Occupation", 5)


def test_the_arbitrator_sets_the_challenge_limits(calendar: Calendar) -> None:
    assert calendar.campaign_type.challenges_per_cycle == 1
    free = set_limits(calendar, 0, True)
    assert free.campaign_type.challenges_per_cycle is None
    assert free.campaign_type.one_battle_per_cycle
    two = set_limits(free, 2, None)
    assert two.campaign_type.challenges_per_cycle == 2 and two.campaign_type.one_battle_per_cycle
    with pytest.raises(InvalidRequest, match="0 \\(no limit\\) to 20"):
        set_limits(calendar, 21, None)
    with pytest.raises(InvalidRequest, match="Give a limit"):
        set_limits(calendar, None, None)
