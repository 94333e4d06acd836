"""How a post-battle run reads in a channel: stage messages, report panels, the report.

Pure functions from stored state to embeds (no Discord calls), so tests can
check them and every size stays inside Discord's limits: a stage's lines are
paged over as many messages as they need, field values are cut with "… and N
more", and every user-supplied name goes through :func:`bot.render.safe`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import discord

from bot.battle.panel import injuries_text
from bot.battle.state import (
    GangReport,
    Phase,
    PostBattleRun,
    StageRecord,
    StageStatus,
)
from bot.render import paginate, safe
from bot.ui import FIELD_MAX, TITLE_CHARS, clip, continued, fit_lines, numbered
from rules.models import Battle, Fighter, Vehicle
from rules.report import BattleReport
from rules.stages import STAGES, Step, declared, skipped_in_skirmish

# The first message of a stage carries three fields (at most ~3 x 1024) besides its
# lines; 2800 characters of lines keeps the whole embed under Discord's 6000.
FIRST_PAGE = 2800
NEXT_PAGE = 3900
# The report's embed: up to four gangs' fields of at most 1024 characters each, with
# a description of at most 1000, stays inside Discord's 6000 for the whole embed.
REPORT_DESCRIPTION_MAX = 1000
AFTERMATH_LINE_MAX = 300
COLOUR_OPEN = discord.Colour.blurple()
COLOUR_DONE = discord.Colour.green()
COLOUR_UNDONE = discord.Colour.dark_grey()


def gang_label(names: Mapping[str, str], gang_id: str) -> str:
    return safe(names.get(gang_id, gang_id))


def versus(names: Mapping[str, str], gang_ids: Sequence[str]) -> str:
    return " vs ".join(gang_label(names, g) for g in gang_ids)


# --------------------------------------------------------------------------- stages


# What a step's title starts with, a post-battle stage's or a Downtime step's.
STATUS_MARKS = {StageStatus.OPEN: "▶️", StageStatus.CONFIRMED: "✅", StageStatus.UNDONE: "↩️"}


def _stage_title(run: PostBattleRun, record: StageRecord) -> str:
    text = f"{STATUS_MARKS[record.status]} {record.label}"
    if record.status is StageStatus.UNDONE:
        text += " (undone)"
    elif run.phase is Phase.CANCELLED and record.status is StageStatus.OPEN:
        text += " (cancelled)"
    return clip(text, TITLE_CHARS)


def confirmation_lines(
    run: PostBattleRun, record: StageRecord, names: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """(confirmed, awaited) lines for a stage."""
    confirmed: list[str] = []
    awaited: list[str] = []
    for gang_id in run.gang_ids:
        mark = record.confirmations.get(gang_id)
        if mark is None:
            awaited.append(f"⏳ {gang_label(names, gang_id)}")
            continue
        behalf = " (by an Arbitrator on the player's behalf)" if mark.on_behalf else ""
        confirmed.append(f"✅ {gang_label(names, gang_id)}: <@{mark.user_id}>{behalf}")
    return confirmed, awaited


def stage_pages(
    run: PostBattleRun, record: StageRecord, names: Mapping[str, str]
) -> list[discord.Embed]:
    """The stage as one embed per message: the first with its status, then the rest of its lines."""
    if record.lines:
        lines = record.lines
    elif record.status is StageStatus.OPEN and declared(record.stage).interactive:
        lines = ["Nothing done yet: the players act with the commands below."]
    else:
        lines = ["Nothing was rolled or changed in this step."]
    first, *rest = paginate(lines, FIRST_PAGE)
    colour = {
        StageStatus.OPEN: COLOUR_OPEN,
        StageStatus.CONFIRMED: COLOUR_DONE,
        StageStatus.UNDONE: COLOUR_UNDONE,
    }[record.status]
    embed = discord.Embed(title=_stage_title(run, record), description=first, colour=colour)
    if record.note:
        embed.add_field(name="Note", value=clip(record.note, FIELD_MAX), inline=False)
    if record.status is StageStatus.OPEN and run.in_progress:
        embed.add_field(name="What to do", value=clip(declared(record.stage).shows, FIELD_MAX),
                        inline=False)
    confirmed, awaited = confirmation_lines(run, record, names)
    embed.add_field(name="Confirmed", value=fit_lines(confirmed), inline=True)
    if record.status is StageStatus.OPEN and run.in_progress:
        embed.add_field(name="Awaited", value=fit_lines(awaited, empty="nobody"), inline=True)
    more = [discord.Embed(title=continued(record.label), description=page, colour=colour)
            for page in rest]
    return numbered([embed, *more], f"Post-battle sequence · step {record.number}")


# --------------------------------------------------------------------------- the start


def start_embed(
    run: PostBattleRun,
    battle: Battle,
    names: Mapping[str, str],
    territory_name: str | None,
) -> discord.Embed:
    outcome = "Draw" if battle.winner is None else f"Won by {gang_label(names, battle.winner)}"
    kind = "Skirmish" if run.sequence.skirmish else "Campaign battle"
    embed = discord.Embed(
        title=clip(f"Post-battle sequence: {versus(names, battle.gang_ids)}", TITLE_CHARS),
        description=(
            f"{kind} · {outcome}"
            + (f" · Scenario: {safe(battle.scenario)}" if battle.scenario else "")
            + (f" · Territory staked: {safe(territory_name)}" if territory_name else "")
        ),
        colour=COLOUR_OPEN,
    )
    embed.add_field(
        name="Next",
        value=sequence_outline(run.sequence.skirmish),
        inline=False,
    )
    embed.set_footer(text=f"battle {battle.id}")
    return embed


def sequence_outline(skirmish: bool) -> str:
    """What follows the start, as the thread will show it: one message per step, the
    parts of Update Roster each its own."""
    stages = [stage for stage in STAGES if stage[0] is not Step.FINISHED
              and not (skirmish and skipped_in_skirmish(*stage))]
    parts = [substep.value.split(". ", 1)[1] for step, substep in stages if substep]
    steps = list(dict.fromkeys(step.value for step, _ in stages))
    named = [f"Update Roster ({', '.join(parts)})" if step == Step.UPDATE_ROSTER else step
             for step in steps]
    end = ("The battle report then goes to the campaign's report channel (or here, when "
           "the campaign has none)." if not skirmish else "A skirmish sends no report.")
    return (
        "Each player reports how their gang ended the battle in the thread, then presses "
        f"Submit. Then come {len(stages)} steps, one message each, which every player "
        f"confirms: {', '.join(named)}. {end}"
    )


# --------------------------------------------------------------------------- reporting


def _names_of(ids: Sequence[str], fighters: Mapping[str, str]) -> list[str]:
    return [safe(fighters.get(fid, fid), 60) for fid in ids]


def report_embed(
    run: PostBattleRun,
    gang_id: str,
    owner: str,
    names: Mapping[str, str],
    fighters: Sequence[Fighter],
    vehicles: Sequence[Vehicle],
) -> discord.Embed:
    """A gang's end-of-battle report as it stands."""
    report = run.reports[gang_id]
    by_id = {f.id: f.name for f in fighters}
    vehicle_names = {v.id: v.name for v in vehicles}
    marks = report.fighters.values()
    psi = [m.fighter_id for m in marks if m.prone_seriously_injured]
    fled = [m.fighter_id for m in marks if m.fled_prone_seriously_injured]
    crit = [m.fighter_id for m in marks if m.critical_injury]
    ooa_lines = []
    for mark in marks:
        if not mark.out_of_action:
            continue
        extra = " (Webbed)" if mark.webbed else ""
        if mark.taken_by:
            extra += f", by {gang_label(names, mark.taken_by)}"
        if mark.injuries_rolled:
            extra += f" · rolled at the table: {safe(injuries_text(mark.injuries_rolled), 300)}"
        ooa_lines.append(f"{safe(by_id.get(mark.fighter_id, mark.fighter_id), 60)}{extra}")
    status = (
        f"✅ Submitted by <@{report.submitted_by}>" if report.submitted
        else "⏳ Not submitted yet"
    )
    if run.phase is Phase.CANCELLED:
        status = "✖ The sequence was cancelled"
    embed = discord.Embed(
        title=clip(f"End of battle: {names.get(gang_id, gang_id)}", TITLE_CHARS),
        description=(
            f"Reported by <@{owner}> (or an Arbitrator). Pick a section, then the fighters "
            "or vehicles it concerns; press Submit when the report is right. XP and "
            "enemies taken Out of Action: choose fighters, then their amount. A Lasting "
            "Injury or Lasting Damage already rolled at the table goes in its *rolled at "
            "the table* section; left unset, the bot rolls it in the Wrap-up.\n" + status
        ),
        colour=COLOUR_DONE if report.submitted else COLOUR_OPEN,
    )
    embed.add_field(name="Prone & Seriously Injured",
                    value=fit_lines(_names_of(psi, by_id), empty="none"), inline=False)
    if report.bottled_out:
        embed.add_field(name="Fled whilst Prone & Seriously Injured",
                        value=fit_lines(_names_of(fled, by_id), empty="none"), inline=False)
    embed.add_field(name="Out of Action", value=fit_lines(ooa_lines, empty="none"), inline=False)
    embed.add_field(name="Critical Injury suffered",
                    value=fit_lines(_names_of(crit, by_id), empty="none"), inline=False)
    earned = [
        f"{safe(by_id.get(m.fighter_id, m.fighter_id), 60)}: "
        + ", ".join(part for part in (f"{m.xp} XP" if m.xp else "",
                                      f"{m.kills} Out of Action" if m.kills else "") if part)
        for m in marks if m.xp or m.kills
    ]
    embed.add_field(name="XP and enemies taken Out of Action, by fighter",
                    value=fit_lines(earned, empty="none"), inline=False)
    if vehicles:
        embed.add_field(name="Vehicles Wrecked",
                        value=fit_lines(_wrecked_lines(report, vehicle_names), empty="none"))
        embed.add_field(name="Vehicles abandoned",
                        value=fit_lines(_names_of(report.abandoned, vehicle_names), empty="none"))
    embed.add_field(name="Enemies taken Out of Action", value=str(report.enemies_out_of_action))
    embed.add_field(name="Bottled out", value="yes" if report.bottled_out else "no")
    embed.add_field(name="Models left at the end", value="yes" if report.models_left else "no")
    return embed


def _wrecked_lines(report: GangReport, vehicle_names: Mapping[str, str]) -> list[str]:
    lines = []
    for vid in report.wrecked:
        line = safe(vehicle_names.get(vid, vid), 60)
        results = report.wrecked_results.get(vid, 1)
        if results > 1:
            line += f" ({results} Wrecked results)"
        if entered := report.damage_rolled.get(vid):
            line += f" · rolled at the table: {safe(', '.join(entered), 300)}"
        lines.append(line)
    return lines


def paginate_notice(text: str) -> list[str]:
    """A notice as plain messages of at most 2000 characters (Discord's limit)."""
    return [page for page in paginate(text.split("\n"), 1900) if page]


def report_summary(report: GangReport) -> str:
    marks = report.fighters.values()
    return (
        f"{sum(m.out_of_action for m in marks)} Out of Action, "
        f"{sum(m.prone_seriously_injured for m in marks)} Seriously Injured"
    )


# --------------------------------------------------------------------------- the report


def final_report_embed(
    report: BattleReport,
    thread_url: str | None,
    skirmish: bool = False,
) -> discord.Embed:
    """PB-7: gangs, outcome and winner, territory won, enemies OOA, each gang's aftermath
    (Out of Action and injuries, dead, captured, XP, credits, Territories), Gang Rating
    and Wealth."""
    gangs = " vs ".join(safe(line.gang_name) for line in report.gangs)
    outcome = "Draw" if report.winner_name is None else f"Won by {safe(report.winner_name)}"
    description = outcome
    if report.scenario:
        description += f" · Scenario: {safe(report.scenario)}"
    if report.territory_name:
        description += f"\nTerritory won: {safe(report.territory_name)}"
    else:
        description += "\nTerritory won: none"
    if thread_url:
        description += f"\n[The battle's thread]({thread_url})"
    embed = discord.Embed(
        title=clip(f"Battle report: {gangs}", TITLE_CHARS),
        description=clip(description, REPORT_DESCRIPTION_MAX),
        colour=COLOUR_DONE,
    )
    for line in report.gangs[:4]:
        result = {"win": "Winner", "loss": "Lost", "draw": "Draw"}[line.outcome]
        embed.add_field(
            name=clip(safe(line.gang_name), TITLE_CHARS),
            value=fit_lines([
                result, f"Enemies Out of Action: {line.enemies_out_of_action}",
                f"Gang Rating: {line.gang_rating}", f"Wealth: {line.wealth}",
                *(clip(safe(part), AFTERMATH_LINE_MAX) for part in line.aftermath_lines),
            ]),
            inline=False,
        )
    embed.set_footer(text=f"battle {report.battle_id}")
    return embed


def status_embed(
    run: PostBattleRun, names: Mapping[str, str], thread_url: str | None
) -> discord.Embed:
    """Where a run is: its phase, its stage, who is awaited."""
    embed = discord.Embed(title=clip(f"Post-battle sequence: {versus(names, run.gang_ids)}",
                                     TITLE_CHARS), colour=COLOUR_OPEN)
    if run.phase is Phase.REPORTING:
        waiting = [gang_label(names, g) for g, r in run.reports.items() if not r.submitted]
        embed.description = "Reporting the end of the battle."
        embed.add_field(name="Reports awaited", value=fit_lines(waiting, empty="nobody"))
    elif run.phase is Phase.SEQUENCE and run.current is not None:
        record = run.current
        confirmed, awaited = confirmation_lines(run, record, names)
        embed.description = f"At step {record.number}: {record.label}."
        embed.add_field(name="Confirmed", value=fit_lines(confirmed))
        embed.add_field(name="Awaited", value=fit_lines(awaited, empty="nobody"))
    elif run.phase is Phase.FINISHED:
        embed.description = "Finished."
        deferred = [
            f"{gang_label(names, g)}: {', '.join(s.value for s in subs)}"
            for g, subs in run.sequence.deferred.items() if subs
        ]
        if deferred:
            embed.add_field(name="Deferred sub-steps", value=fit_lines(deferred))
    else:
        embed.description = "Cancelled."
    if thread_url:
        embed.add_field(name="Thread", value=f"[open]({thread_url})", inline=False)
    embed.set_footer(text=f"battle {run.battle_id}")
    return embed
