"""Opening, confirming, undoing and acting in Downtime runs, one write transaction each.

Every change is decided and stored in one transaction: the ledger rows of the rules
results (no battle: a Downtime is never read as a battle), the run, and the messages it
owes its thread through the outbox (bot/outbox.py), so a crash leaves either nothing or
everything, and what is owed is posted after a restart. The click's own message is
redrawn by the click's answer.

:func:`open_downtime` is the one way in: ``/campaign downtime open`` calls it, and so can
a campaign phase that opens Downtime (in its own transaction, with no interaction).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.battle.owed import body
from bot.battle.state import StageStatus
from bot.call import Actor
from bot.downtime.render import stage_embed, stage_view
from bot.downtime.state import (
    DOWNTIME_KEY_PREFIX,
    DowntimeRecord,
    DowntimeRun,
    downtime_key,
)
from bot.errors import Refused
from bot.render import result_lines, safe
from bot.storage import Campaign, Transaction, new_id
from rules.copying import deep_copy
from rules.downtime import FRESH_RECRUITMENT_CREDITS
from rules.downtime_sequence import (
    DowntimeComputation,
    DowntimeInputs,
    DowntimeSequence,
    Party,
    declared,
)
from rules.errors import NotFound
from rules.models import Gang
from rules.steps import DowntimeStep
from rules.wording import possessive
from rules.world import RuleResult, World

GONE = "This Downtime no longer exists (its campaign or gang was deleted)."


@dataclass
class Outcome:
    """What a decision stored: the run, and the record whose message was clicked (redrawn
    by the click's answer)."""

    run: DowntimeRun
    clicked: DowntimeRecord | None
    # A step was opened (or reopened) and its message owed.
    opened: bool = False


# --------------------------------------------------------------------------- reading


async def downtime_runs(tx: Transaction, campaign_id: str) -> list[DowntimeRun]:
    """Every Downtime run stored for the campaign, oldest first (never a battle's run)."""
    return await tx.load_sequences(campaign_id, DowntimeRun, DOWNTIME_KEY_PREFIX)


async def run_of_gang(tx: Transaction, campaign_id: str, gang: Gang) -> DowntimeRun:
    """The gang's Downtime in progress, or a refusal saying there is none."""
    for run in await downtime_runs(tx, campaign_id):
        if run.gang_id == gang.id and run.in_progress:
            return run
    raise Refused(f"{gang.name} is not in Downtime (an Arbitrator opens it with `/campaign "
                  "downtime open`).")


async def _world(tx: Transaction, campaign_id: str, gang_id: str) -> World:
    """The gang, and the gangs of the captives it holds (Captives are Returned frees them)."""
    ids = [gang_id]
    for owner, _captive in await tx.captives_held_by(campaign_id, gang_id):
        if owner.id not in ids:
            ids.append(owner.id)
    return await tx.load_world(campaign_id, ids)


# --------------------------------------------------------------------------- opening


async def gangs_to_open(
    tx: Transaction, campaign: Campaign, gang_ids: Sequence[str] | None = None
) -> list[Gang]:
    """The gangs a Downtime opens for (every gang of ``campaign``, or of ``gang_ids``), or a
    refusal: a skirmish campaign, no gangs, a gang whose Downtime is still in progress."""
    if campaign.settings.skirmish:
        raise Refused(f"{campaign.name} is played as skirmishes: there is no Downtime.")
    gangs = await tx.list_gangs(campaign.id)
    if gang_ids is not None:
        gangs = [g for g in gangs if g.id in gang_ids]
    if not gangs:
        raise Refused(f"{campaign.name} has no gangs to put in Downtime.")
    busy = {r.gang_id for r in await downtime_runs(tx, campaign.id) if r.in_progress}
    if busy & {g.id for g in gangs}:
        names = ", ".join(g.name for g in gangs if g.id in busy)
        raise Refused(f"The Downtime of {names} is still in progress: finish it (or undo it "
                      "to its start) before opening another.")
    return gangs


async def open_downtime(
    tx: Transaction, campaign: Campaign, *, by: str, channel_id: int,
    places: Mapping[str, int] | None = None, budget: int = FRESH_RECRUITMENT_CREDITS,
    arbitrator_confirms: bool = False, gang_ids: Sequence[str] | None = None,
) -> list[DowntimeRun]:
    """Open a Downtime run for each gang of ``campaign`` (or of ``gang_ids``) in ``tx``.

    Each run opens its first step (its results stored in the ledger by ``by``) and owes
    its message to ``places[gang_id]`` (the gang's thread), else to ``channel_id``: the
    threads are made before this transaction (``bot.downtime.clicks.downtime_thread``),
    since a transaction talks to no one; the outbox posts the messages owed here once it
    is committed, also after a restart.
    ``budget``: the Fresh Recruitment credits; ``arbitrator_confirms``: every step also
    needs an Arbitrator's confirmation (both settings of the campaign's type). A gang
    whose Downtime is still in progress is refused, as is a skirmish campaign.
    """
    gangs = await gangs_to_open(tx, campaign, gang_ids)
    runs = []
    for gang in gangs:
        run_id = new_id()
        run = DowntimeRun(
            id=run_id, campaign_id=campaign.id, gang_id=gang.id, gang_name=gang.name,
            owner=gang.owner, opened_by=by,
            channel_id=(places or {}).get(gang.id, channel_id),
            sequence=DowntimeSequence(id=run_id, gang_id=gang.id, budget=budget,
                                      arbitrator_confirms=arbitrator_confirms),
        )
        record = await _open_step(tx, campaign, run, [], by=by)
        await tx.save_sequence(campaign.id, run.key, run)
        await _owe(tx, run, record)
        runs.append(run)
    return runs


async def _open_step(
    tx: Transaction, campaign: Campaign, run: DowntimeRun,
    closing: list[DowntimeComputation], *, by: str,
) -> DowntimeRecord:
    """Open the step the sequence is at: run ``closing`` (the step before's) and the step's
    own computations, each stored as its own action, and add its record to the run."""
    sequence = run.sequence
    world = await _world(tx, campaign.id, run.gang_id)
    sequence.credits_at_open[sequence.label] = world.gang(run.gang_id).credits
    computations = closing + declared(sequence.step).computes(
        DowntimeInputs(run.gang_id, sequence))
    lines: list[str] = []
    action_ids: list[int] = []
    for compute in computations:
        result = compute(world)
        action_ids.append(await _store(tx, campaign, result, by=by, label=sequence.label))
        lines += result_lines(result)
        world = result.world
    record = DowntimeRecord(number=len(run.stages) + 1, step=sequence.step, lines=lines,
                            action_ids=action_ids, opened_with=deep_copy(sequence))
    run.stages.append(record)
    return record


async def _store(tx: Transaction, campaign: Campaign, result: RuleResult, *, by: str,
                 label: str) -> int:
    return await tx.apply_id(campaign.id, result, actor=by, step=f"Downtime: {label}")


async def _owe(tx: Transaction, run: DowntimeRun, record: DowntimeRecord) -> None:
    made = body(embed=stage_embed(run, record), view=stage_view(run, record))
    await tx.owe_message_unanswered(f"dt:{run.id}:stage:{record.number}:{record.posts}",
                                    run.channel_id, made)


# --------------------------------------------------------------------------- decisions


class Decide(Protocol):
    """A click's decision (:func:`confirm_step`, :func:`undo_step`), in the click's write
    transaction."""

    async def __call__(self, tx: Transaction, actor: Actor, campaign_id: str, run_id: str,
                       number: int, *, mention: str) -> Outcome: ...


async def _load(tx: Transaction, campaign_id: str, run_id: str) -> tuple[Campaign, DowntimeRun,
                                                                         int]:
    try:
        campaign = await tx.get_campaign(campaign_id)
    except NotFound:
        raise Refused(GONE) from None
    found = await tx.load_sequence_at(campaign_id, downtime_key(run_id), DowntimeRun)
    if found is None:
        raise Refused(GONE)
    return campaign, found[0], found[1]


def _open_record(run: DowntimeRun, number: int) -> DowntimeRecord:
    record = run.current
    if run.cancelled or record is None or record.number != number:
        raise Refused("This step is no longer open: use the newest message of this "
                      "Downtime.")
    return record


def parties_of(actor: Actor, campaign: Campaign, run: DowntimeRun) -> tuple[list[Party], bool]:
    """Which parties a click confirms for, and whether it is on the owner's behalf."""
    owner = actor.ledger_id == run.owner
    arbitrator = actor.is_arbitrator(campaign)
    waiting = run.sequence.waiting_for
    if owner and arbitrator:
        return list(waiting), False
    if owner:
        return [Party.OWNER], False
    if arbitrator:
        if Party.ARBITRATOR in waiting:
            return [Party.ARBITRATOR], False
        return [Party.OWNER], True
    raise Refused(f"This is the Downtime of {run.gang_name}: only its owner or an Arbitrator "
                  f"of {campaign.name} can confirm its steps.")


async def confirm_step(tx: Transaction, actor: Actor, campaign_id: str, run_id: str,
                       number: int, *, mention: str) -> Outcome:
    """Record a confirmation; the last one closes the step and opens the next."""
    campaign, run, revision = await _load(tx, campaign_id, run_id)
    record = _open_record(run, number)
    if record.step is DowntimeStep.FINISHED:
        raise Refused("This gang's Downtime is over; there is nothing to confirm.")
    try:
        gang = await tx.get_gang(campaign.id, run.gang_id)
    except NotFound:
        raise Refused(GONE) from None
    # Whoever owns the gang now confirms (it may have changed hands since Downtime opened).
    run.owner, run.gang_name = gang.owner, gang.name
    parties, on_behalf = parties_of(actor, campaign, run)
    sequence = run.sequence
    for party in parties:
        sequence.confirm(party)
        record.confirmed_by[party.value] = mention + (" for the owner" if on_behalf else "")
    if sequence.waiting_for:
        await tx.save_sequence(campaign.id, run.key, run, revision=revision)
        return Outcome(run, record)
    record.status = StageStatus.CONFIRMED
    closing = declared(sequence.step).closes(DowntimeInputs(run.gang_id, sequence))
    sequence.advance()
    opened = await _open_step(tx, campaign, run, closing, by=actor.ledger_id)
    await tx.save_sequence(campaign.id, run.key, run, revision=revision)
    await _owe(tx, run, opened)
    return Outcome(run, record, opened=True)


async def undo_step(tx: Transaction, actor: Actor, campaign_id: str, run_id: str,
                    number: int, *, mention: str) -> Outcome:
    """An Arbitrator takes back the open step: its results leave the ledger (marked undone)
    and the step before opens again; undoing the first step ends the run."""
    # Unguarded by the revision: the undo of the step's actions writes the run back itself
    # (the ledger restores the sequences an action changed) before it is saved whole below.
    campaign, run, _revision = await _load(tx, campaign_id, run_id)
    actor.require_arbitrator(campaign)
    record = _open_record(run, number)
    # An undo puts back every sequence the undone action's transaction had changed (a
    # Downtime opened for several gangs at once): keep the other runs as they are now.
    others = [r for r in await downtime_runs(tx, campaign.id) if r.id != run.id]
    for expected in reversed(record.action_ids):
        undone = await tx.undo_last_action(campaign.id, actor=actor.ledger_id)
        if undone.id != expected:
            raise Refused("Something else was recorded in this campaign after this step "
                          "(see /ledger): only the latest changes can be taken back, so this "
                          "step can no longer be undone. Correct the roster by hand "
                          "(`/stash`, `/fighter`) instead.")
    for other in others:
        await tx.save_sequence(campaign.id, other.key, other)
    record.status = StageStatus.UNDONE
    record.note = (f"Undone by {mention}: its changes were taken back (the ledger keeps "
                   "them, marked undone).")
    previous = next((r for r in reversed(run.stages)
                     if r.number < record.number and r.status is StageStatus.CONFIRMED), None)
    if previous is None:
        record.note += (f" {possessive(safe(run.gang_name))} Downtime is withdrawn; an "
                        "Arbitrator may open it again.")
        run.cancelled = True
        run.sequence = deep_copy(record.opened_with)
        await tx.save_sequence(campaign.id, run.key, run)
        return Outcome(run, record)
    previous.status = StageStatus.OPEN
    previous.confirmed_by = {}
    previous.posts += 1
    previous.note = f"Reopened by an undo ({mention}): confirm it again."
    run.sequence = deep_copy(previous.opened_with)
    await tx.save_sequence(campaign.id, run.key, run)
    await _owe(tx, run, previous)
    return Outcome(run, record, opened=True)


async def act(
    tx: Transaction, campaign: Campaign, gang: Gang, step: DowntimeStep,
    compute: Callable[[World], RuleResult], *, by: str,
) -> tuple[DowntimeRun, RuleResult]:
    """Run a player's rules function in ``step`` of the gang's Downtime and store it: the
    ledger, the step's record and a message in its thread."""
    run = await run_of_gang(tx, campaign.id, gang)
    run.sequence.require(step)
    record = run.current
    assert record is not None  # a run in progress has its step open
    result = compute(await _world(tx, campaign.id, gang.id))
    action_id = await _store(tx, campaign, result, by=by, label=run.sequence.label)
    record.action_ids.append(action_id)
    lines = result_lines(result)
    record.lines += lines
    await tx.save_sequence(campaign.id, run.key, run)
    await tx.owe_message_unanswered(
        f"dt:{run.id}:action:{action_id}", run.channel_id,
        body(content="\n".join([f"**{result.title}**", *lines])[:2000]))
    return run, result
