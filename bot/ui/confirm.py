"""Confirm/Cancel buttons that still work after the bot restarts.

The button keeps no state in memory: its custom_id says everything,
``munda:confirm:<action>:<campaign_id>:<target_id>:<user_id>`` (or
``munda:cancel:...``). It is a :class:`discord.ui.DynamicItem`, so once a cog
has called ``bot.add_dynamic_items(ConfirmButton)`` a click on a message sent
before a restart is routed here again. Cogs register what an action does
with :func:`register_action`; the handler runs only for the user named in the
custom_id and should re-check everything (the target may be gone, ownership
may have changed since the question was asked).

discord.py swallows exceptions raised by dynamic items (it only logs them),
so every refusal and failure here is answered explicitly with
:func:`bot.errors.answer_error`, like a slash command's.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.errors import Refused, answer_error
from bot.ui.custom_ids import ID, StoredId, build, resolve_match

_TEMPLATE = (
    rf"munda:(?P<choice>confirm|cancel):(?P<action>[a-z][a-z-]{{0,31}}):"
    rf"(?P<campaign>{ID}):(?P<target>{ID}):(?P<user>[0-9]{{1,20}})"
)


@dataclass(frozen=True)
class Confirmed:
    """What a confirmed action answers: replaces the question; optional public notice."""

    message: str
    announcement: str | None = None


ConfirmHandler = Callable[[discord.Interaction[Any], str, str], Awaitable[Confirmed]]

_ACTIONS: dict[str, ConfirmHandler] = {}


def register_action(action: str, handler: ConfirmHandler) -> None:
    """Make ``handler(interaction, campaign_id, target_id)`` run when ``action`` is confirmed."""
    if not re.fullmatch(r"[a-z][a-z-]{0,31}", action):
        raise ValueError(f"bad confirmation action name {action!r}")
    _ACTIONS[action] = handler


def unregister_action(action: str) -> None:
    _ACTIONS.pop(action, None)


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=_TEMPLATE):
    """One of the two buttons of a confirmation; all its state is in its custom_id."""

    def __init__(
        self, choice: str, action: str, campaign_id: str, target_id: str, user_id: int
    ) -> None:
        custom_id = build("munda", choice, action, StoredId(campaign_id), StoredId(target_id),
                          user_id)
        confirm = choice == "confirm"
        super().__init__(
            discord.ui.Button(
                label="Confirm" if confirm else "Cancel",
                style=discord.ButtonStyle.danger if confirm else discord.ButtonStyle.secondary,
                custom_id=custom_id,
            )
        )
        self.choice = choice
        self.action = action
        self.campaign_id = campaign_id
        self.target_id = target_id
        self.user_id = user_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ConfirmButton:
        campaign, target = await resolve_match(interaction, match, "target")
        return cls(match["choice"], match["action"], campaign, target, int(match["user"]))

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.user.id == self.user_id:
            return True
        await answer_error(
            interaction, Refused("Only the person who asked can answer this question.")
        )
        return False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            if self.choice == "cancel":
                await interaction.response.edit_message(
                    content="Cancelled; nothing was changed.", view=None
                )
                return
            handler = _ACTIONS.get(self.action)
            if handler is None:
                raise Refused("This button no longer does anything; run the command again.")
            outcome = await handler(interaction, self.campaign_id, self.target_id)
            await interaction.response.edit_message(content=outcome.message, view=None)
            if outcome.announcement:
                await interaction.followup.send(outcome.announcement)
        except Exception as error:  # discord.py would only log it: answer instead
            await answer_error(interaction, error)


def confirm_view(action: str, campaign_id: str, target_id: str, user_id: int) -> discord.ui.View:
    """A Confirm (red) and a Cancel button for ``action`` on ``target_id``, for ``user_id`` only."""
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton("confirm", action, campaign_id, target_id, user_id))
    view.add_item(ConfirmButton("cancel", action, campaign_id, target_id, user_id))
    return view
