"""The gateway websocket: HELLO/IDENTIFY/READY, heartbeats, RESUME with replay, dispatches.

Frames are always uncompressed JSON text. discord.py asks for ``compress=zlib-stream``
in the query string, but it parses TEXT frames as plain JSON and only runs the
decompressor on BINARY frames, so ignoring the request is safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from fakediscord.common import Intent, JsonObj
from fakediscord.entities import Channel, Message
from fakediscord.errors import NotConnected
from fakediscord.messages import message_payload
from fakediscord.world import World

log = logging.getLogger(__name__)

OnSent = Callable[[], None] | None

# Close codes from Discord's documentation; discord.py reconnects on some, gives up on others.
UNKNOWN_OPCODE = 4001
DECODE_ERROR = 4002
NOT_AUTHENTICATED = 4003
AUTHENTICATION_FAILED = 4004
ALREADY_AUTHENTICATED = 4005
INVALID_SHARD = 4010


@dataclass(eq=False)
class Session:
    id: str
    intents: int
    shard: tuple[int, int]
    seq: int = 0
    # Sent dispatches, kept so RESUME can replay what a dropped client missed.
    buffer: deque[tuple[int, str, OnSent]] = field(default_factory=lambda: deque(maxlen=5000))
    connection: Connection | None = None
    resumes: int = 0

    def handles(self, guild_id: int | None) -> bool:
        """Discord's routing: a server's events go to shard ``(id >> 22) % count``
        only, direct messages (no server) to shard 0."""
        shard_id, count = self.shard
        return ((guild_id or 0) >> 22) % count == shard_id


def guild_id_on_shard(shard_id: int, count: int, serial: int = 0) -> int:
    """A plausible server id that Discord routes to ``shard_id`` of ``count`` (tests pin
    servers to shards with it; ``serial`` makes several on one shard)."""
    # Around 2017's snowflakes; the low 22 bits (worker, process, increment) stay 0.
    timestamp_part = 80_000_000_000 + serial * count
    timestamp_part -= timestamp_part % count
    return (timestamp_part + shard_id) << 22


def parse_shard(value: Any) -> tuple[int, int] | None:
    """IDENTIFY's ``shard`` as ``(shard_id, count)``; None when Discord would refuse it."""
    if value is None:
        return (0, 1)
    if not isinstance(value, list) or len(value) != 2:
        return None
    shard_id, count = value
    if type(shard_id) is not int or type(count) is not int:
        return None
    if count < 1 or not 0 <= shard_id < count:
        return None
    return (shard_id, count)


@dataclass(eq=False)
class Connection:
    ws: web.WebSocketResponse
    queue: asyncio.Queue[tuple[str, OnSent] | None] = field(default_factory=asyncio.Queue)
    session: Session | None = None
    writer: asyncio.Task[None] | None = None
    dropped: bool = False

    def send(self, frame: JsonObj | str, on_sent: OnSent = None) -> None:
        text = frame if isinstance(frame, str) else json.dumps(frame)
        self.queue.put_nowait((text, on_sent))


class Gateway:
    def __init__(
        self,
        world: World,
        *,
        token: str | None,
        heartbeat_interval_ms: int = 41250,
        recommended_shards: int = 1,
    ) -> None:
        self.world = world
        self.token = token
        self.heartbeat_interval_ms = heartbeat_interval_ms
        # What GET /gateway/bot advises (an AutoShardedClient without a count uses it).
        self.recommended_shards = recommended_shards
        self.url = ""
        self.sessions: dict[str, Session] = {}
        self.connections: set[Connection] = set()
        self.identify_count = 0
        self.resume_count = 0
        world.listeners.append(self._on_world_event)

    # -- connection lifecycle ---------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        encoding = request.query.get("encoding", "json")
        conn = Connection(ws=ws)
        conn.writer = asyncio.create_task(self._writer(conn), name="fakediscord-gateway-writer")
        self.connections.add(conn)
        log.info("gateway connection opened (query %s)", dict(request.query))
        try:
            if encoding != "json":
                await ws.close(code=DECODE_ERROR, message=b"only encoding=json is supported")
                return ws
            conn.send({"op": 10, "s": None, "t": None, "d": self._hello()})
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_frame(conn, msg.data)
                elif msg.type is WSMsgType.BINARY:
                    await ws.close(code=DECODE_ERROR, message=b"binary frames are not supported")
        finally:
            await self._closed(conn)
        return ws

    def _hello(self) -> JsonObj:
        return {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ["fakediscord"]}

    async def _writer(self, conn: Connection) -> None:
        while True:
            item = await conn.queue.get()
            if item is None or conn.ws.closed:
                return
            text, on_sent = item
            try:
                await conn.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return
            if on_sent is not None:
                on_sent()

    async def _closed(self, conn: Connection) -> None:
        self.connections.discard(conn)
        conn.queue.put_nowait(None)
        if conn.writer is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await conn.writer
        session = conn.session
        if session is not None and session.connection is conn:
            session.connection = None
            # A client closing with 1000/1001 ends its session; anything else may resume.
            if conn.ws.close_code in (1000, 1001) and not conn.dropped:
                self.sessions.pop(session.id, None)
        log.info("gateway connection closed (code %s)", conn.ws.close_code)
        self.world.notifier.notify()

    async def _on_frame(self, conn: Connection, raw: str) -> None:
        try:
            frame = json.loads(raw)
            op = frame["op"]
        except (ValueError, KeyError, TypeError):
            await conn.ws.close(code=DECODE_ERROR, message=b"invalid payload")
            return
        data = frame.get("d")
        if op == 1:
            conn.send({"op": 11, "s": None, "t": None, "d": None})
        elif op == 2:
            await self._identify(conn, data or {})
        elif op == 6:
            await self._resume(conn, data or {})
        elif conn.session is None:
            await conn.ws.close(code=NOT_AUTHENTICATED, message=b"not authenticated")
        elif op == 8:
            self._request_members(conn.session, data or {})
        elif op in (3, 4):
            pass  # presence and voice state updates have no observable effect here
        else:
            log.warning("gateway: unknown opcode %s", op)
            await conn.ws.close(code=UNKNOWN_OPCODE, message=b"unknown opcode")

    def _token_ok(self, token: Any) -> bool:
        return isinstance(token, str) and bool(token) and self.token in (None, token)

    async def _identify(self, conn: Connection, data: JsonObj) -> None:
        if conn.session is not None:
            await conn.ws.close(code=ALREADY_AUTHENTICATED, message=b"already authenticated")
            return
        if not self._token_ok(data.get("token")):
            await conn.ws.close(code=AUTHENTICATION_FAILED, message=b"authentication failed")
            return
        shard = parse_shard(data.get("shard"))
        if shard is None:
            await conn.ws.close(code=INVALID_SHARD, message=b"invalid shard")
            return
        session = Session(
            id=secrets.token_hex(16),
            intents=int(data.get("intents", 0)),
            shard=shard,
        )
        # discord.py's clean close looks like a resumable drop (it sends 4000), so a fresh
        # IDENTIFY for the same shard retires detached sessions; otherwise they would
        # buffer events forever and replay stale interactions if ever resumed.
        for stale in [s for s in self.sessions.values() if s.connection is None]:
            if stale.shard == session.shard:
                del self.sessions[stale.id]
        self.sessions[session.id] = session
        session.connection = conn
        conn.session = session
        self.identify_count += 1
        world = self.world
        guilds = [g for g in world.guilds.values() if session.handles(g.id)]
        ready = {
            "v": 10,
            "user": {**world.bot.to_payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.url,
            "application": {"id": str(world.application_id), "flags": 0},
            "shard": list(session.shard),
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
        }
        self._send_dispatch(session, "READY", ready)
        if session.intents & Intent.GUILDS:
            all_members = bool(session.intents & Intent.GUILD_MEMBERS)
            for guild in guilds:
                self._send_dispatch(
                    session, "GUILD_CREATE", guild.to_create_payload(all_members=all_members)
                )
        log.info("gateway: session %s identified as shard %s (intents %s)",
                 session.id, list(session.shard), session.intents)
        world.notifier.notify()

    async def _resume(self, conn: Connection, data: JsonObj) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or not self._token_ok(data.get("token")):
            # d=false tells discord.py to start over with a fresh IDENTIFY.
            conn.send({"op": 9, "s": None, "t": None, "d": False})
            return
        old = session.connection
        if old is not None and old is not conn:
            session.connection = None
            await old.ws.close(code=4000)
        session.connection = conn
        conn.session = session
        session.resumes += 1
        self.resume_count += 1
        last_seen = int(data.get("seq") or 0)
        replayed = 0
        for seq, text, on_sent in session.buffer:
            if seq > last_seen:
                conn.send(text, on_sent)
                replayed += 1
        self._send_dispatch(session, "RESUMED", {"_trace": ["fakediscord"]})
        log.info("gateway: session %s resumed, replayed %d events", session.id, replayed)
        self.world.notifier.notify()

    def _request_members(self, session: Session, data: JsonObj) -> None:
        guild = self.world.guilds.get(int(data.get("guild_id", 0)))
        if guild is None or not session.handles(guild.id):
            # Another shard's server: its members are that shard's to ask for.
            return
        members = list(guild.members.values())
        if data.get("user_ids"):
            wanted = {int(u) for u in data["user_ids"]}
            members = [m for m in members if m.id in wanted]
        query = (data.get("query") or "").lower()
        members = [m for m in members if m.user.username.lower().startswith(query)]
        if data.get("limit"):
            members = members[: int(data["limit"])]
        chunk: JsonObj = {
            "guild_id": str(guild.id),
            "members": [m.to_payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        self._send_dispatch(session, "GUILD_MEMBERS_CHUNK", chunk)

    # -- dispatching ------------------------------------------------------

    def _send_dispatch(
        self, session: Session, event: str, data: JsonObj, on_sent: OnSent = None
    ) -> None:
        session.seq += 1
        text = json.dumps({"op": 0, "s": session.seq, "t": event, "d": data})
        session.buffer.append((session.seq, text, on_sent))
        if session.connection is not None:
            session.connection.send(text, on_sent)

    def _targets(self, guild_id: int | None) -> list[Session]:
        return [s for s in self.sessions.values() if s.handles(guild_id)]

    def is_connected(self) -> bool:
        return any(s.connection is not None for s in self.sessions.values())

    def connected_shards(self) -> set[tuple[int, int]]:
        """``(shard_id, count)`` of every session with a live connection."""
        return {s.shard for s in self.sessions.values() if s.connection is not None}

    def dispatch_interaction(self, guild_id: int | None, payload: JsonObj, on_sent: OnSent) -> None:
        targets = self._targets(guild_id)
        if not targets:
            raise NotConnected(
                "no bot session to dispatch the interaction to (has the bot connected?)"
            )
        for session in targets:
            self._send_dispatch(session, "INTERACTION_CREATE", payload, on_sent)

    def dispatch_guild_delete(self, guild_id: int) -> None:
        """The bot was removed from the server: GUILD_DELETE without ``unavailable``,
        which discord.py turns into ``on_guild_remove`` (an outage sets it true)."""
        for session in self._targets(guild_id):
            if session.intents & Intent.GUILDS:
                self._send_dispatch(session, "GUILD_DELETE", {"id": str(guild_id)})

    def _on_world_event(self, event: str, subject: object) -> None:
        if isinstance(subject, Message):
            self._message_event(event, subject)
        elif isinstance(subject, Channel) and subject.guild_id is not None:
            self._channel_event(event, subject)

    def _channel_event(self, event: str, channel: Channel) -> None:
        payload = channel.to_payload()
        if event == "THREAD_CREATE":
            payload["newly_created"] = True
        elif channel.is_thread and event in ("CHANNEL_UPDATE", "CHANNEL_DELETE"):
            event = "THREAD_UPDATE" if event == "CHANNEL_UPDATE" else "THREAD_DELETE"
        elif event not in ("CHANNEL_UPDATE", "CHANNEL_DELETE"):
            return
        for session in self._targets(channel.guild_id):
            if session.intents & Intent.GUILDS:
                self._send_dispatch(session, event, payload)

    def _message_event(self, event: str, message: Message) -> None:
        if message.ephemeral:
            return  # ephemeral messages never reach the gateway
        if event == "MESSAGE_DELETE":
            payload: JsonObj = {"id": str(message.id), "channel_id": str(message.channel_id)}
            if message.guild_id is not None:
                payload["guild_id"] = str(message.guild_id)
        else:
            payload = message_payload(self.world, message)
        in_guild = message.guild_id is not None
        needed = Intent.GUILD_MESSAGES if in_guild else Intent.DIRECT_MESSAGES
        bot_id = self.world.bot.id
        privileged_ok = (
            not in_guild or message.author.id == bot_id or bot_id in message.mentioned_user_ids()
        )
        for session in self._targets(message.guild_id):
            if not session.intents & needed:
                continue
            body = payload
            hide = not privileged_ok and not session.intents & Intent.MESSAGE_CONTENT
            if hide and event != "MESSAGE_DELETE":
                body = {**payload, "content": "", "embeds": [], "attachments": [], "components": []}
            self._send_dispatch(session, event, body)

    # -- test controls ----------------------------------------------------

    async def drop(self, *, code: int = 4000, resumable: bool = True) -> int:
        """Close every live connection from the server side; returns how many were closed."""
        closing = [c for c in self.connections if not c.ws.closed]
        for conn in closing:
            conn.dropped = True
            if not resumable and conn.session is not None:
                self.sessions.pop(conn.session.id, None)
            await conn.ws.close(code=code, message=b"dropped by test")
        return len(closing)

    def expire_detached(self) -> int:
        """Forget every session without a live connection, as Discord does a while after
        a bot went away (a later RESUME gets INVALID_SESSION); returns how many."""
        detached = [sid for sid, s in self.sessions.items() if s.connection is None]
        for sid in detached:
            del self.sessions[sid]
        return len(detached)

    async def send_reconnect(self) -> None:
        """Send opcode 7 RECONNECT, which makes discord.py close and resume."""
        for conn in list(self.connections):
            conn.send({"op": 7, "s": None, "t": None, "d": None})

    async def close(self) -> None:
        for conn in list(self.connections):
            await conn.ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")
        self.sessions.clear()
