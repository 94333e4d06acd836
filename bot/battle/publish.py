"""Showing a stored decision in the channel: deliver what it owes, redraw what it changed.

After a commit, :func:`publish` lets the outbox deliver the messages the
decision owed, then edits the posted messages its scene names, drawn from
the run as it was committed (not read back): a drawing older than one
already made for the same run is skipped, so a slow click never draws over
a newer state. Failures to reach Discord are logged, not raised: the state
is stored, the outbox retries what is owed and the next click or the next
start-up redraws the rest. :func:`resume_all` does that at start-up.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord
from discord.http import handle_message_parameters
from discord.utils import MISSING

from bot.battle import owed, render
from bot.battle.flow import Scene
from bot.battle.panel import gang_names
from bot.battle.state import Phase, PostBattleRun, StageRecord
from bot.battle.store import (
    load_battle_world,
    load_for_decision,
    load_run,
    load_with_rosters,
    runs_of,
)
from bot.errors import Refused
from bot.locks import ServerLocks
from bot.render import safe
from bot.shards import owns_guild
from bot.storage import Campaign, OutboxEntry, Storage, StorageError, Transaction
from bot.ui.components import Components
from rules.errors import RulesError

if TYPE_CHECKING:
    from bot.app import MundaBot
    from bot.outbox import Accepted
    from rules.world import World

log = logging.getLogger(__name__)

RunKey = tuple[int, str]


@dataclass
class Drawing:
    """Posted messages of one run to edit so that they show ``run``."""

    guild_id: int
    campaign: Campaign
    run: PostBattleRun
    world: World
    revision: int | None = None  # the run's stored revision (None: unknown, always draw)
    stages: list[int] = field(default_factory=list)  # stage numbers to redraw
    reports: bool = False  # redraw every report panel
    report_gangs: list[int] = field(default_factory=list)  # or only these
    # Leave posted messages as they are (only deliver what is owed).
    only_missing: bool = False


_locks: ServerLocks[RunKey] = ServerLocks()
# The newest revision drawn per run: a drawing of an older revision is skipped. Lost at
# a restart, which only means one more redraw.
_drawn: dict[RunKey, int] = {}


async def publish(
    client: MundaBot, guild_id: int, campaign: Campaign, run: PostBattleRun, world: World,
    scene: Scene, *, revision: int | None = None, owes: bool = True,
) -> None:
    """Deliver the messages the commit owes, then redraw what ``scene`` names.

    ``owes``: whether the commit owed any message. A commit that owed none (one
    confirmation of several, a panel's select) does not look at the outbox: that
    look is a read of the database per click, and whatever else is owed is the
    outbox loop's to deliver (docs/benchmarks.md)."""
    if owes:
        await deliver_owed(client, guild_id)
    await draw(client, Drawing(guild_id, campaign, run, world, revision, stages=scene.stages,
                               reports=scene.reports, report_gangs=scene.report_gangs))


async def answer_with(
    guild_id: int, run: PostBattleRun, revision: int, respond: Callable[[], Awaitable[object]]
) -> bool:
    """Answer a click by editing its own message to show ``run`` at ``revision`` (one
    call to Discord instead of an acknowledgement and an edit), unless a newer state was
    drawn meanwhile, or is being drawn now: then nothing is sent and False is returned
    (acknowledge instead; the redraw after shows the click), so that the first response
    never waits for another click's edits."""
    key = (guild_id, run.key)
    lock = _locks(key)
    if lock.locked():
        return False
    async with lock:
        if revision < _drawn.get(key, 0):
            return False
        _drawn[key] = revision
        await respond()
        return True


async def deliver_owed(client: MundaBot, guild_id: int | None = None) -> None:
    """Send what is owed now, in ``guild_id`` when given (the outbox's own loop retries
    whatever fails and delivers the rest)."""
    try:
        await client.outbox.flush(guild_id)
    except Exception:
        log.exception("could not deliver owed messages now; the outbox will retry")
        client.outbox.kick()


async def draw(client: MundaBot, drawing: Drawing) -> None:
    """Edit the posted messages ``drawing`` names to show its run."""
    if not (drawing.stages or drawing.reports or drawing.report_gangs):
        return
    key = (drawing.guild_id, drawing.run.key)
    # Two clicks drawing the same run at once would interleave their edits (and both
    # post again a message someone deleted).
    async with _locks(key):
        if drawing.revision is not None:
            if drawing.revision < _drawn.get(key, 0):
                return  # a newer state of this run was drawn already
            _drawn[key] = drawing.revision
        if drawing.revision is None or drawing.only_missing:
            await _ids_now(client.storage, drawing)
        run = drawing.run
        channel = Channel(client, run.target_channel_id)
        posted = Posted()
        try:
            if drawing.reports or drawing.report_gangs:
                indexes = range(len(run.gang_ids)) if drawing.reports else drawing.report_gangs
                for index in indexes:
                    await _draw_report(channel, drawing, index, posted)
            for number in drawing.stages:
                record = run.stage_record(number)
                if record is not None:
                    await _draw_stage(channel, drawing, record, posted)
        except discord.HTTPException:
            log.exception("could not draw post-battle sequence %s", run.key)
        if posted:
            await _remember(client.storage, drawing, posted)


async def _ids_now(storage: Storage, drawing: Drawing) -> None:
    """A drawing of no known revision (a resume, a delivery after a restart): draw what
    is stored now, which may be newer than what it was made from."""
    try:
        async with storage.read_only(drawing.guild_id, background=True) as tx:
            run = await load_run(tx, drawing.campaign.id, drawing.run.battle_id)
            if run is not None:
                drawing.run = run
                panels = bool(drawing.reports or drawing.report_gangs)
                drawing.world = await load_battle_world(tx, drawing.campaign.id, run,
                                                        rosters=panels)
    except (RulesError, StorageError):
        log.warning("could not reload %s before drawing it", drawing.run.key, exc_info=True)


class Channel:
    """A run's channel, whose messages a drawing edits (and posts again when deleted)
    through discord.py's HTTP client: a drawing needs nothing of Discord's answer but a
    new message's id, so no Message is made of it, and the components are sent as JSON
    (bot/ui/components.py), kept in no view store."""

    def __init__(self, client: MundaBot, channel_id: int) -> None:
        self.client = client
        self.channel_id = channel_id

    async def edit(self, message_id: int, embed: discord.Embed,
                   view: Components | None) -> None:
        """As ``PartialMessage.edit(embed=, view=)``: no view removes the components."""
        with handle_message_parameters(
            embed=embed, view=view.as_view() if view is not None else None
        ) as params:
            await self.client.http.edit_message(self.channel_id, message_id, params=params)

    async def send(self, embed: discord.Embed, view: Components | None) -> int:
        """As ``channel.send(embed=, view=)``, with its nonce; the new message's id."""
        with handle_message_parameters(
            embed=embed, view=view.as_view() if view is not None else MISSING,
            nonce=secrets.randbits(64), previous_allowed_mentions=self.client.allowed_mentions,
        ) as params:
            data = await self.client.http.send_message(self.channel_id, params=params)
        return int(data["id"])


@dataclass
class Posted:
    """Message ids posted again while drawing (someone deleted them), to store with the run."""

    reports: dict[str, int] = field(default_factory=dict)
    stages: dict[int, list[int]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.reports or self.stages)


async def _draw_report(
    channel: Channel, drawing: Drawing, index: int, posted: Posted
) -> None:
    run, world = drawing.run, drawing.world
    report = run.reports[run.gang_ids[index]]
    if report.message_id is None or drawing.only_missing:
        return  # not posted yet: it is owed, and the outbox posts it
    embed, view = owed.panel_parts(drawing.campaign, run, world, index)
    try:
        await channel.edit(report.message_id, embed, view)
        return
    except discord.NotFound:
        pass  # deleted by someone: post it again
    report.message_id = await channel.send(embed, view)
    posted.reports[report.gang_id] = report.message_id


async def _draw_stage(
    channel: Channel, drawing: Drawing, record: StageRecord, posted: Posted,
    reposting: bool = False,
) -> None:
    run = drawing.run
    if drawing.only_missing or not (record.message_ids or reposting):
        return  # nothing of it posted yet: it is owed, and the outbox posts it as it is now
    names = gang_names(drawing.world)
    pages = render.stage_pages(run, record, names)
    view = owed.stage_view(run, record, names)
    new_ids: list[int] = []
    for index, embed in enumerate(pages):
        with_view = view if index == 0 else None
        if index < len(record.message_ids):
            try:
                await channel.edit(record.message_ids[index], embed, with_view)
                continue
            except discord.NotFound:
                if index == 0:
                    record.message_ids = []
                    return await _draw_stage(channel, drawing, record, posted, reposting=True)
                continue
        if not reposting:
            break  # a page not posted yet is owed: the outbox posts it
        new_ids.append(await channel.send(embed, with_view))
    if new_ids:
        record.message_ids = [*record.message_ids, *new_ids]
        posted.stages[record.number] = list(record.message_ids)


async def _remember(storage: Storage, drawing: Drawing, posted: Posted) -> None:
    """Store the ids of the messages just posted (so they are edited, not posted again)."""
    async with storage.transaction(drawing.guild_id) as tx:
        run = await load_run(tx, drawing.campaign.id, drawing.run.battle_id)
        if run is None:
            return
        for gang_id, message_id in posted.reports.items():
            if gang_id in run.reports:
                run.reports[gang_id].message_id = message_id
        for number, message_ids in posted.stages.items():
            record = run.stage_record(number)
            if record is not None:
                record.message_ids = message_ids
        await tx.save_sequence(drawing.campaign.id, run.key, run, battle_id=run.battle_id)


# --------------------------------------------------------------------------- deliveries


def use_outbox(client: MundaBot) -> None:
    """Let the outbox store where a run's messages went, and redraw them once posted."""

    async def after(entry: OutboxEntry, accepted: Accepted,
                    recorded: list[list[Any]] | None) -> None:
        await _redraw_delivered(client, entry, owed.recorded_revision(recorded))
        if (entry.link or {}).get("what") == "report":
            client.timers.kick()  # the end of its Discord event is owed (record_delivery)

    client.outbox.on_delivered(owed.OUTBOX_KIND, owed.record_delivery, after,
                               at_once=owed.delivery_statements,
                               at_once_many=owed.delivery_statements_many)


async def _redraw_delivered(client: MundaBot, entry: OutboxEntry,
                            recorded: int | None = None) -> None:
    """A message goes out as it was when owed; if the run moved on before it was posted
    (a confirmation, an undo while Discord was down), draw it as it is now. A delivered
    battle report redraws the run's last step.

    ``recorded``: the run's revision once the message's id was stored in it. When that is
    the revision right after the one that owed the message, nothing came between: the
    message shows the run as it still is. Anything else may have been decided from the
    run before it knew the message (the player clicks a message as soon as Discord shows
    it, before its id is stored), and that decision's own drawing had no message to
    edit: this one draws it. Which decision this process last showed says nothing of
    that (it is known only once its click's answer comes back)."""
    link = entry.link or {}
    what = link.get("what")
    if what not in ("stage", "panel", "report"):
        return
    owed_at = link.get("rev")
    if what != "report" and owed_at is not None and recorded == int(owed_at) + 1:
        return  # stored right over the decision that owed it: nothing to redraw

    async def read(tx: Transaction) -> Drawing | None:
        # One statement either way; a panel shows the rosters.
        load = load_with_rosters if what == "panel" else load_for_decision
        try:
            campaign, run, revision, world = await load(
                tx, str(link.get("campaign")), str(link.get("battle")))
        except (Refused, RulesError, StorageError):
            return None  # the campaign or the run is gone: nothing to draw
        if run.sequence.id != link.get("sequence"):
            return None  # cancelled and started again since
        return Drawing(entry.guild_id, campaign, run, world, revision)

    drawing = await client.storage.read_whole(entry.guild_id, read, background=True)
    if drawing is None:
        return
    run, world, campaign = drawing.run, drawing.world, drawing.campaign
    if what == "report":
        # The report is the last thing the final Confirm owes: a kill before that click
        # was drawn left the last step showing live buttons.
        if not run.stages:
            return
        drawing.stages = [run.stages[-1].number]
    elif what == "stage":
        record = run.stage_record(int(link["stage"]))
        if record is None:
            return
        bodies = owed.stage_bodies(run, record, world)
        page = int(link["page"])
        if page < len(bodies) and owed.same(bodies[page], entry.payload):
            return
        drawing.stages = [record.number]
    else:
        gang_id = str(link.get("gang"))
        if gang_id not in run.gang_ids:
            return
        index = run.gang_ids.index(gang_id)
        embed, view = owed.panel_parts(campaign, run, world, index)
        if owed.same(owed.body(embed=embed, view=view), entry.payload):
            return
        drawing.report_gangs = [index]
    await draw(client, drawing)


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
    # The servers of this process's shards (another process resumes the others' runs).
    for guild in [g for g in client.guilds if owns_guild(g.id)]:
        try:
            campaigns = await client.storage.read(guild.id).list_campaigns()
        except Exception:
            log.exception("could not list campaigns of guild %s", guild.id)
            continue
        for campaign in campaigns:
            async with client.storage.transaction(guild.id) as tx:
                runs = await runs_of(tx, campaign.id)
                drawings = [await resume_drawing(tx, guild.id, campaign, run, redraw=True)
                            for run in runs]
            for drawing in drawings:
                if drawing is not None:
                    seen += 1
                    await deliver_owed(client, guild.id)
                    await draw(client, drawing)
    return seen


async def redraw_missing(client: MundaBot, guild_id: int, campaign: Campaign,
                         run: PostBattleRun) -> None:
    """Post what a crash left unposted for one run (any read of it may call this)."""
    async with client.storage.transaction(guild_id) as tx:
        drawing = await resume_drawing(tx, guild_id, campaign, run)
    if drawing is not None:
        await deliver_owed(client, guild_id)
        await draw(client, drawing)


async def resume_drawing(
    tx: Transaction, guild_id: int, campaign: Campaign, run: PostBattleRun,
    *, redraw: bool = False,
) -> Drawing | None:
    """Owe what ``run`` is missing (in ``tx``) and say what to redraw (``redraw``: the
    latest messages; otherwise nothing already posted)."""
    missing_report = (
        run.phase is Phase.FINISHED and not run.sequence.skirmish
        and run.report_message_id is None
    )
    if not run.in_progress and not missing_report:
        return None
    world = await load_battle_world(tx, campaign.id, run)
    drawing = Drawing(guild_id, campaign, run, world, only_missing=not redraw)
    adopted = False
    if run.phase is Phase.REPORTING:
        adopted = await owed.owe_panels(tx, campaign, run, world)
        drawing.reports = True
    elif run.current is not None:
        adopted = await owed.owe_stage(tx, run, run.current, world)
        # The last commit may have left the step before showing its buttons, and the
        # report panels theirs when it opened the Wrap-up.
        drawing.stages = sorted({run.current.number, *(r.number for r in run.stages[-2:])})
        drawing.reports = len(run.stages) == 1
    if missing_report:
        if redraw and run.stages:
            drawing.stages = [run.stages[-1].number]  # may still show the final Confirm
        try:
            adopted = await owed.owe_report(tx, campaign, run, world)
        except RulesError:
            log.exception("could not compose the report of %s", run.key)
    if adopted:
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    return drawing


def messages_of(run: PostBattleRun) -> list[int]:
    """Every posted message of ``run`` that may carry buttons: its steps' pages and its
    report panels."""
    stages = [message for record in run.stages for message in record.message_ids]
    panels = [r.message_id for r in run.reports.values() if r.message_id is not None]
    return [*stages, *panels]


async def show_campaign_deleted(
    client: MundaBot, runs: Sequence[PostBattleRun], campaign_name: str
) -> None:
    """Edit the posted messages of a deleted campaign's runs to say so, without their
    buttons (Channel.edit: the same edit that redraws a step). Best effort: a message
    someone deleted, or a thread the bot lost, is left as it is."""
    embed = discord.Embed(
        title="Campaign deleted",
        description=(f"The campaign **{safe(campaign_name)}** was deleted (/campaign delete), "
                     "with this post-battle sequence: nothing more can be recorded here."),
    )
    for run in runs:
        channel = Channel(client, run.target_channel_id)
        for message_id in messages_of(run):
            try:
                await channel.edit(message_id, embed, None)
            except discord.HTTPException as error:
                log.info("could not mark message %s of a deleted campaign: %s",
                         message_id, error)
