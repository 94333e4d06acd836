"""``FakeDiscord``: builds the world, serves REST + gateway on 127.0.0.1, exposes test controls."""

from __future__ import annotations

import logging
import re
from types import TracebackType

from aiohttp import web

from fakediscord.commands import CommandRegistry
from fakediscord.common import DEFAULT_BOT, Perm
from fakediscord.control import control_routes
from fakediscord.driver import Driver
from fakediscord.entities import Channel, User
from fakediscord.faults import Fault, check_status
from fakediscord.gateway import Gateway
from fakediscord.interactions import Interactions
from fakediscord.rest import API_PREFIX, GATEWAY_PATH, build_app
from fakediscord.services import Services
from fakediscord.world import Guild, GuildRef, UserRef, World

log = logging.getLogger(__name__)

HOST = "127.0.0.1"


class FakeDiscord:
    """A local stand-in for Discord's REST API and gateway, for one bot application.

    Build the world (guilds, users, roles, channels) before ``start()``; the bot sees
    it in READY/GUILD_CREATE. Later additions are visible over REST only.
    """

    def __init__(
        self,
        *,
        token: str | None = None,
        bot_name: str = "Munda Arbitrator",
        bot_permissions: int = DEFAULT_BOT,
        heartbeat_interval_ms: int = 41250,
        interaction_deadline: float = 3.0,
        recommended_shards: int = 1,
    ) -> None:
        self.world = World(bot_name=bot_name, bot_permissions=bot_permissions)
        self.commands = CommandRegistry(self.world.ids, self.world.application_id)
        self.interactions = Interactions(self.world, deadline=interaction_deadline)
        self.gateway = Gateway(self.world, token=token, heartbeat_interval_ms=heartbeat_interval_ms,
                               recommended_shards=recommended_shards)
        self.services = Services(
            world=self.world,
            commands=self.commands,
            interactions=self.interactions,
            gateway=self.gateway,
            token=token,
        )
        self._runner: web.AppRunner | None = None
        self.root_url = ""
        self.base_url = ""

    # -- world building ---------------------------------------------------

    @property
    def bot_user(self) -> User:
        return self.world.bot

    def add_user(
        self, username: str, *, global_name: str | None = None, user_id: int | None = None
    ) -> User:
        return self.world.add_user(username, global_name=global_name, user_id=user_id)

    def add_guild(
        self, name: str, *, owner: User | None = None, guild_id: int | None = None
    ) -> Guild:
        return self.world.add_guild(name, owner=owner, guild_id=guild_id)

    def guild(self, ref: GuildRef) -> Guild:
        return self.world.guild(ref)

    def user(self, ref: UserRef) -> User:
        return self.world.user(ref)

    def channel(self, ref: Channel | str | int, guild: GuildRef | None = None) -> Channel:
        return self.world.channel(ref, guild)

    @classmethod
    def demo(cls, *, token: str | None = None, interaction_deadline: float = 3.0) -> FakeDiscord:
        """A fake pre-populated by :meth:`populate_demo`."""
        fake = cls(token=token, interaction_deadline=interaction_deadline)
        fake.populate_demo()
        return fake

    def populate_demo(self) -> None:
        """Two guilds, four users and an admin role; docs/fake-discord.md lists the layout."""
        alice = self.add_user("alice", global_name="Alice")
        bob = self.add_user("bob", global_name="Bob")
        carol = self.add_user("carol", global_name="Carol")
        dave = self.add_user("dave", global_name="Dave")

        hive = self.add_guild("Underhive", owner=alice)
        arbitrator = hive.add_role("Arbitrator", Perm.ADMINISTRATOR, color=0xB22222, hoist=True)
        hive.add_text_channel("general", topic="Chatter")
        hive.add_text_channel("campaign", topic="Campaign announcements")
        hive.add_member(bob)
        hive.add_member(carol, roles=[arbitrator])

        spire = self.add_guild("Spire", owner=dave)
        spire_admin = spire.add_role("Arbitrator", Perm.ADMINISTRATOR)
        spire.add_text_channel("general")
        spire.add_member(bob, roles=[spire_admin])

    # -- lifecycle --------------------------------------------------------

    @property
    def gateway_url(self) -> str:
        return self.gateway.url

    async def start(self, port: int = 0) -> str:
        """Serve on 127.0.0.1 (``port=0`` picks a free port); returns the REST base URL."""
        app = build_app(self.services, control_routes(self.services))
        runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, HOST, port)
        await site.start()
        self._runner = runner
        bound_port = runner.addresses[0][1]
        self.root_url = f"http://{HOST}:{bound_port}"
        self.base_url = self.root_url + API_PREFIX
        self.world.http_root = self.root_url
        self.gateway.url = f"ws://{HOST}:{bound_port}{GATEWAY_PATH}"
        log.info("fake discord listening on %s (gateway %s)", self.base_url, self.gateway.url)
        return self.base_url

    async def stop(self) -> None:
        if self._runner is None:
            return
        await self.gateway.close()
        await self._runner.cleanup()
        self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- test controls ----------------------------------------------------

    def driver(self, *, timeout: float = 5.0) -> Driver:
        return Driver(self.services, timeout=timeout)

    async def wait_until_ready(self, timeout: float = 10.0, *, commands: bool = True) -> None:
        """Wait until a bot session is identified and (by default) has synced commands."""

        def ready() -> bool:
            connected = self.gateway.is_connected()
            return connected and (not commands or self.commands.sync_count > 0)

        what = "the bot to connect" + (" and sync its application commands" if commands else "")
        await self.world.notifier.wait_for(ready, timeout=timeout, what=what)

    async def wait_until_connected(self, timeout: float = 10.0, *, min_resumes: int = 0) -> None:
        """Wait for a live gateway connection, optionally one that has RESUMEd at least N times."""

        def ok() -> bool:
            return self.gateway.is_connected() and self.gateway.resume_count >= min_resumes

        await self.world.notifier.wait_for(
            ok, timeout=timeout, what=f"a gateway connection with >= {min_resumes} resumes"
        )

    async def drop_gateway(self, *, code: int = 4000, resumable: bool = True) -> int:
        """Close the bot's websocket from the server side (it should reconnect and RESUME)."""
        return await self.gateway.drop(code=code, resumable=resumable)

    async def send_reconnect(self) -> None:
        await self.gateway.send_reconnect()

    def fail_requests(
        self,
        method: str,
        path: str | re.Pattern[str],
        *,
        status: int,
        times: int = 1,
        retry_after: float = 0.5,
        is_global: bool = False,
    ) -> Fault:
        """Make the next ``times`` requests matching ``method`` and ``path`` (after
        ``/api/v10``; a compiled pattern must match it whole) fail with ``status``
        (429 with ``retry_after``, or 500/502/503/504) before any handler runs."""
        check_status(status)
        fault = Fault(method, path, status, times, retry_after=retry_after,
                      is_global=is_global)
        self.services.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        self.services.faults.clear()

    def transcript(self, channel: Channel | str | int, guild: GuildRef | None = None) -> str:
        return self.services.transcript(channel, guild)

    @property
    def unknown_routes(self) -> list[str]:
        return self.services.unknown_routes

    @property
    def internal_errors(self) -> list[str]:
        return self.services.internal_errors
