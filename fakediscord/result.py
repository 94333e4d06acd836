"""What the driver hands back after an interaction: a live view of the bot's response."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakediscord.common import CallbackType, JsonObj
from fakediscord.entities import Message
from fakediscord.interactions import InteractionRecord
from fakediscord.services import Services
from fakediscord.transcript import render_message


@dataclass(frozen=True)
class Choice:
    name: str
    value: Any


class InteractionResult:
    """The bot's reply to one interaction.

    Message attributes read the *current* state, so they reflect later edits; use
    :meth:`wait_for_update` / :meth:`wait_followups` to wait for those edits.
    """

    def __init__(self, services: Services, record: InteractionRecord, *, timeout: float) -> None:
        self._world = services.world
        self._interactions = services.interactions
        # The driver's: how long a wait for the bot's next step may take.
        self._timeout_default = timeout
        self.record = record
        self._edits_at_response = record.original.edits if record.original else 0
        if record.callback_type == CallbackType.UPDATE_MESSAGE:
            # The answer itself was the update of the clicked message.
            self._edits_at_response -= 1

    def __repr__(self) -> str:
        return f"<InteractionResult {self.record.label!r} {self.kind} message={self.message!r}>"

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def callback_type(self) -> int | None:
        return self.record.callback_type

    @property
    def kind(self) -> str:
        """The callback type's name, e.g. ``CHANNEL_MESSAGE`` or ``MODAL``."""
        if self.record.callback_type is None:
            return "NONE"
        return CallbackType(self.record.callback_type).name

    @property
    def latency(self) -> float | None:
        return self.record.latency

    @property
    def message(self) -> Message | None:
        """The original response (for UPDATE/DEFERRED_UPDATE: the message that was clicked)."""
        return self.record.original

    @property
    def followups(self) -> list[Message]:
        """Messages sent through the follow-up webhook.

        After a "thinking" defer Discord turns the first follow-up into the original
        response, so that message is both ``message`` and ``followups[0]``.
        """
        return list(self.record.followups)

    @property
    def messages(self) -> list[Message]:
        out: list[Message] = [self.message] if self.message is not None else []
        return out + [m for m in self.followups if m is not self.message]

    @property
    def content(self) -> str:
        return self.message.content if self.message else ""

    @property
    def embeds(self) -> list[JsonObj]:
        return self.message.embeds if self.message else []

    @property
    def embed(self) -> JsonObj | None:
        return self.embeds[0] if self.embeds else None

    @property
    def components(self) -> list[JsonObj]:
        return self.message.components if self.message else []

    @property
    def ephemeral(self) -> bool:
        return self.message.ephemeral if self.message else False

    @property
    def modal(self) -> JsonObj | None:
        return self.record.modal

    @property
    def choices(self) -> list[Choice]:
        return [Choice(c["name"], c["value"]) for c in self.record.choices or []]

    @property
    def errors(self) -> list[str]:
        """Requests Discord would have rejected (e.g. acknowledging twice)."""
        return list(self.record.errors)

    def text(self) -> str:
        lines: list[str] = []
        announced: set[int] = set()
        for message in self.messages:
            lines += render_message(self._world, message, self._interactions,
                                    announced=announced)
        return "\n".join(lines)

    async def wait_until_filled(self, timeout: float | None = None) -> Message:
        """After a "thinking" defer: wait for the edit or follow-up that replaces it."""
        original = self.record.original
        if original is None:
            raise AssertionError(f"{self.record.label!r} has no deferred message")
        return await self._world.notifier.wait_for(
            lambda: original if not original.loading else None,
            timeout=self._timeout(timeout),
            what=f"the bot to fill in its deferred ('thinking') reply to {self.record.label!r}",
        )

    async def wait_for_update(self, timeout: float | None = None) -> Message:
        """Wait until the response message has been edited since the bot first answered."""
        original = self.record.original
        if original is None:
            raise AssertionError(f"{self.record.label!r} has no message to be updated")
        baseline = self._edits_at_response
        return await self._world.notifier.wait_for(
            lambda: original if original.edits > baseline else None,
            timeout=self._timeout(timeout),
            what=f"an edit of the message answering {self.record.label!r}",
        )

    async def wait_followups(self, count: int = 1, timeout: float | None = None) -> list[Message]:
        await self._world.notifier.wait_for(
            lambda: len(self.record.followups) >= count,
            timeout=self._timeout(timeout),
            what=f"{count} follow-up message(s) to {self.record.label!r}",
        )
        return self.followups

    def _timeout(self, timeout: float | None) -> float:
        return self._timeout_default if timeout is None else timeout
