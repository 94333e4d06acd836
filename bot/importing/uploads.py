"""Files in and out of Discord: read an attachment or a URL within limits; build a file to send."""

from __future__ import annotations

import asyncio
import io
import re

import discord

from bot.config import ImportingSettings
from bot.importing.common import pack, unpack
from bot.importing.fetch import fetch
from rules.errors import InvalidRequest

# Files at least this large are sent gzip-compressed (well under Discord's
# smallest upload limit, so a campaign export always fits when it can).
COMPRESS_FROM = 8 * 1024 * 1024


async def read_attachment(attachment: discord.Attachment, settings: ImportingSettings) -> bytes:
    limit = settings.max_import_bytes
    if attachment.size > limit:
        raise InvalidRequest(
            f"{attachment.filename[:60]} is {attachment.size} bytes; this bot reads at most "
            f"{limit}."
        )
    try:
        data = await attachment.read()
    except discord.HTTPException:
        raise InvalidRequest("Discord would not hand over that attachment; try again.") from None
    return await _unpacked(data, limit)


async def read_source(
    file: discord.Attachment | None, url: str | None, settings: ImportingSettings
) -> bytes:
    """The bytes of exactly one of an attachment or a URL (gzip unpacked)."""
    if (file is None) == (url is None):
        raise InvalidRequest("Attach the exported file or give its URL (one of the two).")
    if file is not None:
        return await read_attachment(file, settings)
    assert url is not None
    return await _unpacked(await fetch(url, settings), settings.max_import_bytes)


async def _unpacked(data: bytes, limit: int) -> bytes:
    # Inflating up to ``limit`` bytes of gzip is CPU work: a worker thread does it.
    return await asyncio.to_thread(unpack, data, limit)


def file_stem(name: str, fallback: str) -> str:
    """A safe file name stem from a gang or campaign name ("Ash Wolves" -> "ash-wolves")."""
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60]
    return stem or fallback


def json_file(data: bytes, stem: str, limit: int) -> discord.File:
    """``stem``.json, or ``stem``.json.gz when large; refused if even that is over ``limit``."""
    filename = f"{stem}.json"
    if len(data) >= min(COMPRESS_FROM, limit):
        data, filename = pack(data), f"{stem}.json.gz"
    if len(data) > limit:
        raise InvalidRequest(
            f"The export is {len(data)} bytes even compressed, more than Discord lets this "
            "bot upload here; ask the bot's host for a database backup instead."
        )
    return discord.File(io.BytesIO(data), filename=filename)
