"""The post-battle sequence's decisions: an actor and an action in, the new run and a scene out.

Nothing here talks to Discord or to storage. Each function takes who acts
(:class:`bot.call.Actor`: user id, roles, Manage Server), the campaign, the
run as it was read, the battle's gangs and what they asked for, and either
refuses (:class:`~bot.errors.Refused` or a rules error, nothing changed) or
returns a :class:`Decision`: the run as it is to be stored, the rules
results to store with it (the automatic rolls of a step that opens), and a
:class:`Scene` saying what to post, redraw and announce once it is stored.
The input run is never changed: a decision works on its own copy, unless the
caller hands the run over with ``copy=False`` (a run read for this decision alone,
which nobody else holds: :mod:`bot.battle.engine` reads one per attempt).

:mod:`bot.battle.engine` reads what a decision needs, asks this module, and
writes the decision in one short transaction (bot/battle/store.py); the
channel is drawn from the decision by :mod:`bot.battle.publish`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.battle.panel import ReportEdit, apply_edit, check_complete, report_scope
from bot.battle.state import (
    Confirmation,
    GangReport,
    Phase,
    PostBattleRun,
    StageRecord,
    StageStatus,
)
from bot.call import Actor
from bot.errors import Refused
from bot.render import result_lines, safe
from bot.rulesets import ruleset_for
from bot.storage import Campaign
from bot.ui import checked
from rules.copying import deep_copy
from rules.dice import Roller
from rules.errors import InvalidRequest, NotEligible, OutOfStep, RulesError
from rules.models import Battle, FighterStatus, Gang
from rules.sequence import PostBattleSequence, Step, stage_label
from rules.stages import Stage, StageInputs, declared
from rules.wording import possessive
from rules.world import RuleResult, World

Compute = Callable[[World, PostBattleRun, Roller], RuleResult]
Bookkeeping = Callable[[PostBattleRun, RuleResult], None]


@dataclass(frozen=True)
class Pending:
    """A rules result to store in the ledger with the run, labelled with its step.

    ``notice``: also post the result's heading and lines in the thread as their own
    message (what a player did in a step; the automatic rolls show in the step's).
    """

    result: RuleResult
    step: str
    notice: list[str] | None = None


@dataclass
class Scene:
    """What the channel shows of a decision once it is stored (its scene, as on a stage).

    ``owe_*`` are new messages (owed in the same transaction, delivered by the
    outbox); ``stages`` / ``reports`` / ``report_gangs`` are messages to redraw;
    ``notices`` are plain messages to post; ``note`` is the private answer.
    """

    note: str = ""
    stages: list[int] = field(default_factory=list)
    reports: bool = False
    report_gangs: list[int] = field(default_factory=list)
    owe_stages: list[int] = field(default_factory=list)
    owe_panels: bool = False
    owe_report: bool = False
    notices: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Decision:
    """The run to store, what to store with it, and the scene to draw afterwards."""

    run: PostBattleRun
    scene: Scene
    actions: list[Pending] = field(default_factory=list)
    battle: Battle | None = None  # the battle to store (end states recorded)
    take_back: str | None = None  # undo this step's actions in the ledger first
    changed: bool = True  # False: nothing to store, only the note to give
    # A later part of the decision needs the battle's rosters (bot/battle/engine.py reads
    # them and calls open_next / open_wrap_up).
    needs_rosters: bool = False


def answer_only(run: PostBattleRun, note: str) -> Decision:
    return Decision(run=run, scene=Scene(note=note), changed=False)


def _copy(run: PostBattleRun, copy: bool = True) -> PostBattleRun:
    # The run's own trip through storage (bot/storage/sequences.py): in pydantic's compiled
    # code, a third of the time rules.copying's walk of its hundreds of nodes takes. A run
    # handed over (copy=False) is changed in place: the copy was half of a Confirm's read
    # and decision.
    if not copy:
        return run
    return PostBattleRun.model_validate_json(run.model_dump_json(by_alias=True))


# --------------------------------------------------------------------------- starting


@dataclass(frozen=True)
class StartRequest:
    """What /postbattle start was given: a recorded battle, or the battle itself."""

    battle_id: str | None
    gang_ids: list[str]
    winner: str | None
    staked_territory: str | None
    scenario: str | None
    skirmish: bool | None


def battle_to_start(request: StartRequest, recorded: Battle | None, new_battle_id: str) -> Battle:
    """The battle the request names: the recorded one updated, or a new one."""
    if recorded is not None:
        update: dict[str, object] = {"winner": request.winner}
        if request.staked_territory is not None:
            update["staked_territory"] = request.staked_territory
        if request.scenario:
            update["scenario"] = request.scenario
        if request.winner is not None and request.winner not in recorded.gang_ids:
            raise InvalidRequest("The winner must be one of the battle's gangs, or a draw.")
        return checked(lambda: Battle.model_validate({**recorded.model_dump(), **update}),
                   "battle")
    if len(request.gang_ids) < 2:
        raise InvalidRequest("Name at least two gangs (or a battle recorded with /prebattle).")
    if len(set(request.gang_ids)) != len(request.gang_ids):
        raise InvalidRequest("Name each gang once.")
    if request.winner is not None and request.winner not in request.gang_ids:
        raise InvalidRequest("The winner must be one of the gangs that fought, or a draw.")
    return checked(lambda: Battle(
        id=new_battle_id, gang_ids=list(request.gang_ids), winner=request.winner,
        staked_territory=request.staked_territory, scenario=request.scenario or "",
    ), "battle")


def check_start(
    actor: Actor, campaign: Campaign, world: World, battle: Battle, request: StartRequest,
    *, busy: Sequence[str], existing: PostBattleRun | None,
) -> tuple[Battle, bool]:
    """Every refusal of a start; the battle as it will be stored and whether it is a skirmish.

    ``world``: the battle's gangs (names and owners) and the campaign's territories;
    ``busy``: those of its gangs already in a sequence in progress; ``existing``: the
    battle's stored run, if any.
    """
    require_player_or_arbitrator(actor, campaign, world, battle.gang_ids)
    for gang_id in battle.gang_ids:
        if gang_id in busy:
            raise Refused(
                f"{safe(world.gang(gang_id).name)} is already in a post-battle sequence in "
                "progress; finish it or ask an Arbitrator to cancel it first."
            )
    if existing is not None and existing.phase is not Phase.CANCELLED:
        raise Refused("This battle's post-battle sequence has already been run.")
    skirmish = request.skirmish
    if skirmish is None:
        skirmish = campaign.settings.skirmish or not battle.campaign
    battle = Battle.model_validate({**battle.model_dump(), "campaign": not skirmish})
    check_stake(world, battle)
    return battle, skirmish


def check_stake(world: World, battle: Battle) -> None:
    if battle.staked_territory is None:
        return
    territory = world.territories.get(battle.staked_territory)
    if territory is None:
        raise InvalidRequest("The staked Territory is not one of this campaign's.")
    if not territory.can_be_staked:
        raise NotEligible(f"{safe(territory.name)} cannot be staked on a battle.")


def require_player_or_arbitrator(
    actor: Actor, campaign: Campaign, world: World, gang_ids: Sequence[str]
) -> None:
    if any(world.gang(g).owner == actor.ledger_id for g in gang_ids):
        return
    if actor.is_arbitrator(campaign):
        return
    raise Refused(
        "Only a player whose gang fought this battle, or an Arbitrator of "
        f"{safe(campaign.name)}, can do that."
    )


def new_run(
    actor: Actor, campaign: Campaign, battle: Battle, world: World, *, skirmish: bool,
    sequence_id: str, channel_id: int,
) -> PostBattleRun:
    """A run in its reporting phase; ``world`` has the battle's rosters."""
    sequence = PostBattleSequence.start(sequence_id, battle, world, skirmish=skirmish)
    return PostBattleRun(
        campaign_id=campaign.id, battle_id=battle.id, sequence=sequence,
        started_by=actor.user_id, channel_id=channel_id,
        reports={g: GangReport(gang_id=g, models_left=battle.winner in (None, g))
                 for g in battle.gang_ids},
        in_recovery_before=[
            f.id for g in battle.gang_ids for f in world.gang(g).fighters
            if f.status is FighterStatus.IN_RECOVERY
        ],
    )


# --------------------------------------------------------------------------- reporting


def report_gang(
    actor: Actor, campaign: Campaign, run: PostBattleRun, world: World, gang_index: int
) -> Gang:
    """The gang whose report the actor may edit now, or a refusal."""
    if run.phase is Phase.CANCELLED:
        raise Refused("This post-battle sequence was cancelled.")
    if run.phase is not Phase.REPORTING:
        raise Refused(
            "The reports are closed: the post-battle steps have begun (an Arbitrator can "
            "undo the Wrap-up to reopen them)."
        )
    if gang_index >= len(run.gang_ids):
        raise Refused("That gang is not part of this battle.")
    gang = world.gang(run.gang_ids[gang_index])
    if not actor.controls(campaign, gang):
        raise Refused(
            f"Only {possessive(safe(gang.name))} player or an Arbitrator can report how it "
            "ended the battle."
        )
    return gang


def edit_report(
    actor: Actor, campaign: Campaign, run: PostBattleRun, world: World, gang_index: int,
    edit: ReportEdit, *, copy: bool = True,
) -> Decision:
    """A select or toggle of a report panel; ``world`` has the battle's rosters."""
    report_gang(actor, campaign, run, world, gang_index)
    run = _copy(run, copy)
    scope = report_scope(run, world, gang_index, ruleset_for(campaign))
    changed = apply_edit(scope, edit)
    report = scope.report
    scene = Scene(report_gangs=[gang_index])
    if changed and report.submitted:
        report.submitted, report.submitted_by = False, None
        scene.note = ("The report changed after it was submitted: press Submit again when "
                      "it is right.")
    return Decision(run=run, scene=scene)


def submit_report(
    actor: Actor, campaign: Campaign, run: PostBattleRun, world: World, gang_index: int,
    *, copy: bool = True,
) -> Decision:
    """Submit a gang's report. When it is the last, the decision ``needs_rosters`` and
    :func:`open_wrap_up` finishes it (records the end states, rolls the Wrap-up)."""
    gang = report_gang(actor, campaign, run, world, gang_index)
    run = _copy(run, copy)
    scope = report_scope(run, world, gang_index, ruleset_for(campaign))
    check_complete(scope)
    scope.report.submitted, scope.report.submitted_by = True, actor.user_id
    decision = Decision(run=run, scene=Scene(report_gangs=[gang_index]))
    waiting = [world.gang(g).name for g, r in run.reports.items() if not r.submitted]
    if waiting:
        decision.scene.note = (f"{possessive(safe(gang.name))} report is submitted. Waiting "
                               f"for: {', '.join(safe(n) for n in waiting)}.")
    else:
        decision.needs_rosters = True
    return decision


def open_wrap_up(
    decision: Decision, actor: Actor, campaign: Campaign, battle: Battle, world: World
) -> World:
    """Every report is in: record the end states on the battle and open the Wrap-up.

    Returns the world after the Wrap-up's rolls. A rules refusal propagates (the
    players fix their reports), with nothing stored.
    """
    run = decision.run
    ends = run.end_states()
    decision.battle = ends.apply_to(battle)
    run.phase = Phase.SEQUENCE
    world = _open_stage(decision, actor, campaign, decision.battle, world,
                        ends.captor_by_fighter)
    scene = decision.scene
    scene.reports, scene.stages = True, [run.stages[-1].number]
    scene.owe_stages = [run.stages[-1].number]
    scene.note = "Every report is in: the Wrap-up has been rolled in the thread."
    decision.needs_rosters = False
    return world


# --------------------------------------------------------------------------- steps


def _inputs(
    run: PostBattleRun, campaign: Campaign, battle: Battle, captors: dict[str, str] | None
) -> StageInputs:
    return StageInputs(
        battle=battle, sequence=run.sequence, ruleset=ruleset_for(campaign),
        in_recovery_before=list(run.in_recovery_before), captor_by_fighter=dict(captors or {}),
        income_dice=dict(run.income_dice),
    )


def opens_without_rosters(decision: Decision) -> bool:
    """Whether :func:`open_next` can finish ``decision`` from names and owners alone: the
    next step rolls nothing as it opens (its message shows gang names only), and it is not
    the end (whose battle report is drawn from the rosters). Such a step needs no battle
    either (:func:`open_next` with ``battle=None``)."""
    run = decision.run
    if run.sequence.finished:
        return False
    return not declared(run.sequence.stage).rolls_as_it_opens


def _open_stage(
    decision: Decision, actor: Actor, campaign: Campaign, battle: Battle | None, world: World,
    captors: dict[str, str] | None = None,
) -> World:
    """Add the record of the sequence's current stage and run its automatic computations.

    Each computation becomes its own pending action labelled with the stage, so an
    undo takes them back. A refusal in the Wrap-up propagates; elsewhere it is shown
    in the stage and the rest goes on.
    """
    run = decision.run
    stage = run.sequence.stage
    label = stage_label(*stage)
    record = StageRecord(
        number=len(run.stages) + 1, step=stage[0], substep=stage[1],
        opened_with=deep_copy(run.sequence),
        counter_at_open=run.counters.get(label, 0),
    )
    run.stages.append(record)
    if battle is None:
        # A step that rolls nothing as it opens (opens_without_rosters) reads no battle.
        if declared(stage).rolls_as_it_opens:
            raise ValueError(f"{label} rolls as it opens: it needs the battle")
        return world
    for compute in declared(stage).computes(_inputs(run, campaign, battle, captors)):
        try:
            result = compute(world, run.roller(stage))
        except RulesError as error:
            if stage[0] is Step.WRAP_UP:
                raise
            record.lines.append(f"⚠️ {safe(error.message, 300)} (this part changed nothing)")
            continue
        decision.actions.append(Pending(result, label))
        run.count_action(stage)
        lines = result_lines(result) or ["Nothing to roll or change."]
        record.lines += [f"**{safe(result.title, 120)}**", *lines]
        world = result.world
    return world


def confirm_targets(
    actor: Actor, campaign: Campaign, run: PostBattleRun, world: World,
    stage_no: int | None, gang_id: str | None, on_behalf: bool,
) -> tuple[StageRecord, list[str] | str]:
    """The stage and the gangs to confirm, or a message saying it is already done."""
    if run.phase is Phase.CANCELLED:
        raise Refused("This post-battle sequence was cancelled.")
    owned = [g for g in run.gang_ids if world.gang(g).owner == actor.ledger_id]
    arbitrator = actor.is_arbitrator(campaign)
    if not owned and not arbitrator:
        raise Refused(
            "Only the players of this battle and the Arbitrators of "
            f"{safe(campaign.name)} can confirm its steps."
        )
    if run.phase is Phase.REPORTING:
        raise Refused("The players are still reporting the end of the battle.")
    current = run.current
    record = current if stage_no is None else run.stage_record(stage_no)
    if record is None:
        raise Refused("This post-battle sequence is over; there is nothing to confirm.")
    targets = [gang_id] if on_behalf and gang_id is not None else owned
    if record is not current:
        if record.status is not StageStatus.UNDONE and targets and all(
            g in record.confirmations for g in targets
        ):
            return record, f"Already confirmed: {record.label}."
        where = f"this battle is at {current.label}" if current else "the sequence is over"
        raise Refused(f"{record.label} is closed; {where}.")
    if on_behalf:
        actor.require_arbitrator(campaign)
        if gang_id not in run.gang_ids:
            raise Refused("That gang did not fight this battle.")
        assert gang_id is not None
        if gang_id in record.confirmations:
            return record, f"{safe(world.gang(gang_id).name)} has already confirmed {record.label}."
        return record, [gang_id]
    if not owned:
        raise Refused(
            "You have no gang in this battle. As an Arbitrator, confirm for a player with "
            "the 'confirm on a player's behalf' menu."
        )
    awaiting = [g for g in owned if g not in record.confirmations]
    if not awaiting:
        return record, f"Already confirmed: you confirmed {record.label}."
    return record, awaiting


def confirm(
    actor: Actor, campaign: Campaign, run: PostBattleRun, world: World,
    stage_no: int | None, gang_id: str | None = None, *, on_behalf: bool = False,
    who: str = "", copy: bool = True,
) -> Decision:
    """Record a confirmation (``world``: names and owners are enough).

    The last confirmation closes the step; the decision then ``needs_rosters`` and
    :func:`open_next` opens the next step (or ends the sequence). ``who``: the
    actor's display name, for the ledger's note of a confirmation on a player's behalf.
    """
    _record, targets = confirm_targets(actor, campaign, run, world, stage_no, gang_id,
                                       on_behalf)
    if isinstance(targets, str):
        return answer_only(run, targets)
    run = _copy(run, copy)
    record = run.stage_record(_record.number)
    assert record is not None
    decision = Decision(run=run, scene=Scene(stages=[record.number]))
    for target in targets:
        behalf = on_behalf and world.gang(target).owner != actor.ledger_id
        record.confirmations[target] = Confirmation(user_id=actor.user_id, on_behalf=behalf)
        run.sequence.confirm(target)
        if behalf:
            decision.actions.append(
                Pending(_behalf_note(world, target, record, who), record.label))
    names = ", ".join(safe(world.gang(g).name) for g in targets)
    decision.scene.note = f"Confirmed {record.label} for {names}."
    if run.sequence.all_confirmed:
        record.status = StageStatus.CONFIRMED
        record.note = ""  # "reopened by an undo" is over once everyone confirmed again
        run.sequence.advance()
        decision.needs_rosters = True
    return decision


def open_next(
    decision: Decision, actor: Actor, campaign: Campaign, battle: Battle | None, world: World
) -> World:
    """After the last confirmation of a step: open the next one, or finish the sequence
    (owing the battle report unless it is a skirmish). Returns the world after it.
    ``battle`` None: only for a decision that :func:`opens_without_rosters`."""
    run = decision.run
    decision.needs_rosters = False
    if run.sequence.finished:
        run.phase = Phase.FINISHED
        decision.scene.note += " That was the last step."
        decision.scene.owe_report = not run.sequence.skirmish
        return world
    world = _open_stage(decision, actor, campaign, battle, world)
    number = run.stages[-1].number
    decision.scene.stages.append(number)
    decision.scene.owe_stages.append(number)
    decision.scene.note += f" Next: {run.stages[-1].label}."
    return world


def _behalf_note(world: World, gang_id: str, record: StageRecord, who: str) -> RuleResult:
    """A ledger entry saying an Arbitrator confirmed for a player (it changes nothing)."""
    return RuleResult(
        clause="PB-0", title="Confirmed on a player's behalf",
        notes=[f"{who} (Arbitrator) confirmed {record.label} for "
               f"{world.gang(gang_id).name} on the player's behalf."],
        world=World(),
    )


# --------------------------------------------------------------------------- acting in a step


def matching_stage(run: PostBattleRun, stages: Sequence[Stage], gang_id: str) -> Stage:
    if not stages:
        raise ValueError("act_in_stage needs at least one stage")
    first_refusal: OutOfStep | None = None
    for step, substep in stages:
        try:
            run.sequence.require(step, substep, gang_id)
        except OutOfStep as refusal:
            first_refusal = first_refusal or refusal
            continue
        return (step, substep)
    assert first_refusal is not None
    raise first_refusal


def no_run_in_progress(gang: Gang) -> Refused:
    """The refusal for acting with a gang that is in no post-battle run."""
    return Refused(f"{safe(gang.name)} has no post-battle sequence in progress "
                   "(start one with /postbattle start).")


def check_act(run: PostBattleRun | None, gang: Gang, stages: Sequence[Stage]) -> Stage:
    """The step in which ``gang`` may act now, or a refusal."""
    if run is None:
        raise no_run_in_progress(gang)
    if run.phase is Phase.REPORTING:
        raise Refused(
            "The players are still reporting how the battle ended; the post-battle steps "
            "open once every gang has submitted its report."
        )
    stage = matching_stage(run, stages, gang.id)
    record = run.record_for(stage)
    if record is None:
        raise OutOfStep(f"{stage_label(*stage)} has not opened yet for this battle.")
    if record.status is StageStatus.OPEN and gang.id in record.confirmations:
        raise Refused(
            f"{safe(gang.name)} has already confirmed {record.label} as done; an "
            "Arbitrator can undo the step to reopen it."
        )
    return stage


def act(
    run: PostBattleRun, gang: Gang, stages: Sequence[Stage], world: World, compute: Compute,
    *, bookkeeping: Bookkeeping | None = None, who: str = "",
) -> Decision:
    """Run one rules function in a step of ``gang``'s run (the caller checked the actor
    controls ``gang``). Its lines join the step's message and are posted on their own."""
    stage = check_act(run, gang, stages)
    run = _copy(run)
    record = run.record_for(stage)
    assert record is not None
    result = compute(world, run, run.roller(stage))
    if bookkeeping is not None:
        bookkeeping(run, result)
    run.count_action(stage)
    lines = result_lines(result)
    heading = f"**{safe(result.title, 120)}** (by {safe(who, 60)})"
    record.lines += [heading, *lines]
    return Decision(
        run=run, scene=Scene(stages=[record.number], owe_stages=[record.number]),
        actions=[Pending(result, record.label, notice=[heading, *lines])],
    )


# --------------------------------------------------------------------------- undo and cancel


def undo_target(
    actor: Actor, campaign: Campaign, run: PostBattleRun, stage_no: int | None
) -> StageRecord:
    actor.require_arbitrator(campaign)
    if run.phase is Phase.REPORTING:
        raise Refused("No step has been confirmed yet; the players are still reporting.")
    if run.phase is Phase.FINISHED:
        raise Refused("This post-battle sequence is over and its report was sent; it cannot "
                      "be undone from here (the ledger can undo single actions).")
    if run.phase is Phase.CANCELLED:
        raise Refused("This post-battle sequence was cancelled.")
    current = run.current
    if current is None or (stage_no is not None and current.number != stage_no):
        raise Refused("The sequence has moved on since that message; use the latest step's "
                      "message.")
    return current


def undo(
    actor: Actor, campaign: Campaign, run: PostBattleRun, stage_no: int | None, *,
    copy: bool = True,
) -> Decision:
    """Undo the last confirmed step: take back the open one and reopen the one before.

    The decision's ``take_back`` names the step whose actions the ledger undoes
    (newest first) before the run is stored; the dice counters stay where they
    are, so the step rolls fresh dice when it opens again.
    """
    current = undo_target(actor, campaign, run, stage_no)
    run = _copy(run, copy)
    record = run.stage_record(current.number)
    assert record is not None
    label = record.label
    previous = run.take_back(record, f"<@{actor.user_id}>")
    scene = Scene(stages=[record.number], notices=[(f"undo:{record.number}",
                                                     f"↩️ {record.note}")])
    if previous is None:
        scene.reports = True
        scene.note = f"Undone: {label} was taken back and the reports are open again."
    else:
        scene.stages.append(previous.number)
        scene.note = f"Undone: {label} was taken back; {previous.label} is open again."
    return Decision(run=run, scene=scene, take_back=label)


def cancel_check(actor: Actor, campaign: Campaign, run: PostBattleRun) -> None:
    actor.require_arbitrator(campaign)
    if not run.in_progress:
        raise Refused("This post-battle sequence is not in progress.")


def cancel(
    actor: Actor, campaign: Campaign, run: PostBattleRun, *, copy: bool = True
) -> Decision:
    """Stop a run. What it stored stays (undo it first, or use the ledger)."""
    cancel_check(actor, campaign, run)
    run = _copy(run, copy)
    current = run.current
    scene = Scene(note="Cancelled.", reports=run.phase is Phase.REPORTING,
                  stages=[current.number] if current else [])
    run.phase = Phase.CANCELLED
    run.cancelled_by = actor.user_id
    scene.notices.append(("cancel", (
        f"✖ Post-battle sequence cancelled by <@{actor.user_id}>. Changes already "
        "stored stay as they are (see /ledger).")))
    return Decision(run=run, scene=scene)


def undo_or_cancel_question(
    kind: str, actor: Actor, campaign: Campaign, run: PostBattleRun, stage_no: int
) -> str:
    """The question the Undo and Cancel buttons ask, once their checks pass."""
    if kind == "undo":
        current = undo_target(actor, campaign, run, stage_no)
        return (f"Undo **{current.label}**? Its rolls and changes are taken back and the "
                "step before it opens again.")
    cancel_check(actor, campaign, run)
    return ("Cancel this post-battle sequence? Nothing stored is taken back; the "
            "remaining steps are dropped.")


def close_deferrals(run: PostBattleRun, gang_id: str) -> PostBattleRun | None:
    """A new battle closes what a gang still had deferred (PB-6B.8: until the next one);
    the run to store, or None when there is nothing to close."""
    if run.phase is not Phase.FINISHED or not run.has_open_deferral(gang_id):
        return None
    run = _copy(run)
    run.sequence.close_deferred_at_prebattle(gang_id)
    return run
