"""The benchmark's campaign database and the fake Discord world that matches it.

Shape (the same for every N): campaign ``i`` lives alone in server ``i``
(N servers, one campaign each, as most servers run one campaign). Every
campaign has 8 gangs of 15 fighters hired from the rule set's House Lists
(Goliath and Escher, alternately: 1 Leader, 2 Champions, 8 Gangers, 4 Juves,
each with two or three items from its own Equipment List), a vehicle-less
roster, a few Stash items and 8 territories: 4 held by gangs 0, 2, 4 and 6
and 4 unclaimed ones that battles stake. The 8 players (user ids
``PLAYER_IDS``) own gang ``g`` in every campaign and are members of every
server; battle ``k`` of a campaign is gang ``2k`` against gang ``2k + 1``.

Guild and user ids are fixed (snowflakes of 2024-01-01) so a database built
once is cached in ``bench/.cache/`` and reused by every run; a run works on a
copy. The file name carries the schema version and :data:`SHAPE_VERSION`, so
a change to either builds a new one. Even servers are on shard 0 and odd ones
on shard 1 of two (Discord routes by ``(guild_id >> 22) % shard_count``), so
two shard processes share the servers (and the sequences) evenly.

On PostgreSQL (:func:`ensure_postgres`) the same campaigns are written through
the same Storage calls into a database named like the file, kept on the server
as the template each case copies (``CREATE DATABASE ... TEMPLATE``).

Run ``.venv/bin/python bench/build_db.py --n 1000`` to build (or reuse) one
and print its size (``--database postgresql://...`` for the PostgreSQL one).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg

from bot.storage import LATEST_VERSION, Storage, new_id
from bot.storage.opening import open_storage
from fakediscord import FakeDiscord
from fakediscord.entities import Channel, User
from fakediscord.world import Guild
from rules.data import default_ruleset
from rules.models import CampaignSettings, Fighter, Gang, Item, Territory
from rules.ruleset import FighterTemplate, HouseList

CACHE = Path(__file__).resolve().parent / ".cache"
# Bump when the shape below changes, so cached files are rebuilt.
SHAPE_VERSION = 3  # 3: server i is on shard i mod 4 of four (and so i mod 2 of two)
GANGS = 8
FIGHTERS = 15
BATTLES_PER_CAMPAIGN = GANGS // 2
HOUSES = ("Goliath", "Escher")
# (category, how many) of each gang's 15 fighters.
ROSTER = (("Leader", 1), ("Champion", 2), ("Ganger", 8), ("Juve", 4))
CHANNEL = "general"
ACTOR = "benchmark"

# Snowflakes of 2024-01-01 00:00 UTC: older than anything the fake makes now,
# so the pinned ids never collide with the ids it hands out.
_EPOCH_2024 = (1_704_067_200_000 - 1_420_070_400_000) << 22
PLAYER_IDS = tuple(_EPOCH_2024 + 1 + n for n in range(GANGS))
OWNER_ID = _EPOCH_2024 + 100  # owns every server: an Arbitrator, not a player
GUILD_BASE = _EPOCH_2024 + (1 << 20)


SHARDS = 4  # the most shard processes the benchmark runs
_BASE_SHARD = (GUILD_BASE >> 22) % SHARDS
_copies = itertools.count(1)


def guild_id(index: int) -> int:
    """Server ``index``'s id: on shard ``index % 4`` of four, and so ``index % 2`` of two
    (bit 22 up picks the shard, the low bits keep the ids apart)."""
    shard = index % SHARDS
    return GUILD_BASE + (((shard - _BASE_SHARD) % SHARDS) << 22) + index // SHARDS


def shard_of(index: int, count: int) -> int:
    return (guild_id(index) >> 22) % count


def player_name(gang_index: int) -> str:
    return f"player{gang_index}"


def gang_name(gang_index: int) -> str:
    return f"{HOUSES[gang_index % 2]} Gang {gang_index}"


def stake_name(battle_index: int) -> str:
    return f"Open Ground {battle_index}"


def db_path(n: int, cache: Path = CACHE) -> Path:
    return cache / f"campaigns-n{n}-schema{LATEST_VERSION}-shape{SHAPE_VERSION}.sqlite3"


# --------------------------------------------------------------------------- the database


def _template(house: HouseList, category: str) -> FighterTemplate:
    return next(t for t in house.fighters if t.category.value == category)


def _fighter(template: FighterTemplate, name: str, number: int) -> Fighter:
    # Two or three items from the fighter's own Equipment List, different per fighter.
    wanted = 2 + number % 2
    choice = [template.equipment_list[(number + k) % len(template.equipment_list)]
              for k in range(min(wanted, len(template.equipment_list)))]
    return Fighter(
        id=new_id(), name=name, category=template.category, fighter_type=template.fighter_type,
        cost=template.cost, gang_hierarchy=template.gang_hierarchy,
        special_rules=list(template.special_rules), xp=number % 5,
        equipment=[Item(id=new_id(), **e.model_dump()) for e in choice],
    )


def make_gang(gang_index: int, houses: dict[str, HouseList]) -> Gang:
    house = houses[HOUSES[gang_index % 2]]
    fighters: list[Fighter] = []
    for category, count in ROSTER:
        template = _template(house, category)
        for _ in range(count):
            number = len(fighters) + 1
            fighters.append(_fighter(template, f"{gang_name(gang_index)} {number}", number))
    stash = [Item(id=new_id(), **e.model_dump())
             for e in _template(house, "Ganger").equipment_list[:2]]
    return Gang(id=new_id(), name=gang_name(gang_index), house=house.house,
                owner=str(PLAYER_IDS[gang_index]), credits=300, fighters=fighters, stash=stash)


async def populate(storage: Storage, n: int) -> None:
    houses = {h.house: h for h in default_ruleset().houses}
    for index in range(n):
        async with storage.transaction(guild_id(index)) as tx:
            campaign = await tx.create_campaign(CampaignSettings(name=f"Campaign {index}"))
            ids = []
            for g in range(GANGS):
                gang = await tx.create_gang(campaign.id, make_gang(g, houses), actor=ACTOR)
                ids.append(gang.id)
            for b in range(BATTLES_PER_CAMPAIGN):
                held = Territory(id=new_id(), name=f"Stronghold {b}", income="D6x10",
                                 controller=ids[2 * b])
                await tx.add_territory(campaign.id, held, actor=ACTOR)
                open_ground = Territory(id=new_id(), name=stake_name(b), income="D3x10")
                await tx.add_territory(campaign.id, open_ground, actor=ACTOR)


async def ensure_db(n: int, *, cache: Path = CACHE, quiet: bool = False) -> Path:
    """The cached database of ``n`` campaigns, built on first use."""
    path = db_path(n, cache)
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".building")
    for stale in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        stale.unlink(missing_ok=True)
    started = time.perf_counter()
    storage = await Storage.open(partial)
    try:
        await populate(storage, n)
        # One self-contained file: fold the WAL in before caching it.
        await storage.backup(path)
    finally:
        await storage.close()
    for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        leftover.unlink(missing_ok=True)
    if not quiet:
        print(f"built {n} campaigns in {time.perf_counter() - started:.1f} s: {path.name} "
              f"({path.stat().st_size / 1e6:.1f} MB)", flush=True)
    return path


def copy_db(n: int, target: Path, cache: Path = CACHE) -> None:
    shutil.copyfile(db_path(n, cache), target)


# --------------------------------------------------------------------------- on PostgreSQL


def with_database(url: str, database: str) -> str:
    base, _, _ = url.rpartition("/")
    return f"{base}/{database}"


def template_name(n: int) -> str:
    return f"munda_bench_n{n}_schema{LATEST_VERSION}_shape{SHAPE_VERSION}"


async def _databases(admin: asyncpg.Connection) -> set[str]:
    return {row["datname"] for row in await admin.fetch("SELECT datname FROM pg_database")}


async def ensure_postgres(n: int, admin_url: str, *, quiet: bool = False) -> str:
    """The template database of ``n`` campaigns on the server of ``admin_url`` (a URL
    whose user may create databases), built on first use; returns its name.

    Built under another name and renamed when complete, so an interrupted build is
    never taken for a template."""
    name = template_name(n)
    admin = await asyncpg.connect(admin_url)
    try:
        if name in await _databases(admin):
            return name
        partial = f"{name}_building"
        await admin.execute(f'DROP DATABASE IF EXISTS "{partial}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{partial}" TEMPLATE template0')
        started = time.perf_counter()
        storage = await open_storage(with_database(admin_url, partial))
        try:
            await populate(storage, n)
        finally:
            await storage.close()
        await admin.execute(f'ALTER DATABASE "{partial}" RENAME TO "{name}"')
        size = await admin.fetchval("SELECT pg_database_size($1)", name)
    finally:
        await admin.close()
    if not quiet:
        print(f"built {n} campaigns in {time.perf_counter() - started:.1f} s: PostgreSQL "
              f"database {name} ({size / 1e6:.1f} MB)", flush=True)
    return name


async def copy_postgres(n: int, admin_url: str) -> str:
    """A fresh database copied from the template of ``n`` campaigns; returns its URL."""
    name = f"munda_bench_n{n}_{os.getpid()}_{next(_copies)}"
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_name(n)}"')
    finally:
        await admin.close()
    return with_database(admin_url, name)


async def drop_postgres(admin_url: str, url: str) -> None:
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{url.rpartition("/")[2]}" WITH (FORCE)')
    finally:
        await admin.close()


# --------------------------------------------------------------------------- the world


@dataclass
class BenchWorld:
    """The fake Discord's side of the database: players, servers, their #general."""

    players: list[User]
    guilds: list[Guild]
    channels: list[Channel]


def build_world(fake: FakeDiscord, n: int) -> BenchWorld:
    owner = fake.add_user("organiser", global_name="Organiser", user_id=OWNER_ID)
    players = [fake.add_user(player_name(g), global_name=f"Player {g}", user_id=PLAYER_IDS[g])
               for g in range(GANGS)]
    guilds: list[Guild] = []
    channels: list[Channel] = []
    for index in range(n):
        guild = fake.add_guild(f"Server {index}", owner=owner, guild_id=guild_id(index))
        channels.append(guild.add_text_channel(CHANNEL))
        for player in players:
            guild.add_member(player)
        guilds.append(guild)
    return BenchWorld(players, guilds, channels)


def main() -> None:
    parser = argparse.ArgumentParser(description="Build (or reuse) the benchmark database.")
    parser.add_argument("--n", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--cache", type=Path, default=CACHE, help="where built files are kept")
    parser.add_argument("--database", default="sqlite",
                        help="sqlite (default), or a postgresql://... URL of a server whose "
                             "user may create databases: build the template databases there")
    args = parser.parse_args()
    for n in args.n:
        if args.database == "sqlite":
            path = asyncio.run(ensure_db(n, cache=args.cache))
            print(f"N={n}: {path} ({path.stat().st_size / 1e6:.1f} MB)")
        else:
            print(f"N={n}: {asyncio.run(ensure_postgres(n, args.database))}")


if __name__ == "__main__":
    main()
