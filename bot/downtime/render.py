"""How a Downtime step's message looks: its embed and its buttons."""

from __future__ import annotations

from typing import Any

import discord

from bot.battle.render import STATUS_MARKS
from bot.battle.state import StageStatus
from bot.downtime.state import DowntimeRecord, DowntimeRun
from bot.render import clip, safe
from bot.ui.components import Components
from bot.ui.routes import Id, Int, Route, button
from rules.downtime_sequence import Party, declared
from rules.steps import DowntimeStep

CONFIRM = Route("dt:confirm", (Id("campaign"), Id("run"), Int("number", 3)))
UNDO = Route("dt:undo", (Id("campaign"), Id("run"), Int("number", 3)))
DESCRIPTION_MAX = 4096
COLOUR = discord.Colour.dark_teal()


def thread_name(gang_name: str) -> str:
    return clip(f"Downtime: {gang_name}", 100)


def stage_embed(run: DowntimeRun, record: DowntimeRecord) -> discord.Embed:
    shows = declared(record.step).shows
    marker = STATUS_MARKS[record.status]
    parts = [*record.lines]
    if record.status is StageStatus.OPEN and record.step is not DowntimeStep.FINISHED:
        parts += ["", f"**What to do**: {shows}", _waiting(run, record)]
    elif record.step is DowntimeStep.FINISHED:
        parts += ["", shows]
    for party, who in record.confirmed_by.items():
        parts.append(f"Confirmed ({party}): {who}")
    if record.note:
        # Written by the bot (mentions, escaped names): not escaped again.
        parts.append(f"*{record.note}*")
    return discord.Embed(
        title=clip(f"{marker} Downtime of {safe(run.gang_name)}: {record.label}", 256),
        description=clip("\n".join(parts), DESCRIPTION_MAX), colour=COLOUR,
    )


def _waiting(run: DowntimeRun, record: DowntimeRecord) -> str:
    waiting = [p for p in run.sequence.parties if p.value not in record.confirmed_by]
    names = {Party.OWNER: f"the gang's owner (<@{run.owner}>)" if run.owner.isdigit()
             else "the gang's owner", Party.ARBITRATOR: "an Arbitrator"}
    return "Waiting for " + " and ".join(names[p] for p in waiting) + " to confirm."


def stage_view(run: DowntimeRun, record: DowntimeRecord) -> Components | None:
    if record.status is not StageStatus.OPEN or run.cancelled:
        return None
    items: list[discord.ui.Item[Any]] = []
    if record.step is not DowntimeStep.FINISHED:
        items.append(button(CONFIRM, run.campaign_id, run.id, record.number, label="Confirm",
                            style=discord.ButtonStyle.success))
    items.append(button(UNDO, run.campaign_id, run.id, record.number,
                        label="Undo (Arbitrator)", style=discord.ButtonStyle.secondary))
    return Components(*items)
