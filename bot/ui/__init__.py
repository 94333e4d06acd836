"""Discord-facing building blocks shared by the cogs: embeds, buttons, small checks.

``roster`` builds roster and standings embeds (pure functions), ``confirm``
holds the restart-proof Confirm/Cancel buttons. The helpers below turn what a
player typed into model values with player-readable refusals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import discord
from pydantic import ValidationError

# bot/battle still imports clip from here.
from bot.render import clip as clip
from bot.render import paginate
from rules.errors import InvalidRequest
from rules.models import Equipment, Item
from rules.names import checked_name
from rules.tradingpost import MAX_CREDITS, written_item

T = TypeVar("T")

# Discord's limits for one embed (docs: Embed Limits), the one copy every embed reads.
TITLE_CHARS = 256
DESCRIPTION_CHARS = 4096
FIELDS_PER_EMBED = 25
FIELD_NAME_CHARS = 256
FIELD_MAX = 1024
FOOTER_CHARS = 2048
EMBED_CHARS = 6000
# ... and for one message's embeds together.
EMBEDS_PER_MESSAGE = 10
EMBED_CHARS_PER_MESSAGE = 6000


def fit_lines(lines: Sequence[str], limit: int = FIELD_MAX, empty: str = "—") -> str:
    """Join lines into one field value, ending in "… and N more" when they do not fit."""
    if not lines:
        return empty
    shown: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        rest = len(lines) - index
        tail = f"… and {rest} more"
        cost = len(line) + (1 if shown else 0)
        if used + cost > limit - (len(tail) + 1 if rest > 1 else 0):
            shown.append(tail if shown else clip(line, limit))
            break
        shown.append(line)
        used += cost
    return "\n".join(shown)


def checked(build: Callable[[], T], what: str) -> T:
    """Run a model constructor/assignment; a ValidationError becomes a clear refusal.

    Discord's client already bounds lengths and numbers; this is the server-side
    second line for anything that slips past (or a future option without bounds).
    """
    try:
        return build()
    except ValidationError as error:
        problems = []
        for detail in error.errors()[:3]:
            field = ".".join(str(part) for part in detail.get("loc", ()) if part != "__root__")
            message = str(detail.get("msg", "is not valid"))
            problems.append(f"{field}: {message}" if field else message)
        raise InvalidRequest(f"That {what} is not valid: {'; '.join(problems)}.") from None


def clean_name(text: str, what: str = "name") -> str:
    """A name as stored (rules.names.clean), refused if nothing visible is left."""
    try:
        return checked_name(text, what)
    except ValueError as error:
        raise InvalidRequest(str(error)) from None


def bounded(value: int | None, low: int, high: int, what: str) -> int | None:
    """Refuse a number outside ``low..high`` with a message naming both bounds."""
    if value is not None and not low <= value <= high:
        raise InvalidRequest(f"{what} must be between {low:,} and {high:,}; you gave {value:,}.")
    return value


def typed_item(
    item_id: str,
    name: str,
    entry: Equipment | None,
    cost: int | None = None,
    kind: str | None = None,
    two_slots: bool | None = None,
) -> Item:
    """An item a player names, as :func:`rules.tradingpost.written_item` writes it."""
    clean = clean_name(name, "item name")
    bounded(cost, 0, MAX_CREDITS, "An item's cost")
    return checked(lambda: written_item(item_id, clean, entry, cost=cost, kind=kind,
                                        two_slots=two_slots), "item")


# One page of lines: a description, with room to spare.
PAGE_CHARS = 4000


def page_footer(number: int, total: int) -> str:
    """How every answer of several embeds numbers them."""
    return f"page {number} of {total}"


def continued(title: str) -> str:
    """The title of a page after the first."""
    suffix = " (continued)"
    room = TITLE_CHARS - len(suffix)
    return (title if len(title) <= room else title[: room - 1] + "…") + suffix


def numbered(embeds: list[discord.Embed], footer: str = "") -> list[discord.Embed]:
    """Every embed's footer: ``footer``, then "page N of M" when there are several pages
    (how every paged answer signs and numbers its pages)."""
    for number, embed in enumerate(embeds, start=1):
        parts = [footer] if footer else []
        if len(embeds) > 1:
            parts.append(page_footer(number, len(embeds)))
        if parts:
            embed.set_footer(text=clip(" · ".join(parts), FOOTER_CHARS))
    return embeds


def lines_embeds(
    title: str, lines: Sequence[str], *, empty: str = "Nothing to show.",
    colour: discord.Colour | None = None, footer: str = "",
) -> list[discord.Embed]:
    """Lines as one embed per page (``title``, already escaped, then "(continued)"),
    signed with ``footer`` and numbered (:func:`numbered`)."""
    heading = title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"
    pages = paginate(list(lines), PAGE_CHARS) if lines else [empty]
    return numbered([
        discord.Embed(title=heading if number == 0 else continued(heading),
                      description=page or empty, colour=colour)
        for number, page in enumerate(pages)
    ], footer)


def embed_batches(embeds: Sequence[discord.Embed]) -> list[list[discord.Embed]]:
    """Group embeds into messages within Discord's per-message limits (10 embeds, 6000 chars)."""
    batches: list[list[discord.Embed]] = []
    current: list[discord.Embed] = []
    size = 0
    for embed in embeds:
        length = len(embed)
        full = len(current) >= EMBEDS_PER_MESSAGE or size + length > EMBED_CHARS_PER_MESSAGE
        if current and full:
            batches.append(current)
            current, size = [], 0
        current.append(embed)
        size += length
    if current:
        batches.append(current)
    return batches


async def send_embeds(
    interaction: discord.Interaction, embeds: Sequence[discord.Embed], *, content: str = ""
) -> None:
    """Answer publicly: the first batch of embeds as the response, the rest as follow-ups."""
    batches = embed_batches(embeds) or [[]]
    first, rest = batches[0], batches[1:]
    if interaction.response.is_done():
        await interaction.followup.send(content or discord.utils.MISSING, embeds=first)
    else:
        await interaction.response.send_message(content or None, embeds=first)
    for batch in rest:
        await interaction.followup.send(embeds=batch)
