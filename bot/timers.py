"""Durable timers: what is due at a time of the bot's clock happens once, whatever happens.

A change that makes something due later (a battle agreed: its reminders) sets a timer
in its own transaction (:meth:`bot.storage.Transaction.set_timer`). This worker fires
the timers whose time has come on the bot's one clock (``MundaBot.clock``):

- exactly once: the handler runs in the transaction that marks its timer fired, so
  both are committed or neither is; a crash before the commit leaves the timer due;
- after a restart too: timers are rows, never only in memory, and the first pass
  fires those the bot slept through, telling the handler how late it is (``late``),
  so that a post can say it comes late;
- one server at a time: each timer runs in its own server's write transaction;
- a handler that fails is tried again later (its transaction rolled back), less and
  less often, and said in the log.

A message owed for a later time is a timer whose handler owes it then
(:func:`post_later`): the outbox only ever holds messages due now, so a post for
next week never holds up its channel's other messages. See docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from bot import failpoints
from bot.background import BackgroundLoop
from bot.clock import Clock
from bot.render import clip
from bot.shards import ShardSet
from bot.storage import Storage, Transaction
from bot.storage.timers import Timer, epoch

log = logging.getLogger(__name__)

TimerHandler = Callable[[Transaction, Timer, timedelta | None], Awaitable[None]]
# Runs before a timer's transaction, for what a transaction may not do (ask Discord):
# gets the bot and the timer, returns arguments added to those the handler gets.
TimerPreparer = Callable[[Any, Timer], Awaitable[dict[str, Any]]]

# Seconds between two looks at the table when nothing is due sooner; a timer set by
# another process (or without a kick) fires at most this late.
SCAN_INTERVAL = 30.0
# Fired this long after its time or more, a timer is late: the bot was not running (or
# the clock was moved past it). Less is the worker's own delay, not worth a word.
LATE_AFTER = timedelta(minutes=5)
# A failed handler is tried again after 30 s, 1 min, 2 min... at most an hour.
FIRST_RETRY = timedelta(seconds=30)
MAX_RETRY = timedelta(hours=1)

MESSAGE_LIMIT = 2000  # Discord's characters of a message's content

F = TypeVar("F", TimerHandler, TimerPreparer)

_handlers: dict[str, TimerHandler] = {}
_preparers: dict[str, TimerPreparer] = {}


def _registrar(table: dict[str, F], kind: str, what: str) -> Callable[[F], F]:
    """A decorator putting its function in ``table`` under ``kind``, once."""
    def register(function: F) -> F:
        if table.get(kind, function) is not function:
            raise ValueError(f"timers of kind {kind!r} have a {what} already")
        table[kind] = function
        return function
    return register


def on_timer(kind: str) -> Callable[[TimerHandler], TimerHandler]:
    """Register ``handler(tx, timer, late)`` for timers of ``kind``: it runs in the timer's
    server's write transaction, once; ``late`` is how late it fires (None: on time)."""
    return _registrar(_handlers, kind, "handler")


def before_timer(kind: str) -> Callable[[TimerPreparer], TimerPreparer]:
    """Register ``prepare(client, timer) -> args``, run before each firing of ``kind``
    outside any transaction (a Discord call the handler needs the answer of); the args it
    returns are added to the timer's for its handler. Its work is not undone if the
    handler then fails or the bot dies before the commit: it must be harmless done twice."""
    return _registrar(_preparers, kind, "preparer")


def handled_kinds() -> frozenset[str]:
    return frozenset(_handlers)


def retry_delay(attempts: int) -> timedelta:
    """How long after its ``attempts``-th failure a handler is tried again."""
    doubled: timedelta = FIRST_RETRY * 2 ** min(max(attempts - 1, 0), 16)
    return min(MAX_RETRY, doubled)


def lateness(due_at: datetime, fired_at: datetime) -> timedelta | None:
    late = fired_at - due_at
    return late if late >= LATE_AFTER else None


class TimerWorker:
    """Fires due timers; one per bot (``bot.timers``)."""

    def __init__(self, storage: Storage, clock: Clock, *, shards: ShardSet | None = None,
                 on_fired: Callable[[], None] | None = None,
                 scan_interval: float = SCAN_INTERVAL, client: object | None = None) -> None:
        self.storage = storage
        self.clock = clock
        # What preparers (:func:`before_timer`) talk to Discord with; None: they are skipped.
        self.client = client
        # A process holding some shards fires its own servers' timers only (as the outbox).
        self.shards = None if shards is None or shards.every_shard else shards
        self.on_fired = on_fired
        self.scan_interval = scan_interval
        self._wake = asyncio.Event()
        self._running = BackgroundLoop("timers", self._loop)

    def start(self) -> None:
        """Start the loop; its first pass fires what came due while the bot was down."""
        self._running.start()

    async def stop(self) -> None:
        await self._running.stop()

    def kick(self) -> None:
        """A timer was set or moved: look at the table now rather than at the next scan."""
        self._wake.set()

    async def _loop(self) -> None:
        failures = 0
        while True:
            self._wake.clear()
            try:
                await self.fire_due()
                wait = await self._seconds_to_next()
                failures = 0
            except Exception:  # the database, most likely: try again, less and less often
                failures += 1
                log.exception("timers: pass failed")
                wait = retry_delay(failures).total_seconds()
            wait = self.scan_interval if wait is None else min(wait, self.scan_interval)
            await self._sleep(max(wait, 0.0))

    async def _sleep(self, seconds: float) -> None:
        """Until ``seconds`` of the clock passed (a moved clock ends it early) or a kick."""
        sleeping = asyncio.ensure_future(self.clock.sleep(seconds))
        kicked = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({sleeping, kicked}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (sleeping, kicked):
                waiter.cancel()
            await asyncio.gather(sleeping, kicked, return_exceptions=True)

    async def _seconds_to_next(self) -> float | None:
        async def next_due(tx: Transaction) -> datetime | None:
            return await tx.next_timer_due(handled_kinds(), shards=self.shards)

        # One statement: one round trip, in no snapshot transaction (read_whole).
        soonest = await self.storage.read_whole(0, next_due, background=True)
        if soonest is None:
            return None
        return max(0.0, (soonest - self.clock.now()).total_seconds())

    async def fire_due(self) -> int:
        """Fire every timer due now on the clock; how many fired."""
        fired = 0
        while True:
            now = self.clock.now()

            async def due_now(tx: Transaction, now: datetime = now) -> list[Timer]:
                return await tx.due_timers(now, handled_kinds(), shards=self.shards)

            due = await self.storage.read_whole(0, due_now, background=True)
            if not due:
                break
            outcomes = [await self._fire(timer) for timer in due]
            fired += sum(outcomes)
            if not any(outcomes):
                break  # every one failed or was taken elsewhere: the next pass retries
        if fired and self.on_fired is not None:
            self.on_fired()
        return fired

    async def _fire(self, timer: Timer) -> bool:
        handler = _handlers[timer.kind]
        at = self.clock.now()
        try:
            prepare = _preparers.get(timer.kind)
            added = {} if prepare is None or self.client is None else \
                await prepare(self.client, timer)
            async with self.storage.transaction(timer.guild_id) as tx:
                taken = await tx.take_timer(timer.id, at)
                if taken is None:
                    return False  # fired by another pass, moved later, or cancelled
                late = lateness(taken.due_at, at)
                if added:
                    taken = taken.model_copy(update={"args": {**taken.args, **added}})
                await handler(tx, taken, late)
        except Exception as error:
            log.exception("timers: %s (%s) failed; it stays due", timer.key, timer.kind)
            retry = at + retry_delay(timer.attempts + 1)
            with contextlib.suppress(Exception):
                await self.storage.write(timer.guild_id).timer_failed(
                    timer.id, f"{error!r}", retry)
            return False
        failpoints.hit(failpoints.AFTER_TIMER_FIRED)
        if late is not None:
            log.info("timers: %s fired %s late", timer.key, late)
        return True


# --------------------------------------------------------------------------- timed posts

POST = "post"


async def post_later(tx: Transaction, key: str, channel_id: int, payload: dict[str, Any],
                     due_at: datetime, *, campaign: str | None = None,
                     fallback_channel_id: int | None = None) -> Timer:
    """Owe ``payload`` (a message body) to ``channel_id`` at ``due_at``: a timer now, an
    outbox row (keyed ``key``) when it fires. Fired late, the message says so first."""
    args: dict[str, Any] = {"channel": channel_id, "payload": payload,
                            "fallback": fallback_channel_id}
    if campaign is not None:
        args["campaign"] = campaign
    return await tx.set_timer(key, POST, due_at, args)


def late_line(due_at: datetime, late: timedelta | None) -> str:
    """The words a post fired late begins with; nothing on time."""
    if late is None:
        return ""
    return f"-# Posted late: this was due <t:{int(epoch(due_at))}:f> while the bot was away.\n"


@on_timer(POST)
async def _owe_post(tx: Transaction, timer: Timer, late: timedelta | None) -> None:
    payload = dict(timer.args["payload"])
    if late is not None:
        payload["content"] = clip(late_line(timer.due_at, late) + str(payload.get("content") or ""),
                                  MESSAGE_LIMIT)
    link = {"kind": "timed-post", "campaign": timer.args["campaign"]} \
        if "campaign" in timer.args else None
    await tx.owe_message_unanswered(timer.key, int(timer.args["channel"]), payload, link=link,
                                    fallback_channel_id=timer.args.get("fallback"))
