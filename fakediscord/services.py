"""The shared objects every HTTP handler needs, bundled to avoid import cycles."""

from __future__ import annotations

import abc
import logging
from collections import deque
from dataclasses import dataclass, field

from aiohttp.typedefs import Handler

from fakediscord.commands import CommandRegistry
from fakediscord.entities import Channel
from fakediscord.faults import Fault
from fakediscord.gateway import Gateway
from fakediscord.interactions import Interactions
from fakediscord.transcript import render_channel
from fakediscord.world import GuildRef, World

log = logging.getLogger("fakediscord")


@dataclass(eq=False)
class Services:
    world: World
    commands: CommandRegistry
    interactions: Interactions
    gateway: Gateway
    token: str | None
    # (method, path, status) of recent requests, newest last; handy when a test fails.
    requests: deque[tuple[str, str, int]] = field(default_factory=lambda: deque(maxlen=2000))
    unknown_routes: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    # Injected failures (FakeDiscord.fail_requests), checked before any handler.
    faults: list[Fault] = field(default_factory=list)

    def transcript(self, channel: Channel | str | int, guild: GuildRef | None = None) -> str:
        """The channel as a person reads it (fakediscord/transcript.py)."""
        return render_channel(self.world, self.world.channel(channel, guild), self.interactions)


class RouteGroup(abc.ABC):
    """One area's REST routes (fakediscord/rest*.py), each handler working on the services."""

    def __init__(self, services: Services) -> None:
        self.s = services
        self.world = services.world

    @abc.abstractmethod
    def routes(self) -> list[tuple[str, str, Handler]]:
        """(method, path after /api/v10, handler) of every route of the group."""
