"""Post-battle step 3: Receive Rewards (PB-3.1, PB-3.2, PB-3.3).

The scenario's rewards are not in the data set: the players read them off the
scenario and the bot applies them. Decisions where the text is silent:

- Reward credits are rolled with :func:`rules.dice.reward_dice`: asking for
  more than four dice rolls exactly four (the cap limits the dice, not the
  total of a bigger roll), and the result says it was capped.
- All the Reputation gains of a gang are added first, then all its losses are
  taken off, and only then is the floor of 1 applied; so 2, +1, -3 gives 1
  (from 3 down to 0, raised to 1), not 1 + 1 = 2.
- One entry per gang, and only gangs that fought. Nonsense is refused with
  InvalidRequest: negative numbers, a Reputation change of 0, more than
  20 dice, more than 10,000 flat credits or 20 Reputation in one change, or an
  item whose id is already in use.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rules.dice import MAX_DICE, MAX_REWARD_DICE, DiceRoll, Roller, reward_dice
from rules.errors import InvalidRequest, NotEligible
from rules.models import Battle, Gang, Item
from rules.wording import possessive
from rules.world import RuleResult, Workspace, World

MAX_FLAT_CREDITS = 10_000
MAX_REPUTATION_CHANGE = 20
MAX_MULTIPLIER = 1000
MAX_REPUTATION = 1000
MAX_CREDITS = 1_000_000


class ReputationChange(BaseModel):
    """One Reputation gain or loss and why (a line of the scenario's rewards)."""

    model_config = ConfigDict(frozen=True)

    amount: int
    reason: str = ""


class GangReward(BaseModel):
    """The rewards one gang earned from the scenario."""

    gang_id: str
    credit_dice: int = 0  # number of D6 of reward credits; capped at 4 when rolled
    credit_multiplier: int = 10
    flat_credits: int = 0
    reputation_gains: list[ReputationChange] = Field(default_factory=list)
    reputation_losses: list[ReputationChange] = Field(default_factory=list)
    items: list[Item] = Field(default_factory=list)


class GangRewardOutcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str
    dice_asked: int
    credit_roll: DiceRoll | None
    credits_gained: int
    reputation_before: int
    reputation_after: int
    items_added: list[str]  # item ids, now in the Stash

    @property
    def dice_capped(self) -> bool:
        return self.dice_asked > MAX_REWARD_DICE


class RewardsResult(RuleResult):
    gangs: list[GangRewardOutcome]


def receive_rewards(
    world: World, battle: Battle, roller: Roller, rewards: list[GangReward]
) -> RewardsResult:
    """Roll and add each gang's scenario rewards (PB-3.1 to PB-3.3)."""
    ws = Workspace(world)
    seen: set[str] = set()
    for reward in rewards:
        if reward.gang_id in seen:
            raise InvalidRequest("Give each gang's rewards in one entry.")
        seen.add(reward.gang_id)
        _validate(ws.gang(reward.gang_id), battle, reward)
    _check_item_ids(ws.world, rewards)

    outcomes = [_apply(ws, roller, reward) for reward in rewards]
    return ws.finish(RewardsResult, clause="PB-3.1", title="Receive Rewards", gangs=outcomes)


def _validate(gang: Gang, battle: Battle, reward: GangReward) -> None:
    if gang.id not in battle.gang_ids:
        raise NotEligible(f"{gang.name} did not fight this battle and earns no rewards.")
    if not 0 <= reward.credit_dice <= MAX_DICE:
        raise InvalidRequest(f"Reward dice must be between 0 and {MAX_DICE}.")
    if not 1 <= reward.credit_multiplier <= MAX_MULTIPLIER:
        raise InvalidRequest(f"A reward multiplier must be between 1 and {MAX_MULTIPLIER}.")
    if not 0 <= reward.flat_credits <= MAX_FLAT_CREDITS:
        raise InvalidRequest(f"Flat reward credits must be between 0 and {MAX_FLAT_CREDITS}.")
    for change in reward.reputation_gains + reward.reputation_losses:
        if not 1 <= change.amount <= MAX_REPUTATION_CHANGE:
            raise InvalidRequest(
                f"A Reputation gain or loss must be between 1 and {MAX_REPUTATION_CHANGE}."
            )
    gained = sum(change.amount for change in reward.reputation_gains)
    if gang.reputation + gained > MAX_REPUTATION:
        raise InvalidRequest(f"Reputation cannot go above {MAX_REPUTATION}.")
    most = reward.flat_credits + MAX_REWARD_DICE * 6 * reward.credit_multiplier
    if gang.credits + most > MAX_CREDITS:
        raise InvalidRequest(
            f"{possessive(gang.name)} Stash cannot hold more than {MAX_CREDITS} credits.")


def _check_item_ids(world: World, rewards: list[GangReward]) -> None:
    used = {item.id for gang in world.gangs.values() for item in _items_of(gang)}
    for reward in rewards:
        for item in reward.items:
            if item.id in used:
                raise InvalidRequest(f"The item id {item.id} ({item.name}) is already in use.")
            used.add(item.id)


def _items_of(gang: Gang) -> list[Item]:
    items = list(gang.stash)
    for fighter in gang.fighters:
        items += fighter.equipment
    for vehicle in gang.vehicles + gang.stash_vehicles:
        items += vehicle.upgrades + vehicle.equipment
    return items


def _apply(ws: Workspace, roller: Roller, reward: GangReward) -> GangRewardOutcome:
    gang = ws.gang(reward.gang_id)
    dice: DiceRoll | None = None
    credits = reward.flat_credits
    if reward.credit_dice:
        dice = ws.record(
            reward_dice(
                roller,
                reward.credit_dice,
                f"reward credits for {gang.name}",
                multiplier=reward.credit_multiplier,
            )
        )
        credits += dice.total
        if reward.credit_dice > MAX_REWARD_DICE:
            ws.note(
                f"{gang.name} earned {reward.credit_dice} reward dice: "
                f"rewards are capped at {MAX_REWARD_DICE}D6, so {MAX_REWARD_DICE} were rolled."
            )
    if credits:
        gang.credits += credits
        ws.note(f"{gang.name} adds {credits} credits of rewards to its Stash.")

    reputation_before = gang.reputation
    gained = sum(change.amount for change in reward.reputation_gains)
    lost = sum(change.amount for change in reward.reputation_losses)
    # Gains before losses (PB-3.3); the floor of 1 applies to the end result.
    gang.reputation = max(1, reputation_before + gained - lost)
    for change in reward.reputation_gains:
        ws.note(f"{gang.name} gains {change.amount} Reputation{_because(change)}.")
    for change in reward.reputation_losses:
        ws.note(f"{gang.name} loses {change.amount} Reputation{_because(change)}.")
    if gained or lost:
        ws.note(f"{possessive(gang.name)} Reputation goes from {reputation_before} to "
                f"{gang.reputation}.")

    for item in reward.items:
        gang.stash.append(item.model_copy(deep=True))
        ws.note(f"{item.name} goes into {possessive(gang.name)} Stash.")
    return GangRewardOutcome(
        gang_id=gang.id,
        dice_asked=reward.credit_dice,
        credit_roll=dice,
        credits_gained=credits,
        reputation_before=reputation_before,
        reputation_after=gang.reputation,
        items_added=[item.id for item in reward.items],
    )


def _because(change: ReputationChange) -> str:
    return f" ({change.reason})" if change.reason else ""
