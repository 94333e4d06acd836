"""The post-battle sequence's decisions, step by step, with no Discord and no storage.

Each step is an actor (bot.call.Actor) and an action given to bot.battle.flow,
which refuses (nothing changed: the run given is never touched) or returns the
run to store, the rolls to store with it and the scene to draw.
"""

from __future__ import annotations

import ast
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.battle import flow
from bot.battle.panel import ReportEdit
from bot.battle.state import Phase, PostBattleRun, StageStatus
from bot.call import Actor
from bot.errors import Refused
from bot.storage import Campaign
from rules.errors import InvalidRequest, OutOfStep, RulesError
from rules.models import Battle, CampaignSettings, FighterCategory
from rules.sequence import Step
from rules.world import RuleResult, World
from tests import factories as f

ALICE, BOB, CAROL, ARBITER = Actor(10), Actor(20), Actor(30), Actor(99)
MANAGER = Actor(77, manages_server=True)


def _campaign() -> Campaign:
    return Campaign(id="c1", guild_id=1, settings=CampaignSettings(name="Underhive"),
                    arbitrator_user_ids=[99], created_at=datetime.now(UTC))


def _world() -> World:
    rats = [f.fighter(f"Rat {n}", FighterCategory.GANGER, id=f"r{n}") for n in range(3)]
    wolves = [f.fighter(f"Wolf {n}", FighterCategory.GANGER, id=f"w{n}") for n in range(2)]
    return f.world(
        f.gang("Ash Wolves", fighters=wolves, id="g1", owner="10"),
        f.gang("Iron Fangs", fighters=rats, id="g2", owner="20"),
        f.gang("Sump Rats", id="g3", owner="30"),
    )


def _battle() -> Battle:
    return Battle(id="b1", gang_ids=["g1", "g2"], winner="g1", campaign=True)


def _run() -> PostBattleRun:
    return flow.new_run(ALICE, _campaign(), _battle(), _world(), skirmish=False,
                        sequence_id="s1", channel_id=5)


def _reported() -> PostBattleRun:
    """Both reports submitted and the Wrap-up open."""
    run, world, campaign = _run(), _world(), _campaign()
    run = flow.submit_report(ALICE, campaign, run, world, 0).run
    decision = flow.submit_report(BOB, campaign, run, world, 1)
    flow.open_wrap_up(decision, BOB, campaign, _battle(), world)
    return decision.run


def _refused(kind: type[Exception], text: str, call: object, *args: object,
             **kwargs: object) -> None:
    with pytest.raises(kind) as refusal:
        call(*args, **kwargs)  # type: ignore[operator]
    assert text in str(refusal.value), str(refusal.value)


# --------------------------------------------------------------------------- no Discord


def test_the_decisions_import_nothing_from_discord() -> None:
    for module in ("bot/battle/flow", "bot/battle/panel", "bot/battle/state", "rules/stages"):
        tree = ast.parse(Path(f"{module}.py").read_text())
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                     for a in n.names]
        assert not [m for m in imported if m.split(".")[0] == "discord"
                    or m in ("bot.battle.engine", "bot.battle.views")], module


# --------------------------------------------------------------------------- starting


def test_start_refuses_strangers_busy_gangs_runs_already_run_and_bad_stakes() -> None:
    campaign, world = _campaign(), _world()
    request = flow.StartRequest(None, ["g1", "g2"], "g1", None, None, None)
    battle = flow.battle_to_start(request, None, "b1")
    _refused(Refused, "Only a player whose gang fought", flow.check_start, CAROL, campaign,
             world, battle, request, busy=[], existing=None)
    _refused(Refused, "Iron Fangs is already in a post-battle sequence", flow.check_start,
             ALICE, campaign, world, battle, request, busy=["g2"], existing=None)
    _refused(Refused, "has already been run", flow.check_start, ALICE, campaign, world,
             battle, request, busy=[], existing=_run())
    staked = Battle(id="b1", gang_ids=["g1", "g2"], winner="g1", staked_territory="t9")
    _refused(InvalidRequest, "not one of this campaign's", flow.check_start, ARBITER,
             campaign, world, staked, request, busy=[], existing=None)
    stored, skirmish = flow.check_start(MANAGER, campaign, world, battle, request, busy=[],
                                        existing=None)
    assert stored.campaign and not skirmish


def test_a_start_request_names_two_or_more_different_gangs_and_a_winner_among_them() -> None:
    def request(gangs: list[str], winner: str | None) -> flow.StartRequest:
        return flow.StartRequest(None, gangs, winner, None, None, None)

    _refused(InvalidRequest, "at least two gangs", flow.battle_to_start,
             request(["g1"], None), None, "b1")
    _refused(InvalidRequest, "each gang once", flow.battle_to_start,
             request(["g1", "g1"], None), None, "b1")
    _refused(InvalidRequest, "one of the gangs that fought", flow.battle_to_start,
             request(["g1", "g2"], "g3"), None, "b1")
    _refused(InvalidRequest, "one of the battle's gangs", flow.battle_to_start,
             request([], "g3"), _battle(), "b1")
    assert flow.battle_to_start(request([], None), _battle(), "b9").winner is None


# --------------------------------------------------------------------------- reporting


def test_a_report_is_edited_by_its_player_or_an_arbitrator_only() -> None:
    run, world, campaign = _run(), _world(), _campaign()
    pick = ReportEdit(kind="pick", section="ooa", slot=0, values=["r1"])
    _refused(Refused, "Only Iron Fangs' player", flow.edit_report, ALICE, campaign, run,
             world, 1, pick)
    _refused(Refused, "not part of this battle", flow.edit_report, BOB, campaign, run, world,
             3, pick)
    _refused(InvalidRequest, "not available", flow.edit_report, BOB, campaign, run, world, 1,
             ReportEdit(kind="section", section="nonsense"))
    decision = flow.edit_report(ARBITER, campaign, run, world, 1, pick)
    assert decision.run.reports["g2"].marked("out_of_action") == ["r1"]
    assert run.reports["g2"].marked("out_of_action") == []  # the run given is untouched
    assert decision.scene.report_gangs == [1] and not decision.actions


def test_changing_a_submitted_report_unsubmits_it_and_says_so() -> None:
    run, world, campaign = _run(), _world(), _campaign()
    run = flow.submit_report(BOB, campaign, run, world, 1).run
    assert run.reports["g2"].submitted
    decision = flow.edit_report(BOB, campaign, run, world, 1, ReportEdit(kind="bottled"))
    assert not decision.run.reports["g2"].submitted
    assert "press Submit again" in decision.scene.note
    paging = flow.edit_report(BOB, campaign, run, world, 1, ReportEdit(kind="next"))
    assert paging.run.reports["g2"].submitted and not paging.scene.note


def test_the_last_report_records_the_end_states_and_rolls_the_wrap_up() -> None:
    run, world, campaign = _run(), _world(), _campaign()
    run = flow.edit_report(BOB, campaign, run, world, 1,
                           ReportEdit(kind="pick", section="ooa", values=["r1"])).run
    first = flow.submit_report(ALICE, campaign, run, world, 0)
    assert "Waiting for: Iron Fangs" in first.scene.note and not first.needs_rosters
    last = flow.submit_report(BOB, campaign, first.run, world, 1)
    assert last.needs_rosters and last.run.phase is Phase.REPORTING
    flow.open_wrap_up(last, BOB, campaign, _battle(), world)
    assert last.run.phase is Phase.SEQUENCE and last.battle is not None
    assert [e.fighter_id for e in last.battle.fighters if e.fighter_id == "r1"] == ["r1"]
    assert [r.step for r in last.run.stages] == [Step.WRAP_UP]
    assert last.scene.owe_stages == [1] and last.scene.reports
    assert last.actions and all(a.step == "Wrap-up" for a in last.actions)
    assert any("Rat 1" in line for line in last.run.stages[0].lines)
    # Reports are closed now.
    _refused(Refused, "reports are closed", flow.edit_report, BOB, campaign, last.run, world,
             1, ReportEdit(kind="bottled"))


def test_a_three_gang_report_names_who_took_each_fighter_out() -> None:
    campaign, world = _campaign(), _world()
    battle = Battle(id="b1", gang_ids=["g1", "g2", "g3"], winner="g1")
    run = flow.new_run(ALICE, campaign, battle, world, skirmish=False, sequence_id="s1",
                       channel_id=5)
    run = flow.edit_report(BOB, campaign, run, world, 1,
                           ReportEdit(kind="pick", section="ooa", values=["r0"])).run
    _refused(InvalidRequest, "which enemy took each fighter", flow.submit_report, BOB,
             campaign, run, world, 1)


# --------------------------------------------------------------------------- confirming


def test_confirmations_step_by_step_with_every_refusal() -> None:
    campaign, world = _campaign(), _world()
    _refused(Refused, "still reporting", flow.confirm, ALICE, campaign, _run(), world, None)
    run = _reported()
    _refused(Refused, "Only the players of this battle", flow.confirm, CAROL, campaign, run,
             world, 1)
    _refused(Refused, "You have no gang in this battle", flow.confirm, ARBITER, campaign, run,
             world, 1)
    _refused(Refused, "Only an Arbitrator", flow.confirm, ALICE, campaign, run, world, 1,
             "g2", on_behalf=True)
    _refused(Refused, "did not fight this battle", flow.confirm, ARBITER, campaign, run,
             world, 1, "g3", on_behalf=True)

    alice = flow.confirm(ALICE, campaign, run, world, 1)
    assert alice.scene.note == "Confirmed Wrap-up for Ash Wolves." and not alice.needs_rosters
    assert alice.scene.stages == [1] and not alice.scene.owe_stages
    again = flow.confirm(ALICE, campaign, alice.run, world, 1)
    assert not again.changed and "Already confirmed" in again.scene.note

    bob = flow.confirm(ARBITER, campaign, alice.run, world, 1, "g2", on_behalf=True,
                       who="Dee")
    assert bob.needs_rosters and bob.run.stages[0].status is StageStatus.CONFIRMED
    assert bob.run.stages[0].confirmations["g2"].on_behalf
    assert "Dee (Arbitrator) confirmed Wrap-up for Iron Fangs" in bob.actions[0].result.notes[0]
    flow.open_next(bob, ARBITER, campaign, _battle(), world)
    assert len(bob.run.stages) == 2 and bob.scene.stages == [1, 2]
    assert bob.scene.owe_stages == [2] and "Next:" in bob.scene.note

    # The Wrap-up's message is closed now.
    late = flow.confirm(BOB, campaign, bob.run, world, 1)
    assert not late.changed and "Already confirmed" in late.scene.note
    undone = flow.undo(ARBITER, campaign, bob.run, 2).run  # the Wrap-up opens again
    _refused(Refused, "is closed; this battle is at Wrap-up", flow.confirm, ALICE, campaign,
             undone, world, 2)
    cancelled = flow.cancel(ARBITER, campaign, bob.run).run
    _refused(Refused, "was cancelled", flow.confirm, ALICE, campaign, cancelled, world, 2)


def test_the_last_step_finishes_the_run_and_owes_the_report() -> None:
    campaign, world = _campaign(), _world()
    run = _reported()
    steps = 0
    while run.phase is Phase.SEQUENCE:
        number = run.stages[-1].number
        run = flow.confirm(ALICE, campaign, run, world, number).run
        decision = flow.confirm(BOB, campaign, run, world, number)
        assert decision.needs_rosters
        world = flow.open_next(decision, BOB, campaign, _battle(), world)
        run, steps = decision.run, steps + 1
    assert run.phase is Phase.FINISHED and decision.scene.owe_report
    assert "That was the last step." in decision.scene.note and steps > 5
    _refused(Refused, "over", flow.confirm, ALICE, campaign, run, world, None)
    _refused(Refused, "report was sent", flow.undo, ARBITER, campaign, run, None)
    _refused(Refused, "not in progress", flow.cancel, ARBITER, campaign, run)


# --------------------------------------------------------------------------- acting in a step


def _note(world: World, _run: PostBattleRun, _roller: object) -> RuleResult:
    return RuleResult(clause="PB-2", title="A claim", notes=["claimed"], world=world)


def test_acting_in_a_step_with_every_refusal() -> None:
    campaign, world = _campaign(), _world()
    wolves = world.gang("g1")
    rewards = [(Step.RECEIVE_REWARDS, None)]
    _refused(Refused, "no post-battle sequence in progress", flow.act, None, wolves, rewards,
             world, _note)
    _refused(Refused, "still reporting", flow.act, _run(), wolves, rewards, world, _note)
    run = _reported()
    _refused(OutOfStep, "", flow.act, run, wolves, rewards, world, _note)
    while run.stages[-1].step is not Step.RECEIVE_REWARDS:
        number = run.stages[-1].number
        run = flow.confirm(ALICE, campaign, run, world, number).run
        decision = flow.confirm(BOB, campaign, run, world, number)
        flow.open_next(decision, BOB, campaign, _battle(), world)
        run = decision.run
    acted = flow.act(run, wolves, rewards, world, _note, who="Alice")
    assert acted.actions[0].notice is not None
    assert acted.actions[0].notice[0] == "**A claim** (by Alice)"
    assert acted.run.counters != run.counters  # the next action rolls on a new counter
    assert acted.scene.owe_stages == [run.stages[-1].number]
    done = flow.confirm(ALICE, campaign, run, world, run.stages[-1].number).run
    _refused(Refused, "already confirmed Receive Rewards as done", flow.act, done, wolves,
             rewards, world, _note)


# --------------------------------------------------------------------------- undo and cancel


def test_undo_with_every_refusal_then_the_wrap_up_reopens_the_reports() -> None:
    campaign = _campaign()
    _refused(Refused, "Only an Arbitrator", flow.undo, ALICE, campaign, _reported(), 1)
    _refused(Refused, "still reporting", flow.undo, ARBITER, campaign, _run(), None)
    _refused(Refused, "moved on", flow.undo, ARBITER, campaign, _reported(), 7)
    run = _reported()
    decision = flow.undo(MANAGER, campaign, run, 1)
    assert decision.take_back == "Wrap-up" and decision.scene.reports
    assert decision.run.phase is Phase.REPORTING
    assert decision.run.stages[0].status is StageStatus.UNDONE
    assert not any(r.submitted for r in decision.run.reports.values())
    assert decision.scene.notices[0][0] == "undo:1"
    assert run.phase is Phase.SEQUENCE  # the run given is untouched
    assert "Undo **Wrap-up**?" in flow.undo_or_cancel_question("undo", ARBITER, campaign, run, 1)


def test_cancel_with_every_refusal() -> None:
    campaign = _campaign()
    _refused(Refused, "Only an Arbitrator", flow.cancel, BOB, campaign, _run())
    _refused(Refused, "Only an Arbitrator", flow.undo_or_cancel_question, "cancel", BOB, campaign,
             _run(), 0)
    decision = flow.cancel(ARBITER, campaign, _run())
    assert decision.run.phase is Phase.CANCELLED and decision.run.cancelled_by == 99
    assert decision.scene.reports and decision.scene.notices[0][0] == "cancel"
    _refused(Refused, "not in progress", flow.cancel, ARBITER, campaign, decision.run)
    _refused(Refused, "was cancelled", flow.undo, ARBITER, campaign, decision.run, None)
    _refused(Refused, "was cancelled", flow.edit_report, ALICE, campaign, decision.run,
             _world(), 0, ReportEdit(kind="left"))


def test_a_rules_refusal_in_the_wrap_up_refuses_the_last_submit() -> None:
    campaign, world = _campaign(), _world()
    run = flow.edit_report(BOB, campaign, _run(), world, 1,
                           ReportEdit(kind="pick", section="ooa", values=["r1"])).run
    run = flow.submit_report(ALICE, campaign, run, world, 0).run
    decision = flow.submit_report(BOB, campaign, run, world, 1)
    gone = _world()
    gone.gangs["g2"].fighters = [x for x in gone.gangs["g2"].fighters if x.id != "r1"]
    with pytest.raises(RulesError):  # Rat 1 was retired meanwhile: the players fix it
        flow.open_wrap_up(decision, BOB, campaign, _battle(), gone)
    assert run.phase is Phase.REPORTING and not run.stages


def test_a_run_handed_over_is_decided_in_place_and_one_lent_is_never_touched() -> None:
    """``copy=False`` (the engine's run, read for one decision alone) saves a copy of the
    whole run; without it the run given stays as it was, whatever the decision."""
    campaign, world = _campaign(), _world()
    before = _reported().model_dump_json()

    def stored() -> PostBattleRun:
        return PostBattleRun.model_validate_json(before)

    lent = stored()
    decision = flow.confirm(ALICE, campaign, lent, world, 1)
    assert decision.run is not lent and lent.model_dump_json() == before
    handed = stored()
    same = flow.confirm(ALICE, campaign, handed, world, 1, copy=False)
    assert same.run is handed
    assert same.run.model_dump_json() == decision.run.model_dump_json() != before
    for decide in (
        lambda run, copy: flow.undo(ARBITER, campaign, run, 1, copy=copy),
        lambda run, copy: flow.cancel(ARBITER, campaign, run, copy=copy),
    ):
        lent = stored()
        assert decide(lent, True).run is not lent and lent.model_dump_json() == before
        handed = stored()
        assert decide(handed, False).run is handed and handed.model_dump_json() != before
