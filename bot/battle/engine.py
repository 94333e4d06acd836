"""The post-battle sequence engine: one transaction per decision, then the channel.

Every change follows the same path: open one storage transaction, load the
run (:class:`~bot.battle.state.PostBattleRun`) and the battle's world, ask
the rules, store the result and the run together, commit; only then show it
in the battle's thread. Rolls are therefore stored before they are shown, a
refusal or a crash leaves nothing behind, and a retry replays the same dice
(the roller is seeded by the run; its counter only moves when an action is
stored). Messages are drawn from stored state only, so whatever was lost
between a commit and a post is drawn again by the next click or at start-up.

:func:`act_in_stage` is the entry point of the interactive stage commands
(``/rewards``, ``/action``, ``/roster``); :func:`find_active_run` tells which
run a gang is in. The ``press_*`` functions serve the buttons of
:mod:`bot.battle.views`; the cog's commands call the same transactions.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot import failpoints
from bot.battle import render, views
from bot.battle.stages import StageInputs, opening_computations
from bot.battle.state import (
    RUN_KEY_PREFIX,
    Confirmation,
    GangReport,
    Phase,
    PostBattleRun,
    StageRecord,
    StageStatus,
    run_key,
)
from bot.context import actor_of, controls_gang, guild_id_of, is_arbitrator, require_arbitrator
from bot.errors import Refused
from bot.locks import KeyedLocks
from bot.render import result_lines, safe
from bot.rulesets import ruleset_for
from bot.storage import Campaign, OutboxEntry, Storage, StorageError, Transaction, new_id
from bot.storage.sequences import model_name
from bot.ui import checked
from rules.dice import Roller
from rules.errors import InvalidRequest, NotEligible, OutOfStep, RulesError
from rules.models import Battle, FighterStatus, Gang
from rules.report import BattleReport, battle_report
from rules.sequence import PostBattleSequence, Step, SubStep, stage_label
from rules.wording import possessive
from rules.world import RuleResult, World

if TYPE_CHECKING:
    from bot.app import MundaBot
    from bot.outbox import Accepted

log = logging.getLogger(__name__)

Interaction = discord.Interaction["MundaBot"]
RUN_MODEL = model_name(PostBattleRun)
THREAD_NAME_MAX = 100
ACTIONS_LOOKBACK = 1000


@dataclass
class ActResult:
    """What :func:`act_in_stage` stored: the run after it, the result and its rendered lines."""

    run: PostBattleRun
    result: RuleResult
    lines: list[str]


# --------------------------------------------------------------------------- finding runs


async def load_run(tx: Transaction, campaign_id: str, battle_id: str) -> PostBattleRun | None:
    return await tx.load_sequence(campaign_id, run_key(battle_id), PostBattleRun)


async def runs_of(tx: Transaction, campaign_id: str) -> list[PostBattleRun]:
    """Every post-battle run stored for the campaign, oldest first."""
    found: list[PostBattleRun] = []
    for record in await tx.list_sequences(campaign_id):
        if record.model != RUN_MODEL or not record.key.startswith(RUN_KEY_PREFIX):
            continue
        run = await tx.load_sequence(campaign_id, record.key, PostBattleRun)
        if run is not None:
            found.append(run)
    return found


# A gang's active run is one of its latest battles': starting a run (or a pre-battle
# sequence) closes the deferrals of every earlier one, so older runs need no loading.
RECENT_BATTLES = 10


async def active_run_in(tx: Transaction, campaign_id: str, gang_id: str) -> PostBattleRun | None:
    """:func:`find_active_run` inside an open transaction."""
    active: list[PostBattleRun] = []
    for battle in await tx.list_battles(campaign_id, gang_id=gang_id, limit=RECENT_BATTLES):
        run = await load_run(tx, campaign_id, battle.id)
        if run is not None and run.active_for(gang_id):
            active.append(run)
    # A run in progress comes before one kept open only by a deferred sub-step.
    active.sort(key=lambda run: not run.in_progress)
    return active[0] if active else None


async def find_active_run(
    storage: Storage, guild_id: int, campaign_id: str, gang_id: str
) -> PostBattleRun | None:
    """The post-battle run this gang is in now: in progress, or finished with a
    sub-step it deferred (PB-6B.8) and has not closed. A read: whatever acts on the run
    finds it again in its own write transaction."""
    async with storage.read_only(guild_id) as tx:
        return await active_run_in(tx, campaign_id, gang_id)


async def load_battle_world(
    tx: Transaction, campaign_id: str, run: PostBattleRun, *, rosters: bool = True
) -> World:
    """The battle's gangs, every territory, and the gangs of captives they hold.

    A captive taken in an earlier battle may belong to a gang that is not in
    this one; selling or disposing of it changes that gang too. Without
    ``rosters``: the battle's gangs only, with no fighters and no territories,
    which is all a step's message and the checks of a click look at (names
    and owners), for a tenth of the reading (docs/benchmarks.md).
    """
    if not rosters:
        return World(gangs=await tx.gangs_without_rosters(campaign_id, run.gang_ids))
    gang_ids = list(run.gang_ids)
    for gang_id in run.gang_ids:
        for owner, _captive in await tx.captives_held_by(campaign_id, gang_id):
            if owner.id not in gang_ids:
                gang_ids.append(owner.id)
    return await tx.load_world(campaign_id, gang_ids)


async def _require_run(tx: Transaction, campaign_id: str, battle_id: str) -> PostBattleRun:
    run = await load_run(tx, campaign_id, battle_id)
    if run is None:
        raise Refused("This post-battle sequence no longer exists.")
    return run


# --------------------------------------------------------------------------- acting in a stage


def _matching_stage(
    run: PostBattleRun, stages: Sequence[tuple[Step, SubStep | None]], gang_id: str
) -> tuple[Step, SubStep | None]:
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


async def act_in_stage(
    interaction: Interaction,
    *,
    campaign: Campaign,
    gang: Gang,
    stages: Sequence[tuple[Step, SubStep | None]],
    compute: Callable[[World, PostBattleRun, Roller], RuleResult],
    bookkeeping: Callable[[PostBattleRun, RuleResult], None] | None = None,
    check: Callable[[Transaction, PostBattleRun], Awaitable[None]] | None = None,
) -> ActResult:
    """Run one rules function in a stage of ``gang``'s post-battle run and store it.

    The caller has checked ``require_gang_control`` for ``gang``. In ONE
    transaction: load the gang's active run (none: :class:`Refused`), check
    that one of ``stages`` is open for the gang (else the rules' OutOfStep),
    load the battle's world, call ``compute(world, run, roller)`` with the
    run's seeded roller for that stage, store the result in the ledger
    (``battle_id`` and the stage's label), call ``bookkeeping(run, result)``
    (e.g. ``run.sequence.record_action_result(result)``), add the rendered
    lines to the stage's record and save the run. After the commit the stage
    message in the battle's thread is refreshed and the lines are posted
    there, so every player sees the dice.

    A gang that has confirmed the stage ("done") is refused until an
    Arbitrator undoes it. The interaction is not answered here: answer it
    (defer first if you may be slow). Any error propagates with nothing
    stored, and a retried attempt rolls the same faces.

    ``check(tx, run)`` runs in the same transaction before ``compute``: a
    refusal that depends on what is stored (e.g. "the reward dice were rolled
    already") must be checked there, or two clicks arriving together would
    both pass it.
    """
    storage = interaction.client.storage
    guild_id = guild_id_of(interaction)
    async with storage.transaction(guild_id) as tx:
        run = await active_run_in(tx, campaign.id, gang.id)
        if run is None:
            raise Refused(
                f"{safe(gang.name)} has no post-battle sequence in progress "
                "(start one with /postbattle start)."
            )
        if run.phase is Phase.REPORTING:
            raise Refused(
                "The players are still reporting how the battle ended; the post-battle steps "
                "open once every gang has submitted its report."
            )
        stage = _matching_stage(run, stages, gang.id)
        record = run.record_for(stage)
        if record is None:
            raise OutOfStep(f"{stage_label(*stage)} has not opened yet for this battle.")
        if record.status is StageStatus.OPEN and gang.id in record.confirmations:
            raise Refused(
                f"{safe(gang.name)} has already confirmed {record.label} as done; an "
                "Arbitrator can undo the step to reopen it."
            )
        if check is not None:
            await check(tx, run)
        world = await load_battle_world(tx, campaign.id, run)
        result = compute(world, run, run.roller(stage))
        action = await tx.apply(
            campaign.id, result, actor=actor_of(interaction), battle_id=run.battle_id,
            step=record.label,
        )
        if bookkeeping is not None:
            bookkeeping(run, result)
        run.count_action(stage)
        lines = result_lines(result)
        heading = _heading(result, interaction)
        record.lines += [heading, *lines]
        await _owe_stage(tx, run, record, world)
        await _owe_notice(tx, run, f"action:{action.id}", "\n".join([heading, *lines]))
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    failpoints.hit(failpoints.AFTER_ACTION_STORED)
    scene = Scene(guild_id, campaign, run, result.world, stages=[record.number])
    await publish(interaction.client, scene)
    return ActResult(run=run, result=result, lines=lines)


def _heading(result: RuleResult, interaction: discord.Interaction) -> str:
    who = safe(getattr(interaction.user, "display_name", None) or str(interaction.user), 60)
    return f"**{safe(result.title, 120)}** ({result.clause}, by {who})"


# --------------------------------------------------------------------------- opening stages


async def _open_stage(
    tx: Transaction,
    interaction: discord.Interaction,
    campaign: Campaign,
    run: PostBattleRun,
    battle: Battle,
    world: World,
    captors: dict[str, str] | None = None,
) -> World:
    """Add the record of the sequence's current stage and run its automatic computations.

    Each computation is stored as its own action labelled with the stage, so
    an undo takes them back. A refusal in the Wrap-up propagates (the players
    fix their reports); elsewhere it is shown in the stage and the rest goes on.
    """
    stage = run.sequence.stage
    label = stage_label(*stage)
    record = StageRecord(
        number=len(run.stages) + 1, step=stage[0], substep=stage[1],
        opened_with=run.sequence.model_copy(deep=True),
        counter_at_open=run.counters.get(label, 0),
    )
    run.stages.append(record)
    inputs = StageInputs(
        battle=battle, sequence=run.sequence, ruleset=ruleset_for(campaign),
        in_recovery_before=list(run.in_recovery_before), captor_by_fighter=dict(captors or {}),
    )
    for compute in opening_computations(stage, inputs):
        try:
            result = compute(world, run.roller(stage))
        except RulesError as error:
            if stage[0] is Step.WRAP_UP:
                raise
            record.lines.append(f"⚠️ {safe(error.message, 300)} (this part changed nothing)")
            continue
        await tx.apply(campaign.id, result, actor=actor_of(interaction),
                       battle_id=run.battle_id, step=label)
        run.count_action(stage)
        lines = result_lines(result) or ["Nothing to roll or change."]
        record.lines += [f"**{safe(result.title, 120)}** ({result.clause})", *lines]
        world = result.world
    return world


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


async def check_start(
    tx: Transaction, interaction: Interaction, campaign: Campaign, request: StartRequest
) -> None:
    """Every refusal of :func:`start_run`, checked (in a read, ``tx``) before the command
    is deferred publicly."""
    await _prepare_start(tx, interaction, campaign, request, rosters=False)


async def _prepare_start(
    tx: Transaction, interaction: discord.Interaction, campaign: Campaign, request: StartRequest,
    *, rosters: bool = True,
) -> tuple[Battle, World, bool]:
    """The battle to start (not stored yet), its world and whether it is a skirmish.

    Without ``rosters`` the world's gangs have no fighters: enough for the checks (owners,
    names, the staked territory), which run before the command is answered, and a tenth
    of the reading (docs/benchmarks.md).
    """
    battle = await _battle_to_start(tx, campaign, request)
    if rosters:
        world = await tx.load_world(campaign.id, battle.gang_ids)
    else:
        world = World(gangs=await tx.gangs_without_rosters(campaign.id, battle.gang_ids),
                      territories={t.id: t for t in await tx.list_territories(campaign.id)})
    _require_player_or_arbitrator(interaction, campaign, world, battle.gang_ids)
    for gang_id in battle.gang_ids:
        busy = await active_run_in(tx, campaign.id, gang_id)
        if busy is not None and busy.in_progress:
            raise Refused(
                f"{safe(world.gang(gang_id).name)} is already in a post-battle sequence in "
                "progress; finish it or ask an Arbitrator to cancel it first."
            )
    existing = await load_run(tx, campaign.id, battle.id)
    if existing is not None and existing.phase is not Phase.CANCELLED:
        raise Refused("This battle's post-battle sequence has already been run.")
    skirmish = request.skirmish
    if skirmish is None:
        skirmish = campaign.settings.skirmish or not battle.campaign
    battle = Battle.model_validate({**battle.model_dump(), "campaign": not skirmish})
    _check_stake(world, battle)
    return battle, world, skirmish


async def start_run(interaction: Interaction, campaign: Campaign, request: StartRequest) -> str:
    """Store a new run in its reporting phase, open its thread and post the report panels.

    The caller has run :func:`check_start` and deferred the interaction; the
    start message is sent as its answer and the thread grows from it. Returns
    the battle id.
    """
    storage = interaction.client.storage
    guild_id = guild_id_of(interaction)
    async with storage.transaction(guild_id) as tx:
        battle, world, skirmish = await _prepare_start(tx, interaction, campaign, request)
        if request.battle_id is None:
            battle = await tx.create_battle(campaign.id, battle)
        else:
            battle = await tx.update_battle(campaign.id, battle)
        await _close_earlier_deferrals(tx, campaign.id, battle.gang_ids)
        sequence = PostBattleSequence.start(new_id(), battle, world, skirmish=skirmish)
        run = PostBattleRun(
            campaign_id=campaign.id, battle_id=battle.id, sequence=sequence,
            started_by=interaction.user.id, channel_id=interaction.channel_id or 0,
            reports={g: GangReport(gang_id=g, models_left=battle.winner in (None, g))
                     for g in battle.gang_ids},
            in_recovery_before=[
                f.id for g in battle.gang_ids for f in world.gang(g).fighters
                if f.status is FighterStatus.IN_RECOVERY
            ],
        )
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    names = views.gang_names(world)
    stake = world.territories.get(battle.staked_territory or "")
    message = await interaction.followup.send(
        embed=render.start_embed(run, battle, names, stake.name if stake else None), wait=True,
    )
    title = " vs ".join(names.get(g, g) for g in battle.gang_ids)
    thread = await _make_thread(interaction, message, f"Post-battle: {title}")
    async with storage.transaction(guild_id) as tx:
        stored = await _require_run(tx, campaign.id, battle.id)
        if thread is not None:
            stored.thread_id = thread.id
        await _owe_panels(tx, campaign, stored, world)
        await tx.save_sequence(campaign.id, stored.key, stored, battle_id=stored.battle_id)
        run = stored
    await publish(interaction.client, Scene(guild_id, campaign, run, world, reports=True))
    return battle.id


async def _battle_to_start(tx: Transaction, campaign: Campaign, request: StartRequest) -> Battle:
    if request.battle_id is not None:
        battle = await tx.get_battle(campaign.id, request.battle_id)
        update: dict[str, object] = {"winner": request.winner}
        if request.staked_territory is not None:
            update["staked_territory"] = request.staked_territory
        if request.scenario:
            update["scenario"] = request.scenario
        if request.winner is not None and request.winner not in battle.gang_ids:
            raise InvalidRequest("The winner must be one of the battle's gangs, or a draw.")
        return checked(lambda: Battle.model_validate({**battle.model_dump(), **update}),
                       "battle")
    if len(request.gang_ids) < 2:
        raise InvalidRequest("Name at least two gangs (or a battle recorded with /prebattle).")
    if len(set(request.gang_ids)) != len(request.gang_ids):
        raise InvalidRequest("Name each gang once.")
    if request.winner is not None and request.winner not in request.gang_ids:
        raise InvalidRequest("The winner must be one of the gangs that fought, or a draw.")
    return checked(lambda: Battle(
        id=new_id(), gang_ids=list(request.gang_ids), winner=request.winner,
        staked_territory=request.staked_territory, scenario=request.scenario or "",
    ), "battle")


def _check_stake(world: World, battle: Battle) -> None:
    if battle.staked_territory is None:
        return
    territory = world.territories.get(battle.staked_territory)
    if territory is None:
        raise InvalidRequest("The staked Territory is not one of this campaign's.")
    if not territory.can_be_staked:
        raise NotEligible(f"{safe(territory.name)} cannot be staked on a battle.")


async def _close_earlier_deferrals(
    tx: Transaction, campaign_id: str, gang_ids: Sequence[str]
) -> None:
    """A new battle closes what its gangs still had deferred (PB-6B.8: until the next one)."""
    for gang_id in gang_ids:
        run = await active_run_in(tx, campaign_id, gang_id)
        if run is not None and run.phase is Phase.FINISHED and run.has_open_deferral(gang_id):
            run.sequence.close_deferred_at_prebattle(gang_id)
            await tx.save_sequence(campaign_id, run.key, run, battle_id=run.battle_id)


def _require_player_or_arbitrator(
    interaction: discord.Interaction, campaign: Campaign, world: World, gang_ids: Sequence[str]
) -> None:
    actor = actor_of(interaction)
    if any(world.gang(g).owner == actor for g in gang_ids):
        return
    if is_arbitrator(campaign, interaction):
        return
    raise Refused(
        "Only a player whose gang fought this battle, or an Arbitrator of "
        f"{safe(campaign.name)}, can do that."
    )


async def _make_thread(
    interaction: discord.Interaction, message: discord.Message, name: str
) -> discord.Thread | None:
    """A thread for the battle from its start message; None keeps everything in the channel."""
    channel = interaction.channel
    if not isinstance(channel, discord.TextChannel):
        return None  # already in a thread, or a channel kind without threads
    try:
        return await channel.create_thread(name=name[:THREAD_NAME_MAX] or "Post-battle",
                                           message=message)
    except discord.HTTPException:
        log.warning("could not open a thread for a post-battle sequence; using the channel",
                    exc_info=True)
        return None


# --------------------------------------------------------------------------- reporting


@dataclass(frozen=True)
class ReportEdit:
    """One change to a gang's report panel (a select or a toggle)."""

    kind: str  # section | pick | bottled | left | prev | next | injfighter | injury
    section: str = ""
    slot: int = 0
    values: list[str] = field(default_factory=list)
    fighter: str = ""  # injury: the fighter whose results the select showed


def _report_gang(
    interaction: discord.Interaction, campaign: Campaign, run: PostBattleRun, world: World,
    gang_index: int,
) -> Gang:
    """The gang whose report the user may edit now, or a refusal."""
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
    if not controls_gang(campaign, gang, interaction):
        raise Refused(
            f"Only {possessive(safe(gang.name))} player or an Arbitrator can report how it "
            "ended the battle."
        )
    return gang


async def _read(
    interaction: Interaction, campaign_id: str, battle_id: str
) -> tuple[Campaign, PostBattleRun, World]:
    storage = interaction.client.storage
    # Read-only: the checks before answering a click must not queue behind writers.
    async with storage.read_only(guild_id_of(interaction)) as tx:
        return await _load(tx, campaign_id, battle_id)


async def _load(
    tx: Transaction, campaign_id: str, battle_id: str
) -> tuple[Campaign, PostBattleRun, World]:
    campaign = await tx.get_campaign(campaign_id)
    run = await _require_run(tx, campaign_id, battle_id)
    return campaign, run, await load_battle_world(tx, campaign_id, run)


async def edit_report(
    interaction: Interaction, campaign_id: str, battle_id: str, gang_index: int, edit: ReportEdit
) -> None:
    """A select or toggle of a report panel: store the change and redraw the panel."""
    campaign, run, world = await _read(interaction, campaign_id, battle_id)
    _report_gang(interaction, campaign, run, world, gang_index)  # refuse at once, undeferred
    # A dry run on the copy just read, so a refused edit is answered at once too.
    _edit(views.report_scope(run, world, gang_index, ruleset_for(campaign)), edit)
    await interaction.response.defer()
    guild_id = guild_id_of(interaction)
    note = None
    async with interaction.client.storage.transaction(guild_id) as tx:
        campaign, run, world = await _load(tx, campaign_id, battle_id)
        _report_gang(interaction, campaign, run, world, gang_index)
        scope = views.report_scope(run, world, gang_index, ruleset_for(campaign))
        changed = _edit(scope, edit)
        report = scope.report
        if changed and report.submitted:
            report.submitted, report.submitted_by = False, None
            note = "The report changed after it was submitted: press Submit again when it is right."
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    await publish(interaction.client, Scene(guild_id, campaign, run, world,
                                            report_gangs=[gang_index]))
    if note:
        await interaction.followup.send(note, ephemeral=True)


def _edit(scope: views.ReportScope, edit: ReportEdit) -> bool:
    """Apply ``edit`` to the scope's report; True when the report itself changed."""
    report = scope.report
    if edit.kind == "section":
        if edit.section not in [value for value, _ in views.sections(scope)]:
            raise InvalidRequest("That part of the report is not available.")
        report.section, report.page = edit.section, 0
        return False
    if edit.kind in ("prev", "next"):
        section = views.current_section(scope)
        last = views.page_count(scope, section) - 1
        page = views.current_page(scope, section) + (1 if edit.kind == "next" else -1)
        report.page = max(0, min(last, page))
        return False
    if edit.kind == "bottled":
        report.set_bottled_out(not report.bottled_out)
        return True
    if edit.kind == "left":
        report.models_left = not report.models_left
        return True
    if edit.kind == "pick":
        section = edit.section
        if section not in [value for value, _ in views.sections(scope)]:
            raise InvalidRequest("That part of the report is not available any more.")
        page = views.current_page(scope, section)
        shown = [value for value, _, _ in views.slot_items(scope, section, page, edit.slot)]
        chosen = [value for value in edit.values if value in shown]
        report.choose(section, shown, chosen, views.enemy_of(scope, section))
        return True
    if edit.kind == "injfighter":
        return views.pick_injury_fighter(scope, edit.values)
    if edit.kind == "injury":
        return views.enter_injury(scope, edit.fighter, edit.values)
    raise InvalidRequest("Unknown report change.")


def _check_complete(scope: views.ReportScope) -> None:
    """Injuries rolled at the table as the Wrap-up will read them; in a 3-4 gang battle,
    every fighter Out of Action names the enemy that took it."""
    views.check_injuries(scope)
    if len(scope.run.gang_ids) <= 2:
        return
    missing = [
        f.name for f in scope.fighters
        if (mark := scope.report.fighters.get(f.id)) is not None
        and mark.out_of_action and mark.taken_by is None
    ]
    if missing:
        shown = ", ".join(safe(name, 40) for name in missing[:10])
        raise InvalidRequest(
            f"Say which enemy took each fighter Out of Action (the 'Taken Out of Action by' "
            f"parts of the report): {shown}."
        )


async def submit_report(
    interaction: Interaction, campaign_id: str, battle_id: str, gang_index: int
) -> None:
    """Submit a gang's report; the last one records the end states and opens the Wrap-up."""
    campaign, run, world = await _read(interaction, campaign_id, battle_id)
    _report_gang(interaction, campaign, run, world, gang_index)
    await interaction.response.defer()
    guild_id = guild_id_of(interaction)
    async with interaction.client.storage.transaction(guild_id) as tx:
        campaign, run, world = await _load(tx, campaign_id, battle_id)
        gang = _report_gang(interaction, campaign, run, world, gang_index)
        scope = views.report_scope(run, world, gang_index, ruleset_for(campaign))
        _check_complete(scope)
        scope.report.submitted, scope.report.submitted_by = True, interaction.user.id
        scene = Scene(guild_id, campaign, run, world, report_gangs=[gang_index])
        waiting = [world.gang(g).name for g, r in run.reports.items() if not r.submitted]
        if waiting:
            note = (f"{possessive(safe(gang.name))} report is submitted. Waiting for: "
                    f"{', '.join(safe(n) for n in waiting)}.")
        else:
            ends = run.end_states()
            battle = ends.apply_to(await tx.get_battle(campaign.id, run.battle_id))
            battle = await tx.update_battle(campaign.id, battle)
            run.phase = Phase.SEQUENCE
            scene.world = await _open_stage(tx, interaction, campaign, run, battle, world,
                                            ends.captor_by_fighter)
            scene.reports, scene.stages = True, [run.stages[-1].number]
            await _owe_stage(tx, run, run.stages[-1], scene.world)
            note = "Every report is in: the Wrap-up has been rolled in the thread."
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    if scene.stages:
        failpoints.hit(failpoints.AFTER_STAGE_STORED)
    await publish(interaction.client, scene)
    await interaction.followup.send(note, ephemeral=True)


# --------------------------------------------------------------------------- confirming


def _confirm_targets(
    interaction: discord.Interaction, campaign: Campaign, run: PostBattleRun, world: World,
    stage_no: int | None, gang_id: str | None, on_behalf: bool,
) -> tuple[StageRecord, list[str] | str]:
    """The stage and the gangs to confirm, or a message saying it is already done."""
    if run.phase is Phase.CANCELLED:
        raise Refused("This post-battle sequence was cancelled.")
    actor = actor_of(interaction)
    owned = [g for g in run.gang_ids if world.gang(g).owner == actor]
    arbitrator = is_arbitrator(campaign, interaction)
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
        require_arbitrator(campaign, interaction)
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


async def confirm_stage(
    interaction: Interaction, campaign_id: str, battle_id: str, stage_no: int | None,
    gang_id: str | None = None, *, on_behalf: bool = False,
) -> tuple[Scene | None, str]:
    """Record a confirmation; the last one closes the stage and opens the next (one transaction).

    Returns what to draw (None when nothing changed) and a note for the user.
    """
    guild_id = guild_id_of(interaction)
    async with interaction.client.storage.transaction(guild_id) as tx:
        campaign = await tx.get_campaign(campaign_id)
        run = await _require_run(tx, campaign_id, battle_id)
        # Names and owners until the last confirmation opens the next step.
        world = await load_battle_world(tx, campaign_id, run, rosters=False)
        record, targets = _confirm_targets(interaction, campaign, run, world, stage_no,
                                           gang_id, on_behalf)
        if isinstance(targets, str):
            return None, targets
        actor = actor_of(interaction)
        names = ", ".join(safe(world.gang(g).name) for g in targets)
        for target in targets:
            behalf = on_behalf and world.gang(target).owner != actor
            record.confirmations[target] = Confirmation(user_id=interaction.user.id,
                                                        on_behalf=behalf)
            run.sequence.confirm(target)
            if behalf:
                await tx.apply(campaign.id, _behalf_note(world, target, record, interaction),
                               actor=actor, battle_id=run.battle_id, step=record.label)
        scene = Scene(guild_id, campaign, run, world, stages=[record.number])
        note = f"Confirmed {record.label} for {names}."
        if run.sequence.all_confirmed:
            record.status = StageStatus.CONFIRMED
            record.note = ""  # "reopened by an undo" is over once everyone confirmed again
            run.sequence.advance()
            battle = await tx.get_battle(campaign.id, run.battle_id)
            world = scene.world = await load_battle_world(tx, campaign.id, run)
            if run.sequence.finished:
                run.phase = Phase.FINISHED
                note += " That was the last step."
                if not run.sequence.skirmish:
                    await _owe_report(tx, campaign, run, battle_report(world, battle))
            else:
                scene.world = await _open_stage(tx, interaction, campaign, run, battle, world)
                scene.stages.append(run.stages[-1].number)
                await _owe_stage(tx, run, run.stages[-1], scene.world)
                note += f" Next: {run.stages[-1].label}."
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    if len(scene.stages) > 1:
        failpoints.hit(failpoints.AFTER_CONFIRM_STORED)
    elif run.phase is Phase.FINISHED and not run.sequence.skirmish:
        failpoints.hit(failpoints.AFTER_REPORT_QUEUED)
    return scene, note


def _behalf_note(
    world: World, gang_id: str, record: StageRecord, interaction: discord.Interaction
) -> RuleResult:
    """A ledger entry saying an Arbitrator confirmed for a player (it changes nothing)."""
    who = getattr(interaction.user, "display_name", None) or str(interaction.user)
    return RuleResult(
        clause="PB-0", title="Confirmed on a player's behalf",
        notes=[f"{who} (Arbitrator) confirmed {record.label} for "
               f"{world.gang(gang_id).name} on the player's behalf."],
        world=World(),
    )


async def _read_for_confirm(
    interaction: Interaction, campaign_id: str, battle_id: str
) -> tuple[Campaign, PostBattleRun, World]:
    """What :func:`_confirm_targets` looks at, read without waiting for writers: the
    campaign, the run and the battle's gangs WITHOUT their rosters (owners and names are
    all it needs). The button answers after this, so it is kept to the least."""
    async with interaction.client.storage.read_only(guild_id_of(interaction)) as tx:
        campaign = await tx.get_campaign(campaign_id)
        run = await _require_run(tx, campaign_id, battle_id)
        return campaign, run, await load_battle_world(tx, campaign_id, run, rosters=False)


async def press_confirm(
    interaction: Interaction, campaign_id: str, battle_id: str, stage_no: int,
    gang_id: str | None, *, on_behalf: bool = False,
) -> None:
    """The Confirm button (or the Arbitrator's confirm-for-a-player select)."""
    campaign, run, world = await _read_for_confirm(interaction, campaign_id, battle_id)
    _record, targets = _confirm_targets(interaction, campaign, run, world, stage_no, gang_id,
                                        on_behalf)
    if isinstance(targets, str):  # a double click: say so, change nothing
        await interaction.response.send_message(targets, ephemeral=True)
        return
    await interaction.response.defer()
    scene, note = await confirm_stage(interaction, campaign_id, battle_id, stage_no, gang_id,
                                      on_behalf=on_behalf)
    if scene is not None:
        await publish(interaction.client, scene)
    await interaction.followup.send(note, ephemeral=True)


# --------------------------------------------------------------------------- undo and cancel


def _undo_target(
    interaction: discord.Interaction, campaign: Campaign, run: PostBattleRun,
    stage_no: int | None,
) -> StageRecord:
    require_arbitrator(campaign, interaction)
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


async def undo_stage(
    interaction: Interaction, campaign_id: str, battle_id: str, stage_no: int | None
) -> tuple[Scene, str]:
    """Undo the last confirmed step: take back the open stage and reopen the one before.

    Every action stored in the open stage (its automatic rolls and what the
    players did in it) is undone through the ledger, newest first, then the
    previous stage opens again with no confirmations. Undoing the Wrap-up
    reopens the reports. The undone rolls stay in the ledger (marked undone)
    and in the stage's message (marked undone, without buttons); the dice
    counter does not go back, so the redone stage rolls fresh dice in a new
    message: players who saw the undone faces cannot steer them elsewhere.
    """
    guild_id = guild_id_of(interaction)
    actor = actor_of(interaction)
    async with interaction.client.storage.transaction(guild_id) as tx:
        campaign, run, _world = await _load(tx, campaign_id, battle_id)
        current = _undo_target(interaction, campaign, run, stage_no)
        actions = await tx.list_actions(campaign.id, battle_id=run.battle_id,
                                        limit=ACTIONS_LOOKBACK)
        mine = sorted(
            (a for a in actions
             if a.step == current.label and a.undoes is None and a.undone_by is None),
            key=lambda a: a.id, reverse=True,
        )
        for expected in mine:
            # This also puts back the run as each action found it; the run saved below
            # (loaded before) replaces that, keeping its dice counters where they are.
            undone = await tx.undo_last_action(campaign.id, actor=actor, battle_id=run.battle_id)
            if undone.id != expected.id:
                raise Refused(
                    "Something else was recorded in this campaign after this step; undo that "
                    "first (see /ledger), then undo the step."
                )
        previous = run.take_back(current, f"<@{interaction.user.id}>")
        scene = Scene(guild_id, campaign, run, World(), stages=[current.number])
        if previous is None:
            scene.reports = True
            note = f"Undone: {current.label} was taken back and the reports are open again."
        else:
            scene.stages.append(previous.number)
            note = f"Undone: {current.label} was taken back; {previous.label} is open again."
        await _owe_notice(tx, run, f"undo:{current.number}", f"↩️ {current.note}")
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
        scene.world = await load_battle_world(tx, campaign.id, run)
    return scene, note


def _cancel_check(
    interaction: discord.Interaction, campaign: Campaign, run: PostBattleRun
) -> None:
    require_arbitrator(campaign, interaction)
    if not run.in_progress:
        raise Refused("This post-battle sequence is not in progress.")


async def cancel_run(
    interaction: Interaction, campaign_id: str, battle_id: str
) -> tuple[Scene, str]:
    """Stop a run. What it stored stays (undo it first, or use the ledger)."""
    guild_id = guild_id_of(interaction)
    async with interaction.client.storage.transaction(guild_id) as tx:
        campaign, run, world = await _load(tx, campaign_id, battle_id)
        _cancel_check(interaction, campaign, run)
        current = run.current
        was_reporting = run.phase is Phase.REPORTING
        run.phase = Phase.CANCELLED
        run.cancelled_by = interaction.user.id
        await _owe_notice(tx, run, "cancel", (
            f"✖ Post-battle sequence cancelled by <@{interaction.user.id}>. Changes already "
            "stored stay as they are (see /ledger)."))
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    scene = Scene(guild_id, campaign, run, world, reports=was_reporting,
                  stages=[current.number] if current else [])
    return scene, "Cancelled."


async def ask_really(
    interaction: Interaction, kind: str, campaign_id: str, battle_id: str, stage_no: int
) -> None:
    """The Undo and Cancel buttons: check, then ask the Arbitrator to click once more."""
    campaign, run, _world = await _read(interaction, campaign_id, battle_id)
    if kind == "undo":
        current = _undo_target(interaction, campaign, run, stage_no)
        question = (f"Undo **{current.label}**? Its rolls and changes are taken back and the "
                    "step before it opens again.")
    else:
        _cancel_check(interaction, campaign, run)
        question = ("Cancel this post-battle sequence? Nothing stored is taken back; the "
                    "remaining steps are dropped.")
    await interaction.response.send_message(
        question, view=views.really_view(kind, campaign_id, battle_id, stage_no), ephemeral=True,
    )


async def press_undo(
    interaction: Interaction, campaign_id: str, battle_id: str, stage_no: int
) -> None:
    await interaction.response.defer()
    scene, note = await undo_stage(interaction, campaign_id, battle_id, stage_no)
    await publish(interaction.client, scene)
    await interaction.edit_original_response(content=note, view=None)


async def press_cancel(interaction: Interaction, campaign_id: str, battle_id: str) -> None:
    await interaction.response.defer()
    scene, note = await cancel_run(interaction, campaign_id, battle_id)
    await publish(interaction.client, scene)
    await interaction.edit_original_response(content=note, view=None)


# --------------------------------------------------------------------------- the channel


@dataclass
class Scene:
    """What to draw after a commit, from the state that was stored."""

    guild_id: int
    campaign: Campaign
    run: PostBattleRun
    world: World
    stages: list[int] = field(default_factory=list)  # stage numbers to redraw
    reports: bool = False  # redraw every report panel
    report_gangs: list[int] = field(default_factory=list)  # or only these
    # Leave posted messages as they are (only deliver what is owed).
    only_missing: bool = False


_locks: KeyedLocks[tuple[int, str]] = KeyedLocks()


def _lock(guild_id: int, key: str) -> asyncio.Lock:
    # Two clicks drawing the same run at once would interleave their edits (and both
    # post again a message someone deleted).
    return _locks((guild_id, key))


def thread_url(guild_id: int, run: PostBattleRun) -> str:
    return f"https://discord.com/channels/{guild_id}/{run.target_channel_id}"


async def publish(client: MundaBot, scene: Scene) -> None:
    """Deliver the messages the commit owes, then redraw what ``scene`` names.

    New messages (a stage that opened, the lines of an action, notices, the
    battle report) were owed in the commit's transaction and go out through
    the outbox (bot/outbox.py), which records their ids in the run; this
    only edits messages already posted. Failures to reach Discord are logged,
    not raised: the state is stored already, the outbox retries what is owed
    and the next click or the next start-up redraws the rest.
    """
    await deliver_owed(client, scene.guild_id)
    await _draw(client, scene)


async def deliver_owed(client: MundaBot, guild_id: int | None = None) -> None:
    """Send what is owed now, in ``guild_id`` when given (the outbox's own loop retries
    whatever fails and delivers the rest)."""
    try:
        await client.outbox.flush(guild_id)
    except Exception:
        log.exception("could not deliver owed messages now; the outbox will retry")
        client.outbox.kick()


async def _draw(client: MundaBot, scene: Scene) -> None:
    """Edit the posted messages ``scene`` names to show what is stored now."""
    async with _lock(scene.guild_id, scene.run.key):
        await _refresh(client.storage, scene)
        run = scene.run
        channel = client.get_partial_messageable(run.target_channel_id, guild_id=scene.guild_id)
        posted = Posted()
        try:
            if scene.reports or scene.report_gangs:
                indexes = range(len(run.gang_ids)) if scene.reports else scene.report_gangs
                for index in indexes:
                    await _draw_report(channel, scene, index, posted)
            for number in scene.stages:
                record = run.stage_record(number)
                if record is not None:
                    await _draw_stage(channel, scene, record, posted)
        except discord.HTTPException:
            log.exception("could not draw post-battle sequence %s", run.key)
        if posted:
            await _remember(client.storage, scene, posted)


async def _refresh(storage: Storage, scene: Scene) -> None:
    """Draw from what is stored now: a later commit may have been drawn before this one."""
    try:
        # Drawing comes after the answer: it must neither queue behind other clicks'
        # writes nor hold up their checks.
        async with storage.read_only(scene.guild_id, background=True) as tx:
            run = await load_run(tx, scene.campaign.id, scene.run.battle_id)
            if run is not None:
                scene.run = run
                panels = bool(scene.reports or scene.report_gangs)
                scene.world = await load_battle_world(tx, scene.campaign.id, run, rosters=panels)
    except (RulesError, StorageError):
        log.warning("could not reload %s before drawing it", scene.run.key, exc_info=True)


@dataclass
class Posted:
    """Message ids posted again while drawing (someone deleted them), to store with the run."""

    reports: dict[str, int] = field(default_factory=dict)
    stages: dict[int, list[int]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.reports or self.stages)


async def _draw_report(
    channel: discord.PartialMessageable, scene: Scene, index: int, posted: Posted
) -> None:
    run, world = scene.run, scene.world
    report = run.reports[run.gang_ids[index]]
    if report.message_id is None or scene.only_missing:
        return  # not posted yet: it is owed, and the outbox posts it (_owe_panels)
    embed, view = _panel_parts(scene.campaign, run, world, index)
    try:
        await channel.get_partial_message(report.message_id).edit(embed=embed, view=view)
        return
    except discord.NotFound:
        pass  # deleted by someone: post it again
    message = await channel.send(embed=embed, view=view or discord.utils.MISSING)
    report.message_id = message.id
    posted.reports[report.gang_id] = message.id


async def _draw_stage(
    channel: discord.PartialMessageable, scene: Scene, record: StageRecord, posted: Posted,
    reposting: bool = False,
) -> None:
    run = scene.run
    if scene.only_missing:
        return
    names = views.gang_names(scene.world)
    pages = render.stage_pages(run, record, names)
    view = _stage_view(run, record, names)
    new_ids: list[int] = []
    for index, embed in enumerate(pages):
        with_view = view if index == 0 else None
        if index < len(record.message_ids):
            try:
                await channel.get_partial_message(record.message_ids[index]).edit(
                    embed=embed, view=with_view)
                continue
            except discord.NotFound:
                if index == 0:
                    record.message_ids = []
                    return await _draw_stage(channel, scene, record, posted, reposting=True)
                continue
        if not reposting:
            break  # a page not posted yet is owed: the outbox posts it (_owe_stage)
        message = await channel.send(embed=embed, view=with_view or discord.utils.MISSING)
        new_ids.append(message.id)
    if new_ids:
        record.message_ids = [*record.message_ids, *new_ids]
        posted.stages[record.number] = list(record.message_ids)


async def _remember(storage: Storage, scene: Scene, posted: Posted) -> None:
    """Store the ids of the messages just posted (so they are edited, not posted again)."""
    async with storage.transaction(scene.guild_id) as tx:
        run = await load_run(tx, scene.campaign.id, scene.run.battle_id)
        if run is None:
            return
        for gang_id, message_id in posted.reports.items():
            if gang_id in run.reports:
                run.reports[gang_id].message_id = message_id
        for number, message_ids in posted.stages.items():
            record = run.stage_record(number)
            if record is not None:
                record.message_ids = message_ids
        await tx.save_sequence(scene.campaign.id, run.key, run, battle_id=run.battle_id)


# --------------------------------------------------------------------------- owed messages

# The outbox link kind of a run's messages (bot/outbox.py calls the hooks below).
OUTBOX_KIND = "pb"


def _owed_key(run: PostBattleRun, *parts: object) -> str:
    # The sequence id is new each time a battle's run starts (a cancelled battle can be
    # started again), so the keys of two runs of one battle never meet.
    return ":".join(["pb", run.sequence.id, *(str(part) for part in parts)])


def _link(run: PostBattleRun, what: str, **more: object) -> dict[str, Any]:
    return {"kind": OUTBOX_KIND, "campaign": run.campaign_id, "battle": run.battle_id,
            "sequence": run.sequence.id, "what": what, **more}


def _body(
    *, embed: discord.Embed | None = None, view: discord.ui.View | None = None,
    content: str | None = None,
) -> dict[str, Any]:
    """A new message's JSON, as discord.py would send it; it never pings anyone."""
    body: dict[str, Any] = {"allowed_mentions": {"parse": []}}
    if content:
        body["content"] = content
    if embed is not None:
        body["embeds"] = [embed.to_dict()]
    if view is not None:
        body["components"] = view.to_components()
    return body


def _same(body: dict[str, Any], sent: dict[str, Any]) -> bool:
    return bool(json.loads(json.dumps(body)) == sent)


def _stage_view(
    run: PostBattleRun, record: StageRecord, names: dict[str, str]
) -> discord.ui.View | None:
    if record.status is StageStatus.OPEN and run.phase is Phase.SEQUENCE:
        return views.stage_view(run, record, names)
    return None


def _stage_bodies(run: PostBattleRun, record: StageRecord, world: World) -> list[dict[str, Any]]:
    names = views.gang_names(world)
    view = _stage_view(run, record, names)
    return [_body(embed=page, view=view if index == 0 else None)
            for index, page in enumerate(render.stage_pages(run, record, names))]


def _panel_parts(
    campaign: Campaign, run: PostBattleRun, world: World, index: int
) -> tuple[discord.Embed, discord.ui.View | None]:
    gang = world.gang(run.gang_ids[index])
    embed = render.report_embed(run, gang.id, gang.owner, views.gang_names(world),
                                gang.fighters, gang.vehicles)
    view = None
    if run.phase is Phase.REPORTING:
        view = views.report_view(views.report_scope(run, world, index, ruleset_for(campaign)))
    return embed, view


async def _owe_stage(
    tx: Transaction, run: PostBattleRun, record: StageRecord, world: World
) -> bool:
    """Owe the pages of ``record`` not posted yet, in the caller's transaction.

    True when a page turned out to be delivered already without its id in
    the run (the id is adopted here: the caller saves the run).
    """
    adopted = False
    for index, body in enumerate(_stage_bodies(run, record, world)):
        if index < len(record.message_ids):
            continue
        entry = await tx.owe_message(
            _owed_key(run, "stage", record.number, index), run.target_channel_id, body,
            link=_link(run, "stage", stage=record.number, page=index),
        )
        if entry.message_id is None:
            break  # the later pages wait for this one: their ids follow it in the list
        record.message_ids = [*record.message_ids, entry.message_id]
        adopted = True
    return adopted


async def _owe_panels(
    tx: Transaction, campaign: Campaign, run: PostBattleRun, world: World
) -> bool:
    """Owe the report panels not posted yet; True when one was adopted (see _owe_stage)."""
    adopted = False
    for index, gang_id in enumerate(run.gang_ids):
        report = run.reports[gang_id]
        if report.message_id is not None:
            continue
        embed, view = _panel_parts(campaign, run, world, index)
        entry = await tx.owe_message(
            _owed_key(run, "panel", gang_id), run.target_channel_id,
            _body(embed=embed, view=view), link=_link(run, "panel", gang=gang_id),
        )
        if entry.message_id is not None:
            report.message_id, adopted = entry.message_id, True
    return adopted


async def _owe_notice(tx: Transaction, run: PostBattleRun, name: str, text: str) -> None:
    """Owe a plain message in the run's channel (``name`` unique within the run)."""
    for index, page in enumerate(render.paginate_notice(text)):
        await tx.owe_message(_owed_key(run, "notice", name, index), run.target_channel_id,
                             _body(content=page))


async def _owe_report(
    tx: Transaction, campaign: Campaign, run: PostBattleRun, report: BattleReport
) -> bool:
    """Owe the battle report (PB-7) to the report channel; where the battle began if that
    channel refuses it. True when it was delivered already (its id is adopted)."""
    embed = render.final_report_embed(report, thread_url(tx.guild_id, run))
    target = campaign.report_channel_id or run.channel_id
    entry = await tx.owe_message(
        _owed_key(run, "report"), target, _body(embed=embed), link=_link(run, "report"),
        fallback_channel_id=run.channel_id if target != run.channel_id else None,
    )
    if entry.message_id is None:
        return False
    run.report_channel_id = entry.delivered_channel_id
    run.report_message_id = entry.message_id
    return True


def use_outbox(client: MundaBot) -> None:
    """Let the outbox store where a run's messages went, and redraw them once posted."""

    async def after(entry: OutboxEntry, accepted: Accepted) -> None:
        await _redraw_delivered(client, entry)

    client.outbox.on_delivered(OUTBOX_KIND, _record_delivery, after)


async def _linked_run(tx: Transaction, entry: OutboxEntry) -> PostBattleRun | None:
    link = entry.link or {}
    run = await load_run(tx, str(link.get("campaign")), str(link.get("battle")))
    if run is None or run.sequence.id != link.get("sequence"):
        return None  # cancelled and started again since: the message was the old run's
    return run


async def _record_delivery(tx: Transaction, entry: OutboxEntry, accepted: Accepted) -> None:
    """In the transaction marking ``entry`` delivered: store its message id in the run."""
    run = await _linked_run(tx, entry)
    link = entry.link or {}
    if run is None:
        return
    what = link.get("what")
    if what == "stage":
        record = run.stage_record(int(link["stage"]))
        page = int(link["page"])
        if record is None or page > len(record.message_ids):
            return
        ids = list(record.message_ids)
        if page == len(ids):
            ids.append(accepted.message_id)
        else:
            ids[page] = accepted.message_id
        record.message_ids = ids
    elif what == "panel":
        report = run.reports.get(str(link.get("gang")))
        if report is None:
            return
        report.message_id = accepted.message_id
    elif what == "report":
        run.report_channel_id = accepted.channel_id
        run.report_message_id = accepted.message_id
    else:
        return
    await tx.save_sequence(run.campaign_id, run.key, run, battle_id=run.battle_id)


async def _redraw_delivered(client: MundaBot, entry: OutboxEntry) -> None:
    """A message goes out as it was when owed; if the run moved on before it was posted
    (a confirmation, an undo while Discord was down), draw it as it is now. A delivered
    battle report redraws the run's last step."""
    link = entry.link or {}
    if link.get("what") not in ("stage", "panel", "report"):
        return
    async with client.storage.read_only(entry.guild_id, background=True) as tx:
        run = await _linked_run(tx, entry)
        if run is None:
            return
        campaign = await tx.get_campaign(run.campaign_id)
        world = await load_battle_world(tx, campaign.id, run, rosters=link["what"] == "panel")
    scene = Scene(entry.guild_id, campaign, run, world)
    if link["what"] == "report":
        # The report is the last thing the final Confirm owes: a kill before that click
        # was drawn left the last step showing live buttons.
        if not run.stages:
            return
        scene.stages = [run.stages[-1].number]
    elif link["what"] == "stage":
        record = run.stage_record(int(link["stage"]))
        if record is None:
            return
        bodies = _stage_bodies(run, record, world)
        page = int(link["page"])
        if page < len(bodies) and _same(bodies[page], entry.payload):
            return
        scene.stages = [record.number]
    else:
        gang_id = str(link.get("gang"))
        if gang_id not in run.gang_ids:
            return
        index = run.gang_ids.index(gang_id)
        embed, view = _panel_parts(campaign, run, world, index)
        if _same(_body(embed=embed, view=view), entry.payload):
            return
        scene.report_gangs = [index]
    await _draw(client, scene)


# --------------------------------------------------------------------------- start-up


async def resume_all(client: MundaBot) -> int:
    """At start-up: deliver what runs owe and redraw their latest messages.

    A crash between a commit and its posts leaves the messages owed in the
    outbox, which delivers them; this also owes what a run is missing that
    has no outbox row (stored by an older release) and redraws the messages
    the last commit may have left stale (the step before with its buttons,
    the report panels). Returns how many runs were looked at. Stored results
    are drawn as they are: nothing is rolled here.
    """
    seen = 0
    for guild in list(client.guilds):
        try:
            campaigns = await client.storage.list_campaigns(guild.id)
        except Exception:
            log.exception("could not list campaigns of guild %s", guild.id)
            continue
        for campaign in campaigns:
            async with client.storage.transaction(guild.id) as tx:
                runs = await runs_of(tx, campaign.id)
                scenes = [await _resume_scene(tx, guild.id, campaign, run, redraw=True)
                          for run in runs]
            for scene in scenes:
                if scene is not None:
                    seen += 1
                    await publish(client, scene)
    return seen


async def redraw_missing(client: MundaBot, guild_id: int, campaign: Campaign,
                         run: PostBattleRun) -> None:
    """Post what a crash left unposted for one run (any read of it may call this)."""
    async with client.storage.transaction(guild_id) as tx:
        scene = await _resume_scene(tx, guild_id, campaign, run)
    if scene is not None:
        await publish(client, scene)


async def _resume_scene(
    tx: Transaction, guild_id: int, campaign: Campaign, run: PostBattleRun,
    *, redraw: bool = False,
) -> Scene | None:
    """Owe what ``run`` is missing (in ``tx``) and say what to redraw (``redraw``: the
    latest messages; otherwise nothing already posted)."""
    missing_report = (
        run.phase is Phase.FINISHED and not run.sequence.skirmish
        and run.report_message_id is None
    )
    if not run.in_progress and not missing_report:
        return None
    world = await load_battle_world(tx, campaign.id, run)
    scene = Scene(guild_id, campaign, run, world, only_missing=not redraw)
    adopted = False
    if run.phase is Phase.REPORTING:
        adopted = await _owe_panels(tx, campaign, run, world)
        scene.reports = True
    elif run.current is not None:
        adopted = await _owe_stage(tx, run, run.current, world)
        # The last commit may have left the step before showing its buttons, and the
        # report panels theirs when it opened the Wrap-up.
        scene.stages = sorted({run.current.number, *(r.number for r in run.stages[-2:])})
        scene.reports = len(run.stages) == 1
    if missing_report:
        if redraw and run.stages:
            scene.stages = [run.stages[-1].number]  # may still show the final Confirm
        try:
            battle = await tx.get_battle(campaign.id, run.battle_id)
            adopted = await _owe_report(tx, campaign, run, battle_report(world, battle))
        except RulesError:
            log.exception("could not compose the report of %s", run.key)
    if adopted:
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    return scene
