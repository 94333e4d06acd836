"""/fighter: add, edit, equip, unequip, status, retire and show fighters on a roster.

Every change is made by the gang's owner or an Arbitrator; anyone may look.
A change that a rules function covers (equipping from the Stash, returning
gear, retiring, hiring with ``pay``) runs that function on the world loaded
in the same write transaction and stores its result, so the ledger gets its
notes and changes; plain roster edits go through the storage roster methods,
which write the ledger too. Decisions where the issue is silent are listed
in docs/commands-roster.md.

The first section holds the lookups and checks that /vehicle, /stash and
/ledger share with this cog.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, choose, fighter_names, fighter_types, gang_names
from bot.context import actor_of, guild_id_of, require_gang_control, storage_of
from bot.errors import Refused
from bot.render import result_lines, safe
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Storage, StorageError, Transaction, new_id
from bot.ui import checked, clean_name, fit_lines, send_embeds
from bot.ui.ledger import gang_change_lines, send_lines
from rules.cleanhouse import retire
from rules.distribute import give_item, take_item
from rules.errors import InvalidRequest, NotFound, RulesError
from rules.models import (
    PROFILE_STATS,
    TARGET_STATS,
    Equipment,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Item,
    Profile,
)
from rules.names import same_name
from rules.ruleset import FighterTemplate, RuleSet
from rules.tradingpost import (
    HANGER_ON_CATEGORIES,
    MAX_WEAPON_SLOTS,
    check_can_be_equipped,
    check_weapon_slots,
    hire_fighter,
    own_list_entry,
    recruit_hanger_on,
    trading_post_entry,
)
from rules.wording import possessive
from rules.world import RuleResult, World

if TYPE_CHECKING:
    from bot.app import MundaBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["MundaBot"]
Name = app_commands.Range[str, 1, 100]
Choices = list[app_commands.Choice[str]]

MAX_CREDITS = 1_000_000
MAX_XP = 10_000
# Embed field values may hold 1024 characters; lists stop short of that so a
# fighter with every list full still fits in one embed (6000 in all).
FIELD_CHARS = 900
ItemKind = Literal["weapon", "wargear", "armour"]
# Choices show the values ("In Recovery"), not the enum names discord.py would use.
CATEGORY_CHOICES = [app_commands.Choice(name=c.value, value=c.value) for c in FighterCategory]
STAT_LABELS = {
    "m": "M", "ws": "WS", "bs": "BS", "s": "S", "t": "T", "w": "W", "i": "I", "a": "A",
    "ld": "Ld", "cl": "Cl", "wil": "Wil", "int": "Int",
}
STATUS_CHOICES = [app_commands.Choice(name=s.value, value=s.value) for s in FighterStatus]


# =========================================================================== shared lookups


class Lookups(Protocol):
    """The reads a command needs; a :class:`Transaction` is one, :class:`GuildReads` another."""

    async def get_campaign_by_name(self, name: str) -> Campaign: ...
    async def get_default_campaign(self) -> Campaign: ...
    async def get_gang_by_name(self, campaign_id: str, name: str) -> Gang: ...
    async def find_fighter(self, campaign_id: str, name: str) -> tuple[Gang, Fighter]: ...
    async def list_gangs(self, campaign_id: str, *, owner: str | None = None) -> list[Gang]: ...


class GuildReads:
    """Storage reads bound to one server, shaped like a Transaction's.

    Looking needs no write lock: each read runs in its own read transaction.
    """

    def __init__(self, storage: Storage, guild_id: int) -> None:
        self._storage = storage
        self._guild_id = guild_id

    @classmethod
    def of(cls, interaction: Interaction) -> GuildReads:
        return cls(storage_of(interaction), guild_id_of(interaction))

    async def get_campaign_by_name(self, name: str) -> Campaign:
        return await self._storage.get_campaign_by_name(self._guild_id, name)

    async def get_default_campaign(self) -> Campaign:
        return await self._storage.get_default_campaign(self._guild_id)

    async def get_gang_by_name(self, campaign_id: str, name: str) -> Gang:
        return await self._storage.get_gang_by_name(self._guild_id, campaign_id, name)

    async def find_fighter(self, campaign_id: str, name: str) -> tuple[Gang, Fighter]:
        return await self._storage.find_fighter(self._guild_id, campaign_id, name)

    async def list_gangs(self, campaign_id: str, *, owner: str | None = None) -> list[Gang]:
        return await self._storage.list_gangs(self._guild_id, campaign_id, owner=owner)


async def campaign_in(source: Lookups, name: str | None) -> Campaign:
    """The named campaign, or the server's default one."""
    if name and name.strip():
        return await source.get_campaign_by_name(name)
    return await source.get_default_campaign()


async def fighter_in(
    source: Lookups, campaign: Campaign, fighter_name: str, gang_name: str | None
) -> tuple[Gang, Fighter]:
    """A fighter by name, in the named gang or anywhere in the campaign (names are unique)."""
    if gang_name:
        gang = await source.get_gang_by_name(campaign.id, gang_name)
        return gang, pick_fighter(gang, fighter_name)
    return await source.find_fighter(campaign.id, fighter_name)


def pick_fighter(gang: Gang, name: str) -> Fighter:
    for fighter in gang.fighters:
        if same_name(fighter.name, name):
            return fighter
    raise NotFound(f"{gang.name} has no fighter called '{name}'.")


def pick_item(items: Iterable[Item], name: str, where: str) -> Item:
    for item in items:
        if same_name(item.name, name):
            return item
    raise NotFound(f"{where} holds no item called '{name}'.")


def bounded(value: int | None, low: int, high: int, what: str) -> int | None:
    """Refuse a number outside ``low..high`` with a message naming both bounds."""
    if value is not None and not low <= value <= high:
        raise InvalidRequest(f"{what} must be between {low:,} and {high:,}; you gave {value:,}.")
    return value


def catalogue_entry(
    ruleset: RuleSet, gang: Gang, fighter: Fighter | None, name: str
) -> tuple[Equipment | None, str]:
    """The item as the fighter's own Equipment List or the Trading Post knows it."""
    if fighter is not None:
        own = own_list_entry(ruleset, gang, fighter, name)
        if own is not None:
            return own, "Equipment List"
    listed = trading_post_entry(ruleset, name)
    return (listed, "Trading Post") if listed is not None else (None, "given")


def new_item(
    name: str,
    entry: Equipment | None,
    cost: int | None,
    kind: str | None,
    two_slots: bool | None,
) -> Item:
    """An item to write onto a roster: the catalogue's facts, the player's price if given."""
    clean = clean_name(name, "item name")
    bounded(cost, 0, MAX_CREDITS, "An item's cost")
    if entry is None:
        if cost is None:
            raise InvalidRequest(
                f"{clean} is not in the Trading Post or an Equipment List of this rule set; "
                "give its cost."
            )
        return checked(
            lambda: Item(
                id=new_id(), name=clean, cost=cost, kind=EquipmentKind(kind or "wargear"),
                two_slots=bool(two_slots),
            ),
            "item",
        )
    if kind is not None and kind != entry.kind.value:
        raise InvalidRequest(f"{entry.name} is listed as {entry.kind.value}, not {kind}.")
    if two_slots is not None and two_slots != entry.two_slots:
        slots = "takes two weapon slots" if entry.two_slots else "takes one weapon slot"
        raise InvalidRequest(f"{entry.name} {slots} in this rule set.")
    data = entry.model_dump()
    data["cost"] = entry.cost if cost is None else cost
    return checked(lambda: Item(id=new_id(), **data), "item")


async def apply_result(
    tx: Transaction, campaign: Campaign, result: RuleResult, interaction: Interaction
) -> None:
    await tx.apply(campaign.id, result, actor=actor_of(interaction))


async def answer_result(interaction: Interaction, result: RuleResult, extra: str = "") -> None:
    lines = result_lines(result) + ([extra] if extra else [])
    await send_lines(interaction, safe(result.title, 200), lines)


# --------------------------------------------------------------------------- autocomplete


async def suggest(
    interaction: Interaction, current: str, names: Callable[[Campaign, list[Gang]], Iterable[str]]
) -> Choices:
    """Names from the campaign (namespace ``campaign`` or default) and its gangs.

    Autocomplete must never fail loudly: a refusal or a storage problem gives
    no suggestions.
    """
    try:
        source = GuildReads.of(interaction)
        campaign = await campaign_in(source, getattr(interaction.namespace, "campaign", None))
        gangs = await source.list_gangs(campaign.id)
        return choose(names(campaign, gangs), current)
    except (RulesError, Refused, StorageError):
        return []
    except Exception:
        log.exception("autocomplete failed")
        return []


def chosen_gangs(interaction: Interaction, gangs: list[Gang]) -> list[Gang]:
    """The gang named in the ``gang`` option, else all of them."""
    name = getattr(interaction.namespace, "gang", None)
    if isinstance(name, str) and name.strip():
        picked = [g for g in gangs if same_name(g.name, name)]
        if picked:
            return picked
    return gangs


def chosen_fighters(interaction: Interaction, gangs: list[Gang]) -> list[tuple[Gang, Fighter]]:
    """The fighter named in the ``fighter`` option (within the chosen gang), if any."""
    name = getattr(interaction.namespace, "fighter", None)
    if not isinstance(name, str) or not name.strip():
        return []
    return [(g, f) for g in chosen_gangs(interaction, gangs) for f in g.fighters
            if same_name(f.name, name)]


async def carried_items(interaction: Interaction, current: str) -> Choices:
    def names(_campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        return (i.name for _g, f in chosen_fighters(interaction, gangs) for i in f.equipment)

    return await suggest(interaction, current, names)


async def equippable_items(interaction: Interaction, current: str) -> Choices:
    """Stash items of the gang first, then the fighter's own list and the Trading Post."""

    def names(campaign: Campaign, gangs: list[Gang]) -> Iterable[str]:
        ruleset = ruleset_for(campaign)
        found = chosen_fighters(interaction, gangs)
        owners = [g for g, _f in found] or chosen_gangs(interaction, gangs)
        stash = [i.name for g in owners for i in g.stash]
        own = [e.name for g, f in found if (t := house_template(ruleset, g, f.fighter_type))
               for e in t.equipment_list]
        if getattr(interaction.namespace, "from_stash", False) is True:
            return stash
        return [*stash, *own, *(e.name for e in ruleset.trading_post)]

    return await suggest(interaction, current, names)


def house_template(ruleset: RuleSet, gang: Gang, fighter_type: str) -> FighterTemplate | None:
    """The House List entry for ``fighter_type``; None if the list or the type is unknown."""
    if not fighter_type:
        return None
    for house in ruleset.houses:
        if same_name(house.house, gang.house):
            return next((t for t in house.fighters if same_name(t.fighter_type, fighter_type)),
                        None)
    return None


# =========================================================================== rendering


def profile_block(profile: Profile) -> str:
    """The profile as a monospace table (no user text inside, so nothing to escape)."""
    heads, values = [], []
    for stat in PROFILE_STATS:
        value = profile.get(stat)
        shown = f'{value}"' if stat == "m" else f"{value}+" if stat in TARGET_STATS else str(value)
        label = STAT_LABELS[stat]
        width = max(len(label), len(shown))
        heads.append(label.ljust(width))
        values.append(shown.ljust(width))
    return f"```\n{' '.join(heads).rstrip()}\n{' '.join(values).rstrip()}\n```"


def item_line(item: Item) -> str:
    slots = " (two weapon slots)" if item.weapon_slots == 2 else ""
    return f"{safe(item.name)} · {item.kind.value}{slots} · {item.cost} credits"


def fighter_embed(gang: Gang, fighter: Fighter, captor: str | None = None) -> discord.Embed:
    kind = safe(fighter.fighter_type) or "no type"
    status = fighter.status.value
    if fighter.status is FighterStatus.CAPTURED:
        status += f" by {safe(captor or fighter.captured_by or 'another gang')}"
    embed = discord.Embed(
        title=safe(fighter.name),
        description=f"{kind} · {fighter.category.value} of **{safe(gang.name)}** · {status}",
    )
    embed.add_field(name="Profile", value=profile_block(fighter.profile), inline=False)
    embed.add_field(name="Cost", value=f"{fighter.cost} ({fighter.total_cost} with gear)")
    embed.add_field(name="XP", value=f"{fighter.xp} · {fighter.kills} kills")
    embed.add_field(name="Weapon slots", value=f"{fighter.weapon_slots} of {MAX_WEAPON_SLOTS}")
    lists = [
        ("Equipment", [item_line(i) for i in fighter.equipment]),
        ("Skills", [safe(s) for s in fighter.skills]),
        ("Special rules", [safe(s) for s in fighter.special_rules]),
        ("Lasting injuries", [safe(s) for s in fighter.lasting_injuries]),
        ("Advancements", [f"{safe(a.name)} ({a.xp_cost} XP, +{a.credits})"
                          for a in fighter.advancements]),
    ]
    for name, lines in lists:
        if lines or name == "Equipment":
            embed.add_field(name=name, value=fit_lines(lines, FIELD_CHARS), inline=False)
    if fighter.gang_hierarchy:
        embed.set_footer(text="Gang Hierarchy")
    return embed


# =========================================================================== the cog


class FighterCog(commands.GroupCog, group_name="fighter",
                 group_description="Fighters on a gang's roster"):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    # ------------------------------------------------------------------ add

    @app_commands.command(name="add", description="Add a fighter: a House List type or by hand")
    @app_commands.describe(
        gang="the gang the fighter joins",
        name="the fighter's name",
        fighter_type="a type from the gang's House List (sets category, cost and rules)",
        category="by hand: the fighter's category",
        cost="by hand: credits value without equipment (overrides the House List)",
        pay="charge the House List founding cost from the Stash (default: no)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(gang=gang_names, fighter_type=fighter_types,
                               campaign=campaign_names)
    @app_commands.choices(category=CATEGORY_CHOICES)
    async def add(
        self,
        interaction: Interaction,
        gang: Name,
        name: Name,
        fighter_type: Name | None = None,
        category: str | None = None,
        cost: int | None = None,
        pay: bool = False,
        campaign: Name | None = None,
    ) -> None:
        fighter_name = clean_name(name, "fighter's name")
        bounded(cost, 0, MAX_CREDITS, "A fighter's cost")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            target = await tx.get_gang_by_name(found.id, gang)
            require_gang_control(found, target, interaction)
            ruleset = ruleset_for(found)
            template = house_template(ruleset, target, fighter_type or "")
            chosen = FighterCategory(category) if category else None
            if pay:
                world = await tx.load_world(found.id, [target.id])
                result = _hire(world, target, ruleset, template, fighter_name, chosen, cost)
                await apply_result(tx, found, result, interaction)
            else:
                fighter = _by_hand(target, template, fighter_type, fighter_name, chosen, cost)
                await tx.add_fighter(found.id, target.id, fighter, actor=actor_of(interaction))
        if pay:
            await answer_result(interaction, result)
            return
        kind = f"{safe(fighter.fighter_type)}, " if fighter.fighter_type else ""
        await send_lines(interaction, f"{safe(fighter.name)} joins {safe(target.name)}", [
            f"➕ {kind}{fighter.category.value}, {fighter.cost} credits.",
            "Roster keeping: no credits were charged (`pay:True` hires from the Stash).",
        ])

    # ------------------------------------------------------------------ edit

    @app_commands.command(name="edit", description="Change a fighter's name, cost, XP or profile")
    @app_commands.describe(
        fighter="the fighter to change",
        gang="the fighter's gang (default: found by name)",
        name="a new name",
        cost="credits value without equipment",
        xp="experience points",
        m="Movement in inches",
        ws="Weapon Skill as the target number (4 for 4+)",
        bs="Ballistic Skill as the target number (4 for 4+)",
        s="Strength", t="Toughness", w="Wounds",
        i="Initiative as the target number (4 for 4+)",
        a="Attacks",
        ld="Leadership as the target number (7 for 7+)",
        cl="Cool as the target number (7 for 7+)",
        wil="Willpower as the target number (7 for 7+)",
        int_="Intelligence as the target number (7 for 7+)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.rename(int_="int")
    @app_commands.autocomplete(fighter=fighter_names, gang=gang_names, campaign=campaign_names)
    async def edit(
        self,
        interaction: Interaction,
        fighter: Name,
        gang: Name | None = None,
        name: Name | None = None,
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
        campaign: Name | None = None,
    ) -> None:
        stats = {"m": m, "ws": ws, "bs": bs, "s": s, "t": t, "w": w, "i": i, "a": a,
                 "ld": ld, "cl": cl, "wil": wil, "int": int_}
        profile = {stat: value for stat, value in stats.items() if value is not None}
        for stat, value in profile.items():
            _check_stat(stat, value)
        bounded(cost, 0, MAX_CREDITS, "A fighter's cost")
        bounded(xp, 0, MAX_XP, "XP")
        if name is None and cost is None and xp is None and not profile:
            raise InvalidRequest("Give at least one thing to change: name, cost, xp or a "
                                 "characteristic.")
        new_name = clean_name(name, "fighter's name") if name is not None else None
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            owner, current = await fighter_in(tx, found, fighter, gang)
            require_gang_control(found, owner, interaction)
            data = current.model_dump(by_alias=True)
            data["profile"].update(profile)
            updates = {"name": new_name, "cost": cost, "xp": xp}
            data.update({key: value for key, value in updates.items() if value is not None})
            edited = checked(lambda: Fighter.model_validate(data), "fighter")
            await tx.update_fighter(found.id, owner.id, edited, actor=actor_of(interaction))
            after = await tx.get_gang(found.id, owner.id)
        await send_lines(interaction, f"{safe(edited.name)} ({safe(owner.name)}) edited",
                         gang_change_lines(owner, after))

    # ------------------------------------------------------------------ equip / unequip

    @app_commands.command(name="equip", description="Give a fighter an item, new or from the Stash")
    @app_commands.describe(
        fighter="the fighter who takes the item",
        item="the item's name",
        cost="a new item's value (default: its Equipment List or Trading Post price)",
        kind="a new item's kind (default: as the catalogue says, else wargear)",
        two_slots="a new weapon marked * that takes two of the three weapon slots",
        from_stash="take the item from the gang's Stash instead of writing a new one",
        gang="the fighter's gang (default: found by name)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(fighter=fighter_names, item=equippable_items, gang=gang_names,
                               campaign=campaign_names)
    async def equip(
        self,
        interaction: Interaction,
        fighter: Name,
        item: Name,
        cost: int | None = None,
        kind: ItemKind | None = None,
        two_slots: bool | None = None,
        from_stash: bool = False,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        if from_stash and (cost is not None or kind is not None or two_slots is not None):
            raise InvalidRequest("An item from the Stash keeps what it is; leave out cost, kind "
                                 "and two_slots (its price is the fighter's list price).")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            owner, current = await fighter_in(tx, found, fighter, gang)
            require_gang_control(found, owner, interaction)
            ruleset = ruleset_for(found)
            result: RuleResult | None = None
            if from_stash:
                stored = pick_item(owner.stash, item, f"{possessive(owner.name)} Stash")
                world = await tx.load_world(found.id, [owner.id])
                result = give_item(world, owner.id, stored.id, current.id, ruleset)
                await apply_result(tx, found, result, interaction)
            else:
                entry, source = catalogue_entry(ruleset, owner, current, item)
                gear = new_item(item, entry, cost, kind, two_slots)
                check_can_be_equipped(owner, current)
                check_weapon_slots(current, gear)
                current = current.model_copy(deep=True)
                current.equipment.append(gear)
                await tx.update_fighter(found.id, owner.id, current, actor=actor_of(interaction))
        if result is not None:
            slots = result.world.gang(owner.id).fighter(current.id).weapon_slots
            await answer_result(interaction, result,
                                f"Weapon slots: {slots} of {MAX_WEAPON_SLOTS}.")
            return
        price = "price given" if cost is not None else f"{source} price"
        await send_lines(interaction, f"{safe(current.name)} is equipped", [
            f"➕ {safe(gear.name)} ({gear.kind.value}, {gear.cost} credits, {price}).",
            f"Weapon slots: {current.weapon_slots} of {MAX_WEAPON_SLOTS}; "
            f"{safe(current.name)} is now worth {current.total_cost} credits.",
            "Written onto the roster: no credits were charged.",
        ])

    @app_commands.command(name="unequip", description="Put an item a fighter carries in the Stash")
    @app_commands.describe(
        fighter="the fighter who gives the item back",
        item="the item to return to the Stash",
        gang="the fighter's gang (default: found by name)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(fighter=fighter_names, item=carried_items, gang=gang_names,
                               campaign=campaign_names)
    async def unequip(
        self,
        interaction: Interaction,
        fighter: Name,
        item: Name,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            owner, current = await fighter_in(tx, found, fighter, gang)
            require_gang_control(found, owner, interaction)
            carried = pick_item(current.equipment, item, current.name)
            world = await tx.load_world(found.id, [owner.id])
            result = take_item(world, owner.id, carried.id, current.id, ruleset_for(found))
            await apply_result(tx, found, result, interaction)
        await answer_result(interaction, result)

    # ------------------------------------------------------------------ status / retire

    @app_commands.command(name="status", description="Set a fighter's status")
    @app_commands.describe(
        fighter="the fighter",
        status="the new status (Retired does what /fighter retire does)",
        captor="for Captured: the gang holding the fighter",
        gang="the fighter's gang (default: found by name)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(fighter=fighter_names, captor=gang_names, gang=gang_names,
                               campaign=campaign_names)
    @app_commands.choices(status=STATUS_CHOICES)
    async def status(
        self,
        interaction: Interaction,
        fighter: Name,
        status: str,
        captor: Name | None = None,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        await self._set_status(interaction, fighter, FighterStatus(status), captor, gang, campaign)

    async def _set_status(
        self,
        interaction: Interaction,
        fighter: str,
        status: FighterStatus,
        captor: str | None,
        gang: str | None,
        campaign: str | None,
    ) -> None:
        if status is FighterStatus.CAPTURED and not captor:
            raise InvalidRequest("A Captured fighter is held by someone: give the captor gang.")
        if status is not FighterStatus.CAPTURED and captor:
            raise InvalidRequest("Only a Captured fighter has a captor; leave captor out.")
        if status is FighterStatus.RETIRED:
            await self._retire(interaction, fighter, gang, campaign)
            return
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            owner, stored = await fighter_in(tx, found, fighter, gang)
            require_gang_control(found, owner, interaction)
            # A copy: ``owner`` stays as it was, for the before → after lines.
            current = stored.model_copy(deep=True)
            if status is FighterStatus.CAPTURED:
                assert captor is not None
                holder = await tx.get_gang_by_name(found.id, captor)
                if holder.id == owner.id:
                    raise InvalidRequest(f"{current.name} cannot be a captive of their own gang.")
                if current.captured_by == holder.id:
                    raise InvalidRequest(f"{current.name} is already held by {holder.name}.")
                current.capture(holder.id)
            else:
                if current.status is status:
                    raise InvalidRequest(f"{current.name} is already {status.value}.")
                current.set_status(status)
            await tx.update_fighter(found.id, owner.id, current, actor=actor_of(interaction))
            after = await tx.get_gang(found.id, owner.id)
        lines = gang_change_lines(owner, after)
        if status is FighterStatus.DEAD:
            lines.append("Clean House removes the dead from the roster in the post-battle "
                         "sequence; their gear stays with them until then.")
        await send_lines(interaction, f"{safe(current.name)} is now {status.value}", lines)

    @app_commands.command(name="retire", description="Retire a fighter: its gear goes to the Stash")
    @app_commands.describe(
        fighter="the fighter who retires",
        gang="the fighter's gang (default: found by name)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(fighter=fighter_names, gang=gang_names, campaign=campaign_names)
    async def retire_command(
        self,
        interaction: Interaction,
        fighter: Name,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        await self._retire(interaction, fighter, gang, campaign)

    async def _retire(
        self, interaction: Interaction, fighter: str, gang: str | None, campaign: str | None
    ) -> None:
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            owner, current = await fighter_in(tx, found, fighter, gang)
            require_gang_control(found, owner, interaction)
            world = await tx.load_world(found.id, [owner.id])
            result = retire(world, owner.id, current.id)
            await apply_result(tx, found, result, interaction)
        await answer_result(interaction, result)

    # ------------------------------------------------------------------ show

    @app_commands.command(name="show", description="Show a fighter's card")
    @app_commands.describe(
        fighter="the fighter to show",
        gang="the fighter's gang (default: found by name)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(fighter=fighter_names, gang=gang_names, campaign=campaign_names)
    async def show(
        self,
        interaction: Interaction,
        fighter: Name,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        source = GuildReads.of(interaction)
        found = await campaign_in(source, campaign)
        owner, current = await fighter_in(source, found, fighter, gang)
        captor = None
        if current.captured_by is not None:
            captor = next((g.name for g in await source.list_gangs(found.id)
                           if g.id == current.captured_by), None)
        await send_embeds(interaction, [fighter_embed(owner, current, captor)])


def _by_hand(
    gang: Gang,
    template: FighterTemplate | None,
    fighter_type: str | None,
    name: str,
    category: FighterCategory | None,
    cost: int | None,
) -> Fighter:
    """A fighter written onto the roster: the House List's facts, the player's overrides."""
    if template is None and (category is None or cost is None):
        if fighter_type:
            raise InvalidRequest(
                f"'{fighter_type}' is not in the {gang.house} House List: pick a type from it, "
                "or give a category and a cost by hand."
            )
        raise InvalidRequest(
            f"Give a fighter_type from the {gang.house} House List, or a category and a cost."
        )
    if template is None:
        kind = clean_name(fighter_type, "fighter type") if fighter_type else ""
        return checked(lambda: Fighter(id=new_id(), name=name, category=category,
                                       fighter_type=kind, cost=cost), "fighter")
    return checked(
        lambda: Fighter(
            id=new_id(), name=name, category=category or template.category,
            fighter_type=template.fighter_type,
            cost=template.cost if cost is None else cost,
            gang_hierarchy=template.gang_hierarchy,
            special_rules=list(template.special_rules),
        ),
        "fighter",
    )


def _hire(
    world: World,
    gang: Gang,
    ruleset: RuleSet,
    template: FighterTemplate | None,
    name: str,
    category: FighterCategory | None,
    cost: int | None,
) -> RuleResult:
    """Hire (or recruit a Hanger-on) at founding cost, through the Trading Post rules."""
    if template is None:
        raise InvalidRequest(
            f"Paying needs a fighter type from the {gang.house} House List, whose founding "
            "cost is charged."
        )
    if category is not None or cost is not None:
        raise InvalidRequest("When paying, the House List sets the category and cost; "
                             "leave them out.")
    hire = recruit_hanger_on if template.category in HANGER_ON_CATEGORIES else hire_fighter
    return hire(world, gang.id, ruleset, template.fighter_type, name, new_id())


def _check_stat(stat: str, value: int) -> None:
    """Refuse a characteristic outside the model's bounds, naming them and the "+" reading."""
    field = Profile.model_fields["int_" if stat == "int" else stat]
    low, high = 0, 20
    for meta in field.metadata:
        low = getattr(meta, "ge", low)
        high = getattr(meta, "le", high)
    label = STAT_LABELS[stat]
    plus = f" (a target number: {low} means {low}+)" if stat in TARGET_STATS else ""
    bounded(value, low, high, f"{label}{plus}")


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(FighterCog(bot))
