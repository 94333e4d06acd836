"""``/_fake/*`` HTTP endpoints for driving a standalone fake by hand (curl, a REPL).

Tests should use :class:`Driver` directly; these exist so ``python -m fakediscord``
is useful against a bot started in another terminal.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web
from aiohttp.typedefs import Handler

from fakediscord.driver import Driver
from fakediscord.errors import FakeDiscordError
from fakediscord.http_util import ok, read_body
from fakediscord.rest import API_PREFIX
from fakediscord.result import InteractionResult
from fakediscord.services import Services


def _describe(result: InteractionResult) -> dict[str, Any]:
    return {
        "interaction_id": str(result.id),
        "kind": result.kind,
        "latency": result.latency,
        "message_id": str(result.message.id) if result.message else None,
        "content": result.content,
        "ephemeral": result.ephemeral,
        "embeds": result.embeds,
        "components": result.components,
        "modal": result.modal,
        "choices": [{"name": c.name, "value": c.value} for c in result.choices],
        "text": result.text(),
    }


def control_routes(services: Services) -> list[tuple[str, str, Handler]]:
    driver = Driver(services)

    async def summary(request: web.Request) -> web.Response:
        world = services.world
        return ok(
            {
                # Read per request: the port is known only once the server listens.
                "base_url": world.http_root + API_PREFIX,
                "gateway_url": services.gateway.url,
                "bot": world.bot.to_payload(),
                "connected": services.gateway.is_connected(),
                "guilds": {
                    g.name: {
                        "id": str(g.id),
                        "channels": [c.name for c in g.channels.values()],
                        "members": [m.user.username for m in g.members.values()],
                        "commands": services.commands.visible_names(g.id),
                    }
                    for g in world.guilds.values()
                },
                "unknown_routes": services.unknown_routes,
            }
        )

    async def transcript(request: web.Request) -> web.Response:
        guild = request.query.get("guild")
        channel = request.query.get("channel", "general")
        try:
            text = services.transcript(channel, guild)
        except FakeDiscordError as exc:
            return web.Response(status=404, text=str(exc))
        return web.Response(text=text + "\n")

    async def act(request: web.Request) -> web.Response:
        body, _ = await read_body(request)
        action = request.match_info["action"]
        try:
            if action == "slash":
                result = await driver.slash(
                    body.get("guild"),
                    body["channel"],
                    body["user"],
                    body["command"],
                    options=body.get("options") or {},
                )
            elif action == "click":
                result = await driver.click(
                    int(body["message_id"]), body["custom_id"], body["user"]
                )
            elif action == "select":
                result = await driver.select(
                    int(body["message_id"]), body["custom_id"], body["values"], body["user"]
                )
            else:
                return web.Response(status=404, text=f"unknown action {action}")
        except (FakeDiscordError, KeyError) as exc:
            return ok({"error": str(exc)}, status=400)
        return ok(_describe(result))

    return [
        ("GET", "/_fake", summary),
        ("GET", "/_fake/transcript", transcript),
        ("POST", "/_fake/{action}", act),
    ]
