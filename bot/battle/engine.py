"""The post-battle sequence's service: read, decide, write once, then show.

Every change follows the same path. A read transaction (which never waits
for the writer) loads what the decision needs; :mod:`bot.battle.flow`
decides, without Discord; :func:`bot.battle.store.commit` writes the
decision in one short write transaction that refuses it if the run moved on
since it was read (then it is decided again from what is stored now); only
then is it shown (:mod:`bot.battle.publish`). Rolls are therefore stored
before they are shown, a refusal or a crash leaves nothing behind, and a
retry replays the same dice (the roller is seeded by the run; its counter
only moves when an action is stored).

:func:`act_in_stage` is the entry point of the interactive stage commands
(``/rewards``, ``/action``, ``/roster``); :func:`find_active_run` tells which
run a gang is in. The click handlers (bot/battle/clicks.py) and the
``/postbattle`` commands call the functions below.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot import failpoints
from bot.battle import flow, publish, render
from bot.battle.flow import Decision, StartRequest
from bot.battle.panel import ReportEdit, gang_names
from bot.battle.state import PostBattleRun
from bot.battle.store import (
    active_among,
    active_run_at,
    active_run_in,
    commit,
    find_active_run,
    finish_and_store,
    load_battle_world,
    load_for_decision,
    load_run,
    load_run_at,
    load_start,
    load_with_rosters,
    owes_messages,
    save_with_panels,
    store_decision,
)
from bot.call import Actor, Call, actor_from
from bot.render import safe
from bot.scheduling import change_event, mark_started, scheduled_among
from bot.storage import Campaign, StaleWorld, Transaction, new_id
from bot.storage.calendar import ScheduledBattle
from bot.storage.transaction import StartRows
from rules.dice import Roller
from rules.models import Battle, Gang
from rules.sequence import Step, SubStep
from rules.world import RuleResult, World

if TYPE_CHECKING:
    from bot.app import MundaBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["MundaBot"]
THREAD_NAME_MAX = 100
# A decision refused because another click was stored first is made again from what is
# stored now; more clashes than this in a row are answered "please try again".
ATTEMPTS = 5

__all__ = [
    "ActResult",
    "RunCall",
    "StartRequest",
    "StoredDecision",
    "act_in_stage",
    "active_run_in",
    "announce_start",
    "cancel_run",
    "confirm_stage",
    "edit_report",
    "find_active_run",
    "load_battle_world",
    "load_run",
    "store_start",
    "submit_report",
    "undo_stage",
]


@dataclass(frozen=True)
class RunCall:
    """One actor's call on one post-battle run: the bot, the server, who acts, and the
    run's campaign and battle. Every decision below starts from one."""

    client: MundaBot
    guild_id: int
    actor: Actor
    campaign_id: str
    battle_id: str

    @classmethod
    def of(cls, call: Call, campaign_id: str, battle_id: str) -> RunCall:
        return cls(call.interaction.client, call.guild_id, call.actor, campaign_id, battle_id)


@dataclass
class ActResult:
    """What :func:`act_in_stage` stored: the run after it, the result and its rendered lines."""

    run: PostBattleRun
    result: RuleResult
    lines: list[str]


@dataclass
class StoredDecision:
    """A decision as it was stored: draw and answer from this, not from a read-back."""

    campaign: Campaign
    decision: Decision
    world: World
    revision: int  # the run's revision after the commit; 0 when nothing was stored
    # The crash tests' kill point once this is stored and answered, before it is shown.
    failpoint: str | None = None

    @property
    def run(self) -> PostBattleRun:
        return self.decision.run

    @property
    def note(self) -> str:
        return self.decision.scene.note


def who(interaction: discord.Interaction) -> str:
    return getattr(interaction.user, "display_name", None) or str(interaction.user)


Decide = Callable[[Campaign, PostBattleRun, World], Decision]
# The battle is None for a decision that flow.opens_without_rosters (it opens a step that
# rolls nothing), read otherwise.
Finish = Callable[[Decision, Campaign, Battle | None, World], World]


async def decide_and_store(
    at: RunCall, decide: Decide, *, rosters: bool, finish: Finish | None = None,
    acknowledge: Callable[[], Awaitable[object]] | None = None,
    decided: Callable[[], None] | None = None,
) -> StoredDecision:
    """Read the run, decide, and store the decision in one short write.

    ``rosters``: whether ``decide`` needs the battle's rosters (names and owners
    are read otherwise). A decision that ``needs_rosters`` later on is finished by
    ``finish`` with them, read in the write transaction that stores it (once: the
    ledger's check that they did not change uses that read), or here without them
    when the step it opens rolls nothing (flow.opens_without_rosters; then with no
    battle either: nothing reads it). A decision made from a run that moved on before
    it was written is made again. ``acknowledge``
    answers the click before the write when the write would wait for another (the
    click is otherwise answered after it, with the edit of its own message);
    ``decided`` is told when a decision that changes something was made (no refusal
    is left). ``decide`` is handed a run read for it alone (each attempt reads its own,
    and nothing else holds it): it may change that run instead of a copy (flow's
    ``copy=False``).
    """

    # Two bodies, not one with a branch: PostgreSQL's read_whole knows a body by its code,
    # and either may need a snapshot of several statements (a run that names a gang its
    # battle does not) without making the other one.
    async def read_and_decide(tx: Transaction) -> tuple[Campaign, Decision, int, World]:
        # One statement (store.load_with_rosters).
        return decide_from(*await load_with_rosters(tx, at.campaign_id, at.battle_id))

    async def read_names_and_decide(tx: Transaction) -> tuple[Campaign, Decision, int, World]:
        # One statement (store.load_for_decision).
        return decide_from(*await load_for_decision(tx, at.campaign_id, at.battle_id))

    def decide_from(campaign: Campaign, run: PostBattleRun, revision: int,
                    world: World) -> tuple[Campaign, Decision, int, World]:
        decision = decide(campaign, run, world)
        if (decision.needs_rosters and finish is not None and not rosters
                and flow.opens_without_rosters(decision)):
            # Half the steps roll nothing as they open: no roster (nor battle) to read.
            world = finish(decision, campaign, None, world)
        return campaign, decision, revision, world

    for attempt in range(ATTEMPTS):
        # The read and the decision run whole on a reader's thread: one round trip.
        campaign, decision, revision, world = await at.client.storage.read_whole(
            at.guild_id, read_and_decide if rosters else read_names_and_decide)
        if not decision.changed:
            return StoredDecision(campaign, decision, world, 0)
        if decided is not None:
            decided()
        # The rosters a finish needs are read once, in the write that stores what they decide.
        finishing = (functools.partial(finish, decision, campaign)
                     if decision.needs_rosters and finish is not None else None)
        try:
            stored, world = await _write(at, campaign, decision, revision, world, acknowledge,
                                         finishing)
        except StaleWorld:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        return StoredDecision(campaign, decision, world, stored)
    raise AssertionError("unreachable")


async def _write(
    at: RunCall, campaign: Campaign, decision: Decision, revision: int, world: World,
    acknowledge: Callable[[], Awaitable[object]] | None,
    finish: Callable[[Battle, World], World] | None,
) -> tuple[int, World]:
    """Store the decision (:func:`bot.battle.store.store_decision`), first finished from the
    rosters read in the same transaction when ``finish`` is given
    (:func:`bot.battle.store.finish_and_store`). With ``acknowledge``, the click is answered
    first when another write holds the writer: the answer (the click's own message
    edited) would wait for that write too. Returns the revision stored and the world after
    the decision."""
    storage = at.client.storage
    if acknowledge is not None and storage.writer_busy:
        await acknowledge()
    if finish is not None:
        return await finish_and_store(storage, at.guild_id, campaign, decision, revision,
                                      actor=at.actor.ledger_id, finish=finish)
    stored = await store_decision(storage, at.guild_id, campaign, decision, revision,
                                  actor=at.actor.ledger_id, world=world)
    return stored, world


async def show(client: MundaBot, guild_id: int, stored: StoredDecision, *,
               except_panel: int | None = None, except_stage: int | None = None) -> None:
    """Deliver and redraw what a stored decision changed (all but the message the click
    already answered with, when given)."""
    if stored.revision == 0:
        return
    if stored.failpoint is not None:
        failpoints.hit(stored.failpoint)
    scene = stored.decision.scene
    drawn = flow.Scene(
        stages=[n for n in scene.stages if n != except_stage], reports=scene.reports,
        report_gangs=[i for i in scene.report_gangs if i != except_panel],
    )
    if scene.reports and except_panel is not None:
        drawn.reports = False
        drawn.report_gangs = [i for i in range(len(stored.run.gang_ids)) if i != except_panel]
    await publish.publish(client, guild_id, stored.campaign, stored.run, stored.world, drawn,
                          revision=stored.revision, owes=owes_messages(stored.decision))


# --------------------------------------------------------------------------- acting in a stage


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

    The caller has checked that the actor controls ``gang``. A read finds the
    gang's active run (none: :class:`Refused`), checks that one of ``stages``
    is open for the gang (else the rules' OutOfStep), runs ``check(tx, run)``
    and ``compute(world, run, roller)`` with the run's seeded roller for that
    stage and ``bookkeeping(run, result)``; one write stores the result in the
    ledger (``battle_id`` and the stage's label), the lines in the stage's
    record and the run, refused if the run moved on meanwhile (then all of it
    is done again from what is stored). After the commit the stage message is
    refreshed and the lines are posted in the thread, so every player sees
    the dice.

    A gang that has confirmed the stage ("done") is refused until an
    Arbitrator undoes it. The interaction is not answered here. Any error
    propagates with nothing stored, and a retried attempt rolls the same faces.
    ``check`` sees what the decision is made from: two clicks arriving together
    both pass it, but only the first is stored; the second is decided again and
    refused by it then.
    """
    client = interaction.client
    guild_id = Call.of(interaction).guild_id
    by = who(interaction)
    for attempt in range(ATTEMPTS):
        async with client.storage.read_only(guild_id) as tx:
            found = await active_run_at(tx, campaign.id, gang.id)
            run = found[0] if found else None
            flow.check_act(run, gang, stages)
            assert found is not None
            run, revision = found
            if check is not None:
                await check(tx, run)
            world = await load_battle_world(tx, campaign.id, run)
        decision = flow.act(run, gang, stages, world, compute, bookkeeping=bookkeeping, who=by)
        result = decision.actions[0].result
        try:
            async with client.storage.transaction(guild_id) as tx:
                stored = await commit(tx, campaign, decision, revision,
                                      actor=str(interaction.user.id), world=result.world)
        except StaleWorld:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        break
    failpoints.hit(failpoints.AFTER_ACTION_STORED)
    await show(client, guild_id, StoredDecision(campaign, decision, result.world, stored))
    notice = decision.actions[0].notice or []
    return ActResult(run=decision.run, result=result, lines=notice[1:])


# --------------------------------------------------------------------------- starting

# What the start asks for, worked out from what it read (the command's checks of the
# names it was given); it may read more in the same transaction (``tx``), nothing else.
AskStart = Callable[[Transaction, Campaign, StartRows[PostBattleRun]], Awaitable[StartRequest]]


@dataclass
class Started:
    """A run :func:`store_start` stored, to announce (:func:`announce_start`)."""

    campaign: Campaign
    battle: Battle
    run: PostBattleRun
    revision: int
    world: World  # the battle's gangs, with their rosters, and every territory
    linked: ScheduledBattle | None  # the scheduled battle this one is the end of


def _prepared(
    actor: Actor, campaign: Campaign, request: StartRequest, rows: StartRows[PostBattleRun],
    battle_id: str,
) -> tuple[Battle, bool]:
    """The battle to start (not stored yet) and whether it is a skirmish, every refusal
    checked on names, owners and the runs of its gangs."""
    battle = flow.battle_to_start(request, rows.battle, battle_id)
    busy = []
    for gang_id in battle.gang_ids:
        active = active_among(rows.recent.get(gang_id, []), gang_id)
        if active is not None and active[0].in_progress:
            busy.append(gang_id)
    existing = rows.existing[0] if rows.existing is not None else None
    return flow.check_start(actor, campaign, rows.world, battle, request, busy=busy,
                            existing=existing)


async def store_start(
    interaction: Interaction, campaign_name: str | None, ask: AskStart, *,
    gang_names: Sequence[str] = (), battle_id: str | None = None,
) -> Started:
    """Check every refusal of a start and store the new run in its reporting phase, in
    one write transaction: the campaign found and claimed, then one read of what the
    start needs (store.load_start), then the writes, the new battle and run sent with
    COMMIT on PostgreSQL (bot/storage/postgres.py, batching). A refusal stores nothing."""
    actor = actor_from(interaction)
    channel_id = interaction.channel_id or 0

    async def body(tx: Transaction) -> Started:
        campaign = await tx.claim_campaign_named(campaign_name)
        rows = await load_start(tx, campaign.id, gang_names=gang_names, battle_id=battle_id)
        request = await ask(tx, campaign, rows)
        battle, skirmish = _prepared(actor, campaign, request, rows, new_id())
        linked = None
        if request.battle_id is None:
            # A battle the players scheduled (and maybe started with /prebattle): this
            # sequence is its end.
            scheduled = scheduled_among(rows.scheduled, battle.gang_ids, started_too=True)
            if scheduled is not None:
                linked = await mark_started(tx, scheduled, battle.id)
        for gang_id in battle.gang_ids:
            found = active_among(rows.recent.get(gang_id, []), gang_id)
            closed = flow.close_deferrals(found[0], gang_id) if found else None
            if closed is not None:
                await tx.save_sequence(campaign.id, closed.key, closed,
                                       battle_id=closed.battle_id)
        world = World(gangs={g: rows.world.gang(g) for g in battle.gang_ids},
                      territories=rows.world.territories)
        run = flow.new_run(actor, campaign, battle, world, skirmish=skirmish,
                           sequence_id=new_id(), channel_id=channel_id)
        if rows.next_battle_pk is not None:
            revision = await tx.create_started(campaign.id, battle, rows.next_battle_pk,
                                               run.key, run)
        else:
            revision = await tx.start_recorded(campaign.id, battle, run.key, run)
        return Started(campaign, battle, run, revision, world, linked)

    return await interaction.client.storage.transaction_whole(
        Call.of(interaction).guild_id, body)


async def announce_start(interaction: Interaction, started: Started) -> str:
    """Open the stored run's thread and post its report panels.

    The interaction has been answered (deferred); the start message is sent as its
    follow-up and the thread grows from it. The panels are owed with the run's thread
    in one write (store.save_with_panels) and delivered by the outbox. Returns the
    battle id.
    """
    client = interaction.client
    guild_id = Call.of(interaction).guild_id
    campaign, battle, world = started.campaign, started.battle, started.world
    if started.linked is not None:
        await change_event(client, guild_id, started.linked.event_id, status="start")
    names = gang_names(world)
    stake = world.territories.get(battle.staked_territory or "")
    message = await interaction.followup.send(
        embed=render.start_embed(started.run, battle, names, stake.name if stake else None),
        wait=True,
    )
    title = " vs ".join(names.get(g, g) for g in battle.gang_ids)
    thread = await _make_thread(interaction, message, f"Post-battle: {title}")
    if isinstance(thread, str):
        # Players would otherwise wonder why this battle, unlike others, has no thread.
        await interaction.followup.send(thread, wait=True)
        thread = None
    run, revision = started.run, started.revision
    for attempt in range(ATTEMPTS):
        if thread is not None:
            run.thread_id = thread.id
        try:
            stored = await save_with_panels(client.storage, guild_id, campaign, run, revision,
                                            world)
        except StaleWorld:
            # The run moved on since it was stored (an Arbitrator's cancel, say).
            if attempt == ATTEMPTS - 1:
                raise
            async with client.storage.read_only(guild_id) as tx:
                run, revision = await load_run_at(tx, campaign.id, battle.id)
            continue
        break
    await publish.publish(client, guild_id, campaign, run, world,
                          flow.Scene(reports=True), revision=stored)
    return battle.id


async def _make_thread(
    interaction: discord.Interaction, message: discord.Message, name: str
) -> discord.Thread | str | None:
    """A thread for the battle from its start message; None keeps everything in the
    channel, and a text says to the players why Discord refused the thread."""
    channel = interaction.channel
    if not isinstance(channel, discord.TextChannel):
        return None  # already in a thread, or a channel kind without threads
    try:
        return await channel.create_thread(name=name[:THREAD_NAME_MAX] or "Post-battle",
                                           message=message)
    except discord.HTTPException as error:
        log.warning("could not open a thread for a post-battle sequence; using the channel",
                    exc_info=True)
        return thread_refused_text(error)


def thread_refused_text(error: discord.HTTPException) -> str:
    """What the players read when the battle's steps stay in the channel."""
    if isinstance(error, discord.Forbidden):
        fix = ("An admin can give the bot the **Create Public Threads** and **Send Messages "
               "in Threads** permissions here so that later battles get their own thread.")
    else:
        fix = "Later battles will try again to open a thread."
    said = safe(error.text or error.response.reason or "no reason given", 200)
    return (f"I could not open a thread for this battle (Discord answered {error.status}: "
            f"{said}), so its post-battle steps run here in the channel instead. {fix}")


# --------------------------------------------------------------------------- the decisions


async def edit_report(
    at: RunCall, gang_index: int, edit: ReportEdit,
    acknowledge: Callable[[], Awaitable[object]] | None = None,
    decided: Callable[[], None] | None = None,
) -> StoredDecision:
    """A select or toggle of a report panel: store the change."""
    return await decide_and_store(
        at,
        lambda campaign, run, world: flow.edit_report(at.actor, campaign, run, world,
                                                      gang_index, edit, copy=False),
        rosters=True, acknowledge=acknowledge, decided=decided,
    )


async def check_report(at: RunCall, gang_index: int) -> None:
    """Whether the actor may submit this report now (before Submit is acknowledged)."""

    async def check(tx: Transaction) -> None:
        campaign, run, _revision, world = await load_for_decision(
            tx, at.campaign_id, at.battle_id)
        flow.report_gang(at.actor, campaign, run, world, gang_index)

    await at.client.storage.read_whole(at.guild_id, check)


async def submit_report(at: RunCall, gang_index: int) -> StoredDecision:
    """Submit a gang's report; the last one records the end states and opens the Wrap-up."""

    def finish(
        decision: Decision, campaign: Campaign, battle: Battle | None, world: World
    ) -> World:
        assert battle is not None  # read with the rosters (rosters=True): the Wrap-up rolls
        return flow.open_wrap_up(decision, at.actor, campaign, battle, world)

    stored = await decide_and_store(
        at,
        lambda campaign, run, world: flow.submit_report(at.actor, campaign, run, world,
                                                        gang_index, copy=False),
        rosters=True, finish=finish,
    )
    if stored.decision.scene.owe_stages:
        stored.failpoint = failpoints.AFTER_STAGE_STORED
    return stored


async def confirm_stage(
    at: RunCall, stage_no: int | None, gang_id: str | None = None, *, on_behalf: bool = False,
    by: str = "", acknowledge: Callable[[], Awaitable[object]] | None = None,
    decided: Callable[[], None] | None = None,
) -> StoredDecision:
    """Record a confirmation; the last one closes the stage and opens the next."""

    def finish(
        decision: Decision, campaign: Campaign, battle: Battle | None, world: World
    ) -> World:
        return flow.open_next(decision, at.actor, campaign, battle, world)

    stored = await decide_and_store(
        at,
        lambda campaign, run, world: flow.confirm(at.actor, campaign, run, world, stage_no,
                                                  gang_id, on_behalf=on_behalf, who=by,
                                                  copy=False),
        rosters=False, finish=finish, acknowledge=acknowledge, decided=decided,
    )
    if len(stored.decision.scene.stages) > 1:
        stored.failpoint = failpoints.AFTER_CONFIRM_STORED
    elif stored.decision.scene.owe_report:
        stored.failpoint = failpoints.AFTER_REPORT_QUEUED
    return stored


async def undo_stage(at: RunCall, stage_no: int | None) -> StoredDecision:
    """Undo the last confirmed step (see :func:`bot.battle.flow.undo`)."""
    stored = await decide_and_store(
        at, lambda campaign, run, world: flow.undo(at.actor, campaign, run, stage_no, copy=False),
        rosters=False,
    )
    if stored.decision.scene.reports:
        # The panels show the rosters: draw them from the gangs as the undo left them.
        async with at.client.storage.read_only(at.guild_id) as tx:
            stored.world = await load_battle_world(tx, at.campaign_id, stored.run)
    return stored


async def cancel_run(at: RunCall) -> StoredDecision:
    """Stop a run. What it stored stays (undo it first, or use the ledger)."""
    return await decide_and_store(
        at, lambda campaign, run, world: flow.cancel(at.actor, campaign, run, copy=False),
        rosters=True,
    )


async def undo_or_cancel_question(at: RunCall, kind: str, stage_no: int) -> str:
    async def read(tx: Transaction) -> tuple[Campaign, PostBattleRun]:
        campaign, run, _revision, _world = await load_for_decision(
            tx, at.campaign_id, at.battle_id)  # one statement
        return campaign, run

    campaign, run = await at.client.storage.read_whole(at.guild_id, read)
    return flow.undo_or_cancel_question(kind, at.actor, campaign, run, stage_no)
