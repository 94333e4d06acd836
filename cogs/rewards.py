"""/rewards: a gang's scenario rewards in the Receive Rewards step (PB-3.1 to PB-3.3).

The scenario's rewards are read off the scenario by the players; the bot
rolls the reward dice (never more than four, PB-3.2), applies Reputation
gains before losses (PB-3.3) and puts items in the Stash (PB-3.1), through
:func:`rules.rewards.receive_rewards` in the battle's post-battle run.

``dome`` is the controller's choice of income dice for a Territory that
offers one (the Collapsed Dome, ``income_max_dice``). It is made before
Collect Income rolls, so it is taken in Receive Rewards, the step before,
and stored on the run; Collect Income passes it to
:func:`rules.income.collect_income` when its step opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.battle.engine import active_run_in
from bot.battle.interactive import act, rolled_in
from bot.battle.state import Phase
from bot.call import Call
from bot.cog import BotCog, adds
from bot.errors import Refused
from bot.lookup import pick
from bot.options import CampaignName, GangName, TerritoryName, TradingPostItem
from bot.render import safe
from bot.runs import own_gang_in_run, run_in
from bot.slash import slash
from bot.storage import Transaction, new_id
from bot.ui import bounded, checked, typed_item
from rules.dice import MAX_DICE, Roller
from rules.errors import InvalidRequest
from rules.income import check_income_dice, income_dice_range
from rules.models import Gang, Item, Territory
from rules.rewards import (
    MAX_FLAT_CREDITS,
    MAX_REPUTATION_CHANGE,
    GangReward,
    ReputationChange,
    receive_rewards,
)
from rules.sequence import Step
from rules.tradingpost import MAX_CREDITS, catalogue_entry
from rules.world import RuleResult, World

if TYPE_CHECKING:
    from bot.battle.state import PostBattleRun


class RewardsCog(BotCog, commands.GroupCog, group_name="rewards",
                 group_description="Scenario rewards after a battle"):
    @slash("claim", "Enter a gang's scenario rewards",
           gang="the gang that earned the rewards",
           credit_dice="D6 of reward credits (x10); more than 4 rolls exactly 4",
           flat_credits="credits the scenario gives without a roll",
           reputation_gain="Reputation gained (applied before losses)",
           reputation_loss="Reputation lost",
           reason="why (e.g. 'won the scenario'), shown with the Reputation change",
           item="an item the scenario gives, into the Stash (Trading Post name or your own)")
    async def claim(
        self,
        call: Call,
        gang: GangName,
        credit_dice: app_commands.Range[int, 0, MAX_DICE] = 0,
        flat_credits: app_commands.Range[int, 0, MAX_FLAT_CREDITS] = 0,
        reputation_gain: app_commands.Range[int, 0, MAX_REPUTATION_CHANGE] = 0,
        reputation_loss: app_commands.Range[int, 0, MAX_REPUTATION_CHANGE] = 0,
        reason: app_commands.Range[str, 1, 100] | None = None,
        item: TradingPostItem | None = None,
        item_cost: app_commands.Range[int, 0, MAX_CREDITS] | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        # Discord's client enforces the ranges; these refusals say the same to anyone else.
        bounded(credit_dice, 0, MAX_DICE, "Reward dice")
        bounded(flat_credits, 0, MAX_FLAT_CREDITS, "Flat reward credits")
        bounded(reputation_gain, 0, MAX_REPUTATION_CHANGE, "A Reputation gain")
        bounded(reputation_loss, 0, MAX_REPUTATION_CHANGE, "A Reputation loss")
        bounded(item_cost, 0, MAX_CREDITS, "An item's cost")
        if item is None and item_cost is not None:
            raise InvalidRequest("item_cost is the value of an item: name the item too.")
        if not (credit_dice or flat_credits or reputation_gain or reputation_loss or item):
            raise InvalidRequest("Nothing to claim: give reward dice, credits, Reputation or an "
                                 "item. A gang without rewards simply confirms the step.")
        await call.defer()
        async with call.read(campaign) as s:
            target = await s.own_gang(gang)
            battle = await s.tx.get_battle(s.campaign.id, (await run_in(s, target)).battle_id)
            purpose = f"reward credits for {target.name}"
            if credit_dice and await rolled_in(s.tx, s.campaign.id, battle.id, purpose):
                raise _rolled_already(target.name)
            entry = catalogue_entry(s.ruleset, target, None, item)[0] if item else None
        rewarded: list[Item] = [typed_item(new_id(), item, entry, item_cost)] if item else []
        reward = _reward(target, credit_dice, flat_credits, reputation_gain, reputation_loss,
                         reason, rewarded)

        def compute(world: World, _run: PostBattleRun, roller: Roller) -> RuleResult:
            return receive_rewards(world, battle, roller, [reward])

        async def not_rolled_yet(tx: Transaction, _run: PostBattleRun) -> None:
            # Again in the transaction that rolls: a claim sent twice at once passed the
            # check above both times.
            if credit_dice and await rolled_in(tx, s.campaign.id, battle.id, purpose):
                raise _rolled_already(target.name)

        await act(call.interaction, campaign=s.campaign, gang=target,
                  stages=[(Step.RECEIVE_REWARDS, None)], compute=compute, check=not_rolled_yet)

    @slash("dome", "Choose a Collapsed Dome's income dice before Collect Income",
           dice="D6 of income (x10) to roll: the Territory's own count up to its most "
             "(Collapsed Dome: 2-6)",
           territory="the Territory (default: the gang's one Territory with a choice of dice)",
           gang="the gang that controls it (default: your gang in a post-battle sequence)")
    async def dome(
        self,
        call: Call,
        dice: app_commands.Range[int, 1, MAX_DICE],
        territory: TerritoryName | None = None,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        bounded(dice, 1, MAX_DICE, "Income dice")
        async with call.write(campaign) as s:
            target = await own_gang_in_run(s, gang)
            run = await active_run_in(s.tx, s.campaign.id, target.id)
            if run is None or run.phase is not Phase.SEQUENCE or (
                    run.sequence.stage != (Step.RECEIVE_REWARDS, None)):
                raise Refused("Income dice are chosen during Receive Rewards, before Collect "
                              f"Income rolls: {safe(target.name)} is not in that step now.")
            chosen = _dome(await s.territories(controller=target.id), territory, target)
            check_income_dice(chosen, dice)
            run.income_dice[chosen.id] = dice
            await s.tx.save_sequence(s.campaign.id, run.key, run, battle_id=run.battle_id)
        await call.say(f"**{safe(target.name)}** will roll **{dice}** income dice for "
                       f"**{safe(chosen.name)}** in Collect Income.")


def _dome(held: list[Territory], name: str | None, gang: Gang) -> Territory:
    """The named Territory of ``gang``, or its one Territory with a choice of income dice."""
    if name:
        return pick(held, name, f"{gang.name} controls no Territory called '{name}'.")
    choosing = [t for t in held if income_dice_range(t) is not None]
    if len(choosing) == 1:
        return choosing[0]
    if not choosing:
        raise InvalidRequest(f"{gang.name} controls no Territory with a choice of income dice.")
    names = ", ".join(t.name for t in choosing)
    raise InvalidRequest(f"{gang.name} controls several Territories with a choice of income "
                         f"dice ({names}): name one with the territory option.")


def _reward(gang: Gang, credit_dice: int, flat_credits: int, gain: int, loss: int,
            reason: str | None, items: list[Item]) -> GangReward:
    """The claim as the rules read it; a Reputation change carries the reason given."""
    because = reason.strip() if reason else ""
    return checked(lambda: GangReward(
        gang_id=gang.id,
        credit_dice=credit_dice,
        flat_credits=flat_credits,
        reputation_gains=[ReputationChange(amount=gain, reason=because)] if gain else [],
        reputation_losses=[ReputationChange(amount=loss, reason=because)] if loss else [],
        items=items,
    ), "reward")


def _rolled_already(gang: str) -> Refused:
    return Refused(
        f"{safe(gang)} has already rolled its reward dice for this battle "
        "(rewards are capped at 4D6 in all). Claim credits, Reputation or items "
        "without dice, or ask an Arbitrator to undo the earlier claim."
    )


setup = adds(RewardsCog)
