"""State-changing operations on messages and threads.

Every change goes through here so that gateway events and waiter wake-ups are
never forgotten, whichever REST route or driver call caused it.
"""

from __future__ import annotations

from collections.abc import Sequence

from fakediscord.common import ChannelType, JsonObj, MessageFlag
from fakediscord.entities import Channel, InteractionMeta, Message, User
from fakediscord.errors import ApiError
from fakediscord.messages import Upload, apply_payload
from fakediscord.world import World


def post_message(
    world: World,
    channel: Channel,
    author: User,
    payload: JsonObj,
    files: Sequence[Upload] = (),
    *,
    message_type: int = 0,
    webhook_id: int | None = None,
    interaction: InteractionMeta | None = None,
    allow_ephemeral: bool = False,
) -> Message:
    if channel.is_thread and channel.archived and channel.locked:
        raise ApiError(400, 50083, "Thread is archived")
    message = Message(
        id=world.ids.next(),
        channel=channel,
        author=author,
        type=message_type,
        webhook_id=webhook_id,
        application_id=world.application_id if interaction else None,
        interaction=interaction,
    )
    apply_payload(world, message, payload, files, creating=True)
    if message.ephemeral:
        if allow_ephemeral and interaction is not None:
            message.ephemeral_to = interaction.user
        else:
            # Only interaction responses can be ephemeral; Discord drops the flag elsewhere.
            message.flags &= ~MessageFlag.EPHEMERAL
    _insert(world, message)
    return message


def post_placeholder(
    world: World, channel: Channel, interaction: InteractionMeta, *, ephemeral: bool
) -> Message:
    """The 'Bot is thinking...' message a deferred response shows until it is filled in."""
    flags = MessageFlag.LOADING | (MessageFlag.EPHEMERAL if ephemeral else 0)
    message = Message(
        id=world.ids.next(),
        channel=channel,
        author=world.bot,
        type=20 if interaction.command_name else 0,
        flags=int(flags),
        webhook_id=world.application_id,
        application_id=world.application_id,
        interaction=interaction,
        ephemeral_to=interaction.user if ephemeral else None,
    )
    _insert(world, message)
    return message


def _insert(world: World, message: Message) -> None:
    message.channel.messages.append(message)
    world.messages[message.id] = message
    world.emit("MESSAGE_CREATE", message)


def edit_message(
    world: World, message: Message, payload: JsonObj, files: Sequence[Upload] = ()
) -> Message:
    if message.deleted:
        raise ApiError(404, 10008, "Unknown Message")
    apply_payload(world, message, payload, files, creating=False)
    world.emit("MESSAGE_UPDATE", message)
    return message


def fill_placeholder(
    world: World, message: Message, payload: JsonObj, files: Sequence[Upload] = ()
) -> Message:
    """Replace a deferred placeholder's content without counting it as a user-visible edit."""
    apply_payload(world, message, payload, files, creating=False)
    message.edited_at = None
    message.edits -= 1
    world.emit("MESSAGE_UPDATE", message)
    return message


def delete_message(world: World, message: Message) -> None:
    if message.deleted:
        raise ApiError(404, 10008, "Unknown Message")
    message.deleted = True
    message.channel.messages.remove(message)
    world.messages.pop(message.id, None)
    world.emit("MESSAGE_DELETE", message)


def create_thread(
    world: World,
    parent: Channel,
    owner: User,
    name: str,
    *,
    from_message: Message | None = None,
    kind: int = ChannelType.PUBLIC_THREAD,
    auto_archive_duration: int = 1440,
    invitable: bool = True,
) -> Channel:
    if parent.type != ChannelType.GUILD_TEXT:
        raise ApiError(400, 50024, "Cannot execute action on this channel type")
    if not 1 <= len(name) <= 100:
        raise ApiError(400, 50035, "Invalid Form Body: thread name must be 1..100 characters")
    if from_message is not None and from_message.thread is not None:
        raise ApiError(400, 160004, "A thread has already been created for this message")
    # A thread started from a message shares that message's id, as on Discord.
    thread_id = from_message.id if from_message is not None else world.ids.next()
    thread = Channel(
        id=thread_id,
        type=ChannelType.PUBLIC_THREAD if from_message is not None else kind,
        name=name,
        guild_id=parent.guild_id,
        parent_id=parent.id,
        owner_id=owner.id,
        auto_archive_duration=auto_archive_duration,
        invitable=invitable,
    )
    thread.member_ids.add(owner.id)
    world.register_channel(thread)
    if from_message is not None:
        from_message.thread = thread
    world.emit("THREAD_CREATE", thread)
    return thread
