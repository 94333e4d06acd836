"""Drawing off the event loop, with finished pictures cached by what they show.

A 40-fighter roster card takes around a tenth of a second of CPU: long
enough to stall every other interaction if drawn on the event loop, and a
thread would not help much, since drawing holds the GIL. The
:class:`PictureWorker` draws in one child process of its own (bot/child.py):
one, because the machine has two cores and the bot needs the other, and
because matplotlib's font settings and the shared font caches are not meant
for several drawings at once. Pillow, matplotlib and the fonts (about 60 MB)
live in the child, not in the bot. Arguments and pictures cross as pickles
(a page is about 100 KB). If the child dies (killed, out of memory), that
drawing fails and the next one starts a fresh child.

The storage keeps no revision number for a roster, so a roster's revision is
the hash of its whole model dump (with whatever else the card shows, such as
the owner's name): any change to the gang gives a new key, and an unchanged
gang is never drawn twice while its card is in the cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, TypeVar, cast

from bot.child import one_child
from bot.pictures.battle import battle_card
from bot.pictures.chart import campaign_chart
from bot.pictures.roster import roster_card
from bot.pictures.series import GangSeries, Measure
from bot.pictures.turns import Turns
from bot.weapon_rows import KnownLines
from rules.errors import InvalidRequest
from rules.models import Fighter, FighterCategory, Gang, WeaponProfile
from rules.report import BattleReport
from rules.ruleset import VehicleProfile
from rules.world import World

T = TypeVar("T")
# Battle reports whose pictures are prepared at once (bot/ui/report_pictures.py).
REPORTS_AT_ONCE = 2
# About 100 KB a page: 32 rosters of four pages stay under 15 MB.
DEFAULT_CACHE_ENTRIES = 32
# Child processes drawing at once, each for a different server: with two, a server's
# large card leaves the other drawer to everyone else (docs/pictures.md, "Queueing").
DRAWERS = 2
# A drawing still running after this is cut off and its child replaced. The pictures
# keep their own time budgets far under it (bot/pictures/roster.py); this is for what
# slips past them.
DRAW_TIMEOUT = 30.0


def revision_key(kind: str, *parts: object) -> str:
    """A stable hash of what a picture shows: models by their JSON dump, the rest as JSON."""
    digest = hashlib.sha256(kind.encode("utf-8"))
    for part in parts:
        if hasattr(part, "model_dump_json"):
            text = part.model_dump_json(by_alias=True)
        else:
            text = json.dumps(part, sort_keys=True, default=_dump)
        digest.update(b"\0" + text.encode("utf-8"))
    return digest.hexdigest()


def _dump(value: object) -> object:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json", by_alias=True)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot key a picture on {type(value).__name__}")


def roster_revision(
    gang: Gang,
    owner_name: str | None = None,
    gang_names: Mapping[str, str] | None = None,
    weapon_profiles: KnownLines | None = None,
    vehicle_profiles: Mapping[str, VehicleProfile] | None = None,
) -> str:
    """The key of a roster card: the gang as stored, and the names and profiles it shows."""
    return revision_key(
        "roster", gang, owner_name, dict(gang_names or {}),
        {k: list(v) for k, v in (weapon_profiles or {}).items()}, dict(vehicle_profiles or {}),
    )


class PictureDrawerStopped(InvalidRequest):
    """The drawing child died before it answered (a player is told so, privately)."""


class PictureDrawerTooSlow(PictureDrawerStopped):
    """A drawing ran past :data:`DRAW_TIMEOUT` and was stopped."""


class _Drawer:
    """One child process that draws, and its process id (to stop a drawing mid-way)."""

    def __init__(self) -> None:
        self.pool = one_child()
        self.pid: int | None = None

    async def run(self, job: Callable[[], T], timeout: float) -> T:
        loop = asyncio.get_running_loop()
        if self.pid is None:
            self.pid = await loop.run_in_executor(self.pool, os.getpid)
        return await asyncio.wait_for(loop.run_in_executor(self.pool, job), timeout)

    def stop(self, *, now: bool = False) -> None:
        if now and self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self.pool.shutdown(wait=False, cancel_futures=True)


class PictureWorker:
    """Draws pictures in child processes of its own and keeps the last ones drawn.

    The same picture asked for again while it is being drawn waits for that
    drawing instead of starting another. Servers take turns (``guild=``): a
    server's drawings wait behind its own, never behind another server's.
    """

    def __init__(self, cache_entries: int = DEFAULT_CACHE_ENTRIES, *, drawers: int = DRAWERS,
                 timeout: float = DRAW_TIMEOUT) -> None:
        self._idle: list[_Drawer] = []
        self._started: set[_Drawer] = set()
        self._drawers = drawers
        self._turns = Turns(drawers)
        self._timeout = timeout
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._entries = cache_entries
        self._drawing: dict[str, asyncio.Future[Any]] = {}
        self.drawn = 0
        # The child draws one picture at a time: a battle report waiting its turn would
        # only hold its campaign's ledger and its pictures in memory meanwhile (a hundred
        # battles ending together at N = 1,000 raised the bot's peak memory past 200 MB).
        self.report_turns = asyncio.Semaphore(REPORTS_AT_ONCE)

    async def run(self, draw: Callable[..., T], *args: object, guild: int | None = None,
                  **kwargs: object) -> T:
        """``draw(*args, **kwargs)`` in a child, uncached, in ``guild``'s turn; ``draw``
        and its arguments must pickle (a module-level function, models, plain data)."""
        async with self._turns.turn(guild):
            drawer = self._idle.pop() if self._idle else _Drawer()
            self._started.add(drawer)
            try:
                picture = await drawer.run(partial(draw, *args, **kwargs), self._timeout)
            except TimeoutError:
                self._started.discard(drawer)
                drawer.stop(now=True)
                raise PictureDrawerTooSlow(
                    "That picture took too long to draw and was stopped; "
                    "`/gang show card:False` shows a roster as text."
                ) from None
            except BrokenProcessPool:
                self._started.discard(drawer)
                drawer.stop()
                raise PictureDrawerStopped(
                    "The picture drawer stopped before it finished (the bot's host may be "
                    "short of memory); try again in a moment."
                ) from None
            except BaseException:
                # Cancelled while drawing: the child's answer is not awaited by anyone.
                self._started.discard(drawer)
                drawer.stop(now=True)
                raise
            if drawer in self._started:
                self._idle.append(drawer)
            return picture

    async def cached(self, key: str, draw: Callable[..., T], *args: object,
                     guild: int | None = None, **kwargs: object) -> T:
        """The picture under ``key``, drawn by ``draw(*args, **kwargs)`` if not cached."""
        if key in self._cache:
            self._cache.move_to_end(key)
            return cast(T, self._cache[key])
        pending = self._drawing.get(key)
        if pending is not None:
            return cast(T, await asyncio.shield(pending))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._drawing[key] = future
        try:
            picture = await self.run(draw, *args, guild=guild, **kwargs)
        except BaseException as error:
            future.set_exception(error)
            # Nobody else may be waiting; the exception is the caller's to see.
            future.exception()
            raise
        finally:
            del self._drawing[key]
        self.drawn += 1
        future.set_result(picture)
        self._cache[key] = picture
        while len(self._cache) > self._entries:
            self._cache.popitem(last=False)
        return picture

    async def roster_card(
        self,
        gang: Gang,
        *,
        owner_name: str | None = None,
        gang_names: Mapping[str, str] | None = None,
        weapon_profiles: KnownLines | None = None,
        vehicle_profiles: Mapping[str, VehicleProfile] | None = None,
        guild: int | None = None,
    ) -> list[bytes]:
        key = roster_revision(gang, owner_name, gang_names, weapon_profiles, vehicle_profiles)
        # A copy of the gang: the pool pickles it on a thread of its own, later, and the
        # caller may change its model meanwhile.
        pages: tuple[bytes, ...] = await self.cached(
            key, _roster_pages, gang.model_copy(deep=True), owner_name,
            dict(gang_names or {}), {k: list(v) for k, v in (weapon_profiles or {}).items()},
            dict(vehicle_profiles or {}), guild=guild,
        )
        return list(pages)

    async def campaign_chart(self, series: Sequence[GangSeries], measure: Measure,
                             *, title: str | None = None, scale: float = 1.0,
                             guild: int | None = None) -> bytes:
        key = revision_key("chart", [s.model_dump(mode="json") for s in series], measure, title,
                           scale)
        return await self.cached(key, campaign_chart, list(series), measure, title=title,
                                 scale=scale, guild=guild)

    async def battle_card(self, report: BattleReport,
                          casualties: Mapping[str, Sequence[str]] | None = None,
                          *, guild: int | None = None) -> bytes:
        lines = {gang: list(names) for gang, names in (casualties or {}).items()}
        key = revision_key("battle", report, lines)
        return await self.cached(key, battle_card, report, lines, guild=guild)

    async def warm_up(self) -> None:
        """Start the child, open the fonts and read their character maps there, and
        import matplotlib there.

        The first card of a process pays for that (about 0.2 s more), the first chart
        for matplotlib's import (about a second); a bot calls this at start-up so that
        no player's first card or chart does.
        """
        # Every drawer at once (each its own turn): a server's card drawn beside another's
        # large one must not be the one that pays for starting a child.
        await asyncio.gather(*(self.run(_warm_up, guild=-n) for n in range(1, self._drawers + 1)))

    def close(self) -> None:
        """Stop the children once the drawings under way are done; queued ones are dropped."""
        started, self._started, self._idle = self._started, set(), []
        for drawer in started:
            drawer.stop()


def _roster_pages(
    gang: Gang,
    owner_name: str | None,
    gang_names: dict[str, str],
    weapon_profiles: dict[str, list[WeaponProfile]],
    vehicle_profiles: dict[str, VehicleProfile],
) -> tuple[bytes, ...]:
    return tuple(roster_card(gang, owner_name=owner_name, gang_names=gang_names,
                             weapon_profiles=weapon_profiles,
                             vehicle_profiles=vehicle_profiles))


def _warm_up() -> None:
    # Latin, Cyrillic and CJK: every face of the chain is opened and its map read.
    sample = Gang(id="warm", name="Warm-up 鬼", house="Goliath", owner="0")
    sample.fighters.append(Fighter(id="f", name="Жук 龍", category=FighterCategory.LEADER, cost=1))
    roster_card(sample)
    battle_card(BattleReport(
        clause="", title="", world=World(), battle_id="warm", scenario="Warm-up",
        winner_id=None, winner_name=None, territory_id=None, territory_name=None, gangs=[],
    ))
    # Last, being the slowest: matplotlib imported and its fonts registered, so the
    # first /campaign chart waits for neither.
    campaign_chart([], Measure.RATING)
