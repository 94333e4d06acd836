"""Where the bot talks to: Discord itself, a REST proxy, or the project's fake Discord.

discord.py keeps both addresses as class attributes (``Route.BASE`` for REST
and ``DiscordWebSocket.DEFAULT_GATEWAY`` for the first gateway connection), so
they are process-wide; the bot process sets them once at start-up.
"""

from __future__ import annotations

import logging

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import HTTPClient, Route

from bot.config import DISCORD_API_BASE, DiscordSettings

log = logging.getLogger(__name__)


def apply_rest_base(settings: DiscordSettings) -> None:
    Route.BASE = settings.api_base
    if settings.gateway_url:
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


async def discover_gateway(settings: DiscordSettings, http: HTTPClient) -> None:
    """Ask a non-Discord REST base for its gateway when none was configured.

    Against Discord the library's default gateway is right; against a proxy or
    the fake server the REST side knows where its websocket lives.
    """
    if settings.gateway_url or settings.api_base == DISCORD_API_BASE:
        return
    _shards, url, _limits = await http.get_bot_gateway()
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)
    log.info("gateway discovered at %s", url)
