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

import discord
from discord import app_commands
from discord.ext import commands

from bot.battle.engine import active_run_in
from bot.battle.state import PostBattleRun
from bot.call import Call, Interaction, Scope
from bot.errors import Refused
from bot.options import CampaignName, CaptiveName, GangName
from bot.render import roll_line, safe
from bot.storage import new_id
from bot.ui import checked, fit_lines
from rules.dice import SecureRoller
from rules.errors import InvalidRequest
from rules.models import Battle, FighterStatus, Gang
from rules.names import same_name
from rules.prebattle import (
    Battlefield,
    BattlefieldMethod,
    PreBattleResult,
    RescueMission,
    TieBreak,
    prebattle,
)
from rules.sequence import SubStep

if TYPE_CHECKING:
    from bot.app import MundaBot

TITLE_MAX = 256
EMBED_MAX = 6000
PRE_BATTLE_STEP = "Pre-battle sequence"
BATTLEFIELD_CHOICES = [app_commands.Choice(name=b.value, value=b.value) for b in Battlefield]


def prebattle_embed(
    result: PreBattleResult, gangs: dict[str, Gang], battle: Battle, closed: Sequence[str]
) -> discord.Embed:
    """Everything the pre-battle sequence decided, in one embed (under 6000 characters)."""
    names = [safe(gangs[gang_id].name, 60) for gang_id in battle.gang_ids]
    title = f"Pre-battle: {' vs '.join(names)}"
    scenario = result.scenario
    if scenario.rescue is not None:
        rescue = scenario.rescue
        captive = gangs[rescue.owner_gang_id].fighter(rescue.captive_fighter_id)
        scenario_text = (
            f"**{RESCUE_TEXT}** (PB-1.7): {safe(gangs[rescue.owner_gang_id].name)} comes for "
            f"{safe(captive.name)}, held by {safe(gangs[rescue.captor_gang_id].name)}. "
            "It replaces the scenario roll."
        )
    else:
        die = scenario.die.value if scenario.die else "die"
        faces = ", ".join(str(r.total) for r in scenario.rolls)
        again = " (rolled again until a scenario fit)" if len(scenario.rolls) > 1 else ""
        scenario_text = (
            f"**{safe(scenario.name)}**: rolled on a **{die}** (the campaign's scenario die) "
            f"→ {faces}{again}."
        )
    embed = discord.Embed(
        title=title[:TITLE_MAX], description=scenario_text, colour=discord.Colour.dark_red()
    )
    order = [
        f"{place.position}. **{safe(place.gang_name)}**: {safe(place.reason, 300)}"
        + (" · **Underdog**" if place.underdog else "")
        for place in result.order
    ]
    embed.add_field(name="Order by Gang Rating (PRE-1, PRE-2)", value=fit_lines(order),
                    inline=False)
    if any(place.tie_break is TieBreak.ROLL_OFF for place in result.order):
        rolloff = [roll_line(dice) for dice in result.rolls if "roll-off" in dice.purpose]
        embed.add_field(name=ROLL_OFF_FIELD,
                        value=fit_lines(rolloff), inline=False)
    underdog = gangs[result.underdog_id]
    embed.add_field(name="Underdog (PRE-3)", value=safe(underdog.name), inline=True)
    embed.add_field(name="Scenario (PRE-4)", value=fit_lines([safe(scenario.name)]),
                    inline=True)
    embed.add_field(name="Battlefield (PRE-5)", value=battlefield_text(result), inline=False)
    embed.add_field(name="Priority (PRE-6)", value=fit_lines([safe(result.priority, 500)]),
                    inline=False)
    embed.add_field(name="Every roll", value=fit_lines([roll_line(d) for d in result.rolls]
                                                       or ["No dice were needed."]),
                    inline=False)
    if closed:
        embed.add_field(name="Deferred sub-steps now closed (PB-6B.8)", value=fit_lines(closed),
                        inline=False)
    embed.set_footer(text=f"Battle recorded ({battle.id}): after the battle, start its "
                          "post-battle sequence with /postbattle start.")
    return within_limits(embed)


ROLL_OFF_FIELD = "Roll-off (the winner counts as the lower rating)"


def within_limits(embed: discord.Embed, limit: int = EMBED_MAX) -> discord.Embed:
    """Keep the one message under Discord's 6000 characters, even with absurd names.

    The roll-off field only repeats rolls that "Every roll" lists, so it goes
    first; then the longest fields are shortened.
    """
    if len(embed) > limit:
        for index, field in enumerate(embed.fields):
            if field.name == ROLL_OFF_FIELD:
                embed.remove_field(index)
                break
    while len(embed) > limit:
        index, longest = max(enumerate(embed.fields), key=lambda pair: len(pair[1].value or ""))
        value = longest.value or ""
        shorter = value[: max(1, len(value) - (len(embed) - limit) - 1)] + "…"
        embed.set_field_at(index, name=longest.name or "", value=shorter,
                           inline=bool(longest.inline))
    return embed


RESCUE_TEXT = "Rescue Mission"


def battlefield_text(result: PreBattleResult) -> str:
    field = result.battlefield
    name = f"**{safe(field.battlefield)}**"
    if field.method is BattlefieldMethod.ROLL and field.roll is not None:
        return f"{name}: no agreement, so a D6 → {field.roll.total} (4+ Sector Mechanicus)."
    if field.method is BattlefieldMethod.AGREED:
        return f"{name}, as the players agreed."
    return fit_lines([f"{name}, as the scenario dictates.", *map(safe, field.notes)])


class PreBattleCog(commands.Cog):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot

    @app_commands.command(name="prebattle",
                          description="Pre-battle sequence: order, Underdog, scenario, battlefield")
    @app_commands.describe(
        gang1="a gang that fights",
        gang2="another gang that fights",
        gang3="a third gang (optional)",
        gang4="a fourth gang (optional)",
        battlefield="the battlefield the players agreed on (else a D6 decides)",
        rescue_captive="a captive whose gang plays a Rescue Mission instead of the scenario roll",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.choices(battlefield=BATTLEFIELD_CHOICES)
    async def prebattle_command(
        self,
        interaction: Interaction,
        gang1: GangName,
        gang2: GangName,
        gang3: GangName | None = None,
        gang4: GangName | None = None,
        battlefield: str | None = None,
        rescue_captive: CaptiveName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        call = Call.of(interaction)
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
            battle = await s.tx.create_battle(s.campaign.id, checked(lambda: Battle(
                id=new_id(), gang_ids=[g.id for g in gangs],
                scenario=result.scenario.name[:100],
                battlefield=result.battlefield.battlefield[:100],
                campaign=not settings.skirmish, rescue_mission=rescue is not None,
            ), "battle"))
            await s.tx.apply(s.campaign.id, result, actor=s.by, battle_id=battle.id,
                             step=PRE_BATTLE_STEP)
            closed: list[str] = []
            for gang_id, run in runs:
                left = run.sequence.close_deferred_at_prebattle(gang_id)
                await s.tx.save_sequence(s.campaign.id, run.key, run, battle_id=run.battle_id)
                closed += _closed_lines(world.gang(gang_id), left.get(gang_id, []))
        by_id = {g.id: g for g in world.gangs.values()}
        await call.answer_embeds([prebattle_embed(result, by_id, battle, closed)])


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


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(PreBattleCog(bot))
