"""/action: post-battle actions (PB-5.0 to PB-5.6), one per eligible fighter.

``/action take`` runs one action in the Post-battle Actions step of the
gang's run; the ``action`` option offers only what the fighter may do now
(:func:`rules.actions.available_actions`). Medical Escort and Negotiate
Repairs come in two parts: the cost is rolled openly and stored, then the
gang's player answers with the Pay / Don't pay buttons
(:class:`bot.battle.interactive.DecisionButton`); asking again before
answering shows the stored roll instead of rolling another. ``/action list``
shows every eligible fighter with its open actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, choose, gang_names
from bot.battle.engine import find_active_run
from bot.battle.interactive import (
    POST_BATTLE_ACTIONS,
    Compute,
    DecisionKind,
    act,
    actor_for,
    add_dynamic_items,
    battle_of,
    battle_world,
    decision_view,
    defer_privately,
    no_quote_yet,
    record_action,
    run_of,
    send_private,
    stored_quote,
)
from bot.battle.state import PostBattleRun
from bot.context import actor_of, guild_id_of, require_gang_control, storage_of
from bot.errors import Refused
from bot.render import safe
from bot.storage import Campaign, StorageError
from bot.ui import send_embeds
from bot.ui.ledger import lines_embeds
from cogs.fighter import GuildReads, campaign_in, fighter_in
from rules.actions import (
    ActionKind,
    MedicalEscortCost,
    RepairQuote,
    available_actions,
    claim_bounty,
    dispose_of_captive,
    eligible_actors,
    medical_escort_cost,
    negotiate_repairs_cost,
    sell_to_guilders,
    trade,
)
from rules.dice import ScriptedRoller
from rules.errors import InvalidRequest, NotEligible, NotFound, RulesError
from rules.models import Battle, Fighter, Gang, Vehicle
from rules.names import same_name
from rules.world import World

if TYPE_CHECKING:
    from bot.app import MundaBot

Interaction = discord.Interaction["MundaBot"]
Name = app_commands.Range[str, 1, 100]
Choices = list[app_commands.Choice[str]]

CAPTIVE_ACTIONS = {
    ActionKind.SELL_TO_GUILDERS: sell_to_guilders,
    ActionKind.CLAIM_BOUNTY: claim_bounty,
    ActionKind.DISPOSE_OF_CAPTIVE: dispose_of_captive,
}


def action_kind(text: str) -> ActionKind:
    for kind in ActionKind:
        if same_name(kind.value, text):
            return kind
    known = ", ".join(kind.value for kind in ActionKind)
    raise InvalidRequest(f"'{safe(text, 40)}' is not a post-battle action: choose {known}.")


# --------------------------------------------------------------------------- what is open


class Situation:
    """A fighter's gang in its run: the battle, the world and what is open to whom."""

    def __init__(self, run: PostBattleRun, battle: Battle, world: World, gang: Gang) -> None:
        self.run = run
        self.battle = battle
        self.world = world
        self.gang = world.gang(gang.id)

    def open_to(self, fighter: Fighter) -> list[ActionKind]:
        return available_actions(self.world, self.gang.id, fighter.id, self.battle,
                                 self.run.sequence.already_acted(self.gang.id))

    def captives(self) -> list[tuple[Gang, Fighter]]:
        return self.world.captives_held_by(self.gang.id)

    def patients(self) -> list[Fighter]:
        return [f for f in self.gang.fighters if f.critical_injury and f.on_roster]

    def damaged_vehicles(self) -> list[Vehicle]:
        return [v for v in (*self.gang.vehicles, *self.gang.stash_vehicles) if v.lasting_damage]

    def targets(self, kind: ActionKind | None) -> list[str]:
        captives = [f.name for _g, f in self.captives()]
        patients = [f.name for f in self.patients()]
        vehicles = [v.name for v in self.damaged_vehicles()]
        if kind in CAPTIVE_ACTIONS:
            return captives
        if kind is ActionKind.MEDICAL_ESCORT:
            return patients
        if kind is ActionKind.NEGOTIATE_REPAIRS:
            return vehicles
        return [*captives, *patients, *vehicles]


async def situation(interaction: Interaction, campaign: Campaign, gang: Gang) -> Situation:
    run = await run_of(interaction, campaign, gang)
    battle = await battle_of(interaction, campaign, run)
    return Situation(run, battle, await battle_world(interaction, campaign, run), gang)


async def _namespace_situation(interaction: Interaction) -> tuple[Situation, Fighter | None]:
    """The gang (and fighter) the command being typed names, in its run."""
    namespace = interaction.namespace
    source = GuildReads.of(interaction)
    campaign = await campaign_in(source, getattr(namespace, "campaign", None))
    fighter_name = getattr(namespace, "fighter", None)
    gang_name = getattr(namespace, "gang", None)
    fighter: Fighter | None = None
    if isinstance(fighter_name, str) and fighter_name.strip():
        gang, fighter = await fighter_in(source, campaign, fighter_name, gang_name or None)
    elif isinstance(gang_name, str) and gang_name.strip():
        gang = await source.get_gang_by_name(campaign.id, gang_name)
    else:
        raise NotFound("no gang yet")
    return await situation(interaction, campaign, gang), fighter


Picker = Callable[[Situation, Fighter | None], Iterable[str]]


async def _quietly(interaction: Interaction, current: str, pick: Picker) -> Choices:
    try:
        found, fighter = await _namespace_situation(interaction)
        return choose(pick(found, fighter), current)
    except (RulesError, Refused, StorageError):
        return []


async def open_actions(interaction: Interaction, current: str) -> Choices:
    """Only the actions open to the chosen fighter now."""

    def pick(found: Situation, fighter: Fighter | None) -> Iterable[str]:
        return [kind.value for kind in found.open_to(fighter)] if fighter else []

    return await _quietly(interaction, current, pick)


async def action_targets(interaction: Interaction, current: str) -> Choices:
    """Captives, patients or damaged vehicles, as the chosen action needs."""

    def pick(found: Situation, _fighter: Fighter | None) -> Iterable[str]:
        typed = getattr(interaction.namespace, "action", None)
        kind = next((k for k in ActionKind if isinstance(typed, str) and same_name(k.value, typed)),
                    None)
        return found.targets(kind)

    return await _quietly(interaction, current, pick)


async def acting_fighters(interaction: Interaction, current: str) -> Choices:
    """Fighters of the named gang (or of every gang in a run) that may still act."""

    async def lookup() -> list[str]:
        source = GuildReads.of(interaction)
        campaign = await campaign_in(source, getattr(interaction.namespace, "campaign", None))
        gang_name = getattr(interaction.namespace, "gang", None)
        if isinstance(gang_name, str) and gang_name.strip():
            gangs = [await source.get_gang_by_name(campaign.id, gang_name)]
        else:
            gangs = await source.list_gangs(campaign.id, owner=actor_of(interaction))
        names: list[str] = []
        for gang in gangs:
            try:
                found = await situation(interaction, campaign, gang)
            except (RulesError, Refused):
                continue
            names += [f.name for f in eligible_actors(found.world, gang.id, found.battle)
                      if found.open_to(f)]
        return names

    try:
        return choose(await lookup(), current)
    except (RulesError, Refused, StorageError):
        return []


# --------------------------------------------------------------------------- the cog


class ActionCog(commands.GroupCog, group_name="action",
                group_description="Post-battle actions (step 5)"):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        await add_dynamic_items(self.bot)

    @app_commands.command(name="take", description="A fighter makes its post-battle action")
    @app_commands.describe(
        fighter="the fighter making the action (one per fighter with Gang Hierarchy)",
        action="the action; only those open to this fighter now are offered",
        target="the captive, the patient (Medical Escort) or the vehicle (Negotiate Repairs)",
        gang="the fighter's gang (default: found by name)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(fighter=acting_fighters, action=open_actions,
                               target=action_targets, gang=gang_names, campaign=campaign_names)
    async def take(
        self,
        interaction: Interaction,
        fighter: Name,
        action: Name,
        target: Name | None = None,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        kind = action_kind(action)
        await defer_privately(interaction)
        source = GuildReads.of(interaction)
        found = await campaign_in(source, campaign)
        owner, actor = await fighter_in(source, found, fighter, gang)
        require_gang_control(found, owner, interaction)
        here = await situation(interaction, found, owner)
        made = here.run.sequence.post_battle_actions.get(owner.id, {}).get(actor.id)
        if made:
            raise NotEligible(f"{safe(actor.name)} has already made its post-battle action "
                              f"({safe(made)}).")
        open_now = here.open_to(here.gang.fighter(actor.id))
        if kind not in open_now:
            offered = ", ".join(k.value for k in open_now) or "nothing"
            raise NotEligible(f"{safe(actor.name)} cannot make a {kind.value} action now "
                              f"(open to it: {offered}).")
        if kind is ActionKind.TRADE:
            if target is not None:
                raise InvalidRequest("A Trade action has no target; leave target out.")
            await self._act(interaction, found, here, lambda world, run, _roller: trade(
                world, actor_for(run, here.battle, owner.id, actor.id)))
        elif kind in CAPTIVE_ACTIONS:
            captive = _pick_target(here.targets(kind), target, "captive")
            captive_id = next(f.id for _g, f in here.captives() if same_name(f.name, captive))
            deal = CAPTIVE_ACTIONS[kind]
            await self._act(interaction, found, here, lambda world, run, _roller: deal(
                world, actor_for(run, here.battle, owner.id, actor.id), captive_id))
        elif kind is ActionKind.MEDICAL_ESCORT:
            await self._escort(interaction, found, here, actor, target)
        else:
            await self._repairs(interaction, found, here, actor, target)

    async def _act(
        self,
        interaction: Interaction,
        campaign: Campaign,
        here: Situation,
        compute: Compute,
    ) -> None:
        await act(interaction, campaign=campaign, gang=here.gang, stages=POST_BATTLE_ACTIONS,
                  compute=compute, bookkeeping=record_action)

    async def _escort(
        self,
        interaction: Interaction,
        campaign: Campaign,
        here: Situation,
        actor: Fighter,
        target: str | None,
    ) -> None:
        name = _pick_target(here.targets(ActionKind.MEDICAL_ESCORT), target, "patient")
        patient = next(f for f in here.patients() if same_name(f.name, name))
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        await defer_privately(interaction)
        cost = await stored_quote(storage, guild_id, campaign.id, here.battle.id,
                                  f"Medical Escort cost for {patient.name}",
                                  f"Medical Escort for {patient.name}")
        credits = here.gang.credits
        if cost is None:
            done = await act(
                interaction, campaign=campaign, gang=here.gang, stages=POST_BATTLE_ACTIONS,
                compute=lambda world, run, roller: medical_escort_cost(
                    world, actor_for(run, here.battle, here.gang.id, actor.id), patient.id,
                    roller),
                check=no_quote_yet(
                    campaign.id, here.battle.id, f"Medical Escort cost for {patient.name}",
                    f"Medical Escort for {patient.name}",
                    f"The Doc's price for {safe(patient.name)} has just been rolled; use the "
                    "command again to see it and answer."),
            )
            assert isinstance(done.result, MedicalEscortCost)
            cost, credits = done.result.cost, done.result.world.gang(here.gang.id).credits
        else:
            await send_private(interaction, "Medical Escort", [
                f"The Doc's price for {safe(patient.name)} was already rolled: {cost} credits. "
                "Answer the question below."])
        question = (
            f"🩺 **Medical Escort** for {safe(patient.name)} by {safe(actor.name)} "
            f"({safe(here.gang.name)}): the Doc asks **{cost}** credits; the Stash holds "
            f"{credits}. <@{here.gang.owner}>, pay? Unpaid, {safe(patient.name)} dies (PB-5.5)."
        )
        view = decision_view(DecisionKind.ESCORT, campaign.id, here.battle.id, actor.id,
                             patient.id, cost, affordable=cost <= credits)
        await interaction.followup.send(question, view=view)

    async def _repairs(
        self,
        interaction: Interaction,
        campaign: Campaign,
        here: Situation,
        actor: Fighter,
        target: str | None,
    ) -> None:
        name = _pick_target(here.targets(ActionKind.NEGOTIATE_REPAIRS), target, "vehicle")
        vehicle = next(v for v in here.damaged_vehicles() if same_name(v.name, name))
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        await defer_privately(interaction)
        die = await stored_quote(storage, guild_id, campaign.id, here.battle.id,
                                 f"Repair price for {vehicle.name}",
                                 f"Negotiate Repairs for {vehicle.name}")
        if die is None:
            done = await act(
                interaction, campaign=campaign, gang=here.gang, stages=POST_BATTLE_ACTIONS,
                compute=lambda world, run, roller: negotiate_repairs_cost(
                    world, actor_for(run, here.battle, here.gang.id, actor.id), vehicle.id,
                    roller),
                check=no_quote_yet(
                    campaign.id, here.battle.id, f"Repair price for {vehicle.name}",
                    f"Negotiate Repairs for {vehicle.name}",
                    f"The price for {safe(vehicle.name)} has just been rolled; use the command "
                    "again to see it and answer."),
            )
            assert isinstance(done.result, RepairQuote)
            quote = done.result
        else:
            # The stored die sets the price again, without a new roll.
            run = here.run
            quote = negotiate_repairs_cost(
                here.world, actor_for(run, here.battle, here.gang.id, actor.id), vehicle.id,
                ScriptedRoller([die]),
            )
            await send_private(interaction, "Negotiate Repairs", [
                f"The price for {safe(vehicle.name)} was already rolled (D6: {die}). Answer the "
                "question below."])
        rattle = (" and its Lasting Damage becomes one Persistent Rattle" if quote.becomes_rattle
                  else "")
        question = (
            f"🔧 **Negotiate Repairs** for {safe(vehicle.name)} by {safe(actor.name)} "
            f"({safe(here.gang.name)}): D6 {quote.die}, {quote.percent}% of its cost with "
            f"Upgrades: **{quote.cost}** credits{rattle}. <@{here.gang.owner}>, pay? "
            "Unpaid, nothing changes (PB-5.6)."
        )
        view = decision_view(DecisionKind.REPAIRS, campaign.id, here.battle.id, actor.id,
                             vehicle.id, quote.die, affordable=quote.affordable)
        await interaction.followup.send(question, view=view)

    # ------------------------------------------------------------------ list

    @app_commands.command(name="list", description="Fighters that may still act, and their actions")
    @app_commands.describe(
        gang="the gang (default: your gangs in a post-battle sequence)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def list_(
        self, interaction: Interaction, gang: Name | None = None, campaign: Name | None = None
    ) -> None:
        source = GuildReads.of(interaction)
        found = await campaign_in(source, campaign)
        if gang:
            gangs = [await source.get_gang_by_name(found.id, gang)]
        else:
            gangs = await source.list_gangs(found.id, owner=actor_of(interaction))
            storage, guild_id = storage_of(interaction), guild_id_of(interaction)
            gangs = [g for g in gangs
                     if await find_active_run(storage, guild_id, found.id, g.id) is not None]
            if not gangs:
                raise Refused("You have no gang in a post-battle sequence: name the gang.")
        embeds: list[discord.Embed] = []
        for each in gangs:
            here = await situation(interaction, found, each)
            embeds += lines_embeds(f"Post-battle actions: {safe(each.name)}", action_lines(here))
        await send_embeds(interaction, embeds)


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


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(ActionCog(bot))
