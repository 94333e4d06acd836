"""/fighter: add, edit, equip, unequip, status, retire and show fighters on a roster.

Every change is made by the gang's owner or an Arbitrator; anyone may look.
A change that a rules function covers (equipping from the Stash, returning
gear, retiring, hiring with ``pay``) runs that function on the world loaded
in the same write transaction and stores its result, so the ledger gets its
notes and changes; plain roster edits go through the storage roster methods,
which write the ledger too. Decisions taken where the rules are silent are
listed in docs/commands-roster.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from discord import app_commands
from discord.ext import commands

from bot.call import Call, Scope
from bot.cog import BotCog, adds
from bot.lookup import pick_item
from bot.options import (
    CampaignName,
    CarriedItem,
    EquippableItem,
    FighterName,
    FighterType,
    GangName,
    NewName,
)
from bot.render import safe
from bot.slash import FIGHTERS_GANG, slash_with, value_choices
from bot.storage import new_id
from bot.ui import bounded, checked, clean_name, typed_item
from bot.ui.fighter import fighter_embed
from bot.ui.ledger import gang_change_lines
from bot.ui.roster import profile_line
from bot.weapon_rows import known_lines
from rules.cleanhouse import retire
from rules.distribute import give_item, take_item
from rules.errors import InvalidRequest
from rules.models import (
    TARGET_STATS,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    stat_bounds,
)
from rules.profiles import LABELS as STAT_LABELS
from rules.profiles import MAX_PROFILE_TEXT, parse_profile
from rules.recruits import ByHand, hired, written_down
from rules.tradingpost import (
    MAX_CREDITS,
    MAX_WEAPON_SLOTS,
    buy_equipment,
    catalogue_entry,
    check_can_be_equipped,
    check_weapon_slots,
    type_template,
)
from rules.wording import possessive
from rules.world import RuleResult, World

if TYPE_CHECKING:
    pass

# A fighter is found by name; its gang, when given, only narrows the search.
slash = slash_with(gang=FIGHTERS_GANG)
MAX_XP = 10_000
# What one option takes (a longer text is for a roster file: NOTES_MAX).
NOTES_OPTION_MAX = 500
ItemKind = Literal["weapon", "wargear", "armour"]
CATEGORY_CHOICES = value_choices(FighterCategory)
STATUS_CHOICES = value_choices(FighterStatus)



class FighterCog(BotCog, commands.GroupCog, group_name="fighter",
                 group_description="Fighters on a gang's roster"):
    @slash("add", "Add a fighter: a House List type or by hand",
           gang="the gang the fighter joins", name="the fighter's name",
           fighter_type="a type from the gang's House List (sets category, cost and rules)",
           category="by hand: the fighter's category",
           cost="by hand: credits value without equipment (overrides the House List)",
           pay="charge the House List founding cost from the Stash (default: no)")
    @app_commands.choices(category=CATEGORY_CHOICES)
    async def add(
        self,
        call: Call,
        gang: GangName,
        name: NewName,
        fighter_type: FighterType | None = None,
        category: str | None = None,
        cost: int | None = None,
        pay: bool = False,
        profile: app_commands.Range[str, 1, MAX_PROFILE_TEXT] | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        fighter_name = clean_name(name, "fighter's name")
        bounded(cost, 0, MAX_CREDITS, "A fighter's cost")
        given = ByHand(FighterCategory(category) if category else None, cost,
                       parse_profile(profile) if profile is not None else None)
        async with call.write(campaign) as s:
            target = await s.own_gang(gang)
            template = type_template(s.ruleset, target, fighter_type or "")
            if pay:
                result = hired(await s.world(target), target, s.ruleset, template,
                               fighter_name, new_id(), given)
                await s.apply(result)
            else:
                fighter = checked(lambda: written_down(target, template, fighter_type,
                                                       fighter_name, new_id(), given),
                                  "fighter")
                await s.tx.add_fighter(s.campaign.id, target.id, fighter, actor=s.by)
        if pay:
            await call.answer_result(result)
            return
        kind = f"{safe(fighter.fighter_type)}, " if fighter.fighter_type else ""
        await call.answer(f"{safe(fighter.name)} joins {safe(target.name)}", [
            f"➕ {kind}{fighter.category.value}, {fighter.cost} credits.",
            f"Profile: `{profile_line(fighter)}`.",
            "Roster keeping: no credits were charged (`pay:True` hires from the Stash).",
        ])

    @slash("edit", "Change a fighter's name, cost, XP or profile",
           fighter="the fighter to change",
           notes="notes kept on the fighter's card ('-' clears them)",
           cost="credits value without equipment")
    @app_commands.rename(int_="int")
    async def edit(
        self,
        call: Call,
        fighter: FighterName,
        gang: GangName | None = None,
        name: NewName | None = None,
        cost: int | None = None,
        xp: int | None = None,
        m: int | None = None,
        ws: int | None = None,
        bs: int | None = None,
        s: int | None = None,
        t: int | None = None,
        w: int | None = None,
        i: int | None = None,
        a: int | None = None,
        ld: int | None = None,
        cl: int | None = None,
        wil: int | None = None,
        int_: int | None = None,
        profile: app_commands.Range[str, 1, MAX_PROFILE_TEXT] | None = None,
        notes: app_commands.Range[str, 1, NOTES_OPTION_MAX] | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        pasted = parse_profile(profile) if profile is not None else None
        stats = {"m": m, "ws": ws, "bs": bs, "s": s, "t": t, "w": w, "i": i, "a": a,
                 "ld": ld, "cl": cl, "wil": wil, "int": int_}
        changed = {stat: value for stat, value in stats.items() if value is not None}
        for stat, value in changed.items():
            _check_stat(stat, value)
        bounded(cost, 0, MAX_CREDITS, "A fighter's cost")
        bounded(xp, 0, MAX_XP, "XP")
        nothing = (name, cost, xp, pasted, notes)
        if all(value is None for value in nothing) and not changed:
            raise InvalidRequest("Give at least one thing to change: name, cost, xp, profile, "
                                 "notes or a characteristic.")
        new_name = clean_name(name, "fighter's name") if name is not None else None
        async with call.write(campaign) as scope:
            owner, current = await scope.own_fighter(fighter, gang)
            data = current.model_dump(by_alias=True)
            if pasted is not None:
                data["profile"] = pasted.model_dump(by_alias=True)
            if changed and data["profile"] is None:
                raise InvalidRequest(
                    f"{current.name}'s profile is not set, so one characteristic cannot be "
                    "changed alone: give the whole profile with profile:."
                )
            if changed:
                data["profile"].update(changed)
            if notes is not None:
                data["notes"] = "" if notes.strip() == "-" else notes.strip()
            updates = {"name": new_name, "cost": cost, "xp": xp}
            data.update({key: value for key, value in updates.items() if value is not None})
            edited = checked(lambda: Fighter.model_validate(data), "fighter")
            await scope.update_fighter(owner, edited)
            after = await scope.tx.get_gang(scope.campaign.id, owner.id)
        await call.answer(f"{safe(edited.name)} ({safe(owner.name)}) edited",
                          gang_change_lines(owner, after))

    @slash("equip", "Give a fighter an item, new or from the Stash",
           fighter="the fighter who takes the item", item="the item's name",
           cost="a new item's value (default: its Equipment List or Trading Post price)",
           kind="a new item's kind (default: as the catalogue says, else wargear)",
           two_slots="a new weapon marked * that takes two of the three weapon slots",
           from_stash="take the item from the gang's Stash instead of writing a new one",
           pay="buy it from the fighter's own Equipment List, its price from the Stash "
               "(default: no)")
    async def equip(
        self,
        call: Call,
        fighter: FighterName,
        item: EquippableItem,
        cost: int | None = None,
        kind: ItemKind | None = None,
        two_slots: bool | None = None,
        from_stash: bool = False,
        pay: bool = False,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        if from_stash and (cost is not None or kind is not None or two_slots is not None):
            raise InvalidRequest("An item from the Stash keeps what it is; leave out cost, kind "
                                 "and two_slots (its price is the fighter's list price).")
        if pay and (from_stash or cost is not None or kind is not None or two_slots is not None):
            raise InvalidRequest("When paying, the fighter's Equipment List sets the item and "
                                 "its price; leave out cost, kind, two_slots and from_stash.")
        async with call.write(campaign) as s:
            owner, current = await s.own_fighter(fighter, gang)
            result: RuleResult
            if pay:
                result = buy_equipment(await s.world(owner), owner.id, s.ruleset, item,
                                       new_id(), current.id)
                await s.apply(result)
            elif from_stash:
                stored = pick_item(owner.stash, item, f"{possessive(owner.name)} Stash")
                result = give_item(await s.world(owner), owner.id, stored.id, current.id,
                                   s.ruleset)
                await s.apply(result)
            else:
                entry, source = catalogue_entry(s.ruleset, owner, current, item)
                gear = typed_item(new_id(), item, entry, cost, kind, two_slots)
                check_can_be_equipped(owner, current)
                check_weapon_slots(current, gear)
                current = current.model_copy(deep=True)
                current.equipment.append(gear)
                await s.update_fighter(owner, current)
        if pay or from_stash:
            slots = result.world.gang(owner.id).fighter(current.id).weapon_slots
            await call.answer_result(result, f"Weapon slots: {slots} of {MAX_WEAPON_SLOTS}.")
            return
        price = "price given" if cost is not None else f"{source} price"
        await call.answer(f"{safe(current.name)} is equipped", [
            f"➕ {safe(gear.name)} ({gear.kind.value}, {gear.cost} credits, {price}).",
            f"Weapon slots: {current.weapon_slots} of {MAX_WEAPON_SLOTS}; "
            f"{safe(current.name)} is now worth {current.total_cost} credits.",
            "Written onto the roster: no credits were charged.",
        ])

    @slash("unequip", "Put an item a fighter carries in the Stash",
           fighter="the fighter who gives the item back", item="the item to return to the Stash")
    async def unequip(
        self,
        call: Call,
        fighter: FighterName,
        item: CarriedItem,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        def give_back(s: Scope, world: World, owner: Gang, current: Fighter) -> RuleResult:
            carried = pick_item(current.equipment, item, current.name)
            return take_item(world, owner.id, carried.id, current.id, s.ruleset)

        await _fighter_rule(call, fighter, gang, campaign, give_back)

    @slash("status", "Set a fighter's status",
           status="the new status (Retired does what /fighter retire does)",
           captor="for Captured: the gang holding the fighter")
    @app_commands.choices(status=STATUS_CHOICES)
    async def status(
        self,
        call: Call,
        fighter: FighterName,
        status: str,
        captor: GangName | None = None,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        new_status = FighterStatus(status)
        if new_status is FighterStatus.CAPTURED and not captor:
            raise InvalidRequest("A Captured fighter is held by someone: give the captor gang.")
        if new_status is not FighterStatus.CAPTURED and captor:
            raise InvalidRequest("Only a Captured fighter has a captor; leave captor out.")
        if new_status is FighterStatus.RETIRED:
            await _retire(call, fighter, gang, campaign)
            return
        async with call.write(campaign) as s:
            owner, stored = await s.own_fighter(fighter, gang)
            # A copy: ``owner`` stays as it was, for the before → after lines.
            current = stored.model_copy(deep=True)
            if captor is not None:
                holder = await s.gang(captor)
                if holder.id == owner.id:
                    raise InvalidRequest(f"{current.name} cannot be a captive of their own gang.")
                if current.captured_by == holder.id:
                    raise InvalidRequest(f"{current.name} is already held by {holder.name}.")
                current.capture(holder.id)
            else:
                if current.status is new_status:
                    raise InvalidRequest(f"{current.name} is already {new_status.value}.")
                current.set_status(new_status)
            await s.update_fighter(owner, current)
            after = await s.tx.get_gang(s.campaign.id, owner.id)
        lines = gang_change_lines(owner, after)
        if new_status is FighterStatus.DEAD:
            lines.append("Clean House removes the dead from the roster in the post-battle "
                         "sequence; their gear stays with them until then.")
        await call.answer(f"{safe(current.name)} is now {new_status.value}", lines)

    @slash("retire", "Retire a fighter: its gear goes to the Stash",
           fighter="the fighter who retires")
    async def retire_command(
        self,
        call: Call,
        fighter: FighterName,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        await _retire(call, fighter, gang, campaign)

    @slash("show", "Show a fighter's card", fighter="the fighter to show")
    async def show(
        self,
        call: Call,
        fighter: FighterName,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.read(campaign) as s:
            owner, current = await s.fighter(fighter, gang)
            captor = None
            if current.captured_by is not None:
                captor = next((g.name for g in await s.gangs() if g.id == current.captured_by),
                              None)
            known = known_lines(s.ruleset, owner)
        await call.answer_embeds([fighter_embed(owner, current, captor, known)])


async def _retire(call: Call, fighter: str, gang: str | None, campaign: str | None) -> None:
    await _fighter_rule(call, fighter, gang, campaign,
                        lambda _s, world, owner, current: retire(world, owner.id, current.id))


async def _fighter_rule(
    call: Call, fighter: str, gang: str | None, campaign: str | None,
    rule: Callable[[Scope, World, Gang, Fighter], RuleResult],
) -> None:
    """A rules function on a fighter the actor may change: stored, then answered."""
    async with call.write(campaign) as s:
        owner, current = await s.own_fighter(fighter, gang)
        result = rule(s, await s.world(owner), owner, current)
        await s.apply(result)
    await call.answer_result(result)


def _check_stat(stat: str, value: int) -> None:
    """Refuse a characteristic outside the model's bounds, naming them and the "+" reading."""
    low, high = stat_bounds(stat)
    label = STAT_LABELS[stat]
    plus = f" (a target number: {low} means {low}+)" if stat in TARGET_STATS else ""
    bounded(value, low, high, f"{label}{plus}")


setup = adds(FighterCog)
