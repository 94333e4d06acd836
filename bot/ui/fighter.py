"""A fighter as players read it: the profile table, item lines and the fighter's card."""

from __future__ import annotations

import discord

from bot.render import safe
from bot.ui import fit_lines
from rules.models import PROFILE_STATS, Fighter, FighterStatus, Gang, Item, Profile
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


def item_line(item: Item) -> str:
    """The item, then one indented line per weapon profile it has (name, figures, traits)."""
    slots = " (two weapon slots)" if item.weapon_slots == 2 else ""
    lines = [f"{safe(item.name)} · {item.kind.value}{slots} · {item.cost} credits"]
    for profile in item.profiles:
        label = f"{safe(profile.name)}: " if profile.name else ""
        lines.append(f"  ↳ {label}{safe(profile.text)}")
    return "\n".join(lines)


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
