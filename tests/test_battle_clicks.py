"""Which Confirm clicks are answered with the edit of their own step's message
(bot/battle/clicks.py): one call to Discord instead of an acknowledgement and an edit.
The decisions are bot.battle.flow's, made as in tests/test_battle_flow.py.
"""

from __future__ import annotations

from bot.battle import flow
from bot.battle.clicks import answers_with_its_edit
from tests.test_battle_flow import ALICE, ARBITER, _battle, _campaign, _reported, _world

STEP_MESSAGE, OTHER_MESSAGE = 501, 502


def test_a_confirm_that_closes_its_step_is_answered_with_its_messages_edit_too() -> None:
    campaign, world = _campaign(), _world()
    run = _reported()
    run.stages[0].message_ids = [STEP_MESSAGE]

    alice = flow.confirm(ALICE, campaign, run, world, 1)
    record = alice.run.stages[0]
    assert answers_with_its_edit(alice.scene, record, STEP_MESSAGE)

    closing = flow.confirm(ARBITER, campaign, alice.run, world, 1, "g2", on_behalf=True)
    flow.open_next(closing, ARBITER, campaign, _battle(), world)
    closed = closing.run.stages[0]
    assert closing.scene.owe_stages == [2]  # the next step is owed, and posted after
    assert answers_with_its_edit(closing.scene, closed, STEP_MESSAGE)

    # Not a click on that step's message, or a step the decision does not redraw.
    assert not answers_with_its_edit(closing.scene, closed, OTHER_MESSAGE)
    assert not answers_with_its_edit(closing.scene, closed, None)
    assert not answers_with_its_edit(flow.Scene(stages=[2]), closed, STEP_MESSAGE)
    closed.message_ids = []  # never posted
    assert not answers_with_its_edit(closing.scene, closed, STEP_MESSAGE)


def test_the_confirm_that_ends_the_run_is_acknowledged_and_drawn_after_the_report() -> None:
    campaign, world = _campaign(), _world()
    run = _reported()
    while True:
        number = run.stages[-1].number
        run = flow.confirm(ALICE, campaign, run, world, number).run
        decision = flow.confirm(ARBITER, campaign, run, world, number, "g2", on_behalf=True)
        world = flow.open_next(decision, ARBITER, campaign, _battle(), world)
        run = decision.run
        if decision.scene.owe_report:
            break
        record = run.stage_record(number)
        assert record is not None
        record.message_ids = [STEP_MESSAGE]
        assert answers_with_its_edit(decision.scene, record, STEP_MESSAGE)
    last = run.stage_record(number)
    assert last is not None
    last.message_ids = [STEP_MESSAGE]
    assert not answers_with_its_edit(decision.scene, last, STEP_MESSAGE)
