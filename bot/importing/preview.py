"""What a player sees before confirming an import: the gang, the differences, the report.

Pure functions from models to embeds. Everything from the file goes through
:func:`bot.render.safe`; the embeds stay within Discord's limits (three
embeds of at most 1900 characters each), and when the report does not fit,
the whole of it goes along as a text file.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.importing.diff import differences
from bot.importing.plan import StagedGangImport
from bot.importing.questions import unanswered
from bot.render import change_line, paginate, safe
from rules.models import Gang
from rules.wording import count

SECTION_MAX = 1900
COLOUR = discord.Colour.teal()
# In the content, not an embed footer: the Confirm replaces the content with
# its outcome and leaves the embeds as the record of what was imported.
QUESTION = "Nothing is stored until you press Confirm."


@dataclass(frozen=True)
class Preview:
    content: str
    embeds: list[discord.Embed]
    # The whole report as a text file, when it did not fit in the embeds.
    report: discord.File | None


def _section(lines: Sequence[str], limit: int = SECTION_MAX) -> tuple[str, bool]:
    """The lines that fit in ``limit`` characters, and whether some were left out."""
    pages = paginate(list(lines), limit - 40)
    if len(pages) <= 1:
        return pages[0] if pages else "", False
    shown = pages[0]
    left = len(lines) - shown.count("\n") - 1
    return f"{shown}\n… and {left} more", True


def fighter_line(gang: Gang, index: int) -> str:
    fighter = gang.fighters[index]
    status = "" if fighter.status.value == "Active" else f", {fighter.status.value}"
    items = len(fighter.equipment)
    return (
        f"{safe(fighter.name)} ({safe(fighter.fighter_type or fighter.category.value)}, "
        f"{fighter.category.value}{status}): {fighter.total_cost} credits, "
        f"{items} {'item' if items == 1 else 'items'}"
    )


def preview(staged: StagedGangImport, stored: Gang | None, campaign_name: str) -> Preview:
    """The question shown with the Confirm button, and the full report when it is long."""
    gang = staged.gang
    verb = "Update" if stored is not None else "Import"
    rating = f"Gang Rating **{gang.rating}**"
    if staged.declared_rating is not None:
        rating += f" (the file says {staged.declared_rating})"
    summary = [
        f"From {safe(staged.source_label)} into {safe(campaign_name)}; owner <@{gang.owner}>.",
        f"House {safe(gang.house)}, {gang.alignment.value} · "
        f"{count(len(gang.fighters), 'fighter')} · "
        f"{gang.credits} credits · Reputation {gang.reputation} · {rating}",
        "",
        *(fighter_line(gang, i) for i in range(len(gang.fighters))),
    ]
    description, _ = _section(summary)
    embeds = [discord.Embed(title=f"{verb} {safe(gang.name)}?", description=description,
                            colour=COLOUR)]
    if stored is not None:
        names = {stored.id: stored.name}
        changes = [
            line for change in differences(stored, gang)
            if (line := change_line(change, gang_names=names)) is not None
        ] or ["No differences: importing it again changes nothing."]
        text, _ = _section(changes)
        embeds.append(discord.Embed(title="Differences", description=text, colour=COLOUR))
    report = staged.report.lines()
    attachment = None
    if report:
        text, clipped = _section([safe(line, 400) for line in report])
        embeds.append(discord.Embed(title="What did not import as written", description=text,
                                    colour=discord.Colour.orange()))
        if clipped:
            full = "\n".join(report).encode()
            attachment = discord.File(io.BytesIO(full), filename="import-report.txt")
    return Preview(_content(staged), embeds, attachment)


# Question lines listed in the content (Discord's 2000 characters hold them with room).
QUESTION_LINES = 12


def _content(staged: StagedGangImport) -> str:
    """The question above the embeds, with what the file left open and the answers so far."""
    questions = staged.questions
    if not questions:
        return QUESTION
    still_open = unanswered(questions)
    head = (f"**{len(still_open)} of {len(questions)} to answer** below before Confirm: "
            "the file does not say, and the campaign's rule data does not know."
            if still_open else "Every question is answered; Confirm is enabled.")
    lines = [
        f"- {safe(q.label, 120)} **{q.answer}**" if q.answer else f"- {safe(q.label, 120)} …"
        for q in questions[:QUESTION_LINES]
    ]
    if len(questions) > QUESTION_LINES:
        lines.append(f"- and {len(questions) - QUESTION_LINES} more, asked as these are "
                     "answered")
    return "\n".join([QUESTION, head, *lines])
