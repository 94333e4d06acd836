"""A cycle's end at its due time: the timer of kind ``"cycle-end"`` the calendar keeps
set for the open cycle (:func:`bot.cycles.follow_calendar`).

Before the timer's transaction, the threads of the Downtime the end opens are made
(a transaction talks to no one); the handler then ends the cycle as the Arbitrator's
/campaign cycle end does, on the bot's clock, once. Fired late (the bot was down
across the end), its posts say so.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import discord

from bot.cycles import CALENDAR_ACTOR, CYCLE_END, downtime_gangs, downtime_places, end_cycle
from bot.storage import Storage, Transaction
from bot.storage.timers import Timer
from bot.timers import before_timer, late_line, on_timer
from rules.dice import SecureRoller
from rules.errors import NotFound


@before_timer(CYCLE_END)
async def _threads(client: Any, timer: Timer) -> dict[str, Any]:
    """The Downtime threads, when this end opens a Downtime (else nothing)."""
    storage = getattr(client, "storage", None)
    if not isinstance(client, discord.Client) or not isinstance(storage, Storage):
        return {}
    async with storage.read_only(timer.guild_id, background=True) as tx:
        try:
            campaign = await tx.get_campaign(timer.args["campaign"])
        except NotFound:
            return {}
        found = await tx.get_calendar(campaign.id)
        if found is None or found[0].current is None \
                or found[0].current.number != timer.args["cycle"]:
            return {}
        calendar = found[0]
        gangs = await downtime_gangs(tx, campaign, calendar)
    places = await downtime_places(client, calendar.channel_id, gangs)
    return {"places": places} if places else {}


@on_timer(CYCLE_END)
async def handles_cycle_end(tx: Transaction, timer: Timer, late: timedelta | None) -> None:
    try:
        campaign = await tx.get_campaign(timer.args["campaign"])
    except NotFound:
        return  # the campaign was deleted: nothing ends
    now = timer.fired_at or timer.due_at
    places = {str(k): int(v) for k, v in dict(timer.args.get("places") or {}).items()}
    await end_cycle(tx, campaign, int(timer.args["cycle"]), now, SecureRoller(),
                    actor=CALENDAR_ACTOR, late=late_line(timer.due_at, late).rstrip("\n"),
                    places=places)
