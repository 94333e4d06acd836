"""/captive: captives between battles (PB-1.6 to PB-1.8).

``list`` shows who holds whom and exactly what each captor may do now
(:func:`rules.captives.captive_options`). ``rescue-declined`` records that
the owner passed on its Rescue Mission (PB-1.7) and ``rescue-failed`` that
it tried one and failed; either frees the captor to sell, bounty, dispose of
or trade the captive to anyone. ``trade`` proposes
a trade (PB-1.8): both gangs agree with buttons before
:func:`rules.captives.trade_captive` runs, and either may decline; an
Arbitrator's trade speaks for both. Selling, bounties and disposal are
post-battle actions (``/action take``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, gang_names
from bot.battle.interactive import (
    Agreement,
    AgreementOutcome,
    add_dynamic_items,
    agree_as,
    agreement_view,
    new_agreement,
    register_agreement,
    unregister_agreement,
)
from bot.context import (
    actor_of,
    controls_gang,
    guild_id_of,
    is_arbitrator,
    require_gang_control,
    storage_of,
)
from bot.errors import Refused
from bot.render import result_lines, safe
from bot.storage import Campaign
from bot.ui import checked, send_embeds
from bot.ui.ledger import lines_embeds, send_lines
from cogs.fighter import GuildReads, bounded, campaign_in
from cogs.prebattle import captive_names
from rules.captives import (
    CaptiveTradeResult,
    CaptiveTradeTerms,
    TradeOffer,
    captive_options,
    record_rescue_declined,
    record_rescue_failed,
    trade_captive,
)
from rules.errors import InvalidRequest, NotEligible
from rules.models import Fighter, FighterStatus, Gang
from rules.world import World

if TYPE_CHECKING:
    from bot.app import MundaBot

Interaction = discord.Interaction["MundaBot"]
Name = app_commands.Range[str, 1, 100]

CAPTIVE_TRADE = "captive-trade"
MAX_TRADE_CREDITS = 1_000_000


async def captive_of(
    interaction: Interaction, campaign: Campaign, name: str
) -> tuple[Gang, Fighter, Gang]:
    """The captive's gang, the captive and its captor."""
    source = GuildReads.of(interaction)
    owner, captive = await source.find_fighter(campaign.id, name)
    if captive.status is not FighterStatus.CAPTURED or captive.captured_by is None:
        raise NotEligible(f"{safe(captive.name)} of {safe(owner.name)} is not held captive.")
    gangs = {g.id: g for g in await source.list_gangs(campaign.id)}
    captor = gangs.get(captive.captured_by)
    if captor is None:
        raise NotEligible(f"The gang holding {safe(captive.name)} no longer exists; ask an "
                          "Arbitrator to set its status.")
    return owner, captive, captor


class CaptiveCog(commands.GroupCog, group_name="captive",
                 group_description="Captives held between battles"):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        await add_dynamic_items(self.bot)
        register_agreement(CAPTIVE_TRADE, self._trade_agreed)

    async def cog_unload(self) -> None:
        unregister_agreement(CAPTIVE_TRADE)

    # ------------------------------------------------------------------ list

    @app_commands.command(name="list", description="Captives, their captors, what captors may do")
    @app_commands.describe(gang="only captives this gang holds or has lost",
                           campaign="the campaign (default: the server's default campaign)")
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def list_(self, interaction: Interaction, gang: Name | None = None,
                    campaign: Name | None = None) -> None:
        source = GuildReads.of(interaction)
        found = await campaign_in(source, campaign)
        world = World.of(await source.list_gangs(found.id))
        focus = await source.get_gang_by_name(found.id, gang) if gang else None
        lines = captive_lines(world, focus)
        title = f"Captives: {safe(focus.name)}" if focus else f"Captives in {safe(found.name)}"
        await send_embeds(interaction, lines_embeds(
            title, lines, empty="Nobody is held captive."))

    # ------------------------------------------------------------------ rescue declined

    @app_commands.command(name="rescue-declined",
                          description="The captive's gang passes on its Rescue Mission")
    @app_commands.describe(captive="the captive",
                           campaign="the campaign (default: the server's default campaign)")
    @app_commands.autocomplete(captive=captive_names, campaign=campaign_names)
    async def rescue_declined(self, interaction: Interaction, captive: Name,
                              campaign: Name | None = None) -> None:
        found = await campaign_in(GuildReads.of(interaction), campaign)
        owner, held, captor = await captive_of(interaction, found, captive)
        require_gang_control(found, owner, interaction)
        if held.rescue_chance_given:
            raise InvalidRequest(
                f"{safe(owner.name)} has already had its chance to rescue {safe(held.name)}; "
                f"{safe(captor.name)} may already deal with it."
            )
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            world = await tx.load_world(found.id, [owner.id, captor.id])
            result = record_rescue_declined(world, held.id)
            await tx.apply(found.id, result, actor=actor_of(interaction))
        await send_lines(interaction, safe(result.title, 200), result_lines(result))

    # ------------------------------------------------------------------ rescue failed

    @app_commands.command(name="rescue-failed",
                          description="The captive's gang tried a Rescue Mission and failed")
    @app_commands.describe(captive="the captive",
                           campaign="the campaign (default: the server's default campaign)")
    @app_commands.autocomplete(captive=captive_names, campaign=campaign_names)
    async def rescue_failed(self, interaction: Interaction, captive: Name,
                            campaign: Name | None = None) -> None:
        found = await campaign_in(GuildReads.of(interaction), campaign)
        owner, held, captor = await captive_of(interaction, found, captive)
        # Both gangs played the Rescue Mission, so either player may record how it went.
        if not (controls_gang(found, owner, interaction)
                or controls_gang(found, captor, interaction)):
            raise Refused(f"Only the players of {safe(owner.name)} and {safe(captor.name)}, "
                          "or an Arbitrator, can record how the Rescue Mission went.")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            world = await tx.load_world(found.id, [owner.id, captor.id])
            result = record_rescue_failed(world, held.id)
            await tx.apply(found.id, result, actor=actor_of(interaction))
        await send_lines(interaction, safe(result.title, 200), result_lines(result))

    # ------------------------------------------------------------------ trade

    @app_commands.command(name="trade", description="Trade a captive; both gangs must agree")
    @app_commands.describe(
        captive="the captive to hand over",
        to_gang="the gang that receives it (its own gang, or any gang after the rescue chance)",
        credits_from_receiver="credits the receiving gang pays the captor",
        credits_from_captor="credits the captor pays the receiving gang",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(captive=captive_names, to_gang=gang_names,
                               campaign=campaign_names)
    async def trade(
        self,
        interaction: Interaction,
        captive: Name,
        to_gang: Name,
        credits_from_receiver: app_commands.Range[int, 0, MAX_TRADE_CREDITS] = 0,
        credits_from_captor: app_commands.Range[int, 0, MAX_TRADE_CREDITS] = 0,
        campaign: Name | None = None,
    ) -> None:
        bounded(credits_from_receiver, 0, MAX_TRADE_CREDITS, "Credits from the receiver")
        bounded(credits_from_captor, 0, MAX_TRADE_CREDITS, "Credits from the captor")
        source = GuildReads.of(interaction)
        found = await campaign_in(source, campaign)
        owner, held, captor = await captive_of(interaction, found, captive)
        receiver = await source.get_gang_by_name(found.id, to_gang)
        if not (controls_gang(found, captor, interaction)
                or controls_gang(found, receiver, interaction)):
            raise Refused(f"Only the players of {safe(captor.name)} and {safe(receiver.name)}, "
                          "or an Arbitrator, can propose this trade.")
        terms = _terms(credits_from_receiver, credits_from_captor)
        # A dry run on the current rosters: refuse now what the rules would refuse later.
        world = await storage_of(interaction).load_world(
            guild_id_of(interaction), found.id, _ids(owner, captor, receiver))
        trade_captive(world, held.id, receiver.id, terms)
        gangs = [captor, receiver]
        question = (
            f"🤝 **Captive trade** (PB-1.8): {safe(captor.name)} hands {safe(held.name)} "
            f"(of {safe(owner.name)}) to {safe(receiver.name)}"
            + _credit_text(captor, receiver, credits_from_receiver, credits_from_captor) + "."
        )
        agreement = new_agreement(
            CAPTIVE_TRADE, found.id, question, gangs, proposed_by=interaction.user.id,
            details={"captive_id": held.id, "captor_id": captor.id, "receiver_id": receiver.id,
                     "from_receiver": credits_from_receiver, "from_captor": credits_from_captor},
        )
        agree_as(agreement, found, gangs, interaction)
        if is_arbitrator(found, interaction) or agreement.complete:
            # An Arbitrator's trade speaks for both gangs (recorded in the ledger as theirs).
            lines = await _carry_out_trade(interaction, found, agreement)
            await send_lines(interaction, "Captive trade", [question, *lines])
            return
        await storage_of(interaction).save_sequence(
            guild_id_of(interaction), found.id, agreement.key, agreement)
        await interaction.response.send_message(agreement.text(),
                                                view=agreement_view(agreement))

    async def _trade_agreed(
        self, interaction: Interaction, agreement: Agreement
    ) -> AgreementOutcome:
        found = await storage_of(interaction).get_campaign(
            guild_id_of(interaction), agreement.campaign_id)
        lines = await _carry_out_trade(interaction, found, agreement)
        return AgreementOutcome(summary="\n".join(lines), lines=lines)


def captive_lines(world: World, focus: Gang | None) -> list[str]:
    """One line per captive: whose it is, who holds it, and what the captor may do now."""
    lines: list[str] = []
    for owner in world.gangs.values():
        for fighter in owner.fighters:
            if fighter.status is not FighterStatus.CAPTURED or fighter.captured_by is None:
                continue
            if focus is not None and focus.id not in (owner.id, fighter.captured_by):
                continue
            captor = world.gangs.get(fighter.captured_by)
            if captor is None:
                lines.append(f"• **{safe(fighter.name)}** of {safe(owner.name)}: held by a gang "
                             "that no longer exists.")
                continue
            options = captive_options(world, captor.id, fighter.id)
            chance = ("has had its rescue chance" if fighter.rescue_chance_given
                      else "rescue chance not yet given")
            lines.append(
                f"• **{safe(fighter.name)}** of {safe(owner.name)}, held by "
                f"**{safe(captor.name)}** ({chance}; worth {fighter.total_cost}). "
                f"{safe(captor.name)} may: {', '.join(o.value for o in options)}."
            )
    return lines


def _terms(from_receiver: int, from_captor: int) -> CaptiveTradeTerms:
    return checked(lambda: CaptiveTradeTerms(
        from_captor=TradeOffer(credits=from_captor),
        from_receiver=TradeOffer(credits=from_receiver),
    ), "trade")


def _ids(*gangs: Gang) -> list[str]:
    return list(dict.fromkeys(g.id for g in gangs))


def _credit_text(captor: Gang, receiver: Gang, from_receiver: int, from_captor: int) -> str:
    parts: Sequence[str] = [
        *([f"{safe(receiver.name)} pays {from_receiver} credits"] if from_receiver else []),
        *([f"{safe(captor.name)} pays {from_captor} credits"] if from_captor else []),
    ]
    return f"; {' and '.join(parts)}" if parts else ", for nothing in return"


async def _carry_out_trade(
    interaction: Interaction, campaign: Campaign, agreement: Agreement
) -> list[str]:
    """Run the agreed trade on the rosters as they are now, in one transaction."""
    details = agreement.details
    captive_id, captor_id = str(details["captive_id"]), str(details["captor_id"])
    receiver_id = str(details["receiver_id"])
    terms = _terms(int(details["from_receiver"] or 0), int(details["from_captor"] or 0))
    async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
        gangs = await tx.list_gangs(campaign.id)
        world = World.of(gangs)
        owner, held = world.find_fighter(captive_id)
        if held.captured_by != captor_id:
            raise Refused(f"{held.name} has changed hands since this trade was proposed; "
                          "nothing was traded.")
        small = World.of([world.gang(i) for i in dict.fromkeys([owner.id, captor_id,
                                                                 receiver_id])])
        result: CaptiveTradeResult = trade_captive(small, captive_id, receiver_id, terms)
        await tx.apply(campaign.id, result, actor=actor_of(interaction))
    return result_lines(result)


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(CaptiveCog(bot))
