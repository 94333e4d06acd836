"""Users, channels and the messages and attachments in them.

They refer to each other (a channel lists its messages, a message names its channel
and author), so they live together here, below the world that registers them
(fakediscord/world.py) and the code that builds messages from API payloads
(fakediscord/messages.py). Plain mutable dataclasses, so tests can inspect them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from fakediscord import limits
from fakediscord.common import (
    SELECT_TYPES,
    THREAD_TYPES,
    ChannelType,
    JsonObj,
    MessageFlag,
    iso_now,
)
from fakediscord.errors import FakeDiscordError

_USER_MENTION = re.compile(r"<@!?(\d+)>")


@dataclass(eq=False)
class User:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False

    @property
    def display_name(self) -> str:
        return self.global_name or self.username

    def to_payload(self) -> JsonObj:
        return {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def to_full_payload(self) -> JsonObj:
        """The user with the fields the spec's UserResponse requires besides (the
        scheduled-event routes are checked against it)."""
        return {**self.to_payload(), "flags": 0, "primary_guild": None}


@dataclass(eq=False)
class Channel:
    id: int
    type: int
    name: str
    guild_id: int | None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    created_at: str = field(default_factory=iso_now)
    recipients: list[User] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list, repr=False)
    member_ids: set[int] = field(default_factory=set, repr=False)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def last_message_id(self) -> str | None:
        return str(self.messages[-1].id) if self.messages else None

    def to_payload(self) -> JsonObj:
        payload: JsonObj = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "last_message_id": self.last_message_id,
            "flags": 0,
        }
        if self.type == ChannelType.DM:
            payload["recipients"] = [u.to_payload() for u in self.recipients]
            return payload
        payload.update(
            guild_id=str(self.guild_id),
            parent_id=str(self.parent_id) if self.parent_id else None,
            position=self.position,
            permission_overwrites=[],
            nsfw=False,
            rate_limit_per_user=0,
        )
        if self.is_thread:
            payload.update(
                owner_id=str(self.owner_id),
                message_count=len(self.messages),
                total_message_sent=len(self.messages),
                member_count=len(self.member_ids),
                thread_metadata={
                    "archived": self.archived,
                    "locked": self.locked,
                    "invitable": self.invitable,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.created_at,
                    "create_timestamp": self.created_at,
                },
            )
        else:
            payload["topic"] = self.topic
        return payload


@dataclass(eq=False)
class Attachment:
    id: int
    filename: str
    data: bytes = field(repr=False)
    url: str
    content_type: str | None = None
    description: str | None = None

    def to_payload(self) -> JsonObj:
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "description": self.description,
        }


@dataclass(frozen=True)
class InteractionMeta:
    """What Discord attaches to a message created in response to an interaction."""

    interaction_id: int
    interaction_type: int
    user: User
    command_name: str | None = None
    interacted_message_id: int | None = None


@dataclass(eq=False)
class Message:
    id: int
    channel: Channel = field(repr=False)
    author: User
    content: str = ""
    embeds: list[JsonObj] = field(default_factory=list)
    components: list[JsonObj] = field(default_factory=list)
    flags: int = 0
    attachments: list[Attachment] = field(default_factory=list)
    allowed_mentions: JsonObj | None = None
    type: int = 0
    tts: bool = False
    created_at: str = field(default_factory=iso_now)
    edited_at: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction: InteractionMeta | None = None
    ephemeral_to: User | None = None
    deleted: bool = False
    thread: Channel | None = field(default=None, repr=False)
    message_reference: JsonObj | None = None
    extra: JsonObj = field(default_factory=dict)
    edits: int = 0
    reactions: dict[str, set[int]] = field(default_factory=dict)

    @property
    def channel_id(self) -> int:
        return self.channel.id

    @property
    def guild_id(self) -> int | None:
        return self.channel.guild_id

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & MessageFlag.EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred 'is thinking...' placeholder."""
        return bool(self.flags & MessageFlag.LOADING)

    def iter_components(self) -> Iterator[JsonObj]:
        return limits.walk_components(self.components)

    @property
    def buttons(self) -> list[JsonObj]:
        return [c for c in self.iter_components() if c.get("type") == 2]

    @property
    def selects(self) -> list[JsonObj]:
        return [c for c in self.iter_components() if c.get("type") in SELECT_TYPES]

    def component(self, ref: str) -> JsonObj:
        """Find a component by custom_id, or failing that by its (unique) label."""
        comps = list(self.iter_components())
        for comp in comps:
            if comp.get("custom_id") == ref:
                return comp
        by_label = [c for c in comps if c.get("label") == ref or c.get("placeholder") == ref]
        if len(by_label) == 1:
            return by_label[0]
        described = [
            f"{c.get('label') or c.get('placeholder') or '?'}={c.get('custom_id')!r}"
            for c in comps
            if c.get("custom_id")
        ]
        raise FakeDiscordError(
            f"message {self.id} has no component {ref!r} "
            f"({len(by_label)} label matches); components: {described}"
        )

    def mentioned_user_ids(self) -> list[int]:
        return [int(m) for m in _USER_MENTION.findall(self.content)]

    def pinged_user_ids(self) -> list[int]:
        """Users Discord would actually notify, honouring ``allowed_mentions``."""
        mentioned = self.mentioned_user_ids()
        rules = self.allowed_mentions
        if rules is None:
            return mentioned
        explicit = {int(u) for u in rules.get("users") or []}
        if "users" in (rules.get("parse") or []):
            return mentioned
        return [u for u in mentioned if u in explicit]

    def embed_text(self) -> str:
        parts: list[str] = []
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            for fld in embed.get("fields") or []:
                parts += [fld.get("name") or "", fld.get("value") or ""]
            parts.append((embed.get("footer") or {}).get("text") or "")
        return "\n".join(p for p in parts if p)


# Guild Scheduled Event statuses and entity types (Discord's numbers).
EVENT_SCHEDULED, EVENT_ACTIVE, EVENT_COMPLETED, EVENT_CANCELED = 1, 2, 3, 4
EVENT_STAGE, EVENT_VOICE, EVENT_EXTERNAL = 1, 2, 3


@dataclass(eq=False)
class ScheduledEvent:
    """A Guild Scheduled Event, as the server's Events list shows it."""

    id: int
    guild_id: int
    name: str
    scheduled_start_time: str
    entity_type: int
    creator: User
    description: str | None = None
    scheduled_end_time: str | None = None
    channel_id: int | None = None
    location: str | None = None
    status: int = EVENT_SCHEDULED
    privacy_level: int = 2
    # Members who pressed Interested, in the order they did.
    interested: list[User] = field(default_factory=list)

    def to_payload(self, *, with_user_count: bool = False) -> JsonObj:
        payload: JsonObj = {
            "id": str(self.id), "guild_id": str(self.guild_id), "name": self.name,
            "description": self.description,
            "channel_id": None if self.channel_id is None else str(self.channel_id),
            "creator_id": str(self.creator.id), "creator": self.creator.to_full_payload(),
            "image": None, "scheduled_start_time": self.scheduled_start_time,
            "scheduled_end_time": self.scheduled_end_time, "status": self.status,
            "entity_type": self.entity_type, "entity_id": None,
            "entity_metadata": {"location": self.location} if self.location is not None
            else None,
            "privacy_level": self.privacy_level, "recurrence_rule": None,
            "guild_scheduled_event_exceptions": [],
        }
        if with_user_count:
            payload["user_count"] = len(self.interested)
        return payload
