"""How the campaign's calendar reads: a cycle's post, a challenge, the standings, the Triumphs.

Pure functions from the rules' values to lines and embeds. Dates are Discord
timestamps (``<t:...:F>``), which every reader sees in their own time zone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

import discord

from bot.render import roll_line, safe
from bot.ui import lines_embeds
from bot.ui.components import Components
from bot.ui.routes import button
from bot.ui.times import read_time
from bot.ui.times import stamp as discord_stamp
from rules.campaign_types import CampaignPhase, CampaignType, Measure, Stake, territories_for
from rules.cycles import Calendar, Challenge, Cycle
from rules.dice import DiceRoll
from rules.standings import Race, Standing

# The custom id of a challenge's Accept and Decline buttons (cogs/challenge.py answers).
ANSWER = "chal"
CYCLE_COLOUR = discord.Colour.dark_gold()
STANDINGS_COLOUR = discord.Colour.gold()
MAX_DAYS_AHEAD = 3660

_STAKES = {
    Stake.UNCLAIMED_FIRST: "challenges for an unclaimed Territory while any remain, then "
                           "for one the defender holds",
    Stake.DEFENDERS: "challenges for a Territory the defender holds",
    Stake.UNCLAIMED_OR_DEFENDERS: "challenges for an unclaimed Territory or one the "
                                  "defender holds",
    Stake.NONE: "challenges with no Territory at stake",
    Stake.NO_CHALLENGES: "no challenges",
}


def answer_buttons(campaign_id: str, number: int) -> Components:
    return Components(
        button(ANSWER, campaign_id, number, "accept", label="Accept",
               style=discord.ButtonStyle.success),
        button(ANSWER, campaign_id, number, "decline", label="Decline",
               style=discord.ButtonStyle.danger),
    )


def stamp(when: datetime | None, style: str = "F") -> str:
    """A cycle's date as a Discord timestamp; an end not set says who sets it."""
    if when is None:
        return "when the Arbitrator ends it"
    return discord_stamp(when, style)


def parse_when(text: str, now: datetime, zone_name: str = "UTC") -> datetime:
    """A cycle's date as the Arbitrator types it (bot/ui/times.py): ``2026-01-12``,
    ``2026-01-12 19:00`` in the campaign's time zone, an offset (``...T19:00+01:00``), a
    Discord timestamp, or days from now (``7d``); within ten years, past or future."""
    return read_time(text, zone_name, now, days_from_now=True, past_too=True,
                     furthest=timedelta(days=MAX_DAYS_AHEAD),
                     too_far="That date is more than ten years away.")


def limits_line(campaign_type: CampaignType) -> str:
    limit = campaign_type.challenges_per_cycle
    made = ("any number of challenges a cycle" if limit is None
            else f"{limit} challenge{'s' if limit > 1 else ''} a cycle, another once its "
                 "battles are played")
    once = ("; a gang in a waiting challenge cannot be challenged again this cycle"
            if campaign_type.one_battle_per_cycle else "")
    return f"Each gang makes {made}{once}."


def phase_rules(campaign_type: CampaignType, phase: CampaignPhase) -> list[str]:
    """What a phase allows, in words."""
    lines = [f"**{safe(phase.name)}** allows {_STAKES[phase.stake]}."]
    if phase.allows_challenges:
        lines.append(limits_line(campaign_type))
        lines.append("A defender who declines their first challenge of the cycle gives the "
                     "stake to the challenger.")
    if phase.downtime:
        lines.append("Downtime: each gang's Downtime steps open (/campaign downtime).")
    return lines


def order_lines(cycle: Cycle, names: Mapping[str, str], ratings: Mapping[str, int],
                rolls: Sequence[DiceRoll]) -> list[str]:
    if not cycle.order:
        return []
    how = "drawn with dice" if cycle.number == 1 else "lowest Gang Rating first"
    lines = [f"Challenge order ({how}):"]
    lines += [f"{place}. {safe(names.get(g, g))} (Rating {ratings.get(g, 0)})"
              for place, g in enumerate(cycle.order, start=1)]
    lines += [roll_line(dice) for dice in rolls]
    return lines


def territory_count_line(campaign_type: CampaignType, players: int, held: int) -> str | None:
    """How many Territories the type plays with for this many players, against the
    campaign's own count; None when the type gives no such figure."""
    wanted = territories_for(campaign_type, players)
    if wanted is None:
        return None
    verdict = "as it should" if wanted == held else "add or remove some with /campaign " \
        "territory add or its rule data"
    return (f"{safe(campaign_type.name)}: {campaign_type.territories_per_player} Territories "
            f"per player, {wanted} for {players} gangs; this campaign has {held} ({verdict}).")


def cycle_embeds(
    campaign_name: str, calendar: Calendar, cycle: Cycle, names: Mapping[str, str],
    ratings: Mapping[str, int], rolls: Sequence[DiceRoll], extra: Sequence[str] = (),
) -> list[discord.Embed]:
    """The post at a cycle's start: its dates, what its phase allows, the challenge order."""
    phase = calendar.phase(cycle)
    total = calendar.campaign_type.total_cycles
    title = (f"{safe(campaign_name)}: cycle {cycle.number} of {total} · {safe(phase.name)} "
             f"({cycle.in_phase} of {phase.cycle_count})")
    lines = [f"From {stamp(cycle.starts_at)} to {stamp(cycle.ends_at)}"
             + (f" ({stamp(cycle.ends_at, 'R')})." if cycle.ends_at else "."),
             *phase_rules(calendar.campaign_type, phase), *extra,
             *order_lines(cycle, names, ratings, rolls)]
    if cycle.order:
        lines.append("Challenge with /challenge new, or let your turn go with "
                     "/challenge pass.")
    return lines_embeds(title, lines, colour=CYCLE_COLOUR)


def calendar_lines(calendar: Calendar, names: Mapping[str, str],
                   territories: Mapping[str, str]) -> list[str]:
    """Every cycle so far and planned, and the challenges of the open one (``names``:
    gang ids to names, ``territories``: Territory ids to names)."""
    kind = calendar.campaign_type
    lines = [f"Campaign type **{safe(kind.name)}**: " + ", ".join(
        f"{safe(p.name)} {p.cycle_count} cycle{'s' if p.cycle_count > 1 else ''}"
        + ("" if p.cycles is not None else " (Arbitrator's setting)") for p in kind.phases)]
    for cycle in calendar.cycles:
        state = "open" if cycle.is_open else f"ended {stamp(cycle.ended_at, 'd')}"
        lines.append(f"Cycle {cycle.number} · {safe(kind.phases[cycle.phase].name)}: "
                     f"{stamp(cycle.starts_at, 'f')} to {stamp(cycle.ends_at, 'f')} ({state})")
    for planned in calendar.planned:
        if planned.number > len(calendar.cycles):
            lines.append(f"Cycle {planned.number} planned: {stamp(planned.starts_at, 'f')} "
                         f"to {stamp(planned.ends_at, 'f')}")
    current = calendar.current
    if current is not None:
        turn = current.turn_among(names)
        if turn is not None:
            lines.append(f"Next to challenge: **{safe(names.get(turn, turn))}**.")
        lines += [challenge_line(c, names, territories)
                  for c in calendar.challenges_in(current.number)]
    if calendar.finished_at is not None:
        lines.append(f"The campaign ended {stamp(calendar.finished_at)}.")
    return lines


def challenge_line(challenge: Challenge, names: Mapping[str, str],
                   territories: Mapping[str, str] | None = None) -> str:
    stake = ""
    if challenge.territory is not None:
        where = (territories or {}).get(challenge.territory, "a Territory")
        stake = f" for {safe(where)}"
    return (f"#{challenge.number} {safe(names.get(challenge.challenger, '?'))} challenges "
            f"{safe(names.get(challenge.defender, '?'))}{stake}: {challenge.status.value}")


def standings_lines(rows: Sequence[Standing]) -> list[str]:
    return [f"{place}. **{safe(r.name)}**: {r.territories} Territories · {r.battles} battles "
            f"· {r.wins} wins · Rating {r.rating} · Wealth {r.wealth} · Reputation "
            f"{r.reputation} · {r.enemies_out_of_action} enemies Out of Action"
            for place, r in enumerate(rows, start=1)]


def race_lines(races: Sequence[Race], names: Mapping[str, str], *, final: bool) -> list[str]:
    lines: list[str] = []
    for race in races:
        triumph = f"**{safe(race.triumph.name)}** ({race.triumph.measure.value})"
        if race.triumph.measure is Measure.NOT_TRACKED:
            lines.append(f"{triumph}: awarded by the Arbitrator (the bot does not record it)")
            continue
        if not race.leaders:
            lines.append(f"{triumph}: no one yet")
            continue
        leading = ", ".join(safe(names.get(g, g)) for g in race.leaders)
        if race.tied and not race.holders:
            verb = "tied, awarded to no one" if final else "tied (a tie wins it for no one)"
            lines.append(f"{triumph}: {leading} {verb} at {race.best}")
        elif final:
            lines.append(f"{triumph}: won by {leading} ({race.best})")
        else:
            lines.append(f"{triumph}: {leading} lead{'s' if not race.tied else ''} "
                         f"with {race.best}")
    return lines


def standings_embeds(
    campaign_name: str, rows: Sequence[Standing], races: Sequence[Race],
    names: Mapping[str, str], *, heading: str = "standings", final: bool = False,
) -> list[discord.Embed]:
    lines = standings_lines(rows) or ["No gangs yet: players join with /gang create."]
    if races:
        lines += ["", "**Triumphs**" if final else "**The race for each Triumph**",
                  *race_lines(races, names, final=final)]
    return lines_embeds(f"{safe(campaign_name)}: {heading}", lines, colour=STANDINGS_COLOUR)
