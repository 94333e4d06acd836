"""The buttons of a Downtime step's message: Confirm, and an Arbitrator's Undo."""

from __future__ import annotations

import logging

import discord

from bot import failpoints
from bot.call import Call
from bot.downtime.engine import Decide, Outcome, confirm_step, undo_step
from bot.downtime.render import CONFIRM, UNDO, stage_embed, stage_view, thread_name
from bot.ui.routes import Click, route

log = logging.getLogger(__name__)


@route(CONFIRM)
async def confirm(click: Click, campaign: str, run: str, number: int) -> None:
    await _decide(click, confirm_step, campaign, run, number)


@route(UNDO)
async def undo(click: Click, campaign: str, run: str, number: int) -> None:
    await _decide(click, undo_step, campaign, run, number)


async def _decide(click: Click, decide: Decide, campaign: str, run: str, number: int) -> None:
    """One write transaction decides; the clicked message is redrawn from its outcome."""
    call = Call.of(click.interaction)
    async with call.storage.transaction(call.guild_id) as tx:
        outcome = await decide(tx, call.actor, campaign, run, number, mention=call.mention)
    await _redraw(click, call, outcome)


async def _redraw(click: Click, call: Call, outcome: Outcome) -> None:
    """The clicked message as the decision left it; then what it owes the thread, posted."""
    record = outcome.clicked
    if record is not None:
        shown = stage_view(outcome.run, record)
        await click.interaction.response.edit_message(
            embed=stage_embed(outcome.run, record),
            view=None if shown is None else shown.as_view())
    if outcome.opened:
        # The crash tests' kill point: the next step stored and owed, the click answered,
        # the step not yet posted.
        failpoints.hit(failpoints.AFTER_CONFIRM_STORED)
    await deliver(call)


async def deliver(call: Call) -> None:
    """Post what the transaction owed now; the outbox's own loop retries what fails."""
    try:
        await call.interaction.client.outbox.flush(call.guild_id)
    except Exception:
        log.exception("could not deliver a Downtime's messages now; the outbox will retry")
        call.interaction.client.outbox.kick()


async def downtime_thread(channel: object, gang_name: str) -> int | None:
    """A thread of ``channel`` for one gang's Downtime; None keeps its steps in the
    channel (not a text channel, or Discord refused the thread: logged). Called before
    the transaction that opens the Downtime, which names the threads it posts in."""
    if not isinstance(channel, discord.TextChannel):
        return None
    try:
        thread = await channel.create_thread(name=thread_name(gang_name),
                                             type=discord.ChannelType.public_thread)
    except discord.HTTPException:
        log.warning("could not open a thread for a gang's Downtime; using the channel",
                    exc_info=True)
        return None
    return thread.id
