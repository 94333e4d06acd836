"""The pre-battle sequence as one embed: order, Underdog, scenario, battlefield, every roll.

Discord takes at most 6000 characters in one message's embeds; however long
the gangs' names, the embed is kept within them (:func:`within_limits`).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.render import roll_line, safe
from bot.ui import EMBED_CHARS, TITLE_CHARS, fit_lines
from rules.models import Battle, Gang
from rules.prebattle import BattlefieldMethod, PreBattleResult, TieBreak


def prebattle_embed(
    result: PreBattleResult, gangs: dict[str, Gang], battle: Battle, closed: Sequence[str],
    *, stake: str | None = None,
) -> discord.Embed:
    """Everything the pre-battle sequence decided, in one embed (under 6000 characters);
    ``stake``: the Territory at stake (a scheduled battle's)."""
    names = [safe(gangs[gang_id].name, 60) for gang_id in battle.gang_ids]
    title = f"Pre-battle: {' vs '.join(names)}"
    scenario = result.scenario
    if scenario.rescue is not None:
        rescue = scenario.rescue
        captive = gangs[rescue.owner_gang_id].fighter(rescue.captive_fighter_id)
        scenario_text = (
            f"**{RESCUE_TEXT}**: {safe(gangs[rescue.owner_gang_id].name)} comes for "
            f"{safe(captive.name)}, held by {safe(gangs[rescue.captor_gang_id].name)}. "
            "It replaces the scenario roll."
        )
    else:
        die = scenario.die.value if scenario.die else "die"
        faces = ", ".join(str(r.total) for r in scenario.rolls)
        again = " (rolled again until a scenario fit)" if len(scenario.rolls) > 1 else ""
        scenario_text = (
            f"**{safe(scenario.name)}**: rolled on a **{die}** (the campaign's scenario die) "
            f"→ {faces}{again}."
        )
    embed = discord.Embed(
        title=title[:TITLE_CHARS], description=scenario_text, colour=discord.Colour.dark_red()
    )
    order = [
        f"{place.position}. **{safe(place.gang_name)}**: {safe(place.reason, 300)}"
        + (" · **Underdog**" if place.underdog else "")
        for place in result.order
    ]
    embed.add_field(name="Order by Gang Rating", value=fit_lines(order),
                    inline=False)
    if any(place.tie_break is TieBreak.ROLL_OFF for place in result.order):
        rolloff = [roll_line(dice) for dice in result.rolls if "roll-off" in dice.purpose]
        embed.add_field(name=ROLL_OFF_FIELD,
                        value=fit_lines(rolloff), inline=False)
    underdog = gangs[result.underdog_id]
    embed.add_field(name="Underdog", value=safe(underdog.name), inline=True)
    embed.add_field(name="Scenario", value=fit_lines([safe(scenario.name)]),
                    inline=True)
    if stake:
        embed.add_field(name="Territory at stake", value=fit_lines([safe(stake, 300)]),
                        inline=True)
    embed.add_field(name="Battlefield", value=battlefield_text(result), inline=False)
    embed.add_field(name="Priority", value=fit_lines([safe(result.priority, 500)]),
                    inline=False)
    embed.add_field(name="Every roll", value=fit_lines([roll_line(d) for d in result.rolls]
                                                       or ["No dice were needed."]),
                    inline=False)
    if closed:
        embed.add_field(name="Deferred sub-steps now closed", value=fit_lines(closed),
                        inline=False)
    embed.set_footer(text=f"Battle recorded ({battle.id}): after the battle, start its "
                          "post-battle sequence with /postbattle start.")
    return within_limits(embed)


ROLL_OFF_FIELD = "Roll-off (the winner counts as the lower rating)"


def within_limits(embed: discord.Embed, limit: int = EMBED_CHARS) -> discord.Embed:
    """Keep the one message under Discord's 6000 characters, even with absurd names.

    The roll-off field only repeats rolls that "Every roll" lists, so it goes
    first; then the longest fields are shortened.
    """
    if len(embed) > limit:
        for index, field in enumerate(embed.fields):
            if field.name == ROLL_OFF_FIELD:
                embed.remove_field(index)
                break
    while len(embed) > limit:
        index, longest = max(enumerate(embed.fields), key=lambda pair: len(pair[1].value or ""))
        value = longest.value or ""
        shorter = value[: max(1, len(value) - (len(embed) - limit) - 1)] + "…"
        embed.set_field_at(index, name=longest.name or "", value=shorter,
                           inline=bool(longest.inline))
    return embed


RESCUE_TEXT = "Rescue Mission"


def battlefield_text(result: PreBattleResult) -> str:
    field = result.battlefield
    name = f"**{safe(field.battlefield)}**"
    if field.method is BattlefieldMethod.ROLL and field.roll is not None:
        return f"{name}: no agreement, so a D6 → {field.roll.total} (4+ Sector Mechanicus)."
    if field.method is BattlefieldMethod.AGREED:
        return f"{name}, as the players agreed."
    return fit_lines([f"{name}, as the scenario dictates.", *map(safe, field.notes)])
