"""Roster and standings embeds: pure functions from models to ``discord.Embed`` lists.

No I/O here, so the embeds are unit-testable and every cog (gang, battle,
post-battle) shows a gang the same way. Every user-supplied text goes
through :func:`bot.render.safe`, and every embed stays inside Discord's
limits (title 256, description 4096, 25 fields, field name 256, field value
1024, 6000 characters in all): long rosters continue in further embeds
rather than being cut, and one over-long fighter is clipped, never refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import discord

from bot.render import clip, safe
from bot.ui import (
    DESCRIPTION_CHARS,
    EMBED_CHARS,
    FIELD_MAX,
    FIELD_NAME_CHARS,
    FIELDS_PER_EMBED,
    TITLE_CHARS,
    continued,
    numbered,
)
from rules.models import (
    EquipmentKind,
    Fighter,
    FighterStatus,
    Gang,
    Item,
    Territory,
    Vehicle,
)
from rules.profiles import profile_line as _profile_line
from rules.ruleset import VehicleProfile

# Room kept in each embed for the "page i/n" footer, added once pages are known.
_FOOTER_ROOM = 40

ROSTER_COLOUR = discord.Colour.dark_gold()
STANDINGS_COLOUR = discord.Colour.dark_red()
WEAPON_MARK = "⚔"
STANDINGS_PER_PAGE = 20

# What a roster shows where a fighter's profile would be, when nobody gave it.
PROFILE_NOT_SET = "profile not set"


@dataclass(frozen=True)
class _Field:
    name: str
    value: str
    inline: bool = False

    def __len__(self) -> int:
        return len(self.name) + len(self.value)


def _field(name: str, value: str, inline: bool = False) -> _Field:
    return _Field(clip(name, FIELD_NAME_CHARS), clip(value or "—", FIELD_MAX), inline)


# --------------------------------------------------------------------------- pieces


def profile_line(fighter: Fighter) -> str:
    """``M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+``, or "profile not set"."""
    return PROFILE_NOT_SET if fighter.profile is None else _profile_line(fighter.profile)


def equipment_names(items: Sequence[Item]) -> list[str]:
    """Weapons first, each marked, then the rest; names escaped."""
    weapons = [f"{WEAPON_MARK} {safe(i.name)}" for i in items if i.kind is EquipmentKind.WEAPON]
    return weapons + [safe(i.name) for i in items if i.kind is not EquipmentKind.WEAPON]


def equipment_text(items: Sequence[Item]) -> str:
    return ", ".join(equipment_names(items))


def status_text(fighter: Fighter, captor_names: dict[str, str]) -> str:
    if fighter.status is FighterStatus.CAPTURED:
        captor = captor_names.get(fighter.captured_by or "")
        return f"Captured by {safe(captor)}" if captor else "Captured"
    status = fighter.status.value
    return f"{status}, critical injury" if fighter.critical_injury else status


def fighter_field(fighter: Fighter, captor_names: dict[str, str]) -> _Field:
    kind = fighter.category.value
    if fighter.fighter_type:
        kind = f"{kind}, {safe(fighter.fighter_type)}"
    name = f"{safe(fighter.name)} ({kind})"
    lines = [
        f"{fighter.total_cost} credits · {fighter.xp} XP · {status_text(fighter, captor_names)}",
        f"`{profile_line(fighter)}`",
    ]
    if fighter.equipment:
        lines.append(f"Equipment: {equipment_text(fighter.equipment)}")
    if fighter.lasting_injuries:
        lines.append("Injuries: " + ", ".join(safe(i) for i in fighter.lasting_injuries))
    if fighter.skills:
        lines.append("Skills: " + ", ".join(safe(s) for s in fighter.skills))
    return _field(name, "\n".join(lines))


def vehicle_field(vehicle: Vehicle, *, stashed: bool = False,
                  profile: VehicleProfile | None = None) -> _Field:
    """The vehicle with its type's ``profile`` (the rule data's) where there is one."""
    kind = f", {safe(vehicle.vehicle_type)}" if vehicle.vehicle_type else ""
    where = "In Stash" if stashed else vehicle.status.value
    lines = [f"{vehicle.total_cost} credits · {where}"]
    if profile is not None:
        lines.append(f"`{profile.line}`")
    fitted = [*vehicle.upgrades, *vehicle.equipment]
    if fitted:
        lines.append(f"Equipment: {equipment_text(fitted)}")
    if vehicle.lasting_damage:
        lines.append("Damage: " + ", ".join(safe(d) for d in vehicle.lasting_damage))
    return _field(f"🚗 {safe(vehicle.name)} (Vehicle{kind})", "\n".join(lines))


def _listing(names: Sequence[str], limit: int = FIELD_MAX) -> str:
    """Comma-separated names within ``limit``, ending "and N more" when they do not all fit."""
    text = ", ".join(names)
    if len(text) <= limit:
        return text
    shown: list[str] = []
    for index, name in enumerate(names):
        after = len(names) - index - 1
        if len(", ".join([*shown, name])) + len(f", and {after} more") > limit:
            break
        shown.append(name)
    rest = len(names) - len(shown)
    return f"{', '.join(shown)}, and {rest} more" if shown else f"{rest} entries"


# --------------------------------------------------------------------------- paging


def _pages(
    title: str, description: str, fields: Sequence[_Field], colour: discord.Colour,
    *, fields_per_page: int = FIELDS_PER_EMBED,
) -> list[discord.Embed]:
    """Pack fields into as many embeds as needed; every embed inside every limit."""
    title = clip(title, TITLE_CHARS)
    description = clip(description, DESCRIPTION_CHARS)
    pages: list[list[_Field]] = [[]]
    used = len(title) + len(description) + _FOOTER_ROOM
    for field in fields:
        page = pages[-1]
        if page and (len(page) >= fields_per_page or used + len(field) > EMBED_CHARS):
            pages.append([])
            used = len(continued(title)) + _FOOTER_ROOM
        pages[-1].append(field)
        used += len(field)
    embeds: list[discord.Embed] = []
    for number, page in enumerate(pages, start=1):
        first = number == 1
        embed = discord.Embed(
            title=title if first else continued(title),
            description=description if first else None,
            colour=colour,
        )
        for field in page:
            embed.add_field(name=field.name, value=field.value, inline=field.inline)
        embeds.append(embed)
    return numbered(embeds)


# --------------------------------------------------------------------------- roster


def roster_embeds(
    gang: Gang,
    campaign_name: str,
    captor_names: dict[str, str],
    *,
    territories: Sequence[str] = (),
    captives: Sequence[tuple[str, str]] = (),
    vehicle_profiles: Mapping[str, VehicleProfile] | None = None,
) -> list[discord.Embed]:
    """The gang's roster as one or more embeds, in reading order.

    ``captor_names`` maps gang ids to names for "Captured by X";
    ``territories`` are the names of the Territories it holds; ``captives``
    are (fighter name, their gang's name) pairs this gang holds Captive;
    ``vehicle_profiles`` the rule data's profile of each vehicle type (casefolded).
    """
    profiles = vehicle_profiles or {}
    description = (
        f"House {safe(gang.house)} · {gang.alignment.value} · owner <@{gang.owner}>\n"
        f"Campaign: {safe(campaign_name)}"
    )
    on_roster = [f for f in gang.fighters if f.on_roster]
    fields = [
        _field("Gang Rating", str(gang.rating), inline=True),
        _field("Wealth", str(gang.wealth), inline=True),
        _field("Credits", str(gang.credits), inline=True),
        _field("Reputation", str(gang.reputation), inline=True),
        _field("Battles fought", str(gang.battles_fought), inline=True),
        _field("Fighters", str(len(on_roster)), inline=True),
    ]
    if territories:
        fields.append(_field("Territories", _listing([safe(t) for t in territories])))
    # Dead and Retired fighters stay listed (with their status) until Clean House
    # removes them; the count and the Gang Rating leave them out.
    fields += [fighter_field(f, captor_names) for f in gang.fighters]
    if not gang.fighters:
        fields.append(_field("Roster", "No fighters yet."))
    fields += [vehicle_field(v, profile=profiles.get(v.vehicle_type.casefold()))
               for v in gang.vehicles]
    fields += [vehicle_field(v, stashed=True, profile=profiles.get(v.vehicle_type.casefold()))
               for v in gang.stash_vehicles]
    stash = equipment_names(gang.stash)
    # The Stash's worth counts its vehicles, listed above as stashed: never call it empty.
    nothing = "No items; its vehicles are listed above." if gang.stash_vehicles else "Empty."
    fields.append(_field(
        f"Stash ({gang.stash_value} credits of equipment)", _listing(stash) if stash else nothing
    ))
    if captives:
        held = [f"{safe(name)} of {safe(owner)}" for name, owner in captives]
        fields.append(_field("Captives held", _listing(held)))
    return _pages(safe(gang.name), description, fields, ROSTER_COLOUR)


# --------------------------------------------------------------------------- standings


def standings_embeds(
    campaign_name: str,
    gangs: Sequence[Gang],
    territories: Sequence[Territory] = (),
    *,
    per_page: int = STANDINGS_PER_PAGE,
) -> list[discord.Embed]:
    """The campaign's gangs by Gang Rating (highest first), paged by ``per_page``."""
    held = Counter(t.controller for t in territories if t.controller)
    ranked = sorted(gangs, key=lambda g: (-g.rating, g.name.casefold()))
    fields = []
    for rank, gang in enumerate(ranked, start=1):
        count = held.get(gang.id, 0)
        value = (
            f"owner <@{gang.owner}> · House {safe(gang.house)}\n"
            f"Rating **{gang.rating}** · Wealth {gang.wealth} · Reputation {gang.reputation}"
            f" · {gang.credits} credits\n"
            f"{count} {'territory' if count == 1 else 'territories'} · "
            f"{gang.battles_fought} {'battle' if gang.battles_fought == 1 else 'battles'} fought"
        )
        fields.append(_field(f"{rank}. {safe(gang.name)}", value))
    description = "" if ranked else "No gangs yet: players join with /gang create."
    title = f"{safe(campaign_name)}: standings"
    return _pages(title, description, fields, STANDINGS_COLOUR, fields_per_page=per_page)


def standings_embed(
    campaign_name: str, gangs: Sequence[Gang], territories: Sequence[Territory] = ()
) -> discord.Embed:
    """The first page of :func:`standings_embeds` (the top gangs), for a single post."""
    return standings_embeds(campaign_name, gangs, territories)[0]
