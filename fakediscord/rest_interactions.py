"""REST routes an interaction's token unlocks: the callback and the follow-up webhook."""

from __future__ import annotations

from aiohttp import web
from aiohttp.typedefs import Handler

from fakediscord import store
from fakediscord.entities import Channel
from fakediscord.errors import not_found
from fakediscord.http_util import no_content, ok, read_body
from fakediscord.interactions import InteractionRecord
from fakediscord.messages import message_payload
from fakediscord.services import RouteGroup, Services


class InteractionRoutes(RouteGroup):
    def __init__(self, services: Services) -> None:
        super().__init__(services)
        self.interactions = services.interactions

    def routes(self) -> list[tuple[str, str, Handler]]:
        w = "/webhooks/{application_id}/{token}"
        return [
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.callback),
            ("GET", w, self.webhook_info),
            ("POST", w, self.followup),
            ("GET", w + "/messages/{message_id}", self.get_message),
            ("PATCH", w + "/messages/{message_id}", self.edit_message),
            ("DELETE", w + "/messages/{message_id}", self.delete_message),
        ]

    def record(self, request: web.Request) -> InteractionRecord:
        return self.interactions.webhook(
            request.match_info["application_id"], request.match_info["token"]
        )

    async def callback(self, request: web.Request) -> web.Response:
        rec = self.interactions.lookup(
            request.match_info["interaction_id"], request.match_info["token"]
        )
        body, files = await read_body(request)
        result = self.interactions.callback(rec, body, files)
        if request.query.get("with_response") in ("1", "true", "True"):
            return ok(result)
        return no_content()

    async def webhook_info(self, request: web.Request) -> web.Response:
        rec = self.record(request)
        return ok(
            {
                "id": str(self.world.application_id),
                "type": 3,
                "name": self.world.bot.username,
                "avatar": None,
                "channel_id": str(rec.channel.id),
                "guild_id": str(rec.guild.id) if rec.guild else None,
                "application_id": str(self.world.application_id),
                "token": rec.token,
            }
        )

    def _thread(self, request: web.Request, rec: InteractionRecord) -> Channel | None:
        raw = request.query.get("thread_id")
        if raw is None:
            return None
        thread = self.world.channels.get(int(raw))
        if thread is None or not thread.is_thread or thread.guild_id != rec.channel.guild_id:
            raise not_found("Channel", 10003)
        return thread

    async def followup(self, request: web.Request) -> web.Response:
        rec = self.record(request)
        body, files = await read_body(request)
        message = self.interactions.followup(rec, body, files, self._thread(request, rec))
        if request.query.get("wait") in ("1", "true", "True"):
            return ok(message_payload(self.world, message))
        return no_content()

    async def get_message(self, request: web.Request) -> web.Response:
        rec = self.record(request)
        message = self.interactions.followup_target(rec, request.match_info["message_id"])
        return ok(message_payload(self.world, message))

    async def edit_message(self, request: web.Request) -> web.Response:
        rec = self.record(request)
        body, files = await read_body(request)
        message = self.interactions.edit(rec, request.match_info["message_id"], body, files)
        return ok(message_payload(self.world, message))

    async def delete_message(self, request: web.Request) -> web.Response:
        rec = self.record(request)
        message = self.interactions.followup_target(rec, request.match_info["message_id"])
        store.delete_message(self.world, message)
        return no_content()
