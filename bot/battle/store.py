"""Where runs are read, and the one short write that stores a decision.

Reads (:func:`load_for_decision`, :func:`load_with_rosters`, :func:`load_run_at`,
:func:`active_run_in`, :func:`load_battle_world`) happen in read transactions,
which never wait for the writer. A decision of :mod:`bot.battle.flow` is then
written by :func:`commit` in one write transaction that only writes: the ledger
rows of its rolls, the battle, the messages it owes, and the run, whose save is
refused (:class:`~bot.storage.StaleSequence`) when the stored run moved on since
it was read, so that no decision is ever made from a stale run.

Starting a run is the exception: its checks read (:func:`load_start`) inside the
write transaction that stores it, after the campaign is claimed, since a read
before would be read again there; its panels are then owed with the run's thread
in one write made at once (:func:`save_with_panels`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from bot.battle import owed
from bot.battle.flow import Decision
from bot.battle.state import RUN_KEY_PREFIX, PostBattleRun, run_key
from bot.errors import Refused
from bot.storage import Campaign, StaleSequence, Storage, Transaction, outbox, sequences
from bot.storage.driver import IntegrityError
from bot.storage.roster import WorldRows
from bot.storage.transaction import StartRows
from rules.errors import NotFound
from rules.models import Battle
from rules.world import World

T = TypeVar("T")
CAMPAIGN_DELETED = ("This campaign was deleted (/campaign delete), with this post-battle "
                    "sequence: nothing was recorded.")
# A gang's active run is one of its latest battles': starting a run (or a pre-battle
# sequence) closes the deferrals of every earlier one, so older runs need no loading.
RECENT_BATTLES = 10
NO_RUN = "This post-battle sequence no longer exists."
ACTIONS_LOOKBACK = 1000


async def load_run(tx: Transaction, campaign_id: str, battle_id: str) -> PostBattleRun | None:
    return await tx.load_sequence(campaign_id, run_key(battle_id), PostBattleRun)


async def load_run_at(
    tx: Transaction, campaign_id: str, battle_id: str
) -> tuple[PostBattleRun, int]:
    """The run and the revision it was read at, or a refusal when there is none."""
    found = await tx.load_sequence_at(campaign_id, run_key(battle_id), PostBattleRun)
    if found is None:
        raise Refused(NO_RUN)
    return found


async def load_for_decision(
    tx: Transaction, campaign_id: str, battle_id: str
) -> tuple[Campaign, PostBattleRun, int, World]:
    """The campaign, the run with the revision it was read at, and the battle's gangs
    without rosters (``load_battle_world(rosters=False)``): one read, one round trip on
    either database (Transaction.state_for_decision)."""
    campaign, run, revision, gangs = await _found(tx.state_for_decision(
        campaign_id, run_key(battle_id), PostBattleRun, battle_id))
    if all(gang_id in gangs for gang_id in run.gang_ids):
        return campaign, run, revision, World(gangs={g: gangs[g] for g in run.gang_ids})
    # The run names a gang its battle does not: read the run's own (a second statement).
    return campaign, run, revision, await load_battle_world(tx, campaign_id, run,
                                                            rosters=False)


async def load_with_rosters(
    tx: Transaction, campaign_id: str, battle_id: str
) -> tuple[Campaign, PostBattleRun, int, World]:
    """:func:`load_for_decision` with the battle's world as ``load_battle_world`` reads it
    (the rosters, the captives' gangs, the territories): a report panel's click. One read,
    one round trip on either database (Transaction.state_and_battle_world)."""
    campaign, run, revision, battle = await _found(tx.state_and_battle_world(
        campaign_id, run_key(battle_id), PostBattleRun, battle_id))
    world = battle.world(run.gang_ids)
    if world is None:  # the run names a gang its battle does not: read the run's own
        world = await load_battle_world(tx, campaign_id, run)
    return campaign, run, revision, world


async def _found(
    read: Awaitable[tuple[Campaign, tuple[PostBattleRun, int] | None, T]]
) -> tuple[Campaign, PostBattleRun, int, T]:
    """The campaign, the run and its revision, and the rest of what ``read`` found; a
    refusal with a sentence when the campaign or the run is gone."""
    try:
        campaign, found, rest = await read
    except NotFound:
        raise Refused(CAMPAIGN_DELETED) from None
    if found is None:
        raise Refused(NO_RUN)
    run, revision = found
    return campaign, run, revision, rest


async def runs_of(tx: Transaction, campaign_id: str) -> list[PostBattleRun]:
    """Every post-battle run stored for the campaign, oldest first."""
    return await tx.load_sequences(campaign_id, PostBattleRun, RUN_KEY_PREFIX)


async def active_run_in(tx: Transaction, campaign_id: str, gang_id: str) -> PostBattleRun | None:
    """:func:`find_active_run` inside an open transaction."""
    found = await active_run_at(tx, campaign_id, gang_id)
    return None if found is None else found[0]


async def active_run_at(
    tx: Transaction, campaign_id: str, gang_id: str
) -> tuple[PostBattleRun, int] | None:
    """The gang's active run and the revision it was read at: one statement reads the
    runs of all its latest battles."""
    recent = await tx.recent_states(campaign_id, [gang_id], PostBattleRun, RUN_KEY_PREFIX,
                                    RECENT_BATTLES)
    return active_among(recent.get(gang_id, []), gang_id)


def active_among(
    runs: list[tuple[PostBattleRun, int]], gang_id: str
) -> tuple[PostBattleRun, int] | None:
    """Of the runs of a gang's latest battles (the latest first), with their revisions,
    the one it is in now."""
    active = [found for found in runs if found[0].active_for(gang_id)]
    # A run in progress comes before one kept open only by a deferred sub-step.
    active.sort(key=lambda pair: not pair[0].in_progress)
    return active[0] if active else None


async def load_start(
    tx: Transaction, campaign_id: str, *, gang_names: Sequence[str] = (),
    battle_id: str | None = None,
) -> StartRows[PostBattleRun]:
    """What starting a run reads (Transaction.start_rows): the gangs named (or the
    recorded battle's) with their rosters, every territory, that battle and its run, the
    runs of each gang's latest battles and the scheduled battles; one statement."""
    return await tx.start_rows(campaign_id, PostBattleRun, RUN_KEY_PREFIX, RECENT_BATTLES,
                               gang_names=gang_names, battle_id=battle_id)


async def save_with_panels(
    storage: Storage, guild_id: int, campaign: Campaign, run: PostBattleRun, revision: int,
    world: World,
) -> int:
    """Save ``run`` over ``revision`` with its report panels owed to its channel, as one
    write made at once (one round trip; Storage.write_at_once); returns the new revision,
    or raises StaleSequence (nothing written) when the stored run moved on."""
    statements = [outbox.owe_statement(guild_id, key, run.target_channel_id, payload,
                                       link=link)
                  for key, payload, link in owed.panels_owed(campaign, run, world,
                                                             revision + 1).values()]
    statements.append(sequences.save_statement(guild_id, campaign.id, run.key, run,
                                               run.battle_id, revision=revision))
    done = await unless_deleted(storage, guild_id, campaign.id,
                                storage.write_at_once(guild_id, statements))
    if done is None:
        raise StaleSequence(sequences.STALE)
    # Handed to the outbox worker, as a transaction's are: it posts them without a scan.
    storage.tell_owed(outbox.Owed(guild_id, tuple(
        entry for rows in done[:-1] for entry in outbox.entries(rows))))
    return int(done[-1][0][0])


async def find_active_run(
    storage: Storage, guild_id: int, campaign_id: str, gang_id: str
) -> PostBattleRun | None:
    """The post-battle run this gang is in now: in progress, or finished with a
    sub-step it deferred (PB-6B.8) and has not closed."""
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
    _battle, world, _rows = await tx.world_rows_with_captives(campaign_id, run.gang_ids)
    return world


def owes_messages(decision: Decision) -> bool:
    """Whether storing ``decision`` owes the outbox a message (:func:`commit`): without
    one, nothing is left to deliver once it is stored."""
    scene = decision.scene
    return bool(decision.actions or scene.owe_stages or scene.owe_panels or scene.notices
                or scene.owe_report)


def saves_only(decision: Decision) -> bool:
    """Whether storing ``decision`` is saving its run and nothing else: no rolls, no
    battle, no message owed, no step taken back (a panel's select, one confirmation
    of several)."""
    return (decision.battle is None and decision.take_back is None
            and not owes_messages(decision))


async def store_decision(
    storage: Storage, guild_id: int, campaign: Campaign, decision: Decision, revision: int,
    *, actor: str, world: World,
) -> int:
    """Write ``decision`` as :func:`commit` does, in a write transaction of its own, in one
    round trip to the database (Storage.save_sequence_at_once when it only saves the run,
    Storage.transaction_whole otherwise)."""
    if saves_only(decision):
        run = decision.run
        return await unless_deleted(
            storage, guild_id, campaign.id,
            storage.save_sequence_at_once(guild_id, campaign.id, run.key, run,
                                          battle_id=run.battle_id, revision=revision))

    async def write(tx: Transaction) -> int:
        return await commit(tx, campaign, decision, revision, actor=actor, world=world)

    # The ledger rows, the messages owed and the run: one round trip, the writer lock held
    # for SQLite's work only (bot/storage/on_thread.py).
    return await unless_deleted(storage, guild_id, campaign.id,
                                storage.transaction_whole(guild_id, write))


async def unless_deleted(
    storage: Storage, guild_id: int, campaign_id: str, write: Awaitable[T]
) -> T:
    """``write``, refused with a sentence when the campaign was deleted since the run was
    read (the write then fails on the campaign's missing row: a NULL or dangling
    ``campaign_pk``, or a campaign not found)."""
    try:
        return await write
    except (IntegrityError, sqlite3.IntegrityError, NotFound):
        if await campaign_exists(storage, guild_id, campaign_id):
            raise
        raise Refused(CAMPAIGN_DELETED) from None


async def campaign_exists(storage: Storage, guild_id: int, campaign_id: str) -> bool:
    try:
        async with storage.read_only(guild_id) as tx:
            await tx.get_campaign(campaign_id)
    except NotFound:
        return False
    return True


Finish = Callable[[Battle, World], World]


async def finish_and_store(
    storage: Storage, guild_id: int, campaign: Campaign, decision: Decision, revision: int,
    *, actor: str, finish: Finish,
) -> tuple[int, World]:
    """Finish a decision that ``needs_rosters`` (``finish(battle, world)``: the next step
    opened and rolled, from the battle's rosters) and write it, all in one write
    transaction run whole on the database thread. Returns the run's new revision and the
    world after the decision.

    The rosters are read once, here: the ledger checks the rolls against the rows read
    (``read`` of :func:`commit`), which nothing else can write before this transaction
    ends. Read in a read transaction first, they were read again for that check.
    """

    async def write(tx: Transaction) -> tuple[int, World]:
        battle, world, read = await tx.world_rows_with_captives(
            campaign.id, decision.run.gang_ids, battle_id=decision.run.battle_id,
            owed_prefix=owed.owed_key(decision.run, ""))
        assert battle is not None
        world = finish(battle, world)
        stored = await commit(tx, campaign, decision, revision, actor=actor, world=world,
                              read=read)
        return stored, world

    return await unless_deleted(storage, guild_id, campaign.id,
                                storage.transaction_whole(guild_id, write))


async def commit(
    tx: Transaction, campaign: Campaign, decision: Decision, revision: int, *, actor: str,
    world: World, read: WorldRows | None = None,
) -> int:
    """Write ``decision`` (decided from the run at ``revision``; 0: a new run) in ``tx``.

    Returns the run's new revision. ``world``: the battle's gangs after the
    decision, for the messages it owes. Raises StaleSequence (or StaleWorld,
    when the gangs changed under a roll) with nothing written; the caller
    decides again from what is stored now. ``read``: the rows, read in ``tx``, that
    the decision's first action was computed from (Transaction.load_world_rows).
    """
    run = decision.run
    scene = decision.scene
    if decision.take_back is not None:
        await _take_back(tx, campaign, run, decision.take_back, revision, actor=actor)
        revision_check: int | None = None  # checked above; the undo moved it on
        read = None  # the undo wrote the gangs
    else:
        revision_check = revision
    if decision.battle is not None:
        await tx.update_battle(campaign.id, decision.battle)
    new_revision = revision + 1
    for pending in decision.actions:
        action_id = await tx.apply_id(campaign.id, pending.result, actor=actor,
                                      battle_id=run.battle_id, step=pending.step, read=read)
        read = None  # that action wrote the gangs it touched
        if pending.notice is not None:
            await owed.owe_notice(tx, run, f"action:{action_id}", "\n".join(pending.notice))
    for number in scene.owe_stages:
        record = run.stage_record(number)
        if record is not None:
            await owed.owe_stage(tx, run, record, world, revision=new_revision)
    if scene.owe_panels:
        await owed.owe_panels(tx, campaign, run, world, revision=new_revision)
    for name, text in scene.notices:
        await owed.owe_notice(tx, run, name, text)
    if scene.owe_report:
        await owed.owe_report(tx, campaign, run, world)
    return await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id,
                                  revision=revision_check)


async def _take_back(
    tx: Transaction, campaign: Campaign, run: PostBattleRun, label: str, revision: int,
    *, actor: str,
) -> None:
    """Undo, newest first, every standing action stored in the step ``label``."""
    found = await tx.load_sequence_at(campaign.id, run.key, PostBattleRun)
    if found is None or found[1] != revision:
        raise StaleSequence("This post-battle sequence moved on meanwhile. Nothing was "
                            "saved; please try again.")
    actions = await tx.list_actions(campaign.id, battle_id=run.battle_id,
                                    limit=ACTIONS_LOOKBACK)
    mine = sorted(
        (a for a in actions if a.step == label and a.undoes is None and a.undone_by is None),
        key=lambda a: a.id, reverse=True,
    )
    for expected in mine:
        # This also puts back the run as each action found it; the run saved after
        # (decided before) replaces that, keeping its dice counters where they are.
        undone = await tx.undo_last_action(campaign.id, actor=actor, battle_id=run.battle_id)
        if undone.id != expected.id:
            raise Refused(
                "Something else was recorded in this campaign after this step; undo that "
                "first (see /ledger), then undo the step."
            )
