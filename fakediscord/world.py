"""The in-memory world: the registry of users, guilds, roles, members and channels.

Entities are plain mutable dataclasses so tests can inspect them directly; the
``to_payload`` methods render them the way Discord's API does. Users, channels and
messages are in fakediscord/entities.py.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field

from fakediscord.common import (
    ALL_PERMISSIONS,
    DEFAULT_BOT,
    DEFAULT_EVERYONE,
    ChannelType,
    JsonObj,
    Perm,
    Snowflakes,
    iso_now,
)
from fakediscord.entities import Attachment, Channel, Message, ScheduledEvent, User
from fakediscord.errors import FakeDiscordError
from fakediscord.waiting import Notifier


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    color: int = 0
    hoist: bool = False
    mentionable: bool = False
    managed: bool = False

    def to_payload(self) -> JsonObj:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": self.hoist,
            "managed": self.managed,
            "mentionable": self.mentionable,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }


@dataclass(eq=False)
class Member:
    user: User
    guild: Guild = field(repr=False)
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def permissions(self) -> int:
        return self.guild.permissions_for(self.user.id)

    @property
    def display_name(self) -> str:
        return self.nick or self.user.display_name

    def to_payload(self, *, with_user: bool = True, with_permissions: bool = False) -> JsonObj:
        payload: JsonObj = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user.to_payload()
        if with_permissions:
            payload["permissions"] = str(self.permissions)
        return payload


@dataclass(eq=False)
class Guild:
    world: World = field(repr=False)
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict, repr=False)
    channels: dict[int, Channel] = field(default_factory=dict, repr=False)
    members: dict[int, Member] = field(default_factory=dict, repr=False)
    scheduled_events: dict[int, ScheduledEvent] = field(default_factory=dict, repr=False)

    @property
    def everyone(self) -> Role:
        return self.roles[self.id]

    def add_role(
        self,
        name: str,
        permissions: int = 0,
        *,
        color: int = 0,
        hoist: bool = False,
        mentionable: bool = True,
        managed: bool = False,
    ) -> Role:
        role = Role(
            id=self.world.ids.next(),
            guild_id=self.id,
            name=name,
            permissions=int(permissions),
            position=len(self.roles),
            color=color,
            hoist=hoist,
            mentionable=mentionable,
            managed=managed,
        )
        self.roles[role.id] = role
        return role

    def add_text_channel(
        self, name: str, *, topic: str | None = None, category: Channel | None = None
    ) -> Channel:
        return self._add_channel(ChannelType.GUILD_TEXT, name, topic=topic, parent=category)

    def add_category(self, name: str) -> Channel:
        return self._add_channel(ChannelType.GUILD_CATEGORY, name)

    def _add_channel(
        self, kind: int, name: str, *, topic: str | None = None, parent: Channel | None = None
    ) -> Channel:
        position = sum(1 for c in self.channels.values() if not c.is_thread)
        channel = Channel(
            id=self.world.ids.next(),
            type=kind,
            name=name,
            guild_id=self.id,
            parent_id=parent.id if parent else None,
            position=position,
            topic=topic,
        )
        self.world.register_channel(channel)
        return channel

    def add_member(
        self, user: User, *, roles: Iterable[Role] = (), nick: str | None = None
    ) -> Member:
        member = Member(user=user, guild=self, role_ids=[r.id for r in roles], nick=nick)
        self.members[user.id] = member
        return member

    def channel(self, ref: Channel | str | int) -> Channel:
        if isinstance(ref, Channel):
            return ref
        for channel in self.channels.values():
            if ref in (channel.id, channel.name, f"#{channel.name}", str(channel.id)):
                return channel
        raise FakeDiscordError(
            f"guild {self.name!r} has no channel {ref!r}; "
            f"channels: {sorted(c.name for c in self.channels.values())}"
        )

    def role(self, ref: Role | str | int) -> Role:
        if isinstance(ref, Role):
            return ref
        for role in self.roles.values():
            if ref in (role.id, role.name, str(role.id)):
                return role
        raise FakeDiscordError(f"guild {self.name!r} has no role {ref!r}")

    def member(self, ref: Member | User | str | int) -> Member:
        if isinstance(ref, Member):
            return ref
        user = self.world.user(ref)
        try:
            return self.members[user.id]
        except KeyError:
            raise FakeDiscordError(f"{user.username!r} is not a member of {self.name!r}") from None

    def permissions_for(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        if member is None:
            return 0
        perms = self.everyone.permissions
        for role_id in member.role_ids:
            role = self.roles.get(role_id)
            if role is not None:
                perms |= role.permissions
        if perms & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def to_create_payload(self, *, all_members: bool) -> JsonObj:
        bot_id = self.world.bot.id
        members = [m for m in self.members.values() if all_members or m.id == bot_id]
        return {
            "id": str(self.id),
            "name": self.name,
            "owner_id": str(self.owner_id),
            "icon": None,
            "splash": None,
            "banner": None,
            "description": None,
            "features": [],
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "unavailable": False,
            "large": False,
            "joined_at": iso_now(),
            "member_count": len(self.members),
            "roles": [r.to_payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "channels": [c.to_payload() for c in self.channels.values() if not c.is_thread],
            "threads": [
                c.to_payload() for c in self.channels.values() if c.is_thread and not c.archived
            ],
            "members": [m.to_payload() for m in members],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [e.to_payload() for e in self.scheduled_events.values()],
            "soundboard_sounds": [],
        }

    def to_rest_payload(self) -> JsonObj:
        payload = self.to_create_payload(all_members=False)
        for key in ("channels", "threads", "members", "presences", "voice_states", "joined_at"):
            payload.pop(key, None)
        payload["approximate_member_count"] = len(self.members)
        payload["approximate_presence_count"] = 0
        return payload


UserRef = User | Member | str | int
GuildRef = Guild | str | int


class World:
    """Registry of every entity, plus the bot user that the application logs in as."""

    def __init__(
        self,
        *,
        bot_name: str = "Munda Arbitrator",
        bot_permissions: int = DEFAULT_BOT,
        everyone_permissions: int = DEFAULT_EVERYONE,
    ) -> None:
        self.ids = Snowflakes()
        self.bot = User(id=self.ids.next(), username=bot_name, bot=True)
        self.application_id = self.bot.id
        self.app_owner = User(id=self.ids.next(), username="app-owner")
        self.bot_permissions = bot_permissions
        self.everyone_permissions = everyone_permissions
        self.users: dict[int, User] = {self.bot.id: self.bot}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        # Files given to attachment options; message attachments live on their messages.
        self.uploads: dict[int, Attachment] = {}
        # Where attachments are served from; set once the HTTP server knows its port.
        self.http_root = "http://127.0.0.1"
        self.notifier = Notifier()
        self.listeners: list[Callable[[str, object], None]] = []

    def emit(self, event: str, subject: object) -> None:
        """Tell listeners (the gateway) about a change and wake every waiter."""
        for listener in self.listeners:
            listener(event, subject)
        self.notifier.notify()

    def add_user(
        self, username: str, *, global_name: str | None = None, bot: bool = False,
        user_id: int | None = None,
    ) -> User:
        """``user_id`` pins the id (a world rebuilt to match a stored database); default: new."""
        user = User(id=self._fresh_id(user_id, self.users), username=username,
                    global_name=global_name, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self, name: str, *, owner: User | None = None, guild_id: int | None = None
    ) -> Guild:
        """``guild_id`` pins the id, as for :meth:`add_user`."""
        guild_id = self._fresh_id(guild_id, self.guilds)
        owner_id = owner.id if owner else self.app_owner.id
        guild = Guild(world=self, id=guild_id, name=name, owner_id=owner_id)
        # @everyone shares the guild's id, as on Discord.
        guild.roles[guild_id] = Role(
            id=guild_id, guild_id=guild_id, name="@everyone", permissions=self.everyone_permissions
        )
        bot_role = guild.add_role(self.bot.username, self.bot_permissions, managed=True)
        guild.add_member(self.bot, roles=[bot_role])
        if owner is not None:
            guild.add_member(owner)
        self.guilds[guild.id] = guild
        return guild

    def _fresh_id(self, wanted: int | None, taken: Container[int]) -> int:
        if wanted is None:
            return self.ids.next()
        if wanted in taken:
            raise FakeDiscordError(f"id {wanted} is already taken")
        return wanted

    def register_channel(self, channel: Channel) -> None:
        self.channels[channel.id] = channel
        if channel.guild_id is not None:
            self.guilds[channel.guild_id].channels[channel.id] = channel

    def guild(self, ref: GuildRef) -> Guild:
        if isinstance(ref, Guild):
            return ref
        for guild in self.guilds.values():
            if ref in (guild.id, guild.name, str(guild.id)):
                return guild
        raise FakeDiscordError(
            f"no guild {ref!r}; guilds: {sorted(g.name for g in self.guilds.values())}"
        )

    def user(self, ref: UserRef) -> User:
        if isinstance(ref, User):
            return ref
        if isinstance(ref, Member):
            return ref.user
        for user in self.users.values():
            if ref in (user.id, user.username, user.global_name, str(user.id)):
                return user
        raise FakeDiscordError(
            f"no user {ref!r}; users: {sorted(u.username for u in self.users.values())}"
        )

    def channel(self, ref: Channel | str | int, guild: GuildRef | None = None) -> Channel:
        if isinstance(ref, Channel):
            return ref
        if guild is not None:
            return self.guild(guild).channel(ref)
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            found = self.channels.get(int(ref))
            if found is not None:
                return found
        matches = [c for c in self.channels.values() if ref in (c.name, f"#{c.name}")]
        if len(matches) == 1:
            return matches[0]
        raise FakeDiscordError(
            f"channel {ref!r} is unknown or ambiguous ({len(matches)} matches); pass the guild too"
        )

    def iter_messages(self) -> Iterator[Message]:
        for channel in self.channels.values():
            yield from channel.messages

    def dm_channel(self, user: User) -> Channel:
        for channel in self.channels.values():
            if channel.type == ChannelType.DM and channel.recipients == [user]:
                return channel
        channel = Channel(
            id=self.ids.next(), type=ChannelType.DM, name=f"dm-{user.username}", guild_id=None
        )
        channel.recipients.append(user)
        self.register_channel(channel)
        return channel
