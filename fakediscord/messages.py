"""Messages: storage, creation/editing from API payloads, and Discord-shaped rendering."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from fakediscord import limits
from fakediscord.common import JsonObj, MessageFlag, iso_now
from fakediscord.errors import FakeDiscordError, invalid_form
from fakediscord.world import Channel, User, World

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")

# Keys echoed back untouched; the fake has no behaviour for them but tests may assert on them.
_PASSTHROUGH = ("poll", "sticker_ids", "nonce", "enforce_nonce", "applied_tags")


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request (or a driver-provided attachment)."""

    filename: str
    data: bytes
    content_type: str | None = None


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
        return [c for c in self.iter_components() if c.get("type") in (3, 5, 6, 7, 8)]

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

    def to_payload(self, world: World) -> JsonObj:
        payload: JsonObj = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "author": self.author.to_payload(),
            "content": self.content,
            "timestamp": self.created_at,
            "edited_timestamp": self.edited_at,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [
                world.users[u].to_payload() for u in self.mentioned_user_ids() if u in world.users
            ],
            "mention_roles": _ROLE_MENTION.findall(self.content),
            "attachments": [a.to_payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            payload["guild_id"] = str(self.guild_id)
            member = world.guilds[self.guild_id].members.get(self.author.id)
            if member is not None and self.webhook_id is None:
                payload["member"] = member.to_payload(with_user=False)
        if self.reactions:
            payload["reactions"] = [
                {"emoji": {"id": None, "name": e}, "count": len(users), "me": world.bot.id in users}
                for e, users in self.reactions.items()
            ]
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.thread is not None:
            payload["thread"] = self.thread.to_payload()
        if self.message_reference is not None:
            payload["message_reference"] = self.message_reference
        if self.interaction is not None:
            payload.update(_interaction_fields(self.interaction))
        payload.update(self.extra)
        return payload


def _interaction_fields(meta: InteractionMeta) -> JsonObj:
    fields: JsonObj = {
        "interaction_metadata": {
            "id": str(meta.interaction_id),
            "type": meta.interaction_type,
            "user": meta.user.to_payload(),
            "authorizing_integration_owners": {},
        }
    }
    if meta.interacted_message_id is not None:
        fields["interaction_metadata"]["interacted_message_id"] = str(meta.interacted_message_id)
    if meta.command_name is not None:
        fields["interaction_metadata"]["name"] = meta.command_name
        # The deprecated field is still sent by Discord for command replies.
        fields["interaction"] = {
            "id": str(meta.interaction_id),
            "type": meta.interaction_type,
            "name": meta.command_name,
            "user": meta.user.to_payload(),
        }
    return fields


def _attachments_from(
    world: World,
    channel: Channel,
    spec: Sequence[JsonObj] | None,
    files: Sequence[Upload],
    existing: Sequence[Attachment],
) -> list[Attachment]:
    """Apply Discord's attachment rules: ``{"id": n}`` refers to upload n or a kept attachment."""
    if spec is None:
        spec = [{"id": i, "filename": f.filename} for i, f in enumerate(files)]
        spec = [*({"id": str(a.id)} for a in existing), *spec]
    kept = {str(a.id): a for a in existing}
    result: list[Attachment] = []
    for entry in spec:
        key = str(entry.get("id"))
        if key in kept:
            result.append(kept[key])
            continue
        try:
            upload = files[int(key)]
        except (ValueError, IndexError):
            raise invalid_form(
                f"attachment {key} refers to no uploaded file", "attachments"
            ) from None
        attachment_id = world.ids.next()
        filename = entry.get("filename") or upload.filename
        result.append(
            Attachment(
                id=attachment_id,
                filename=filename,
                data=upload.data,
                url=f"{world.http_root}/attachments/{channel.id}/{attachment_id}/{filename}",
                content_type=upload.content_type,
                description=entry.get("description"),
            )
        )
    return result


def apply_payload(
    world: World,
    message: Message,
    payload: JsonObj,
    files: Sequence[Upload] = (),
    *,
    creating: bool,
) -> None:
    """Set message fields from a create/edit payload, validating the result first."""
    content = message.content
    if "content" in payload:
        content = "" if payload["content"] is None else str(payload["content"])
    embeds = message.embeds
    if "embeds" in payload:
        embeds = list(payload["embeds"] or [])
    components = message.components
    if "components" in payload:
        components = list(payload["components"] or [])
    flags = message.flags
    if payload.get("flags") is not None:
        requested = int(payload["flags"])
        if creating:
            flags = requested
        else:
            # Only these flags can change on edit; ephemerality is fixed at creation.
            mutable = MessageFlag.SUPPRESS_EMBEDS | MessageFlag.IS_COMPONENTS_V2
            flags = (flags & ~mutable) | (requested & mutable)
    attachments = message.attachments
    if "attachments" in payload or files:
        attachments = _attachments_from(
            world, message.channel, payload.get("attachments"), files, message.attachments
        )
    limits.check_uploads(len(attachments), sum(len(upload.data) for upload in files))
    limits.check_message(content, embeds, components, flags, has_files=bool(attachments))

    message.content = content
    message.embeds = embeds
    message.components = components
    message.flags = flags & ~MessageFlag.LOADING
    message.attachments = attachments
    if "allowed_mentions" in payload:
        message.allowed_mentions = payload["allowed_mentions"]
    if creating:
        message.tts = bool(payload.get("tts", False))
        message.message_reference = payload.get("message_reference")
    for key in _PASSTHROUGH:
        if key in payload:
            message.extra[key] = payload[key]
    if not creating:
        message.edited_at = iso_now()
        message.edits += 1
