"""/postbattle: start a battle's post-battle sequence, see where it is, and steer it.

Thin adapters over :mod:`bot.battle.engine`: the players report their gangs'
end states and confirm each step with the buttons in the battle's thread;
these commands start a run, show its status, and give Arbitrators the same
confirm-on-behalf, undo and cancel as the buttons. The cog also imports the
buttons' routes (so clicks on old messages work after a restart) and, at
start-up, posts whatever stage message a crash left unposted.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from discord.ext import commands

from bot.autocomplete import DRAW

# clicks: imported for its routes (the run's buttons), which the one router takes.
from bot.battle import clicks, engine, owed, publish, render  # noqa: F401
from bot.battle.engine import RunCall, StartRequest, StoredDecision
from bot.battle.start_index import StartAsked, index_of
from bot.battle.state import PostBattleRun
from bot.call import Call, Scope
from bot.cog import BotCog, adds
from bot.cycles import staked_in
from bot.errors import Refused
from bot.importing.worker import settle_heap
from bot.options import CampaignName, GangName, ScenarioName, TerritoryName, UnstartedBattle, Winner
from bot.render import safe
from bot.scheduling import scheduled_among
from bot.slash import slash_with
from bot.storage import Campaign, Transaction
from bot.storage.transaction import StartRows
from rules.errors import InvalidRequest, NotFound
from rules.models import Gang
from rules.names import name_key, same_name
from rules.world import World

if TYPE_CHECKING:
    from bot.app import MundaBot

# Every command here names a post-battle run by one of its gangs.
slash = slash_with(gang="a gang in the sequence")
log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the cog


class PostBattleCog(BotCog, commands.GroupCog, group_name="postbattle",
                    group_description="The post-battle sequence of a battle"):
    def __init__(self, bot: MundaBot) -> None:
        super().__init__(bot)
        self._resumed = False

    async def cog_load(self) -> None:
        await super().cog_load()
        publish.use_outbox(self.bot)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # on_ready comes again after a reconnect; posting what is missing once is enough.
        if self._resumed:
            return
        self._resumed = True
        try:
            count = await publish.resume_all(self.bot)
            log.info("post-battle sequences checked at start-up: %d in progress", count)
        except Exception:
            log.exception("could not resume post-battle sequences")
        await index_of(self.bot.storage).read_all([g.id for g in self.bot.guilds])
        # The gateway's servers, members and channels arrived after setup_hook settled
        # the heap: settled again, full collections in play no longer walk them
        # (0.2 s each at 1,000 servers, docs/benchmarks.md).
        settle_heap()

    # ------------------------------------------------------------------ start

    @slash("start", "Start the post-battle sequence of a battle",
           winner="the winning gang, or draw",
           battle="a battle recorded with /prebattle (or name the gangs instead)",
           gang1="first gang", gang2="second gang", gang3="third gang", gang4="fourth gang",
           territory="the Territory staked on the battle",
           scenario="the scenario played (the campaign's scenarios are suggested)",
           skirmish="a skirmish: skip the campaign-only parts and the report")
    async def start(
        self,
        call: Call,
        winner: Winner,
        battle: UnstartedBattle | None = None,
        gang1: GangName | None = None,
        gang2: GangName | None = None,
        gang3: GangName | None = None,
        gang4: GangName | None = None,
        territory: TerritoryName | None = None,
        scenario: ScenarioName | None = None,
        skirmish: bool | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        named = [g for g in (gang1, gang2, gang3, gang4) if g]
        if battle and named:
            raise InvalidRequest("Give either a recorded battle or the gangs, not both.")
        # Refusals stay private: the answer comes first only when the in-memory index
        # says the start passes its checks (bot/battle/start_index.py); otherwise after
        # them. Either way they are made again from storage, which decides.
        answered = not battle and index_of(call.storage).passes(
            call.guild_id, call.actor,
            StartAsked(campaign, named, winner, territory, skirmish))
        if answered:
            await call.interaction.response.defer(thinking=True)

        async def ask(tx: Transaction, found: Campaign,
                      rows: StartRows[PostBattleRun]) -> StartRequest:
            return await _request(tx, found, rows, winner, battle, named, territory,
                                  scenario, skirmish)

        try:
            # Every refusal, from storage, and the run stored: one write transaction.
            started = await engine.store_start(call.interaction, campaign, ask,
                                               gang_names=named, battle_id=battle or None)
        except Exception:
            if answered:
                # The index was behind a write. Take the public answer back: filled first,
                # so that the refusal (the next follow-up) is a private message of its own.
                await call.interaction.edit_original_response(content="Not started.")
                await call.interaction.delete_original_response()
            raise
        if not answered:
            await call.interaction.response.defer(thinking=True)
        await engine.announce_start(call.interaction, started)

    # ------------------------------------------------------------------ status

    @slash("status", "Where a post-battle sequence is",
           gang="a gang in the sequence (default: yours)")
    async def status(
        self, call: Call, gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.read(campaign) as s:
            run = await _run_for(s, gang)
            names = {g.id: g.name for g in await s.gangs()}
        await call.interaction.response.send_message(
            embed=render.status_embed(run, names, owed.thread_url(call.guild_id, run))
        )
        # A step stored but never posted (the bot stopped in between) shows up now.
        await publish.redraw_missing(self.bot, call.guild_id, s.campaign, run)

    # ------------------------------------------------------------------ Arbitrators

    @slash("confirm-on-behalf", "Arbitrator: confirm the current step for a player",
           gang="the gang whose player you confirm for")
    async def confirm_on_behalf(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None
    ) -> None:
        await self._arbitrate(call, gang, campaign, lambda at, target: (
            engine.confirm_stage(at, None, target.id, on_behalf=True,
                                 by=engine.who(call.interaction))))

    @slash("undo", "Arbitrator: undo the last confirmed step of a sequence")
    async def undo(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None
    ) -> None:
        await self._arbitrate(call, gang, campaign,
                              lambda at, _gang: engine.undo_stage(at, None))

    @slash("cancel", "Arbitrator: cancel a post-battle sequence")
    async def cancel(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None
    ) -> None:
        await self._arbitrate(call, gang, campaign,
                              lambda at, _gang: engine.cancel_run(at))

    async def _arbitrate(self, call: Call, gang: str, campaign: str | None,
                         decide: Callable[[RunCall, Gang], Awaitable[StoredDecision]]) -> None:
        """An Arbitrator's step in the named gang's run: decided, shown, and noted privately."""
        async with call.read(campaign) as s:
            s.require_arbitrator()
            run = await _run_for(s, gang)
            target = await s.gang(gang)
        await call.defer()
        stored = await decide(RunCall.of(call, run.campaign_id, run.battle_id), target)
        await engine.show(self.bot, call.guild_id, stored)
        await call.interaction.followup.send(stored.note, ephemeral=True)


# --------------------------------------------------------------------------- helpers


def _winner_id(winner: str, gangs: list[Gang]) -> str | None:
    match = [g for g in gangs if same_name(g.name, winner)]
    if match:
        return match[0].id
    if name_key(winner) == DRAW:
        return None
    names = ", ".join(safe(g.name) for g in gangs)
    raise InvalidRequest(f"The winner must be one of the battle's gangs ({names}) or 'draw'.")


async def _request(
    tx: Transaction, campaign: Campaign, rows: StartRows[PostBattleRun], winner: str,
    battle: str | None, named: list[str], territory: str | None, scenario: str | None,
    skirmish: bool | None,
) -> StartRequest:
    """The start asked for, from what the start read (names and ids; the rosters are
    read with them, once): every refusal of the names given."""
    if battle:
        assert rows.battle is not None  # a battle not found is refused as it is read
        missing = [g for g in rows.battle.gang_ids if g not in rows.world.gangs]
        if missing:
            raise NotFound(f"There is no gang with id {missing[0]} in this campaign.")
        gangs = [rows.world.gang(g) for g in rows.battle.gang_ids]
    else:
        gangs = []
        for name in named:
            gang_id = rows.gang_ids.get(name_key(name))
            if gang_id is None:  # refused, naming the gang meant
                gang_id = (await tx.get_gang_by_name(campaign.id, name, rosters=False)).id
            gangs.append(rows.world.gang(gang_id))
        if len(gangs) < 2:
            raise InvalidRequest("Name at least two gangs, or a battle recorded with /prebattle.")
    gang_ids = [g.id for g in gangs]
    return StartRequest(
        battle_id=battle or None,
        gang_ids=gang_ids,
        winner=_winner_id(winner, gangs),
        staked_territory=_territory_id(campaign, rows.world, territory)
        or await _scheduled_stake(tx, campaign, battle or skirmish, rows, gang_ids),
        scenario=" ".join(scenario.split()) if scenario else None,
        skirmish=skirmish,
    )


async def _scheduled_stake(tx: Transaction, campaign: Campaign, passed: str | bool | None,
                           rows: StartRows[PostBattleRun], gang_ids: list[str]) -> str | None:
    """Started by naming the gangs of a scheduled battle (an accepted challenge's) without
    ``territory:``: the Territory at stake in it. ``passed``: a recorded battle (it keeps
    its own stake) or a skirmish (none)."""
    if passed or campaign.settings.skirmish:
        return None
    scheduled = scheduled_among(rows.scheduled, gang_ids, started_too=True)
    stake = None if scheduled is None else await staked_in(tx, campaign, scheduled)
    return None if stake is None else stake.id


def _territory_id(campaign: Campaign, world: World, name: str | None) -> str | None:
    if not name:
        return None
    match = [t for t in world.territories.values() if same_name(t.name, name)]
    if not match:
        raise InvalidRequest(f"There is no Territory called '{safe(name, 50)}' in "
                             f"{safe(campaign.name)}.")
    return match[0].id


async def _run_for(s: Scope, gang: str | None) -> PostBattleRun:
    """The run of the named gang, or of one of the actor's gangs."""
    gangs = [await s.gang(gang)] if gang else await s.gangs(owner=s.by)
    for candidate in gangs:
        run = await engine.active_run_in(s.tx, s.campaign.id, candidate.id)
        if run is not None:
            return run
    if gang:
        raise Refused(f"{safe(gangs[0].name)} is in no post-battle sequence now.")
    raise Refused("None of your gangs is in a post-battle sequence now; name a gang.")


setup = adds(PostBattleCog)
