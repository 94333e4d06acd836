"""Point discord.py, in the current process, at a fake Discord server.

discord.py has two process-wide settings that decide where it connects:

* ``discord.http.Route.BASE`` -- every REST and webhook URL (read when each
  request's Route is built, so changing it affects later requests immediately);
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` -- the websocket URL. A
  plain ``Client``/``commands.Bot`` never calls ``GET /gateway/bot`` (only
  ``AutoShardedClient`` does); it connects straight to this default, and falls
  back to it again whenever a session is invalidated.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import yarl

ENV_VAR = "FAKE_DISCORD_URL"
GATEWAY_PATH = "/gateway-ws"


def gateway_url_for(base_url: str) -> str:
    """``http://127.0.0.1:P/api/v10`` -> ``ws://127.0.0.1:P/gateway-ws``."""
    url = yarl.URL(base_url)
    scheme = "wss" if url.scheme == "https" else "ws"
    return str(url.with_scheme(scheme).with_path(GATEWAY_PATH).with_query(None))


def point_discord_py_at(base_url: str) -> Callable[[], None]:
    """Redirect discord.py's REST and gateway URLs; returns a function that undoes it."""
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = base_url.rstrip("/")
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url_for(base_url))

    def restore() -> None:
        Route.BASE = old_base
        DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    return restore


def point_discord_py_from_env(var: str = ENV_VAR) -> str | None:
    """If ``$FAKE_DISCORD_URL`` is set, point discord.py at it and return the URL."""
    base_url = os.environ.get(var)
    if base_url:
        point_discord_py_at(base_url)
    return base_url or None
