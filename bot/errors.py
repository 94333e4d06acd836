"""One place that turns any failure into a short, polite, ephemeral answer.

Rules refusals and permission refusals are expected and are shown as they
are. Anything else is logged with a reference the user can quote; the user
never sees a traceback. Because every change is one database transaction, a
failure always means nothing was changed, and the message says so.
"""

from __future__ import annotations

import logging
import re
import secrets

import discord
from discord import app_commands
from discord.utils import escape_markdown, escape_mentions

from rules.errors import RulesError

log = logging.getLogger(__name__)

MAX_MESSAGE = 1900

# A backslash before a character escape_markdown escapes (itself included): an escape made
# already, by bot.render.safe where the message was composed.
_ESCAPED = re.compile(r"\\([_\\~|*`>#\-\[\]()])")


def escape_once(text: str) -> str:
    """``text`` shown as typed, whether its names arrived escaped or not.

    Refusals composed in cogs escape the names they quote (bot.render.safe);
    those of the rules and storage quote them raw. Undoing the escapes made
    and escaping the whole once gives one backslash per character either
    way. A raw name that itself holds a backslash before such a character
    (``a\\*b``) loses that backslash.
    """
    return escape_mentions(escape_markdown(_ESCAPED.sub(r"\1", text)))


class Refused(Exception):
    """The user may not do this (not their gang, not in the battle, not an Arbitrator)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def explain(error: BaseException) -> tuple[str, bool]:
    """The message for ``error`` and whether it was expected (not worth a stack trace)."""
    original = error
    while isinstance(original, app_commands.CommandInvokeError | app_commands.TransformerError):
        cause = original.__cause__ or getattr(original, "original", None)
        if cause is None:
            break
        original = cause
    if isinstance(original, RulesError | Refused):
        # Refusals quote names players typed; show them as typed, not as markdown,
        # and an @everyone typed into a name as text, not as a mention.
        return escape_once(original.message), True
    if isinstance(original, app_commands.TransformerError):
        value = escape_once(str(original.value)[:50])
        return f"I could not read the value '{value}'.", True
    if isinstance(original, app_commands.NoPrivateMessage):
        return "This command only works inside a server.", True
    if isinstance(original, app_commands.MissingPermissions | app_commands.CheckFailure):
        return "You are not allowed to use this command here.", True
    if isinstance(original, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {original.retry_after:.0f} seconds.", True
    reference = secrets.token_hex(3)
    log.error("unexpected error (ref %s)", reference, exc_info=original)
    return (
        f"Something went wrong on my side and nothing was changed (reference {reference}).",
        False,
    )


async def answer_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Tell the user what failed, ephemerally, whether or not the interaction was answered."""
    message, _expected = explain(error)
    message = message[:MAX_MESSAGE]
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except discord.HTTPException:
        # The interaction token may have expired (15 minutes); the log keeps the cause.
        log.warning("could not deliver an error message for interaction %s", interaction.id)
