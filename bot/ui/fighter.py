"""A fighter as players read it: the profile table, item lines and the fighter's card."""

from __future__ import annotations

import discord

from bot.render import safe
from bot.ui import fit_lines
from bot.weapon_rows import KnownLines, weapon_profiles
from bot.weapon_rows import weapon_rows as sheet_rows
from rules.models import (
    PROFILE_STATS,
    EquipmentKind,
    Fighter,
    FighterStatus,
    Gang,
    Item,
    Profile,
)
from rules.profiles import LABELS as STAT_LABELS
from rules.profiles import stat_text
from rules.tradingpost import MAX_WEAPON_SLOTS

# Embed field values may hold 1024 characters; lists stop short of that so a
# fighter with every list full still fits in one embed (6000 in all).
FIELD_CHARS = 900


def profile_block(profile: Profile | None) -> str:
    """The profile as a monospace table (no user text inside, so nothing to escape)."""
    if profile is None:
        # No example line here: one could be taken for this fighter's figures.
        return "Profile not set: paste the fighter's own from its roster with /fighter edit."
    heads, values = [], []
    for stat in PROFILE_STATS:
        shown = stat_text(stat, profile.get(stat))
        label = STAT_LABELS[stat]
        width = max(len(label), len(shown))
        heads.append(label.ljust(width))
        values.append(shown.ljust(width))
    return f"```\n{' '.join(heads).rstrip()}\n{' '.join(values).rstrip()}\n```"


def item_line(item: Item, known: KnownLines | None = None) -> str:
    """The item, then one indented line per weapon profile it has, or the rule data gives
    it (``known``): name, figures, traits."""
    slots = " (two weapon slots)" if item.weapon_slots == 2 else ""
    lines = [f"{safe(item.name)} · {item.kind.value}{slots} · {item.cost} credits"]
    # Only a weapon borrows the rule data's lines; any item shows the lines it carries.
    profiles = (weapon_profiles(item, known or {}) if item.kind is EquipmentKind.WEAPON
                else item.profiles)
    for profile in profiles:
        label = f"{safe(profile.name)}: " if profile.name else ""
        lines.append(f"  ↳ {label}{safe(profile.text)}")
    return "\n".join(lines)


WEAPON_HEADS = ("Weapon", "Rng S/L", "Acc S/L", "S", "AP", "D", "Am", "Traits")


def weapon_rows(items: list[Item], known: KnownLines | None = None) -> list[tuple[str, ...]]:
    """One row per profile line of each weapon, as the official roster sheet prints it: the
    weapon's name on its first line, "- <profile>" on the others; a weapon without a
    profile is one row of blanks."""
    rows: list[tuple[str, ...]] = []
    for row in sheet_rows(items, known):
        if row.profile is None:
            rows.append((row.label, "-", "-", "-", "-", "-", "-", ""))
            continue
        rng_s, rng_l, acc_s, acc_l, *rest = row.figures
        rows.append((row.label, f"{rng_s}/{rng_l}", f"{acc_s}/{acc_l}", *rest, row.traits))
    return rows


def weapon_table(items: list[Item], limit: int = FIELD_CHARS,
                 known: KnownLines | None = None) -> str | None:
    """The weapons as a monospace profile table, or None when it would not fit ``limit``."""
    rows = [WEAPON_HEADS, *weapon_rows(items, known)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(WEAPON_HEADS) - 1)]
    lines = ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)),
                        row[-1]]).rstrip().replace("`", "'") for row in rows]
    text = "```\n" + "\n".join(lines) + "\n```"
    return text if len(text) <= limit else None


def fighter_embed(gang: Gang, fighter: Fighter, captor: str | None = None,
                  known: KnownLines | None = None) -> discord.Embed:
    """The fighter's card; ``known`` gives the rule data's profile lines of its weapons that
    carry none, as the roster card shows them."""
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
    weapons = [i for i in fighter.equipment if i.kind is EquipmentKind.WEAPON]
    table = weapon_table(weapons, known=known) if weapons else None
    if table is not None:
        embed.add_field(name="Weapons", value=table, inline=False)
    shown = [i for i in fighter.equipment if table is None or i not in weapons]
    lists = [
        ("Equipment" if table is None else "Wargear", [item_line(i, known) for i in shown]),
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
