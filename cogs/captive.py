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

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.battle.interactive import (
    Agreement,
    AgreementOutcome,
    agree_as,
    new_agreement,
)
from bot.call import Call, Interaction, Scope
from bot.cog import BotCog, adds, agreement
from bot.errors import Refused
from bot.options import CampaignName, CaptiveName, GangName
from bot.render import result_lines, safe
from bot.slash import slash
from bot.ui import bounded, checked, lines_embeds
from rules.captives import (
    CaptiveTradeResult,
    CaptiveTradeTerms,
    TradeOffer,
    captive_options,
    record_rescue_declined,
    record_rescue_failed,
    trade_captive,
)
from rules.errors import InvalidRequest
from rules.models import Fighter, FighterStatus, Gang
from rules.world import RuleResult, World

if TYPE_CHECKING:
    pass

CAPTIVE_TRADE = "captive-trade"
MAX_TRADE_CREDITS = 1_000_000


class CaptiveCog(BotCog, commands.GroupCog, group_name="captive",
                 group_description="Captives held between battles"):
    # ------------------------------------------------------------------ list

    @slash("list", "Captives, their captors, what captors may do",
           gang="only captives this gang holds or has lost")
    async def list_(self, call: Call, gang: GangName | None = None,
                    campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as s:
            world = World.of(await s.gangs())
            focus = await s.gang(gang) if gang else None
        title = (f"Captives: {safe(focus.name)}" if focus
                 else f"Captives in {safe(s.campaign.name)}")
        await call.answer_embeds(lines_embeds(title, captive_lines(world, focus),
                                              empty="Nobody is held captive."))

    # ------------------------------------------------------------------ rescue declined

    @slash("rescue-declined", "The captive's gang passes on its Rescue Mission")
    async def rescue_declined(self, call: Call, captive: CaptiveName,
                              campaign: CampaignName | None = None) -> None:
        await _record_rescue(call, captive, campaign, _may_decline,
                             record_rescue_declined)

    # ------------------------------------------------------------------ rescue failed

    @slash("rescue-failed", "The captive's gang tried a Rescue Mission and failed")
    async def rescue_failed(self, call: Call, captive: CaptiveName,
                            campaign: CampaignName | None = None) -> None:
        await _record_rescue(call, captive, campaign, _may_report_failure,
                             record_rescue_failed)

    # ------------------------------------------------------------------ trade

    @slash("trade", "Trade a captive; both gangs must agree",
           captive="the captive to hand over",
           to_gang="the gang that receives it (its own gang, or any gang after the rescue chance)",
           credits_from_receiver="credits the receiving gang pays the captor",
           credits_from_captor="credits the captor pays the receiving gang")
    async def trade(
        self,
        call: Call,
        captive: CaptiveName,
        to_gang: GangName,
        credits_from_receiver: app_commands.Range[int, 0, MAX_TRADE_CREDITS] = 0,
        credits_from_captor: app_commands.Range[int, 0, MAX_TRADE_CREDITS] = 0,
        campaign: CampaignName | None = None,
    ) -> None:
        bounded(credits_from_receiver, 0, MAX_TRADE_CREDITS, "Credits from the receiver")
        bounded(credits_from_captor, 0, MAX_TRADE_CREDITS, "Credits from the captor")
        async with call.read(campaign) as s:
            owner, held, captor = await s.captive(captive)
            receiver = await s.gang(to_gang)
            _require_either(s, captor, receiver, "propose this trade")
            terms = _terms(credits_from_receiver, credits_from_captor)
            # A dry run on the current rosters: refuse now what the rules would refuse later.
            trade_captive(await s.world(owner, captor, receiver), held.id, receiver.id, terms)
        gangs = [captor, receiver]
        question = (
            f"🤝 **Captive trade**: {safe(captor.name)} hands {safe(held.name)} "
            f"(of {safe(owner.name)}) to {safe(receiver.name)}"
            + _credit_text(captor, receiver, credits_from_receiver, credits_from_captor) + "."
        )
        agreement = new_agreement(
            CAPTIVE_TRADE, s.campaign.id, question, gangs, proposed_by=call.actor.user_id,
            details={"captive_id": held.id, "captor_id": captor.id, "receiver_id": receiver.id,
                     "from_receiver": credits_from_receiver, "from_captor": credits_from_captor},
        )
        agree_as(agreement, s.campaign, gangs, call.interaction)
        if s.is_arbitrator or agreement.complete:
            # An Arbitrator's trade speaks for both gangs (recorded in the ledger as theirs).
            await call.answer("Captive trade", [question, *await _carry_out_trade(call,
                                                                                  agreement)])
            return
        await self.ask(call, agreement)

    @agreement(CAPTIVE_TRADE)
    async def _trade_agreed(
        self, interaction: Interaction, agreement: Agreement
    ) -> AgreementOutcome:
        lines = await _carry_out_trade(Call.of(interaction), agreement)
        return AgreementOutcome(summary="\n".join(lines), lines=lines)


RescueCheck = Callable[[Scope, Gang, Fighter, Gang], None]


async def _record_rescue(call: Call, captive: str, campaign: str | None, check: RescueCheck,
                         record: Callable[[World, str], RuleResult]) -> None:
    """Record how the captive's gang used its rescue chance (PB-1.7), in one transaction."""
    async with call.write(campaign) as s:
        owner, held, captor = await s.captive(captive)
        check(s, owner, held, captor)
        result = record(await s.world(owner, captor), held.id)
        await s.apply(result)
    await call.answer_result(result)


def _may_decline(s: Scope, owner: Gang, held: Fighter, captor: Gang) -> None:
    s.require_control(owner)
    if held.rescue_chance_given:
        raise InvalidRequest(
            f"{safe(owner.name)} has already had its chance to rescue "
            f"{safe(held.name)}; {safe(captor.name)} may already deal with it."
        )


def _may_report_failure(s: Scope, owner: Gang, _held: Fighter, captor: Gang) -> None:
    # Both gangs played the Rescue Mission, so either player may record how it went.
    _require_either(s, owner, captor, "record how the Rescue Mission went")


def _require_either(s: Scope, one: Gang, other: Gang, what: str) -> None:
    """Refuse unless the actor controls one of the two gangs (or is an Arbitrator)."""
    if not (s.controls(one) or s.controls(other)):
        raise Refused(f"Only the players of {safe(one.name)} and {safe(other.name)}, "
                      f"or an Arbitrator, can {what}.")


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


def _credit_text(captor: Gang, receiver: Gang, from_receiver: int, from_captor: int) -> str:
    parts: Sequence[str] = [
        *([f"{safe(receiver.name)} pays {from_receiver} credits"] if from_receiver else []),
        *([f"{safe(captor.name)} pays {from_captor} credits"] if from_captor else []),
    ]
    return f"; {' and '.join(parts)}" if parts else ", for nothing in return"


async def _carry_out_trade(call: Call, agreement: Agreement) -> list[str]:
    """Run the agreed trade on the rosters as they are now, in one transaction."""
    details = agreement.details
    captive_id, captor_id = str(details["captive_id"]), str(details["captor_id"])
    receiver_id = str(details["receiver_id"])
    terms = _terms(int(details["from_receiver"] or 0), int(details["from_captor"] or 0))
    async with call.write_in(agreement.campaign_id) as s:
        world = World.of(await s.gangs())
        owner, held = world.find_fighter(captive_id)
        if held.captured_by != captor_id:
            raise Refused(f"{held.name} has changed hands since this trade was proposed; "
                          "nothing was traded.")
        small = World.of([world.gang(i) for i in dict.fromkeys([owner.id, captor_id,
                                                                 receiver_id])])
        result: CaptiveTradeResult = trade_captive(small, captive_id, receiver_id, terms)
        await s.apply(result)
    return result_lines(result)


setup = adds(CaptiveCog)
