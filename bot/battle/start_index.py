"""What ``/postbattle start`` checks, kept in memory: names, owners and runs in progress.

A burst of starts (a league night: every table finishing at once) would
otherwise each read campaigns, gangs and runs before answering, and the
reads queue. With this index the command tells, before any storage await,
whether the start will pass its checks; if so it answers at once (the public
"thinking" answer the start message fills) and checks again from storage
after, which stays the authority.

An entry is one server's campaigns, gangs (names and owners), territories and
the gangs in a run in progress, as read at a known count of committed writes
to that server (``Storage.writes``). Any later write to the server makes the
entry stale: it is then not used (the command reads first, as without the
index) and is read again in the background. So a prediction is made only
from what is stored now; the one gap is a write committed while its task has
not yet counted it, and then the storage check refuses after the answer (the
command takes the answer back and refuses privately).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from bot.battle import flow
from bot.battle.flow import StartRequest
from bot.battle.store import runs_of
from bot.call import Actor
from bot.errors import Refused
from bot.storage import Campaign, Storage, StorageError
from rules.errors import RulesError
from rules.models import Gang, Territory
from rules.names import name_key, same_name
from rules.world import World

log = logging.getLogger(__name__)

DRAW = "draw"


@dataclass
class _Server:
    writes: int  # the server's committed writes when this was read
    campaigns: list[Campaign]
    gangs: dict[str, list[Gang]]  # per campaign id, without rosters
    territories: dict[str, dict[str, Territory]]
    busy: dict[str, set[str]]  # per campaign id: gangs in a run in progress


@dataclass(frozen=True)
class StartAsked:
    """What ``/postbattle start`` was given, as typed (the gangs by name)."""

    campaign: str | None
    gangs: Sequence[str]
    winner: str
    territory: str | None
    skirmish: bool | None


class StartIndex:
    """One storage's index (see the module's docstring)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._servers: dict[int, _Server] = {}
        self._reading: dict[int, asyncio.Task[None]] = {}

    def passes(self, guild_id: int, actor: Actor, asked: StartAsked) -> bool:
        """Whether the start passes every check, from what is stored now; False also when
        the index cannot tell (then it is read again in the background)."""
        server = self._servers.get(guild_id)
        if server is None or server.writes != self.storage.writes(guild_id):
            self.read_later(guild_id)
            return False
        try:
            return _passes(server, actor, asked)
        except (RulesError, Refused):
            return False

    def read_later(self, guild_id: int) -> None:
        """Read the server's entry again in the background (once at a time)."""
        if guild_id in self._reading:
            return
        task = asyncio.get_running_loop().create_task(self.read(guild_id))
        self._reading[guild_id] = task
        task.add_done_callback(lambda _t: self._reading.pop(guild_id, None))

    async def read(self, guild_id: int) -> None:
        """Read the server's entry now (a read on the background lane)."""
        writes = self.storage.writes(guild_id)  # counted before the read: stale, never newer
        try:
            async with self.storage.read_only(guild_id, background=True) as tx:
                campaigns = await tx.list_campaigns()
                server = _Server(writes, campaigns, {}, {}, {})
                for campaign in campaigns:
                    gangs = await tx.gangs_without_rosters(campaign.id, None)
                    server.gangs[campaign.id] = list(gangs.values())
                    server.territories[campaign.id] = {
                        t.id: t for t in await tx.list_territories(campaign.id)}
                    server.busy[campaign.id] = {
                        g for run in await runs_of(tx, campaign.id) if run.in_progress
                        for g in run.gang_ids}
        except (RulesError, StorageError):
            log.warning("could not index server %s for /postbattle start", guild_id,
                        exc_info=True)
            return
        self._servers[guild_id] = server

    async def reads_done(self) -> None:
        """Wait for the background reads started so far (before closing the storage)."""
        await asyncio.gather(*self._reading.values())

    async def read_all(self, guild_ids: Iterable[int]) -> None:
        """Read every server's entry (at start-up, after the resume scan)."""
        for guild_id in guild_ids:
            await self.read(guild_id)


def _passes(server: _Server, actor: Actor, asked: StartAsked) -> bool:
    """The command's checks (cogs/postbattle.py), made on the entry; raises their refusals."""
    if asked.campaign and asked.campaign.strip():
        wanted = name_key(asked.campaign)
        found = [c for c in server.campaigns if name_key(c.name) == wanted]
    else:
        found = [c for c in server.campaigns if c.is_default]
    if len(found) != 1:
        return False
    campaign = found[0]
    by_key = {name_key(g.name): g for g in server.gangs.get(campaign.id, [])}
    gangs = [by_key.get(name_key(n)) for n in asked.gangs]
    named = [g for g in gangs if g is not None]
    if len(named) != len(gangs) or len(named) < 2:
        return False
    winners = [g.id for g in named if same_name(g.name, asked.winner)]
    if not winners and name_key(asked.winner) != DRAW:
        return False
    territories = server.territories.get(campaign.id, {})
    staked = None
    if asked.territory:
        stakes = [t.id for t in territories.values() if same_name(t.name, asked.territory)]
        if not stakes:
            return False
        staked = stakes[0]
    request = StartRequest(battle_id=None, gang_ids=[g.id for g in named],
                           winner=winners[0] if winners else None, staked_territory=staked,
                           scenario=None, skirmish=asked.skirmish)
    battle = flow.battle_to_start(request, None, "indexed")
    world = World(gangs={g.id: g for g in named}, territories=territories)
    busy = [g for g in battle.gang_ids if g in server.busy.get(campaign.id, set())]
    flow.check_start(actor, campaign, world, battle, request, busy=busy, existing=None)
    return True


_indexes: WeakKeyDictionary[Storage, StartIndex] = WeakKeyDictionary()


def index_of(storage: Storage) -> StartIndex:
    """The index of ``storage`` (one per open database)."""
    index = _indexes.get(storage)
    if index is None:
        index = _indexes[storage] = StartIndex(storage)
    return index
