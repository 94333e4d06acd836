"""A local fake of Discord's REST API v10 and gateway, plus a driver for tests.

See docs/fake-discord.md. Typical use::

    fake = FakeDiscord.demo()
    base_url = await fake.start()
    restore = point_discord_py_at(base_url)   # in the bot's process
    ...
    driver = fake.driver()
    result = await driver.slash("Underhive", "general", "alice", "gang create", name="Ash Wolves")
"""

from fakediscord.client import gateway_url_for, point_discord_py_at, point_discord_py_from_env
from fakediscord.common import CallbackType, ChannelType, InteractionType, MessageFlag, Perm
from fakediscord.driver import BotResponseError, Driver
from fakediscord.entities import Attachment, Channel, Message, User
from fakediscord.errors import (
    ApiError,
    CommandInputError,
    FakeDiscordError,
    NotConnected,
    WaitTimeout,
)
from fakediscord.gateway import guild_id_on_shard
from fakediscord.interactions import InteractionRecord
from fakediscord.messages import Upload
from fakediscord.result import Choice, InteractionResult
from fakediscord.server import FakeDiscord
from fakediscord.world import Guild, Member, Role, World

__all__ = [
    "ApiError",
    "Attachment",
    "BotResponseError",
    "CallbackType",
    "Channel",
    "ChannelType",
    "Choice",
    "CommandInputError",
    "Driver",
    "FakeDiscord",
    "FakeDiscordError",
    "Guild",
    "InteractionRecord",
    "InteractionResult",
    "InteractionType",
    "Member",
    "Message",
    "MessageFlag",
    "NotConnected",
    "Perm",
    "Role",
    "Upload",
    "User",
    "WaitTimeout",
    "World",
    "gateway_url_for",
    "guild_id_on_shard",
    "point_discord_py_at",
    "point_discord_py_from_env",
]
