"""The battle card: a compact picture of a battle's result for the report channel.

A title band with the scenario and the winner, then a row per gang (outcome,
enemies taken Out of Action, Gang Rating and Wealth, then its aftermath as the
report's text gives it: Out of Action with Lasting Injuries, dead, captured, XP,
credits, Territories; or, for a report without its battle's record, its
casualties), then the Territory gained. 1000 pixels wide: readable at Discord's
preview size without opening it; a row grows by a line per line it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.pictures.canvas import (
    ACCENT,
    ACCENT_INK,
    BAD,
    GONE,
    GOOD,
    INK,
    MUTED,
    RULE,
    WARN,
    Canvas,
    Colour,
    pill,
)
from bot.pictures.fonts import Weight, typeface
from rules.models import Battle, Gang
from rules.report import BattleReport, GangReportLine

CARD_WIDTH = 1000
MARGIN = 28
TITLE_HEIGHT = 96
ROW_HEIGHT = 112  # a row of one line under its figures
LINE_HEIGHT = 28  # each further line
FOOT_HEIGHT = 64
# Lines that say what a gang lost are drawn in the colour of a loss.
_LOSSES = ("Out of Action:", "Dead:", "Captured:", "Territory lost:", "Casualties:")
_OUTCOMES: dict[str, tuple[str, Colour]] = {
    "win": ("VICTORY", GOOD), "loss": ("DEFEAT", BAD), "draw": ("DRAW", WARN),
}


def casualties_of(battle: Battle, gangs: Mapping[str, Gang]) -> dict[str, list[str]]:
    """Gang id -> names of its fighters that ended the battle Out of Action or
    Seriously Injured, as the players reported them (a Critical Injury marked)."""
    found: dict[str, list[str]] = {gang_id: [] for gang_id in battle.gang_ids}
    for state in battle.fighters:
        if not (state.out_of_action or state.prone_seriously_injured):
            continue
        gang = gangs.get(state.gang_id)
        fighters = {f.id: f.name for f in gang.fighters} if gang is not None else {}
        # A fighter cleared from the roster since (a death) is not named by its id.
        name = fighters.get(state.fighter_id, "a fighter no longer on the roster")
        how = "Out of Action" if state.out_of_action else "Seriously Injured"
        if state.critical_injury:
            how += ", Critical Injury"
        found.setdefault(state.gang_id, []).append(f"{name} ({how})")
    return found


def gang_lines(line: GangReportLine, casualties: Sequence[str]) -> list[str]:
    """The lines under a gang's figures: its aftermath, else its casualties."""
    if line.aftermath_lines:
        return line.aftermath_lines
    return ["Casualties: " + (", ".join(casualties) if casualties else "none")]


def row_height(lines: Sequence[str]) -> int:
    return ROW_HEIGHT + LINE_HEIGHT * max(0, len(lines) - 1)


def battle_card(
    report: BattleReport, casualties: Mapping[str, Sequence[str]] | None = None
) -> bytes:
    """The report as a PNG card, ``casualties`` (gang id -> lines) under each gang whose
    aftermath the report does not give."""
    losses = casualties or {}
    rows = [(line, gang_lines(line, losses.get(line.gang_id, []))) for line in report.gangs]
    height = TITLE_HEIGHT + sum(row_height(lines) for _, lines in rows) + FOOT_HEIGHT
    canvas = Canvas(CARD_WIDTH, height)
    draw = canvas.draw
    inner = CARD_WIDTH - 2 * MARGIN
    draw.rectangle((0, 0, CARD_WIDTH, TITLE_HEIGHT - 12), fill=ACCENT)
    title = typeface(36, Weight.BOLD)
    canvas.text(title, (MARGIN, 10), title.clip(report.scenario or "Battle", inner), ACCENT_INK)
    result = "Draw" if report.winner_name is None else f"Won by {report.winner_name}"
    sub = typeface(22)
    canvas.text(sub, (MARGIN, 52), sub.clip(result, inner), ACCENT_INK)
    y = TITLE_HEIGHT
    name_face = typeface(28, Weight.BOLD)
    body = typeface(20)
    for line, lines in rows:
        word, colour = _OUTCOMES[line.outcome]
        left = pill(canvas, CARD_WIDTH - MARGIN, y + 4, word, colour, size=20)
        canvas.text(name_face, (MARGIN, y), name_face.clip(line.gang_name, left - MARGIN - 12),
                    INK)
        enemies = line.enemies_out_of_action
        figures = (f"{enemies} enem{'y' if enemies == 1 else 'ies'} taken Out of Action"
                   f" · Gang Rating {line.gang_rating} · Wealth {line.wealth}")
        canvas.text(body, (MARGIN, y + 40), body.clip(figures, inner), INK)
        for number, text in enumerate(lines):
            ink = MUTED if text.endswith(": none") else BAD if text.startswith(_LOSSES) else INK
            canvas.text(body, (MARGIN, y + 68 + LINE_HEIGHT * number), body.clip(text, inner),
                        ink)
        bottom = y + row_height(lines)
        draw.line((MARGIN, bottom - 8, CARD_WIDTH - MARGIN, bottom - 8), fill=RULE, width=2)
        y = bottom
    territory = report.territory_name
    foot = typeface(22, Weight.BOLD)
    text = f"Territory gained: {territory}" if territory else "No Territory changed hands"
    canvas.text(foot, (MARGIN, y + 8), foot.clip(text, inner), INK if territory else GONE)
    return canvas.png()
