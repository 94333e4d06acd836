"""Messages: creation and editing from API payloads, and Discord-shaped rendering.

The message itself (and its channel, author and attachments) is in
fakediscord/entities.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from fakediscord import limits
from fakediscord.common import JsonObj, MessageFlag, iso_now
from fakediscord.entities import Attachment, Channel, InteractionMeta, Message
from fakediscord.errors import invalid_form
from fakediscord.world import World

_ROLE_MENTION = re.compile(r"<@&(\d+)>")

# Keys echoed back untouched; the fake has no behaviour for them but tests may assert on them.
_PASSTHROUGH = ("poll", "sticker_ids", "nonce", "enforce_nonce", "applied_tags")


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request (or a driver-provided attachment)."""

    filename: str
    data: bytes
    content_type: str | None = None


def message_payload(world: World, message: Message) -> JsonObj:
    """The message as Discord's API shows it; mentions, member and reactions read the world."""
    payload: JsonObj = {
        "id": str(message.id),
        "channel_id": str(message.channel.id),
        "author": message.author.to_payload(),
        "content": message.content,
        "timestamp": message.created_at,
        "edited_timestamp": message.edited_at,
        "tts": message.tts,
        "mention_everyone": False,
        "mentions": [
            world.users[u].to_payload() for u in message.mentioned_user_ids() if u in world.users
        ],
        "mention_roles": _ROLE_MENTION.findall(message.content),
        "attachments": [a.to_payload() for a in message.attachments],
        "embeds": message.embeds,
        "components": message.components,
        "pinned": False,
        "type": message.type,
        "flags": message.flags,
    }
    if message.guild_id is not None:
        payload["guild_id"] = str(message.guild_id)
        member = world.guilds[message.guild_id].members.get(message.author.id)
        if member is not None and message.webhook_id is None:
            payload["member"] = member.to_payload(with_user=False)
    if message.reactions:
        payload["reactions"] = [
            {"emoji": {"id": None, "name": e}, "count": len(users), "me": world.bot.id in users}
            for e, users in message.reactions.items()
        ]
    if message.webhook_id is not None:
        payload["webhook_id"] = str(message.webhook_id)
    if message.application_id is not None:
        payload["application_id"] = str(message.application_id)
    if message.thread is not None:
        payload["thread"] = message.thread.to_payload()
    if message.message_reference is not None:
        payload["message_reference"] = message.message_reference
    if message.interaction is not None:
        payload.update(_interaction_fields(message.interaction))
    payload.update(message.extra)
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
