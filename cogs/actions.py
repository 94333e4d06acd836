"""/action: post-battle actions (PB-5.0 to PB-5.6), one per eligible fighter.

``/action take`` runs one action in the Post-battle Actions step of the
gang's run; the ``action`` option offers only what the fighter may do now
(:func:`rules.actions.available_actions`). Medical Escort and Negotiate
Repairs come in two parts: the cost is rolled openly and stored, then the
gang's player answers with the Pay / Don't pay buttons
(:func:`bot.battle.interactive.decision_view`); asking again before
answering shows the stored roll instead of rolling another. ``/action list``
shows every eligible fighter with its open actions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.autocomplete import LIST_SEPARATOR
from bot.battle.interactive import (
    POST_BATTLE_ACTIONS,
    Compute,
    DecisionKind,
    act,
    actor_for,
    decision_view,
    no_quote_yet,
    record_action,
    send_private,
    stored_quote,
)
from bot.call import Call
from bot.cog import BotCog, adds
from bot.errors import Refused
from bot.options import ActingFighter, ActionTarget, CampaignName, GangName, OpenAction
from bot.render import safe
from bot.runs import Situation, action_kind, gangs_in_runs, situation
from bot.slash import FIGHTERS_GANG, slash
from bot.storage import Campaign
from bot.ui import lines_embeds
from rules.actions import (
    ActionKind,
    Actor,
    MedicalEscortCost,
    RepairQuote,
    actor_refusal,
    claim_bounty,
    dispose_of_captive,
    eligible_actors,
    medical_escort_cost,
    negotiate_repairs_cost,
    sell_to_guilders,
    trade,
)
from rules.dice import Roller, ScriptedRoller
from rules.errors import InvalidRequest, NotEligible
from rules.models import Fighter, Vehicle
from rules.names import same_name
from rules.world import RuleResult, World

if TYPE_CHECKING:
    pass

CAPTIVE_ACTIONS = {
    ActionKind.SELL_TO_GUILDERS: sell_to_guilders,
    ActionKind.CLAIM_BOUNTY: claim_bounty,
    ActionKind.DISPOSE_OF_CAPTIVE: dispose_of_captive,
}


class ActionCog(BotCog, commands.GroupCog, group_name="action",
                group_description="Post-battle actions (step 5)"):
    @slash("take", "A fighter makes its post-battle action",
           fighter="the fighter making the action (one per fighter with Gang Hierarchy)",
           action="the action; only those open to this fighter now are offered",
           target="the captives (several: a comma list), the patient or the vehicle (Repairs)",
           gang=FIGHTERS_GANG)
    async def take(
        self,
        call: Call,
        fighter: ActingFighter,
        action: OpenAction,
        target: ActionTarget | None = None,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        kind = action_kind(action)
        await call.defer()
        async with call.read(campaign) as s:
            owner, actor = await s.own_fighter(fighter, gang)
            here = await situation(s, owner)
        made = here.run.sequence.post_battle_actions.get(owner.id, {}).get(actor.id)
        if made:
            raise NotEligible(f"{safe(actor.name)} has already made its post-battle action "
                              f"({safe(made)}).")
        current = here.gang.fighter(actor.id)
        open_now = here.open_to(current)
        # Say why a fighter who may not act at all is refused (convalescing, captive, ...).
        if not open_now and (reason := actor_refusal(current)) is not None:
            raise NotEligible(safe(reason))
        if kind not in open_now:
            offered = ", ".join(k.value for k in open_now) or "nothing"
            raise NotEligible(f"{safe(actor.name)} cannot make a {kind.value} action now "
                              f"(open to it: {offered}).")
        if kind is ActionKind.TRADE:
            if target is not None:
                raise InvalidRequest("A Trade action has no target; leave target out.")
            await _act(call, s.campaign, here, lambda world, run, _roller: trade(
                world, actor_for(run, here.battle, owner.id, actor.id)))
        elif kind in CAPTIVE_ACTIONS:
            names = _pick_captives(here.targets(kind), target)
            captive_ids = [next(f.id for _g, f in here.captives() if same_name(f.name, name))
                           for name in names]
            deal = CAPTIVE_ACTIONS[kind]
            await _act(call, s.campaign, here, lambda world, run, _roller: deal(
                world, actor_for(run, here.battle, owner.id, actor.id), captive_ids))
        else:
            await _ask_price(call, s.campaign, here, actor, target, PRICED[kind])

    @slash("list", "Fighters that may still act, and their actions",
           gang="the gang (default: your gangs in a post-battle sequence)")
    async def list_(
        self, call: Call, gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.read(campaign) as s:
            gangs = [await s.gang(gang)] if gang else await gangs_in_runs(s)
            if not gangs:
                raise Refused("You have no gang in a post-battle sequence: name the gang.")
            embeds: list[discord.Embed] = []
            for each in gangs:
                here = await situation(s, each)
                embeds += lines_embeds(f"Post-battle actions: {safe(each.name)}",
                                       action_lines(here))
        await call.answer_embeds(embeds)


async def _act(call: Call, campaign: Campaign, here: Situation, compute: Compute) -> None:
    await act(call.interaction, campaign=campaign, gang=here.gang, stages=POST_BATTLE_ACTIONS,
              compute=compute, bookkeeping=record_action)


async def _escort(call: Call, campaign: Campaign, here: Situation, actor: Fighter,
                  patient: Fighter | Vehicle, quoted: int | RuleResult) -> None:
    if isinstance(quoted, int):
        cost, credits = quoted, here.gang.credits
    else:
        assert isinstance(quoted, MedicalEscortCost)
        cost, credits = quoted.cost, quoted.world.gang(here.gang.id).credits
    question = (
        f"🩺 **Medical Escort** for {safe(patient.name)} by {safe(actor.name)} "
        f"({safe(here.gang.name)}): the Doc asks **{cost}** credits; the Stash holds "
        f"{credits}. <@{here.gang.owner}>, pay? Unpaid, {safe(patient.name)} dies."
    )
    view = decision_view(DecisionKind.ESCORT, campaign.id, here.battle.id, actor.id,
                         patient.id, cost, affordable=cost <= credits)
    await call.say(question, view=view)


async def _repairs(call: Call, campaign: Campaign, here: Situation, actor: Fighter,
                   vehicle: Fighter | Vehicle, quoted: int | RuleResult) -> None:
    if isinstance(quoted, int):
        # The stored die sets the price again, without a new roll.
        quote = negotiate_repairs_cost(
            here.world, actor_for(here.run, here.battle, here.gang.id, actor.id), vehicle.id,
            ScriptedRoller([quoted]),
        )
    else:
        assert isinstance(quoted, RepairQuote)
        quote = quoted
    rattle = (" and its Lasting Damage becomes one Persistent Rattle" if quote.becomes_rattle
              else "")
    question = (
        f"🔧 **Negotiate Repairs** for {safe(vehicle.name)} by {safe(actor.name)} "
        f"({safe(here.gang.name)}): D6 {quote.die}, {quote.percent}% of its cost with "
        f"Upgrades: **{quote.cost}** credits{rattle}. <@{here.gang.owner}>, pay? "
        "Unpaid, nothing changes."
    )
    view = decision_view(DecisionKind.REPAIRS, campaign.id, here.battle.id, actor.id,
                         vehicle.id, quote.die, affordable=quote.affordable)
    await call.say(question, view=view)


# Ask the gang's player whether to pay: the target, and its price as stored or rolled.
AskPrice = Callable[[Call, Campaign, Situation, Fighter, Fighter | Vehicle, int | RuleResult],
                    Awaitable[None]]


@dataclass(frozen=True)
class _Priced:
    """An action whose price is rolled openly before the gang decides: what it is for,
    how the ledger and the players name the price, the roll, and the question."""

    kind: ActionKind
    what: str
    things: Callable[[Situation], Sequence[Fighter | Vehicle]]
    quote_title: str
    price: str
    stored: str
    roll: Callable[[World, Actor, str, Roller], RuleResult]
    ask: AskPrice


PRICED = {priced.kind: priced for priced in (
    _Priced(ActionKind.MEDICAL_ESCORT, "patient", Situation.patients,
            "Medical Escort cost for {}", "The Doc's price for {}", ": {} credits",
            medical_escort_cost, _escort),
    _Priced(ActionKind.NEGOTIATE_REPAIRS, "vehicle", Situation.damaged_vehicles,
            "Repair price for {}", "The price for {}", " (D6: {})", negotiate_repairs_cost,
            _repairs),
)}


async def _ask_price(call: Call, campaign: Campaign, here: Situation, actor: Fighter,
                     target: str | None, priced: _Priced) -> None:
    """Pick the target; take the price stored for it, rolled before and not yet decided on
    (said privately), else roll it now; then ask whether to pay."""
    kind = priced.kind
    name = _pick_target(here.targets(kind), target, priced.what)
    thing = next(t for t in priced.things(here) if same_name(t.name, name))
    price = priced.price.format(safe(thing.name))
    quoted = await _quote(
        call, campaign, here, priced.quote_title.format(thing.name),
        f"{kind.value} for {thing.name}", price,
        lambda world, run, roller: priced.roll(
            world, actor_for(run, here.battle, here.gang.id, actor.id), thing.id, roller))
    if isinstance(quoted, int):
        await send_private(call.interaction, kind.value, [
            f"{price} was already rolled{priced.stored.format(quoted)}. Answer the question "
            "below."])
    await priced.ask(call, campaign, here, actor, thing, quoted)


async def _quote(call: Call, campaign: Campaign, here: Situation, quote_title: str,
                 decision_title: str, price: str, compute: Compute) -> int | RuleResult:
    """The number stored for a price rolled before and not yet decided on; else the result
    of rolling it now in the Post-battle Actions step (``price``, "the price for X", names
    it in the refusal when it was rolled meanwhile)."""
    async with call.storage.read_only(call.guild_id) as tx:
        stored = await stored_quote(tx, campaign.id, here.battle.id, quote_title,
                                    decision_title)
    if stored is not None:
        return stored
    refusal = f"{price} has just been rolled; use the command again to see it and answer."
    done = await act(call.interaction, campaign=campaign, gang=here.gang,
                     stages=POST_BATTLE_ACTIONS, compute=compute,
                     check=no_quote_yet(campaign.id, here.battle.id, quote_title,
                                        decision_title, refusal))
    return done.result


def action_lines(here: Situation) -> list[str]:
    """Who acted, who may act and with what, and the targets on offer."""
    made = here.run.sequence.post_battle_actions.get(here.gang.id, {})
    lines: list[str] = []
    for fighter in here.gang.fighters:
        if fighter.id in made:
            lines.append(f"✅ {safe(fighter.name)}: {safe(made[fighter.id])}")
    for fighter in eligible_actors(here.world, here.gang.id, here.battle):
        open_now = here.open_to(fighter)
        if open_now:
            lines.append(f"• **{safe(fighter.name)}**: {', '.join(k.value for k in open_now)}")
    if not lines:
        lines.append("No fighter of this gang can make a post-battle action "
                     "(Gang Hierarchy, not In Recovery, Captured or Convalescent).")
    lines += _target_lines("Captives held", [f"{safe(f.name)} of {safe(g.name)}"
                                             for g, f in here.captives()])
    lines += _target_lines("Critical Injuries (Medical Escort)",
                           [safe(f.name) for f in here.patients()])
    lines += _target_lines("Vehicles with Lasting Damage (Negotiate Repairs)",
                           [safe(v.name) for v in here.damaged_vehicles()])
    return lines


def _target_lines(title: str, names: Sequence[str]) -> list[str]:
    return [f"{title}: {', '.join(names)}."] if names else []


def _pick_target(candidates: Sequence[str], typed: str | None, what: str) -> str:
    """The target named, or the only candidate when none is named."""
    if typed is None:
        if len(candidates) == 1:
            return candidates[0]
        if not candidates:
            raise NotEligible(f"There is no {what} for this action.")
        raise InvalidRequest(f"Name the {what}: {', '.join(map(safe, candidates))}.")
    for name in candidates:
        if same_name(name, typed):
            return name
    offered = ", ".join(map(safe, candidates)) or "none"
    raise NotEligible(f"{safe(typed)} is not a {what} for this action (open: {offered}).")


def _pick_captives(candidates: Sequence[str], typed: str | None) -> list[str]:
    """The captives named: one name, or several separated by commas (one action deals
    with them all, each priced on its own); none named, the only captive."""
    if typed is None and len(candidates) > 1:
        raise InvalidRequest("Name the captives (one, or several separated by commas): "
                             f"{', '.join(map(safe, candidates))}.")
    if typed is None or any(same_name(name, typed) for name in candidates):
        return [_pick_target(candidates, typed, "captive")]
    parts = [part.strip() for part in typed.split(LIST_SEPARATOR) if part.strip()]
    if not parts:
        raise InvalidRequest("Name the captives, separated by commas.")
    picked = [_pick_target(candidates, part, "captive") for part in parts]
    twice = sorted({name for name in picked if picked.count(name) > 1})
    if twice:
        raise InvalidRequest(f"{', '.join(map(safe, twice))} is named twice: name each "
                             "captive once.")
    return picked


setup = adds(ActionCog)
