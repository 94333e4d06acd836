"""/prebattle: the pre-battle sequence (PRE-1 to PRE-6) as one message; the battle recorded.

A participating player or an Arbitrator names two to four gangs; the bot
orders them by Gang Rating with the tie-breaks and roll-offs of PRE-2, names
the Underdog, rolls the scenario on the campaign's die (or takes a declared
Rescue Mission, PB-1.7) and settles the battlefield, all with a secure
roller. The rolls go to the ledger with the new battle's id, the battle is
recorded so that ``/postbattle start`` can start from it, and whatever the
gangs still had deferred from earlier post-battle sequences is closed
(PB-6B.8), in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.battle.engine import active_run_in
from bot.battle.state import PostBattleRun
from bot.call import Call, Scope
from bot.cog import BotCog, adds
from bot.cycles import staked_in
from bot.errors import Refused
from bot.options import CampaignName, CaptiveName, GangName
from bot.render import safe
from bot.scheduling import change_event, mark_started, scheduled_of
from bot.slash import slash, value_choices
from bot.storage import new_id
from bot.ui import checked
from bot.ui.prebattle import prebattle_embed
from bot.ui.times import stamp
from rules.dice import SecureRoller
from rules.errors import InvalidRequest
from rules.models import Battle, FighterStatus, Gang
from rules.names import same_name
from rules.prebattle import (
    Battlefield,
    RescueMission,
    prebattle,
)
from rules.sequence import SubStep

if TYPE_CHECKING:
    pass

PRE_BATTLE_STEP = "Pre-battle sequence"
BATTLEFIELD_CHOICES = value_choices(Battlefield)


class PreBattleCog(BotCog, commands.Cog):
    @slash("prebattle", "Pre-battle sequence: order, Underdog, scenario, battlefield",
           battlefield="the battlefield the players agreed on (else a D6 decides)",
           rescue_captive="a captive whose gang plays a Rescue Mission instead of the "
                          "scenario roll")
    @app_commands.choices(battlefield=BATTLEFIELD_CHOICES)
    async def prebattle_command(
        self,
        call: Call,
        gang1: GangName,
        gang2: GangName,
        gang3: GangName | None = None,
        gang4: GangName | None = None,
        battlefield: str | None = None,
        rescue_captive: CaptiveName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        named = [name for name in (gang1, gang2, gang3, gang4) if name]
        for index, name in enumerate(named):
            if any(same_name(name, other) for other in named[:index]):
                raise InvalidRequest(f"{safe(name)} is listed more than once.")
        async with call.write(campaign) as s:
            gangs = [await s.gang(name) for name in named]
            _require_participant_or_arbitrator(s, gangs)
            runs = await _runs_to_close(s, gangs)
            rescue = await _rescue(s, gangs, rescue_captive)
            world = await s.world(*gangs)
            settings = s.campaign.settings
            result = prebattle(world, [g.id for g in gangs], s.ruleset, settings, SecureRoller(),
                               agreed_battlefield=battlefield, rescue=rescue)
            # The battle the players scheduled (an accepted challenge's), if they did: its
            # Territory is at stake, and /postbattle start finds it on the battle.
            upcoming = await scheduled_of(s.tx, s.campaign.id, [g.id for g in gangs])
            stake = None if upcoming is None or settings.skirmish else \
                await staked_in(s.tx, s.campaign, upcoming)
            battle = await s.tx.create_battle(s.campaign.id, checked(lambda: Battle(
                id=new_id(), gang_ids=[g.id for g in gangs],
                scenario=result.scenario.name[:100],
                battlefield=result.battlefield.battlefield[:100],
                staked_territory=stake.id if stake is not None else None,
                campaign=not settings.skirmish, rescue_mission=rescue is not None,
            ), "battle"))
            await s.tx.apply(s.campaign.id, result, actor=s.by, battle_id=battle.id,
                             step=PRE_BATTLE_STEP)
            closed: list[str] = []
            for gang_id, run in runs:
                left = run.sequence.close_deferred_at_prebattle(gang_id)
                await s.tx.save_sequence(s.campaign.id, run.key, run, battle_id=run.battle_id)
                closed += _closed_lines(world.gang(gang_id), left.get(gang_id, []))
            # It is being played now.
            scheduled = None if upcoming is None else \
                await mark_started(s.tx, upcoming, battle.id)
        by_id = {g.id: g for g in world.gangs.values()}
        content = "" if scheduled is None or scheduled.starts_at is None else (
            f"The battle scheduled for {stamp(scheduled.starts_at)} begins.")
        await call.answer_embeds([prebattle_embed(result, by_id, battle, closed,
                                                  stake=stake.name if stake else None)],
                                 content=content)
        if scheduled is not None:
            await change_event(self.bot, call.guild_id, scheduled.event_id, status="start")


def _require_participant_or_arbitrator(s: Scope, gangs: Sequence[Gang]) -> None:
    if any(g.owner == s.by for g in gangs) or s.is_arbitrator:
        return
    raise Refused("Only a player of one of these gangs, or an Arbitrator, can start their "
                  "pre-battle sequence.")


async def _runs_to_close(s: Scope, gangs: Sequence[Gang]) -> list[tuple[str, PostBattleRun]]:
    """(gang id, run) of the finished runs whose deferrals this pre-battle closes.

    A gang still in the middle of a post-battle sequence cannot start another
    battle: that sequence is finished (or cancelled) first.
    """
    found: list[tuple[str, PostBattleRun]] = []
    for gang in gangs:
        run = await active_run_in(s.tx, s.campaign.id, gang.id)
        if run is None:
            continue
        if run.in_progress:
            raise Refused(
                f"{safe(gang.name)} is still in the post-battle sequence of its last battle; "
                "finish it (or have an Arbitrator cancel it) first."
            )
        found.append((gang.id, run))
    return found


async def _rescue(s: Scope, gangs: Sequence[Gang], captive: str | None) -> RescueMission | None:
    if not captive:
        return None
    owner, fighter = await s.fighter(captive)
    ids = {g.id for g in gangs}
    if fighter.status is not FighterStatus.CAPTURED or fighter.captured_by is None:
        raise InvalidRequest(f"{safe(fighter.name)} is not held captive: there is no one to "
                             "rescue.")
    if owner.id not in ids or fighter.captured_by not in ids:
        raise InvalidRequest(
            f"A Rescue Mission for {safe(fighter.name)} is fought between {safe(owner.name)} "
            "and the gang holding it; name both of them (and no other gang)."
        )
    return RescueMission(owner_gang_id=owner.id, captor_gang_id=fighter.captured_by,
                         captive_fighter_id=fighter.id)


def _closed_lines(gang: Gang, substeps: Sequence[SubStep]) -> list[str]:
    return [f"{safe(gang.name)}: {substep.value} is closed." for substep in substeps]


setup = adds(PreBattleCog)
