"""Update Roster D: Distribute Equipment (PB-6D).

Decisions where the text is silent:

- An item carried by a fighter is worth its price on that fighter's own
  Equipment List when it is there (the precedence of PB-6D), else its
  Trading Post price when the Trading Post sells it, else what it was
  recorded at. An item taken back to the Stash is worth its Trading Post
  price again when the Trading Post lists it (the Stash is no fighter's list).
- The three weapon slots are checked on every item given; a weapon marked *
  (``two_slots``) takes two. Armour and wargear take none.
- Gang-list restrictions on weapon choices are not in the data and are not
  checked; vehicle Upgrades cannot be given to a fighter.
- A Captive cannot be given or lose equipment (its captor holds it); dead
  and retired fighters are gone. In Recovery fighters can be equipped.
- Gear that grants Mounted can never go back to the Stash.
- Tools of the Trade: a fighter with several Fighter cards (equipment sets)
  is modelled as one card; the sets and a weapon limit per set are out of
  scope, so such a fighter is held to three weapon slots across everything
  it carries. The result says so when the fighter has the rule.
"""

from __future__ import annotations

from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import EquipmentKind, Fighter, Gang, Item
from rules.ruleset import RuleSet
from rules.tradingpost import (
    check_can_be_equipped,
    check_weapon_slots,
    own_list_entry,
    stash_item,
    trading_post_entry,
)
from rules.world import RuleResult, Workspace, World

TOOLS_OF_THE_TRADE = "tools of the trade"


class DistributeResult(RuleResult):
    gang_id: str
    fighter_id: str
    item_id: str
    item_name: str
    # What the item is worth where it now is (on the fighter, or in the Stash).
    cost: int
    price_source: str  # "Equipment List", "Trading Post" or "recorded"
    fighter_cost_after: int
    weapon_slots_after: int


def give_item(
    world: World, gang_id: str, item_id: str, fighter_id: str, ruleset: RuleSet
) -> DistributeResult:
    """Move an item from the Stash to a fighter, within three weapon slots (PB-6D)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    item = stash_item(gang, item_id)
    fighter = gang.fighter(fighter_id)
    check_can_be_equipped(gang, fighter)
    if item.kind is EquipmentKind.VEHICLE_UPGRADE:
        raise InvalidRequest(f"{item.name} is a vehicle Upgrade; fit it to a vehicle.")
    check_weapon_slots(fighter, item)
    cost, source = _price_on_fighter(ruleset, gang, fighter, item)
    gang.stash.remove(item)
    fighter.equipment.append(item.model_copy(update={"cost": cost}))
    ws.note(f"{fighter.name} takes {item.name} from the Stash ({cost} credits, {source} price).")
    if _has_tools_of_the_trade(fighter):
        ws.note(
            f"{fighter.name} has Tools of the Trade: equipment sets are not tracked, so all "
            "its gear counts as one set."
        )
    return _moved(ws, "Distribute equipment", gang_id, fighter, item, (cost, source))


def take_item(
    world: World, gang_id: str, item_id: str, fighter_id: str, ruleset: RuleSet
) -> DistributeResult:
    """Put a fighter's item back in the Stash; gear granting Mounted stays (PB-6D)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    fighter = gang.fighter(fighter_id)
    check_can_be_equipped(gang, fighter)
    item = _carried_item(fighter, item_id)
    if item.grants_mounted:
        raise NotEligible(
            f"{item.name} grants {fighter.name} the Mounted condition and can never be "
            "discarded."
        )
    listed = trading_post_entry(ruleset, item.name)
    cost, source = (listed.cost, "Trading Post") if listed else (item.cost, "recorded")
    fighter.equipment.remove(item)
    gang.stash.append(item.model_copy(update={"cost": cost}))
    ws.note(f"{fighter.name} hands {item.name} back to the Stash.")
    return _moved(ws, "Return equipment to the Stash", gang_id, fighter, item, (cost, source))


def _moved(
    ws: Workspace, title: str, gang_id: str, fighter: Fighter, item: Item, price: tuple[int, str]
) -> DistributeResult:
    """The result of moving ``item`` between the Stash and ``fighter`` at ``price``."""
    cost, source = price
    return ws.finish(
        DistributeResult,
        clause="PB-6D",
        title=title,
        gang_id=gang_id,
        fighter_id=fighter.id,
        item_id=item.id,
        item_name=item.name,
        cost=cost,
        price_source=source,
        fighter_cost_after=fighter.total_cost,
        weapon_slots_after=fighter.weapon_slots,
    )


def _price_on_fighter(
    ruleset: RuleSet, gang: Gang, fighter: Fighter, item: Item
) -> tuple[int, str]:
    own = own_list_entry(ruleset, gang, fighter, item.name)
    if own is not None:
        return own.cost, "Equipment List"
    listed = trading_post_entry(ruleset, item.name)
    if listed is not None:
        return listed.cost, "Trading Post"
    return item.cost, "recorded"


def _has_tools_of_the_trade(fighter: Fighter) -> bool:
    return any(rule.casefold() == TOOLS_OF_THE_TRADE for rule in fighter.special_rules)


def _carried_item(fighter: Fighter, item_id: str) -> Item:
    for item in fighter.equipment:
        if item.id == item_id:
            return item
    raise NotFound(f"{fighter.name} carries no item with id {item_id}.")
