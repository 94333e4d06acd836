"""The aiohttp application: middleware, core REST routes and the catch-all 404."""

from __future__ import annotations

import functools
import logging

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from fakediscord.errors import ApiError, not_found
from fakediscord.http_util import error_response, known, ok, read_body, snowflake
from fakediscord.rest_channels import ChannelRoutes, serve_attachment
from fakediscord.rest_events import EventRoutes
from fakediscord.rest_interactions import InteractionRoutes
from fakediscord.services import RouteGroup, Services
from fakediscord.world import Guild

log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway-ws"
# Interaction callbacks and webhooks authenticate with their token in the URL, not a header.
_TOKENLESS = (f"{API_PREFIX}/interactions/", f"{API_PREFIX}/webhooks/")


class CoreRoutes(RouteGroup):
    def routes(self) -> list[tuple[str, str, Handler]]:
        app = "/applications/{application_id}"
        gcmd = app + "/guilds/{guild_id}/commands"
        return [
            ("GET", "/users/@me", self.me),
            ("GET", "/users/{user_id}", self.user),
            ("POST", "/users/@me/channels", self.open_dm),
            ("GET", "/oauth2/applications/@me", self.application),
            ("GET", "/applications/@me", self.application),
            ("GET", "/gateway", self.gateway),
            ("GET", "/gateway/bot", self.gateway_bot),
            ("GET", app + "/commands", self.list_commands),
            ("PUT", app + "/commands", self.overwrite_commands),
            ("POST", app + "/commands", self.upsert_command),
            ("GET", app + "/commands/{command_id}", self.get_command),
            ("PATCH", app + "/commands/{command_id}", self.edit_command),
            ("DELETE", app + "/commands/{command_id}", self.delete_command),
            ("GET", gcmd, self.list_commands),
            ("PUT", gcmd, self.overwrite_commands),
            ("POST", gcmd, self.upsert_command),
            ("GET", gcmd + "/permissions", self.command_permissions),
            ("GET", gcmd + "/{command_id}", self.get_command),
            ("PATCH", gcmd + "/{command_id}", self.edit_command),
            ("DELETE", gcmd + "/{command_id}", self.delete_command),
            ("GET", "/guilds/{guild_id}", self.guild),
            ("GET", "/guilds/{guild_id}/channels", self.guild_channels),
            ("GET", "/guilds/{guild_id}/roles", self.guild_roles),
            ("GET", "/guilds/{guild_id}/members", self.guild_members),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.guild_member),
            ("GET", "/guilds/{guild_id}/threads/active", self.active_threads),
        ]

    # -- identity ---------------------------------------------------------

    async def me(self, request: web.Request) -> web.Response:
        return ok({**self.world.bot.to_payload(), "verified": True, "mfa_enabled": False})

    async def user(self, request: web.Request) -> web.Response:
        return ok(known(self.world.users, request, "user_id", "User", 10013).to_payload())

    async def open_dm(self, request: web.Request) -> web.Response:
        body, _ = await read_body(request)
        user = self.world.users.get(int(body.get("recipient_id") or 0))
        if user is None:
            raise not_found("User", 10013)
        return ok(self.world.dm_channel(user).to_payload())

    async def application(self, request: web.Request) -> web.Response:
        world = self.world
        return ok(
            {
                "id": str(world.application_id),
                "name": world.bot.username,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": world.app_owner.to_payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "bot": world.bot.to_payload(),
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
                "approximate_guild_count": len(world.guilds),
            }
        )

    async def gateway(self, request: web.Request) -> web.Response:
        return ok({"url": self.s.gateway.url})

    async def gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        gateway = self.s.gateway
        return ok({"url": gateway.url, "shards": gateway.recommended_shards,
                   "session_start_limit": limit})

    # -- application commands ---------------------------------------------

    def _scope(self, request: web.Request) -> int | None:
        if request.match_info["application_id"] != str(self.world.application_id):
            raise not_found("Application", 10002)
        if "guild_id" not in request.match_info:
            return None
        return self._guild(request).id

    async def list_commands(self, request: web.Request) -> web.Response:
        return ok(self.s.commands.list_scope(self._scope(request)))

    async def overwrite_commands(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body, _ = await read_body(request)
        stored = self.s.commands.overwrite(scope, body.get("__list__", body))
        log.info("commands synced for %s: %s", scope or "global", [c["name"] for c in stored])
        self.world.notifier.notify()
        return ok(stored)

    async def upsert_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body, _ = await read_body(request)
        stored = self.s.commands.upsert(scope, body)
        self.world.notifier.notify()
        return ok(stored, status=201)

    async def get_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        return ok(self.s.commands.get(scope, request.match_info["command_id"]))

    async def edit_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body, _ = await read_body(request)
        return ok(self.s.commands.edit(scope, request.match_info["command_id"], body))

    async def delete_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        self.s.commands.delete(scope, request.match_info["command_id"])
        return web.Response(status=204)

    async def command_permissions(self, request: web.Request) -> web.Response:
        self._scope(request)
        return ok([])

    # -- guilds -----------------------------------------------------------

    def _guild(self, request: web.Request) -> Guild:
        guild = self.world.guilds.get(snowflake(request, "guild_id"))
        if guild is None or self.world.bot.id not in guild.members:
            raise not_found("Guild", 10004)
        return guild

    async def guild(self, request: web.Request) -> web.Response:
        return ok(self._guild(request).to_rest_payload())

    async def guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        return ok([c.to_payload() for c in guild.channels.values() if not c.is_thread])

    async def guild_roles(self, request: web.Request) -> web.Response:
        return ok([r.to_payload() for r in self._guild(request).roles.values()])

    async def guild_members(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        limit = max(1, min(1000, int(request.query.get("limit", "1"))))
        after = int(request.query.get("after", "0"))
        members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)
        return ok([m.to_payload() for m in members[:limit]])

    async def guild_member(self, request: web.Request) -> web.Response:
        member = known(self._guild(request).members, request, "user_id", "Member", 10007)
        return ok(member.to_payload())

    async def active_threads(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        threads = [c for c in guild.channels.values() if c.is_thread and not c.archived]
        return ok({"threads": [t.to_payload() for t in threads], "members": []})


def _authorized(services: Services, request: web.Request) -> bool:
    if not request.path.startswith(API_PREFIX + "/") or request.path.startswith(_TOKENLESS):
        return True
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bot ") or not header[4:]:
        return False
    return services.token is None or header[4:] == services.token


def _make_middleware(services: Services) -> Middleware:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response: web.StreamResponse
        try:
            if not _authorized(services, request):
                raise ApiError(401, 0, "401: Unauthorized")
            fault = _fault_for(services, request)
            response = await handler(request) if fault is None else fault
        except ApiError as exc:
            if exc.code not in (0, 10062):
                log.info("%s %s -> %s %s", request.method, request.path, exc.status, exc.message)
            response = error_response(exc)
        except web.HTTPException:
            raise
        except Exception as exc:
            # A 5xx would make discord.py retry for ~25s; a 400 fails fast and loudly instead.
            log.exception("fake discord crashed on %s %s", request.method, request.path)
            services.internal_errors.append(f"{request.method} {request.path}: {exc!r}")
            response = error_response(ApiError(400, 0, f"fake discord internal error: {exc!r}"))
        services.requests.append((request.method, request.path, response.status))
        return response

    return middleware


def _fault_for(services: Services, request: web.Request) -> web.Response | None:
    """The injected failure this request meets, if any (docs/fake-discord.md)."""
    if not request.path.startswith(API_PREFIX + "/"):
        return None
    path = request.path[len(API_PREFIX):]
    for fault in services.faults:
        if fault.matches(request.method, path):
            log.info("%s %s -> injected %s", request.method, request.path, fault.status)
            return fault.respond(request.method, path)
    return None


async def _unknown_route(services: Services, request: web.Request) -> web.Response:
    route = f"{request.method} {request.path}"
    log.warning("fake discord: unimplemented route %s", route)
    services.unknown_routes.append(route)
    return error_response(ApiError(404, 0, f"404: Not Found (fake discord has no route {route})"))


def build_app(
    services: Services, extra_routes: list[tuple[str, str, Handler]] | None = None
) -> web.Application:
    app = web.Application(
        middlewares=[_make_middleware(services)],
        client_max_size=32 * 1024 * 1024,
    )
    for group in (CoreRoutes(services), ChannelRoutes(services), InteractionRoutes(services),
                  EventRoutes(services)):
        for method, path, handler in group.routes():
            app.router.add_route(method, API_PREFIX + path, handler)
    app.router.add_get(GATEWAY_PATH, services.gateway.handle)
    app.router.add_get(
        "/attachments/{channel_id}/{attachment_id}/{filename}",
        functools.partial(serve_attachment, services),
    )
    for method, path, handler in extra_routes or []:
        app.router.add_route(method, path, handler)
    # Registered last: aiohttp matches routes in registration order.
    app.router.add_route("*", "/{tail:.*}", functools.partial(_unknown_route, services))
    return app
