"""Interactions: what is dispatched to the bot, and how its callbacks change the world."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from fakediscord import limits, store
from fakediscord.common import CallbackType, InteractionType, JsonObj, MessageFlag
from fakediscord.entities import Channel, InteractionMeta, Message, User
from fakediscord.errors import ApiError, invalid_form
from fakediscord.messages import Upload, message_payload
from fakediscord.world import Guild, World

# Which initial responses Discord accepts for each interaction type.
_ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    InteractionType.APPLICATION_COMMAND: frozenset({1, 4, 5, 9, 12}),
    InteractionType.MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9, 12}),
    InteractionType.AUTOCOMPLETE: frozenset({8}),
    InteractionType.MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}


@dataclass(eq=False)
class InteractionRecord:
    """One interaction and everything the bot did in reply to it."""

    id: int
    token: str
    type: int
    user: User
    channel: Channel
    guild: Guild | None
    data: JsonObj
    label: str
    command_name: str | None = None
    source_message: Message | None = None
    payload: JsonObj = field(default_factory=dict, repr=False)
    created_at: float = field(default_factory=time.perf_counter)
    dispatched_at: float | None = None
    callback_at: float | None = None
    callback_type: int | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    modal: JsonObj | None = None
    choices: list[JsonObj] | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def latency(self) -> float | None:
        """Seconds from the gateway dispatch hitting the socket to the bot's first callback."""
        if self.dispatched_at is None or self.callback_at is None:
            return None
        return self.callback_at - self.dispatched_at

    @property
    def meta(self) -> InteractionMeta:
        return InteractionMeta(
            interaction_id=self.id,
            interaction_type=self.type,
            user=self.user,
            command_name=self.command_name,
            interacted_message_id=self.source_message.id if self.source_message else None,
        )


class Interactions:
    """All interactions by id and token, plus the rules for responding to them."""

    def __init__(self, world: World, *, deadline: float = 3.0) -> None:
        self.world = world
        # Discord invalidates an interaction that is not acknowledged within 3 seconds.
        self.deadline = deadline
        self.by_id: dict[int, InteractionRecord] = {}
        self.by_token: dict[str, InteractionRecord] = {}

    def all(self) -> list[InteractionRecord]:
        return list(self.by_id.values())

    def create(
        self,
        kind: InteractionType,
        user: User,
        channel: Channel,
        data: JsonObj,
        *,
        label: str,
        command_name: str | None = None,
        source_message: Message | None = None,
    ) -> InteractionRecord:
        world = self.world
        guild = world.guilds.get(channel.guild_id) if channel.guild_id else None
        record = InteractionRecord(
            id=world.ids.next(),
            token=f"fake-{secrets.token_urlsafe(24)}",
            type=int(kind),
            user=user,
            channel=channel,
            guild=guild,
            data=data,
            label=label,
            command_name=command_name,
            source_message=source_message,
        )
        record.payload = self._payload(record)
        self.by_id[record.id] = record
        self.by_token[record.token] = record
        # For a listener keeping the channels' history (fakediscord/timeline.py); the
        # gateway passes over what is not a message or a channel.
        world.emit("INTERACTION_RECORDED", record)
        return record

    def _payload(self, rec: InteractionRecord) -> JsonObj:
        world = self.world
        payload: JsonObj = {
            "id": str(rec.id),
            "application_id": str(world.application_id),
            "type": rec.type,
            "token": rec.token,
            "version": 1,
            "data": rec.data,
            "channel_id": str(rec.channel.id),
            "channel": rec.channel.to_payload(),
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if rec.guild is not None:
            member = rec.guild.member(rec.user)
            payload.update(
                guild_id=str(rec.guild.id),
                guild={"id": str(rec.guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=member.to_payload(with_permissions=True),
                app_permissions=str(rec.guild.permissions_for(world.bot.id)),
                authorizing_integration_owners={"0": str(rec.guild.id)},
                context=0,
            )
            payload["channel"]["permissions"] = str(member.permissions)
        else:
            payload.update(
                user=rec.user.to_payload(),
                app_permissions="0",
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if rec.source_message is not None:
            payload["message"] = message_payload(world, rec.source_message)
        return payload

    def lookup(self, interaction_id: str, token: str) -> InteractionRecord:
        rec = self.by_token.get(token)
        if rec is None or str(rec.id) != interaction_id:
            raise ApiError(404, 10062, "Unknown interaction")
        return rec

    def webhook(self, application_id: str, token: str) -> InteractionRecord:
        rec = self.by_token.get(token)
        if rec is None or application_id != str(self.world.application_id):
            raise ApiError(404, 10015, "Unknown Webhook")
        return rec

    # -- initial response -------------------------------------------------

    def callback(self, rec: InteractionRecord, body: JsonObj, files: Sequence[Upload]) -> JsonObj:
        now = time.perf_counter()
        kind = body.get("type")
        try:
            if rec.callback_type is not None:
                raise ApiError(400, 40060, "Interaction has already been acknowledged.")
            started = rec.dispatched_at or rec.created_at
            if now - started > self.deadline:
                raise ApiError(404, 10062, "Unknown interaction")
            if not isinstance(kind, int) or kind not in _ALLOWED_CALLBACKS[rec.type]:
                raise invalid_form(
                    f"callback type {kind} is not valid for interaction type {rec.type}", "type"
                )
            data = body.get("data") or {}
            self._apply_callback(rec, int(kind), data, files)
        except ApiError as exc:
            rec.errors.append(f"callback type {kind}: {exc}")
            self.world.notifier.notify()
            raise
        rec.callback_at = now
        rec.callback_type = int(kind)
        self.world.notifier.notify()
        return self._callback_response(rec)

    def _apply_callback(
        self, rec: InteractionRecord, kind: int, data: JsonObj, files: Sequence[Upload]
    ) -> None:
        world = self.world
        if kind == CallbackType.CHANNEL_MESSAGE:
            rec.original = store.post_message(
                world,
                rec.channel,
                world.bot,
                data,
                files,
                message_type=20 if rec.type == InteractionType.APPLICATION_COMMAND else 0,
                webhook_id=world.application_id,
                interaction=rec.meta,
                allow_ephemeral=True,
            )
        elif kind == CallbackType.DEFERRED_CHANNEL_MESSAGE:
            ephemeral = bool(int(data.get("flags") or 0) & MessageFlag.EPHEMERAL)
            rec.original = store.post_placeholder(world, rec.channel, rec.meta, ephemeral=ephemeral)
        elif kind in (CallbackType.DEFERRED_UPDATE_MESSAGE, CallbackType.UPDATE_MESSAGE):
            if rec.source_message is None:
                raise invalid_form("there is no message to update for this interaction", "type")
            rec.original = rec.source_message
            if kind == CallbackType.UPDATE_MESSAGE:
                store.edit_message(world, rec.source_message, data, files)
        elif kind == CallbackType.AUTOCOMPLETE_RESULT:
            choices = list(data.get("choices") or [])
            limits.check_choices(choices)
            rec.choices = choices
        elif kind == CallbackType.MODAL:
            limits.check_modal(data)
            rec.modal = data
        elif kind == CallbackType.LAUNCH_ACTIVITY:
            raise invalid_form("activities are not supported by the fake", "type")

    def _callback_response(self, rec: InteractionRecord) -> JsonObj:
        interaction: JsonObj = {"id": str(rec.id), "type": rec.type}
        resource: JsonObj = {"type": rec.callback_type}
        if rec.original is not None:
            interaction.update(
                response_message_id=str(rec.original.id),
                response_message_loading=rec.original.loading,
                response_message_ephemeral=rec.original.ephemeral,
            )
            if rec.callback_type in (CallbackType.CHANNEL_MESSAGE, CallbackType.UPDATE_MESSAGE):
                resource["message"] = message_payload(self.world, rec.original)
        return {"interaction": interaction, "resource": resource}

    # -- webhook follow-ups -----------------------------------------------

    def original(self, rec: InteractionRecord) -> Message:
        if rec.original is None or rec.original.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return rec.original

    def followup_target(self, rec: InteractionRecord, message_id: str) -> Message:
        if message_id == "@original":
            return self.original(rec)
        for message in [rec.original, *rec.followups]:
            if message is not None and str(message.id) == message_id and not message.deleted:
                return message
        raise ApiError(404, 10008, "Unknown Message")

    def followup(
        self,
        rec: InteractionRecord,
        payload: JsonObj,
        files: Sequence[Upload],
        thread: Channel | None,
    ) -> Message:
        if rec.callback_type is None or rec.callback_type in (
            CallbackType.AUTOCOMPLETE_RESULT,
            CallbackType.MODAL,
        ):
            raise ApiError(404, 10015, "Unknown Webhook")
        world = self.world
        original = rec.original
        if original is not None and original.loading:
            # The first follow-up after a "thinking" defer becomes the deferred message,
            # keeping the ephemerality chosen when deferring (edits cannot change it).
            message = store.fill_placeholder(world, original, payload, files)
        else:
            message = store.post_message(
                world,
                thread or rec.channel,
                world.bot,
                payload,
                files,
                webhook_id=world.application_id,
                interaction=rec.meta,
                allow_ephemeral=True,
            )
        rec.followups.append(message)
        world.notifier.notify()
        return message

    def edit(
        self, rec: InteractionRecord, message_id: str, payload: JsonObj, files: Sequence[Upload]
    ) -> Message:
        message = self.followup_target(rec, message_id)
        if message.loading:
            return store.fill_placeholder(self.world, message, payload, files)
        return store.edit_message(self.world, message, payload, files)
