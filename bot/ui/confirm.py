"""Confirm/Cancel questions asked of one user, as routed buttons.

``confirmation("delete-gang", handler)`` registers two routes,
``munda:confirm:delete-gang:<campaign_id>:<target_id>:<user_id>`` and its
``munda:cancel:...`` twin (the ids the buttons had before the router, so
old questions still answer). Only the user named in the id may click; the
handler should re-check everything, since the target may be gone or its
owner changed since the question was asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.ui.routes import Click, Id, Int, button, register, view

PARAMS = (Id("campaign"), Id("target"), Int("user"))


@dataclass(frozen=True)
class Confirmed:
    """What a confirmed action answers: replaces the question; optional public notice."""

    message: str
    announcement: str | None = None
    # Work the change owes Discord, done once the click is answered (it may take longer
    # than Discord waits for the answer).
    after: Callable[[], Awaitable[None]] | None = None


ConfirmHandler = Callable[[discord.Interaction[Any], str, str], Awaitable[Confirmed]]


def confirmation(action: str, handler: ConfirmHandler) -> None:
    """Make ``handler(interaction, campaign_id, target_id)`` run when ``action`` is confirmed."""

    async def confirmed(click: Click, campaign: str, target: str, user: int) -> None:
        outcome = await handler(click.interaction, campaign, target)
        await click.interaction.response.edit_message(content=outcome.message, view=None)
        if outcome.announcement:
            await click.interaction.followup.send(outcome.announcement)
        if outcome.after is not None:
            await outcome.after()

    async def cancelled(click: Click, campaign: str, target: str, user: int) -> None:
        await click.interaction.response.edit_message(
            content="Cancelled; nothing was changed.", view=None
        )

    register(f"confirm:{action}", *PARAMS, handler=confirmed, only="user")
    register(f"cancel:{action}", *PARAMS, handler=cancelled, only="user")


def confirm_view(action: str, campaign_id: str, target_id: str, user_id: int) -> discord.ui.View:
    """A Confirm (red) and a Cancel button for ``action`` on ``target_id``, for ``user_id`` only."""
    return view(
        button(f"confirm:{action}", campaign_id, target_id, user_id, label="Confirm",
               style=discord.ButtonStyle.danger),
        button(f"cancel:{action}", campaign_id, target_id, user_id, label="Cancel"),
    )
