"""The battle card: a compact picture of a battle's result for the report channel.

A title band with the scenario and the winner, then a row per gang (outcome,
enemies taken Out of Action, its own casualties, Gang Rating and Wealth),
then the Territory gained. 1000 pixels wide: readable at Discord's preview
size without opening it.
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
from rules.report import BattleReport

CARD_WIDTH = 1000
MARGIN = 28
TITLE_HEIGHT = 96
ROW_HEIGHT = 112
FOOT_HEIGHT = 64
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
        name = fighters.get(state.fighter_id, state.fighter_id)
        how = "Out of Action" if state.out_of_action else "Seriously Injured"
        if state.critical_injury:
            how += ", Critical Injury"
        found.setdefault(state.gang_id, []).append(f"{name} ({how})")
    return found


def battle_card(
    report: BattleReport, casualties: Mapping[str, Sequence[str]] | None = None
) -> bytes:
    """The report as a PNG card, ``casualties`` (gang id -> lines) under each gang."""
    losses = casualties or {}
    height = TITLE_HEIGHT + ROW_HEIGHT * len(report.gangs) + FOOT_HEIGHT
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
    for line in report.gangs:
        word, colour = _OUTCOMES[line.outcome]
        left = pill(canvas, CARD_WIDTH - MARGIN, y + 4, word, colour, size=20)
        canvas.text(name_face, (MARGIN, y), name_face.clip(line.gang_name, left - MARGIN - 12),
                    INK)
        enemies = line.enemies_out_of_action
        figures = (f"{enemies} enem{'y' if enemies == 1 else 'ies'} taken Out of Action"
                   f" · Gang Rating {line.gang_rating} · Wealth {line.wealth}")
        canvas.text(body, (MARGIN, y + 40), body.clip(figures, inner), INK)
        lost = list(losses.get(line.gang_id, []))
        lost_text = "Casualties: " + (", ".join(lost) if lost else "none")
        canvas.text(body, (MARGIN, y + 68), body.clip(lost_text, inner), BAD if lost else MUTED)
        draw.line((MARGIN, y + ROW_HEIGHT - 8, CARD_WIDTH - MARGIN, y + ROW_HEIGHT - 8),
                  fill=RULE, width=2)
        y += ROW_HEIGHT
    territory = report.territory_name
    foot = typeface(22, Weight.BOLD)
    text = f"Territory gained: {territory}" if territory else "No Territory changed hands"
    canvas.text(foot, (MARGIN, y + 8), foot.clip(text, inner), INK if territory else GONE)
    return canvas.png()
