"""REST routes for channels, messages, threads, reactions and attachment downloads."""

from __future__ import annotations

from aiohttp import web
from aiohttp.typedefs import Handler

from fakediscord import limits, store
from fakediscord.common import ChannelType, JsonObj, Perm
from fakediscord.entities import Channel, Message, User
from fakediscord.errors import ApiError, not_found
from fakediscord.http_util import known, no_content, ok, read_body, snowflake
from fakediscord.messages import message_payload
from fakediscord.services import RouteGroup, Services


class ChannelRoutes(RouteGroup):
    def routes(self) -> list[tuple[str, str, Handler]]:
        c = "/channels/{channel_id}"
        m = c + "/messages/{message_id}"
        return [
            ("GET", c, self.get_channel),
            ("PATCH", c, self.edit_channel),
            ("DELETE", c, self.delete_channel),
            ("GET", c + "/messages", self.list_messages),
            ("POST", c + "/messages", self.create_message),
            ("POST", c + "/messages/bulk-delete", self.bulk_delete),
            ("GET", m, self.get_message),
            ("PATCH", m, self.edit_message),
            ("DELETE", m, self.delete_message),
            ("POST", m + "/threads", self.thread_from_message),
            ("PUT", m + "/reactions/{emoji}/@me", self.add_reaction),
            ("DELETE", m + "/reactions/{emoji}/@me", self.remove_reaction),
            ("POST", c + "/threads", self.thread_without_message),
            ("POST", c + "/typing", self.typing),
            ("PUT", c + "/thread-members/{user_id}", self.join_thread),
            ("DELETE", c + "/thread-members/{user_id}", self.leave_thread),
        ]

    # -- lookups and permission checks ------------------------------------

    def channel(self, request: web.Request) -> Channel:
        return known(self.world.channels, request, "channel_id", "Channel", 10003)

    def message(self, request: web.Request, channel: Channel) -> Message:
        message = self.world.messages.get(snowflake(request, "message_id"))
        # Ephemeral messages are invisible to channel routes; only the webhook token reaches them.
        if message is None or message.channel is not channel or message.ephemeral:
            raise not_found("Message", 10008)
        return message

    def require(self, channel: Channel, perm: int) -> None:
        if channel.guild_id is None:
            return
        perms = self.world.guilds[channel.guild_id].permissions_for(self.world.bot.id)
        if perms & perm != perm:
            raise ApiError(403, 50013, "Missing Permissions")

    # -- channels ---------------------------------------------------------

    async def get_channel(self, request: web.Request) -> web.Response:
        return ok(self.channel(request).to_payload())

    async def edit_channel(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        body, _ = await read_body(request)
        self.require(channel, Perm.MANAGE_THREADS if channel.is_thread else Perm.MANAGE_CHANNELS)
        limits.check_thread_archive(body)
        for key in ("name", "topic", "archived", "locked", "invitable", "auto_archive_duration"):
            if key in body:
                setattr(channel, key, body[key])
        self.world.emit("CHANNEL_UPDATE", channel)
        return ok(channel.to_payload())

    async def delete_channel(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        self.require(channel, Perm.MANAGE_THREADS if channel.is_thread else Perm.MANAGE_CHANNELS)
        self.world.channels.pop(channel.id, None)
        if channel.guild_id is not None:
            self.world.guilds[channel.guild_id].channels.pop(channel.id, None)
        self.world.emit("CHANNEL_DELETE", channel)
        return ok(channel.to_payload())

    # -- messages ---------------------------------------------------------

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        self.require(channel, Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        limit = max(1, min(100, int(request.query.get("limit", "50"))))
        visible = [m for m in channel.messages if not m.ephemeral]
        if "before" in request.query:
            visible = [m for m in visible if m.id < int(request.query["before"])]
        if "after" in request.query:
            after = int(request.query["after"])
            visible = [m for m in visible if m.id > after][:limit]
        if "around" in request.query:
            around = int(request.query["around"])
            older = [m for m in visible if m.id <= around][-(limit // 2 + 1) :]
            newer = [m for m in visible if m.id > around][: limit - len(older)]
            visible = older + newer
        # Discord returns newest first.
        picked = list(reversed(visible[-limit:]))
        return ok([message_payload(self.world, m) for m in picked])

    async def create_message(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        send = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
        self.require(channel, Perm.VIEW_CHANNEL | send)
        body, files = await read_body(request)
        repeated = _same_nonce(channel, self.world.bot, body)
        if repeated is not None:
            # enforce_nonce: Discord answers with the message it already made for this nonce.
            return ok(message_payload(self.world, repeated))
        ref = body.get("message_reference")
        message_type = 0
        if ref and ref.get("message_id") and ref.get("type", 0) == 0:
            message_type = 19
            target = self.world.messages.get(int(ref["message_id"]))
            if (target is None or target.channel is not channel) and ref.get(
                "fail_if_not_exists", True
            ):
                raise ApiError(400, 50035, "Invalid Form Body: Unknown message")
        message = store.post_message(
            self.world, channel, self.world.bot, body, files, message_type=message_type
        )
        return ok(message_payload(self.world, message))

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        self.require(channel, Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        return ok(message_payload(self.world, self.message(request, channel)))

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        message = self.message(request, channel)
        body, files = await read_body(request)
        if message.author is not self.world.bot:
            # Others' messages may only have their embeds suppressed.
            if set(body) - {"flags"}:
                raise ApiError(403, 50005, "Cannot edit a message authored by another user")
            self.require(channel, Perm.MANAGE_MESSAGES)
        store.edit_message(self.world, message, body, files)
        return ok(message_payload(self.world, message))

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        message = self.message(request, channel)
        if message.author is not self.world.bot:
            self.require(channel, Perm.MANAGE_MESSAGES)
        store.delete_message(self.world, message)
        return no_content()

    async def bulk_delete(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        self.require(channel, Perm.MANAGE_MESSAGES)
        body, _ = await read_body(request)
        ids = [int(i) for i in body.get("messages") or []]
        if not 2 <= len(ids) <= 100:
            raise ApiError(400, 50016, "Provide at least 2 and fewer than 100 messages to delete")
        for message_id in ids:
            message = self.world.messages.get(message_id)
            if message is not None and message.channel is channel and not message.ephemeral:
                store.delete_message(self.world, message)
        return no_content()

    async def typing(self, request: web.Request) -> web.Response:
        self.channel(request)
        return no_content()

    async def add_reaction(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        self.require(channel, Perm.ADD_REACTIONS)
        message = self.message(request, channel)
        message.reactions.setdefault(request.match_info["emoji"], set()).add(self.world.bot.id)
        self.world.emit("MESSAGE_REACTION_ADD", message.id)
        return no_content()

    async def remove_reaction(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        message = self.message(request, channel)
        users = message.reactions.get(request.match_info["emoji"], set())
        users.discard(self.world.bot.id)
        if not users:
            message.reactions.pop(request.match_info["emoji"], None)
        self.world.emit("MESSAGE_REACTION_REMOVE", message.id)
        return no_content()

    # -- threads ----------------------------------------------------------

    async def thread_from_message(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        message = self.message(request, channel)
        self.require(channel, Perm.CREATE_PUBLIC_THREADS)
        body, _ = await read_body(request)
        return self._new_thread(channel, body, from_message=message)

    async def thread_without_message(self, request: web.Request) -> web.Response:
        channel = self.channel(request)
        body, _ = await read_body(request)
        kind = int(body.get("type") or ChannelType.PRIVATE_THREAD)
        needed = (
            Perm.CREATE_PRIVATE_THREADS
            if kind == ChannelType.PRIVATE_THREAD
            else Perm.CREATE_PUBLIC_THREADS
        )
        self.require(channel, needed)
        if kind not in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD):
            raise ApiError(400, 50035, "Invalid Form Body: unsupported thread type (no forums)")
        return self._new_thread(channel, body, kind=kind,
                                invitable=bool(body.get("invitable", True)))

    def _new_thread(self, channel: Channel, body: JsonObj, *, from_message: Message | None = None,
                    kind: int = ChannelType.PUBLIC_THREAD, invitable: bool = True) -> web.Response:
        """The bot's new thread in ``channel``, named and archived as the request's body says."""
        limits.check_thread_archive(body)
        thread = store.create_thread(
            self.world, channel, self.world.bot, str(body.get("name") or ""),
            from_message=from_message, kind=kind, invitable=invitable,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        )
        return ok(thread.to_payload(), status=201)

    def _thread_user(self, request: web.Request) -> tuple[Channel, int]:
        channel = self.channel(request)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        raw = request.match_info["user_id"]
        user_id = self.world.bot.id if raw == "@me" else int(raw)
        if user_id not in self.world.users:
            raise not_found("User", 10013)
        return channel, user_id

    async def join_thread(self, request: web.Request) -> web.Response:
        channel, user_id = self._thread_user(request)
        channel.member_ids.add(user_id)
        self.world.emit("THREAD_MEMBERS_UPDATE", channel)
        return no_content()

    async def leave_thread(self, request: web.Request) -> web.Response:
        channel, user_id = self._thread_user(request)
        channel.member_ids.discard(user_id)
        self.world.emit("THREAD_MEMBERS_UPDATE", channel)
        return no_content()


def _same_nonce(channel: Channel, author: User, body: dict[str, object]) -> Message | None:
    nonce = body.get("nonce")
    if not body.get("enforce_nonce") or nonce is None:
        return None
    for message in reversed(channel.messages):
        if message.author is author and not message.deleted and message.extra.get(
            "nonce"
        ) == nonce:
            return message
    return None


async def serve_attachment(services: Services, request: web.Request) -> web.StreamResponse:
    attachment_id = snowflake(request, "attachment_id")
    world = services.world
    found = world.uploads.get(attachment_id)
    if found is None:
        for message in world.iter_messages():
            for attachment in message.attachments:
                if attachment.id == attachment_id:
                    found = attachment
    if found is None:
        raise not_found("Attachment", 0)
    return web.Response(
        body=found.data, content_type=found.content_type or "application/octet-stream"
    )
