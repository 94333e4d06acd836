"""/rewards claim: a gang's scenario rewards in the Receive Rewards step (PB-3.1 to PB-3.3).

The scenario's rewards are read off the scenario by the players; the bot
rolls the reward dice (never more than four, PB-3.2), applies Reputation
gains before losses (PB-3.3) and puts items in the Stash (PB-3.1), through
:func:`rules.rewards.receive_rewards` in the battle's post-battle run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, gang_names, trading_post_items
from bot.battle.interactive import (
    act,
    battle_of,
    defer_privately,
    rolled_before,
    rolled_in,
    run_of,
)
from bot.context import guild_id_of, require_gang_control, storage_of
from bot.errors import Refused
from bot.render import safe
from bot.rulesets import ruleset_for
from bot.storage import Transaction
from bot.ui import checked
from cogs.fighter import GuildReads, bounded, campaign_in, catalogue_entry, new_item
from rules.dice import MAX_DICE, Roller
from rules.errors import InvalidRequest
from rules.models import Item
from rules.rewards import (
    MAX_FLAT_CREDITS,
    MAX_REPUTATION_CHANGE,
    GangReward,
    ReputationChange,
    receive_rewards,
)
from rules.sequence import Step
from rules.world import RuleResult, World

if TYPE_CHECKING:
    from bot.app import MundaBot
    from bot.battle.state import PostBattleRun

Interaction = discord.Interaction["MundaBot"]
Name = app_commands.Range[str, 1, 100]
MAX_ITEM_COST = 1_000_000


class RewardsCog(commands.GroupCog, group_name="rewards",
                 group_description="Scenario rewards after a battle"):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(name="claim", description="Enter a gang's scenario rewards (PB-3)")
    @app_commands.describe(
        gang="the gang that earned the rewards",
        credit_dice="D6 of reward credits (x10); more than 4 rolls exactly 4 (PB-3.2)",
        flat_credits="credits the scenario gives without a roll",
        reputation_gain="Reputation gained (applied before losses)",
        reputation_loss="Reputation lost",
        reason="why (e.g. 'won the scenario'), shown with the Reputation change",
        item="an item the scenario gives, into the Stash (Trading Post name or your own)",
        item_cost="the item's value (default: its Trading Post price)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(gang=gang_names, item=trading_post_items, campaign=campaign_names)
    async def claim(
        self,
        interaction: Interaction,
        gang: Name,
        credit_dice: app_commands.Range[int, 0, MAX_DICE] = 0,
        flat_credits: app_commands.Range[int, 0, MAX_FLAT_CREDITS] = 0,
        reputation_gain: app_commands.Range[int, 0, MAX_REPUTATION_CHANGE] = 0,
        reputation_loss: app_commands.Range[int, 0, MAX_REPUTATION_CHANGE] = 0,
        reason: app_commands.Range[str, 1, 100] | None = None,
        item: Name | None = None,
        item_cost: app_commands.Range[int, 0, MAX_ITEM_COST] | None = None,
        campaign: Name | None = None,
    ) -> None:
        # Discord's client enforces the ranges; these refusals say the same to anyone else.
        bounded(credit_dice, 0, MAX_DICE, "Reward dice")
        bounded(flat_credits, 0, MAX_FLAT_CREDITS, "Flat reward credits")
        bounded(reputation_gain, 0, MAX_REPUTATION_CHANGE, "A Reputation gain")
        bounded(reputation_loss, 0, MAX_REPUTATION_CHANGE, "A Reputation loss")
        bounded(item_cost, 0, MAX_ITEM_COST, "An item's cost")
        if item is None and item_cost is not None:
            raise InvalidRequest("item_cost is the value of an item: name the item too.")
        if not (credit_dice or flat_credits or reputation_gain or reputation_loss or item):
            raise InvalidRequest("Nothing to claim: give reward dice, credits, Reputation or an "
                                 "item. A gang without rewards simply confirms the step.")
        await defer_privately(interaction)
        source = GuildReads.of(interaction)
        found = await campaign_in(source, campaign)
        target = await source.get_gang_by_name(found.id, gang)
        require_gang_control(found, target, interaction)
        run = await run_of(interaction, found, target)
        battle = await battle_of(interaction, found, run)
        purpose = f"reward credits for {target.name}"
        rolled = Refused(
            f"{safe(target.name)} has already rolled its reward dice for this battle "
            "(rewards are capped at 4D6 in all, PB-3.2). Claim credits, Reputation or items "
            "without dice, or ask an Arbitrator to undo the earlier claim."
        )
        if credit_dice and await rolled_before(
            storage_of(interaction), guild_id_of(interaction), found.id, battle.id, purpose
        ):
            raise rolled
        rewarded: list[Item] = []
        if item is not None:
            entry, _source = catalogue_entry(ruleset_for(found), target, None, item)
            rewarded.append(new_item(item, entry, item_cost, None, None))
        because = reason.strip() if reason else ""
        reward = checked(lambda: GangReward(
            gang_id=target.id,
            credit_dice=credit_dice,
            flat_credits=flat_credits,
            reputation_gains=[ReputationChange(amount=reputation_gain, reason=because)]
            if reputation_gain else [],
            reputation_losses=[ReputationChange(amount=reputation_loss, reason=because)]
            if reputation_loss else [],
            items=rewarded,
        ), "reward")

        def compute(world: World, _run: PostBattleRun, roller: Roller) -> RuleResult:
            return receive_rewards(world, battle, roller, [reward])

        async def not_rolled_yet(tx: Transaction, _run: PostBattleRun) -> None:
            # Again in the transaction that rolls: a claim sent twice at once passed the
            # check above both times.
            if credit_dice and await rolled_in(tx, found.id, battle.id, purpose):
                raise rolled

        await act(interaction, campaign=found, gang=target,
                  stages=[(Step.RECEIVE_REWARDS, None)], compute=compute, check=not_rolled_yet)


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(RewardsCog(bot))
