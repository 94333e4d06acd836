"""The outbox: messages the bot owes a channel are delivered, once each, whatever happens.

A change that makes a message owed (a post-battle stage opens, an action is
stored, the battle is over and the Arbitrator's report is due) writes an
outbox row in the same database transaction
(:meth:`bot.storage.Transaction.owe_message`). This worker posts the rows:

- right away: the code that committed calls :meth:`Outbox.flush` (so a
  player's click is answered after the step it opened is in the channel), and
  the background loop picks up whatever is left;
- in order per channel: a row waits while an older row of its channel is
  waiting, so a thread never shows step 5 above step 4;
- again after a failure: 5xx, timeouts and lost connections back off
  exponentially (:class:`RetryPolicy`), a 429 waits exactly its
  ``retry_after`` (a global one pauses every channel); a channel that refuses
  for good (403, 404) hands the row to its fallback channel, or gives it up
  with an error in the log;
- again after a restart: rows are in the database, and the loop starts with
  them;
- at most once: every row carries a random nonce sent with
  ``enforce_nonce``, so when Discord accepted a message but the answer was
  lost (a timeout, the bot killed before it recorded the id) the retry gets
  the message already made instead of a second one. The message id is
  stored with the row, and hooks (:meth:`Outbox.on_delivered`) store it
  where it belongs (the run's stage, its report) in the same transaction.

A row may name files to send with it (``link["pictures"]``: the battle report's
card and chart). They are made at each attempt by the maker the bot gives
(:meth:`Outbox.on_attachments`), never stored, and sent as a multipart
request; a row whose files cannot be made, or are refused, goes without them.

Without a scan. A committed write hands the rows it owed to this worker
(:meth:`bot.storage.Storage.on_owed`: the rows as their INSERT returned them), so the
flush after a click reads nothing when the worker knows every row the server owes:

- ``_known`` holds a server's rows owed by commits of this process until the worker
  records an outcome of theirs. A row unknown to it can be owed only by a commit of
  another process (none: all of a server's events reach the one process holding its
  shard, docs/deploying.md), by a previous run of this one, or by an outcome that
  leaves the row owed in a state the worker did not read (a retry, a redirect, a
  record that failed), or be deleted (a campaign forgotten). Those make the server
  "unseen" (``_unseen``); a scan that read all of a server's owed rows, begun after the
  last such event, whose pass left nothing owed, makes it known again (``_saw_all``).
  At start every server is unseen: the first flush of each, or the loop's first pass,
  reads the table.
- A known row is exactly as stored while it is in ``_known``: only this worker changes
  a row once it is committed, and every outcome it records takes the row out. So the
  flush needs no ``_settled_at`` check of its own: under the channel's lock it posts
  the rows still in ``_known``, in order, and a scan's pass that read a row before the
  flush posted it reads it again, as before (``_settled_at``). A hand-over that comes
  after a scan's pass recorded an outcome of the row is ignored (``_settled_at`` still
  holds it: that pass posted the row after the commit, a request to Discord and a
  write while the committing task, already woken, waited for one turn of the loop).
- A server made unseen during the flush (a failure) is scanned by the same flush, as
  before; the loop's periodic scan stays the safety net for whatever else is owed.

Messages are sent with aiohttp straight to Discord's REST API, one request
per attempt: discord.py's own client retries a 5xx for ~25 seconds inside
one call, which would hold a channel's queue and leave the outbox nothing to
decide. Edits of messages already posted stay with discord.py (an edit is
idempotent; the next redraw repeats it). See docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Protocol

import aiohttp
import discord

from bot import failpoints
from bot.background import BackgroundLoop
from bot.locks import KeyedLocks
from bot.shards import ShardSet
from bot.storage import OutboxEntry, Storage, Transaction
from bot.storage.at_once import Statement
from bot.storage.outbox import Owed, delivered_statement

if TYPE_CHECKING:
    from discord import Client

log = logging.getLogger(__name__)

SEND_TIMEOUT = 10.0  # seconds for one attempt; a slow Discord is retried, not waited for
SCAN_INTERVAL = 60.0  # the loop looks at the table at least this often
SCAN_LIMIT = 500  # rows one scan reads; a backlog past it waits for the next scan
KEEP_DELIVERED = timedelta(days=30)
# Statuses Discord may answer for a request it could serve a moment later.
RETRYABLE = frozenset({408, 500, 502, 503, 504, 520, 522, 524})
# A channel that is gone or closed to the bot: try the fallback channel.
WRONG_CHANNEL = frozenset({403, 404})
# Discord's codes for "the channel is unusable" inside a 400 (archived thread, ...).
WRONG_CHANNEL_CODES = frozenset({50083, 10003, 50001, 50013})
# Seconds the files of one row may take to make (pictures drawn on a busy worker): past
# that the message goes without them rather than hold its channel's queue.
ATTACH_TIMEOUT = 30.0


# --------------------------------------------------------------------------- retries


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff for failures that are not rate limits."""

    first_delay: float = 0.5
    factor: float = 2.0
    max_delay: float = 300.0

    def backoff(self, failures: int) -> float:
        """Seconds to wait after the ``failures``-th failed attempt in a row (1, 2, ...)."""
        exponent = max(0, failures - 1)
        # Capped before the power so a row that failed for days cannot overflow.
        if exponent > 64:
            return self.max_delay
        return float(min(self.max_delay, self.first_delay * self.factor ** exponent))


@dataclass(frozen=True)
class Accepted:
    """Discord made the message: its id and the channel it is in."""

    message_id: int
    channel_id: int


class DeliveryFailed(Exception):
    """One attempt failed; the attributes say whether and when to try again."""

    def __init__(
        self,
        reason: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        is_global: bool = False,
        wrong_channel: bool = False,
        permanent: bool = False,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after = retry_after
        self.is_global = is_global
        self.wrong_channel = wrong_channel
        self.permanent = permanent or wrong_channel


def classify(status: int, body: Any, headers: dict[str, str] | None = None) -> DeliveryFailed:
    """What a non-2xx answer to POST /channels/{id}/messages means for the row."""
    data = body if isinstance(body, dict) else {}
    message = str(data.get("message") or body or "")[:200]
    reason = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    if status == 429:
        retry_after = _seconds(data.get("retry_after"))
        if retry_after is None and headers is not None:
            retry_after = _seconds(headers.get("Retry-After") or headers.get("retry-after"))
        return DeliveryFailed(reason, status=status, retry_after=retry_after or 1.0,
                              is_global=bool(data.get("global", False)))
    if status in RETRYABLE or status >= 500:
        return DeliveryFailed(reason, status=status)
    code = data.get("code")
    if status in WRONG_CHANNEL or (status == 400 and code in WRONG_CHANNEL_CODES):
        return DeliveryFailed(reason, status=status, wrong_channel=True)
    if status == 401:
        # The token is refused: nothing works until the operator fixes it; keep the row.
        return DeliveryFailed(reason, status=status)
    return DeliveryFailed(reason, status=status, permanent=True)


def _seconds(value: Any) -> float | None:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if seconds >= 0 else None


@dataclass(frozen=True)
class Decision:
    """What to do with a row after a failed attempt."""

    action: str  # "retry" | "redirect" | "give up"
    delay: float = 0.0


def decide(entry: OutboxEntry, failure: DeliveryFailed, policy: RetryPolicy) -> Decision:
    if failure.wrong_channel and entry.fallback_channel_id is not None:
        return Decision("redirect")
    if failure.permanent:
        return Decision("give up")
    if failure.retry_after is not None:
        return Decision("retry", failure.retry_after)
    return Decision("retry", policy.backoff(entry.attempts + 1))


# --------------------------------------------------------------------------- sending


@dataclass(frozen=True)
class OutgoingFile:
    """A file sent with a message (an attachment), made when the row is sent."""

    filename: str
    data: bytes = field(repr=False)


# The files to send with a row whose link names some (``link["pictures"]``); made at send
# time, so the row stores what to attach, never the bytes.
AttachmentMaker = Callable[[OutboxEntry], Awaitable[Sequence[OutgoingFile]]]


def multipart_body(body: dict[str, Any], files: Sequence[OutgoingFile]) -> aiohttp.FormData:
    """The message as Discord takes it with files: ``payload_json`` (the body, naming each
    upload in ``attachments``) and one ``files[n]`` part per file, as discord.py sends it."""
    payload = {**body, "attachments": [{"id": index, "filename": file.filename}
                                       for index, file in enumerate(files)]}
    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps(payload), content_type="application/json")
    for index, file in enumerate(files):
        form.add_field(f"files[{index}]", file.data, filename=file.filename,
                       content_type="application/octet-stream")
    return form


class Sender(Protocol):
    async def send(self, channel_id: int, body: dict[str, Any],
                   files: Sequence[OutgoingFile] = ()) -> Accepted: ...

    async def close(self) -> None: ...


class HttpSender:
    """One POST per attempt to ``{base}/channels/{id}/messages`` with the bot's token."""

    def __init__(
        self,
        base_url: Callable[[], str],
        token: Callable[[], str | None],
        *,
        timeout: float = SEND_TIMEOUT,
        user_agent: str = "DiscordBot (https://github.com/Rapptz/discord.py, munda-arbitrator)",
    ) -> None:
        self._base_url = base_url
        self._token = token
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._user_agent = user_agent
        self._session: aiohttp.ClientSession | None = None

    @classmethod
    def for_client(cls, client: Client, *, timeout: float = SEND_TIMEOUT) -> HttpSender:
        """Where and as whom discord.py itself talks (``Route.BASE`` follows the config)."""
        return cls(lambda: discord.http.Route.BASE, lambda: client.http.token, timeout=timeout,
                   user_agent=client.http.user_agent)

    async def send(self, channel_id: int, body: dict[str, Any],
                   files: Sequence[OutgoingFile] = ()) -> Accepted:
        token = self._token()
        if not token:
            raise DeliveryFailed("not logged in yet")
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        url = f"{self._base_url().rstrip('/')}/channels/{channel_id}/messages"
        headers = {"Authorization": f"Bot {token}", "User-Agent": self._user_agent}
        # A new form per attempt: a form is consumed by the request that sends it.
        sent: dict[str, Any] = {"data": multipart_body(body, files)} if files else {"json": body}
        try:
            async with self._session.post(url, headers=headers, **sent) as response:
                try:
                    data: Any = await response.json(content_type=None)
                except ValueError:
                    data = await response.text()
                if 200 <= response.status < 300 and isinstance(data, dict):
                    return Accepted(int(data["id"]), int(data.get("channel_id") or channel_id))
                raise classify(response.status, data, dict(response.headers))
        except (aiohttp.ClientError, TimeoutError) as error:
            # Maybe sent, maybe not: the nonce makes the retry safe either way.
            raise DeliveryFailed(f"no answer: {error!r}") from error

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


# --------------------------------------------------------------------------- the worker

DeliveredHook = Callable[[Transaction, OutboxEntry, Accepted], Awaitable[None]]
# ``after``'s third argument: the rows the ``at_once`` statements returned, in their order
# (None when the row was recorded in a transaction, by ``in_transaction``).
AfterHook = Callable[[OutboxEntry, Accepted, "list[list[Any]] | None"], Awaitable[None]]
# The hook's writes as statements (None: this row needs ``in_transaction``), so that the
# row is marked delivered and they are made in one round trip (bot/storage/at_once.py).
AtOnceHook = Callable[[OutboxEntry, Accepted], Sequence[Statement] | None]
Delivery = tuple[OutboxEntry, Accepted]
# Several rows' writes as statements of one write made at once, and for each row the
# indexes of its statements (whose rows go to its ``after``); None: record each alone.
# Rows that write the same database row must share one statement: PostgreSQL makes
# only one of two updates of a row in one statement.
# The statements recording several rows, and which of them are each row's.
_Together = tuple[list[Statement], list[list[int]]]
AtOnceManyHook = Callable[[Sequence[Delivery]], "_Together | None"]


@dataclass
class _Hooks:
    in_transaction: DeliveredHook
    after: AfterHook | None = None
    at_once: AtOnceHook | None = None
    at_once_many: AtOnceManyHook | None = None


class Outbox:
    """Delivers owed messages; one per bot (``bot.outbox``)."""

    def __init__(
        self,
        storage: Storage,
        sender: Sender,
        *,
        policy: RetryPolicy | None = None,
        scan_interval: float = SCAN_INTERVAL,
        shards: ShardSet | None = None,
    ) -> None:
        self.storage = storage
        # A process holding some shards delivers its own servers' rows only; the
        # process holding a server's shard delivers the rest (docs/deploying.md).
        self.shards = None if shards is None or shards.every_shard else shards
        self.sender = sender
        self.policy = policy or RetryPolicy()
        self.scan_interval = scan_interval
        self._hooks: dict[str, _Hooks] = {}
        self._channel_locks: KeyedLocks[int] = KeyedLocks()
        self._wake = asyncio.Event()
        self._running = BackgroundLoop("outbox", self._loop)
        self._paused_until = 0.0  # a global 429 stops every channel until then
        self._redirected = False
        self._attachments: AttachmentMaker | None = None
        # Rows whose outcome this worker recorded, by the count of outcomes at the time:
        # a row a pass scanned is read again under its channel's lock only when its
        # outcome was recorded after the scan began (another pass got to it meanwhile).
        # Only this worker settles its servers' rows (one process per shard), so every other
        # row is as scanned, and most deliveries need no second read.
        self._outcomes = 0
        self._settled_at: dict[int, int] = {}
        self._passes = 0
        # What this worker knows of its servers' owed rows, so that a flush after a commit
        # reads nothing (module docstring, "Without a scan"): the rows commits of this
        # process owed, as their INSERT returned them, until this worker records an
        # outcome of theirs; and which servers have no owed row outside them (a server
        # is "known" when no row became owed unseen since a scan that saw all of its
        # rows began; the stamps count those events).
        self._known: dict[int, dict[int, OutboxEntry]] = {}
        self._changes = 0
        self._unseen_at: dict[int, int] = {}  # server -> stamp of its last row owed unseen
        self._seen_at: dict[int, int] = {}  # server -> stamp of a whole scan of it
        self._all_seen_at = -1  # stamp of a whole scan of every server of this worker
        storage.on_owed(self._owed)

    def on_delivered(self, kind: str, in_transaction: DeliveredHook,
                     after: AfterHook | None = None, at_once: AtOnceHook | None = None,
                     at_once_many: AtOnceManyHook | None = None) -> None:
        """Hooks for rows whose ``link["kind"]`` is ``kind``: ``in_transaction`` runs in the
        transaction that marks the row delivered (``at_once``, when it gives statements,
        does the same in one round trip instead; ``at_once_many`` for several rows
        posted one after another in a channel, all recorded in one write); ``after``
        once it is committed, with the rows its statements returned."""
        self._hooks[kind] = _Hooks(in_transaction, after, at_once, at_once_many)

    def on_attachments(self, make: AttachmentMaker) -> None:
        """``make(entry)`` gives the files of each row whose link names pictures
        (``link["pictures"]``), at each attempt. A row whose files cannot be made, or are
        refused, is sent without them: files never cost a message."""
        self._attachments = make

    # ----------------------------------------------------------------- running

    def start(self) -> None:
        """Start the loop; it delivers what a previous run left owed first."""
        self._running.start()

    async def stop(self) -> None:
        await self._running.stop()
        await self.sender.close()

    def kick(self) -> None:
        """Something new is owed: look at the table now rather than at the next scan."""
        self._wake.set()

    async def flush(self, guild_id: int | None = None) -> None:
        """Try every due row now (of ``guild_id`` only, when given) and wait for the
        outcome (failures stay owed).

        A commit flushes its own server's rows: scanning every server's after each
        click made each click cost more the more battles were being played at once
        (and held every server's payloads in memory once per click). When the worker
        knows every row the server owes (the commits handed them over), it delivers
        those without reading the table at all.
        """
        if guild_id is not None and self._knows(guild_id):
            await self._deliver_known(guild_id)
            if self._knows(guild_id):
                return
            # A failure, a redirect, a row owed unseen: the table says what is left.
        await self.deliver_due(guild_id)

    async def _loop(self) -> None:
        try:
            pruned = await self.storage.prune_outbox(KEEP_DELIVERED)
            if pruned:
                log.info("outbox: forgot %d rows delivered more than %s ago", pruned,
                         KEEP_DELIVERED)
        except Exception:
            log.exception("outbox: could not prune old rows")
        failures = 0
        while True:
            self._wake.clear()
            try:
                wait = await self.deliver_due()
                failures = 0
            except Exception:  # the database, most likely: try again, less and less often
                failures += 1
                log.exception("outbox: delivery pass failed")
                wait = self.policy.backoff(failures)
            timeout = self.scan_interval if wait is None else min(wait, self.scan_interval)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(timeout, 0.01))

    # ----------------------------------------------------------------- delivering

    async def deliver_due(self, guild_id: int | None = None) -> float | None:
        """Deliver every due row (of ``guild_id`` only, when given), channel by channel in
        parallel; seconds until the next row is due (None: nothing is owed)."""
        self._passes += 1
        try:
            while True:
                self._redirected = False
                scanned_at = self._outcomes
                stamp = self._changes
                entries = await self.storage.undelivered_messages(
                    SCAN_LIMIT, guild_id=guild_id, shards=self.shards)
                channels: dict[int, list[OutboxEntry]] = {}
                for entry in entries:
                    channels.setdefault(entry.channel_id, []).append(entry)
                waits = await asyncio.gather(*(
                    self._deliver_channel(channel, rows, scanned_at)
                    for channel, rows in channels.items()
                ))
                for rows, wait in zip(channels.values(), waits, strict=True):
                    if wait is not None:
                        self._unseen(rows[0].guild_id)  # rows left owed, not in _known
                if not self._redirected:
                    if len(entries) < SCAN_LIMIT:
                        self._saw_all(guild_id, stamp)
                    pending = [w for w in waits if w is not None]
                    return min(pending) if pending else None
                # A row moved to its fallback channel: that channel's queue has a new row.
        finally:
            self._passes -= 1
            if not self._passes:
                self._settled_at.clear()  # no scan is left that could be older

    def _settled(self, entry: OutboxEntry, *, still_owed: bool) -> None:
        """Note that this worker recorded an outcome of ``entry`` (see ``_settled_at``);
        ``still_owed``: the row is left owed in a state only the table knows (a retry,
        a redirect, a record that failed)."""
        self._outcomes += 1
        self._settled_at[entry.id] = self._outcomes
        self._known.get(entry.guild_id, {}).pop(entry.id, None)
        if still_owed:
            self._unseen(entry.guild_id)

    # ----------------------------------------------------------------- without a scan

    def _owed(self, changes: Owed) -> None:
        """A commit of this process owed rows (or deleted some): take them over."""
        guild_id = changes.guild_id
        if self.shards is not None and not self.shards.owns(guild_id):
            return  # another process's server: its worker delivers them from the table
        if changes.forgot:
            # Which of the rows known are gone only the table says.
            self._known.pop(guild_id, None)
            self._unseen(guild_id)
            return
        known = self._known.setdefault(guild_id, {})
        for entry in changes.rows:
            if entry.id not in self._settled_at:  # a scan's pass got to it first
                known[entry.id] = entry
        if changes.unlisted:
            self._unseen(guild_id)  # rows owed that were not handed over: a scan finds them

    def _unseen(self, guild_id: int) -> None:
        """``guild_id`` may owe a row that ``_known`` does not hold."""
        self._changes += 1
        self._unseen_at[guild_id] = self._changes

    def _saw_all(self, guild_id: int | None, stamp: int) -> None:
        """A scan begun at ``stamp`` read every row owed then (of ``guild_id``, or of every
        server) and its pass left none owed but those that made their server unseen."""
        if guild_id is None:
            self._all_seen_at = max(self._all_seen_at, stamp)
        else:
            self._seen_at[guild_id] = max(self._seen_at.get(guild_id, -1), stamp)

    def _knows(self, guild_id: int) -> bool:
        """Whether every row ``guild_id`` owes is in ``_known``."""
        seen = max(self._seen_at.get(guild_id, -1), self._all_seen_at)
        return self._unseen_at.get(guild_id, 0) <= seen

    async def _deliver_known(self, guild_id: int) -> None:
        """Deliver the server's known rows, channel by channel in parallel."""
        self._passes += 1
        try:
            known = self._known.get(guild_id, {})
            channels = {entry.channel_id for entry in known.values()}
            await asyncio.gather(*(self._deliver_known_channel(guild_id, channel)
                                   for channel in channels))
        finally:
            self._passes -= 1
            if not self._passes:
                self._settled_at.clear()

    async def _deliver_known_channel(self, guild_id: int, channel_id: int) -> None:
        async with self._channel_locks(channel_id):
            if not self._knows(guild_id):
                return  # the caller reads the table instead
            # Read under the lock: what another pass settled meanwhile is gone from it.
            known = self._known.get(guild_id, {})
            rows = sorted((entry for entry in known.values()
                           if entry.channel_id == channel_id), key=lambda entry: entry.id)
            await self._post_in_order(channel_id, rows, self._still_known)

    async def _still_known(self, entry: OutboxEntry) -> OutboxEntry | None:
        """A known row as it is stored: the one committed, unless an outcome was recorded."""
        return entry if entry.id in self._known.get(entry.guild_id, {}) else None

    # ----------------------------------------------------------------- posting

    async def _deliver_channel(self, channel_id: int, rows: Iterable[OutboxEntry],
                               scanned_at: int) -> float | None:
        """Post the channel's scanned rows in order; stop at the first one that must wait."""

        async def as_stored(seen: OutboxEntry) -> OutboxEntry | None:
            if self._settled_at.get(seen.id, 0) > scanned_at:
                # Another pass recorded an outcome since the scan: read it again.
                return await self.storage.read(seen.guild_id).outbox_entry(seen.id)
            return seen

        async with self._channel_locks(channel_id):
            return await self._post_in_order(channel_id, rows, as_stored)

    async def _post_in_order(
        self, channel_id: int, rows: Iterable[OutboxEntry],
        as_stored: Callable[[OutboxEntry], Awaitable[OutboxEntry | None]],
    ) -> float | None:
        """Post ``rows`` (the channel's lock held) in order, each as ``as_stored`` gives it
        (None: gone); stop at the first one that must wait and say for how long.

        The rows Discord accepted are recorded together once the channel stops, before
        its lock is let go (one write for all when their hooks allow it): until then no
        other pass posts in the channel, and one that scanned them reads them again."""
        delivered: list[Delivery] = []
        try:
            for seen in rows:
                entry = await as_stored(seen)
                if entry is None or not entry.pending or entry.channel_id != channel_id:
                    continue
                wait = max(entry.due_at, self._paused_until) - time.time()
                if wait > 0:
                    return wait
                wait_more = await self._attempt(entry, delivered)
                if wait_more is not None:
                    return wait_more
            return None
        finally:
            if delivered:
                await self._record_all(delivered)

    async def _attempt(self, entry: OutboxEntry, delivered: list[Delivery]) -> float | None:
        """One try (an accepted row is added to ``delivered``, for the caller to record);
        None when the channel may go on with its next row."""
        body = {**entry.payload, "nonce": entry.nonce, "enforce_nonce": True}
        files = await self._files(entry)
        try:
            try:
                # Without files, the two-argument call every sender takes.
                accepted = await (self.sender.send(entry.channel_id, body, files) if files
                                  else self.sender.send(entry.channel_id, body))
            except DeliveryFailed as failure:
                if not (files and failure.permanent and not failure.wrong_channel):
                    raise
                # Refused with its files (too many, too large): Discord made no message,
                # so the same nonce sends it without them.
                log.error("outbox: Discord refused the files of %s (%s); sending it without"
                          " them", entry.key, failure.reason)
                accepted = await self.sender.send(entry.channel_id, body)
        except DeliveryFailed as failure:
            return await self._failed(entry, failure)
        except Exception as error:  # a bug, not Discord: keep the row and say so
            log.exception("outbox: sending %s failed unexpectedly", entry.key)
            return await self._failed(entry, DeliveryFailed(f"unexpected: {error!r}"))
        failpoints.hit(failpoints.AFTER_OUTBOX_SENT)
        delivered.append((entry, accepted))
        return None

    async def _files(self, entry: OutboxEntry) -> list[OutgoingFile]:
        """The row's files, or none when it names none or they cannot be made now."""
        if self._attachments is None or not (entry.link or {}).get("pictures"):
            return []
        try:
            return list(await asyncio.wait_for(self._attachments(entry), ATTACH_TIMEOUT))
        except Exception:
            log.exception("outbox: the files of %s could not be made; sending it without them",
                          entry.key)
            return []

    async def _failed(self, entry: OutboxEntry, failure: DeliveryFailed) -> float | None:
        decision = decide(entry, failure, self.policy)
        guild = entry.guild_id
        if decision.action == "redirect":
            log.warning("outbox: channel %s refused %s (%s); using channel %s instead",
                        entry.channel_id, entry.key, failure.reason, entry.fallback_channel_id)
            try:
                await self.storage.write(guild).outbox_redirect(entry.id, failure.reason)
            finally:
                self._settled(entry, still_owed=True)
            # Its new channel has its own queue: another pass now (and a kick, should a
            # concurrent pass have cleared the flag).
            self._redirected = True
            self.kick()
            return None
        if decision.action == "give up":
            log.error("outbox: Discord refused %s for good (%s); it will not be sent",
                      entry.key, failure.reason)
            given_up = False
            try:
                await self.storage.write(guild).outbox_give_up(entry.id, failure.reason)
                given_up = True
            finally:
                self._settled(entry, still_owed=not given_up)
            return None
        if failure.is_global:
            self._paused_until = max(self._paused_until, time.time() + decision.delay)
        log.warning("outbox: %s not delivered (%s, attempt %d); next try in %.1f s",
                    entry.key, failure.reason, entry.attempts + 1, decision.delay)
        try:
            await self.storage.write(guild).outbox_retry(entry.id, failure.reason,
                                                         time.time() + decision.delay)
        finally:
            self._settled(entry, still_owed=True)
        # The loop may be asleep for its whole scan interval (this attempt may have been a
        # flush's): wake it so that it sleeps until this row is due instead.
        self.kick()
        return decision.delay

    async def _record_all(self, delivered: Sequence[Delivery]) -> None:
        """Record rows Discord accepted, in order: as few writes as the hooks allow (rows
        whose hooks can say theirs as statements of several rows, or that have none, go
        together)."""
        chunk: list[Delivery] = []
        together: _Together | None = None  # the chunk's statements (of two rows or more)
        for delivery in delivered:
            grown = self._together([*chunk, delivery]) if chunk else None
            if chunk and grown is None:
                await self._record_chunk(chunk, together)
                chunk = []
            chunk.append(delivery)
            together = grown
        await self._record_chunk(chunk, together)

    async def _record_chunk(self, delivered: Sequence[Delivery],
                            together: _Together | None) -> None:
        """Record rows in one write with ``together`` (their hooks' statements, from
        :meth:`_together`), else each in its own."""
        if together is not None:
            statements, theirs = together
            marks = [delivered_statement(entry.guild_id, entry.id, accepted.message_id,
                                         accepted.channel_id) for entry, accepted in delivered]
            recorded = False
            try:
                done = await self.storage.write_at_once(delivered[0][0].guild_id,
                                                        [*marks, *statements])
                recorded = done is not None
            except Exception:
                log.exception("outbox: recording %d deliveries at once failed; recording"
                              " each alone", len(delivered))
            if recorded:
                assert done is not None
                for entry, _accepted in delivered:
                    self._settled(entry, still_owed=False)
                found = done[len(marks):]
                for (entry, accepted), indexes in zip(delivered, theirs, strict=True):
                    await self._after(entry, accepted, [found[index] for index in indexes])
                return
            # A row was settled already (nothing of the write was kept): each alone says
            # which.
        for entry, accepted in delivered:
            await self._delivered(entry, accepted)

    def _together(self, delivered: Sequence[Delivery]) -> _Together | None:
        """The hooks' statements for all of ``delivered`` at once, and each row's; None
        when some row must be recorded alone."""
        if len({entry.guild_id for entry, _ in delivered}) != 1:
            return None
        statements: list[Statement] = []
        theirs: list[list[int]] = [[] for _ in delivered]
        kinds: dict[str, list[int]] = {}
        for index, (entry, _accepted) in enumerate(delivered):
            kinds.setdefault(str((entry.link or {}).get("kind", "")), []).append(index)
        for kind, indexes in kinds.items():
            hooks = self._hooks.get(kind)
            if hooks is None:
                continue  # nothing to write but the mark
            if hooks.at_once_many is None:
                return None
            try:
                made = hooks.at_once_many([delivered[index] for index in indexes])
            except Exception:  # a bug in the hook: each row's own record handles it
                log.exception("outbox: the records of %d %r rows could not be made",
                              len(indexes), kind)
                return None
            if made is None:
                return None
            more, of_each = made
            for index, own in zip(indexes, of_each, strict=True):
                theirs[index] = [len(statements) + n for n in own]
            statements += more
        return statements, theirs

    async def _after(self, entry: OutboxEntry, accepted: Accepted,
                     recorded: list[list[Any]] | None) -> None:
        hooks = self._hooks.get(str((entry.link or {}).get("kind", "")))
        if hooks is not None and hooks.after is not None:
            try:
                await hooks.after(entry, accepted, recorded)
            except Exception:
                log.exception("outbox: after delivering %s", entry.key)

    async def _delivered(self, entry: OutboxEntry, accepted: Accepted) -> None:
        recorded = False
        try:
            await self._record_delivery(entry, accepted)
            recorded = True
        finally:
            # Recorded, or failed half-way: either way a pass that scanned the row
            # before must read it again.
            self._settled(entry, still_owed=not recorded)

    async def _record_delivery(self, entry: OutboxEntry, accepted: Accepted) -> None:
        hooks = self._hooks.get(str((entry.link or {}).get("kind", "")))
        recorded: list[list[Any]] | None = None
        try:
            statements: Sequence[Statement] | None = []  # no hooks: the mark alone
            if hooks is not None:
                statements = hooks.at_once(entry, accepted) if hooks.at_once else None
            if statements is not None:
                marked = delivered_statement(entry.guild_id, entry.id, accepted.message_id,
                                             accepted.channel_id)
                done = await self.storage.write_at_once(entry.guild_id, [marked, *statements])
                if done is None:
                    return  # settled already
                recorded = done[1:]
            else:
                async with self.storage.transaction(entry.guild_id) as tx:
                    if not await tx.outbox_delivered(entry.id, accepted.message_id,
                                                     accepted.channel_id):
                        return
                    if hooks is not None:
                        await hooks.in_transaction(tx, entry, accepted)
        except Exception:
            # The message is in the channel: record that much, or the row would be sent
            # (and deduplicated) for ever.
            log.exception("outbox: recording where %s went failed; marking it delivered only",
                          entry.key)
            await self.storage.write(entry.guild_id).outbox_delivered(
                entry.id, accepted.message_id, accepted.channel_id)
            return
        await self._after(entry, accepted, recorded)
