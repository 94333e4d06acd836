"""Reading and writing gangs (with fighters, vehicles and items) and territories.

Writes are diffs: the stored rows of a gang are compared with the rows the
new model gives, and only rows that differ are updated, inserted or deleted.
Deletes of every gang come first, so a fighter may move between gangs, and
names that change are released before any is taken, so two fighters may swap
names, all within one action.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from bot.storage.at_once import CAMPAIGN_PK
from bot.storage.codec import (
    FIGHTER,
    FIGHTER_COLUMNS,
    FIGHTER_PK,
    FIGHTER_READ,
    GANG_COLUMNS,
    GANG_READ,
    ITEM_COLUMNS,
    ITEM_PLACE,
    ITEM_READ,
    STASH,
    TERRITORY_COLUMNS,
    VEHICLE_COLUMNS,
    VEHICLE_EQUIPMENT,
    VEHICLE_KEYS,
    VEHICLE_READ,
    VEHICLE_UPGRADE,
    Row,
    Values,
    fighter_model,
    fighter_row,
    gang_model,
    gang_row,
    item_model,
    item_row,
    placeholders,
    territory_from_row,
    territory_row,
    vehicle_model,
    vehicle_row,
)
from bot.storage.driver import Connection, IntegrityError, Select, fetch_together
from bot.storage.offloop import is_large, off_loop_if
from rules.errors import InvalidRequest, NotFound
from rules.models import FighterStatus, Gang, Item, Territory, Vehicle
from rules.names import name_key, name_taken
from rules.world import World

_GANG_SELECT = f"SELECT {', '.join(GANG_READ)} FROM gangs"
_FIGHTER_SELECT = f"SELECT {', '.join(FIGHTER_READ)} FROM fighters"
_VEHICLE_SELECT = f"SELECT {', '.join(VEHICLE_READ)} FROM vehicles"
_ITEM_SELECT = f"SELECT {', '.join(ITEM_READ)} FROM items"
_TERRITORY_SELECT = f"SELECT pk, {', '.join(TERRITORY_COLUMNS)} FROM territories"


@dataclass
class RosterRows:
    """The stored rows of one gang, as read at the start of a write."""

    gang: Row
    fighters: list[Row] = field(default_factory=list)
    vehicles: list[Row] = field(default_factory=list)
    items: list[Row] = field(default_factory=list)

    @property
    def pk(self) -> int:
        return int(self.gang["pk"])


# ------------------------------------------------------------------ reading


async def _rows_by_id(
    db: Connection, select: str, order: str, campaign_pk: int, ids: Collection[str] | None
) -> dict[str, Row]:
    """``select``'s rows of one campaign by id, in ``order``: all of them for None, else
    those of ``ids`` that exist."""
    where = "WHERE campaign_pk = ?"
    params: list[object] = [campaign_pk]
    if ids is not None:
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        where += f" AND id IN ({placeholders(len(wanted))})"
        params += wanted
    rows = await db.execute_fetchall(f"{select} {where} ORDER BY {order}", params)
    return {str(row["id"]): row for row in rows}


# The ids of a battle's gangs; parameters: the server, the campaign's id, the battle's id.
_BATTLE_GANG_IDS = ("SELECT gang_id FROM battle_gangs WHERE battle_pk = (SELECT pk FROM battles"
                    f" WHERE campaign_pk = {CAMPAIGN_PK} AND id = ?)")
# The gangs whose fighters the gangs of ``captors`` hold Captive; parameters: the campaign's
# key's, the captors', the status.
CAPTIVE_OWNERS = ("SELECT DISTINCT g.id FROM fighters f JOIN gangs g ON g.pk = f.gang_pk"
                  " WHERE f.campaign_pk = {pk} AND f.captured_by IN ({captors})"
                  " AND f.status = ?")


def battle_gangs_select(guild_id: int, campaign_id: str, battle_id: str) -> Select:
    """The rows of a battle's gangs (as :func:`fetch_gang_rows`), as a SELECT to read
    with others (driver.fetch_together)."""
    return (f"{_GANG_SELECT} WHERE campaign_pk = {CAMPAIGN_PK} AND id IN ({_BATTLE_GANG_IDS})"
            " ORDER BY pk", (guild_id, campaign_id, guild_id, campaign_id, battle_id))


async def fetch_rosters(
    db: Connection, campaign_pk: int, gang_ids: Collection[str] | None = None
) -> dict[str, RosterRows]:
    """Rows of the named gangs of one campaign (all of them for None), in creation order.

    Gangs that do not exist are simply missing from the answer.
    """
    found, _rest = await _rosters_and(db, campaign_pk, gang_ids)
    return found


async def _rosters_and(
    db: Connection, campaign_pk: int, gang_ids: Collection[str] | None, *also: Select
) -> tuple[dict[str, RosterRows], list[Sequence[Row]]]:
    """:func:`fetch_rosters`, and the rows of ``also``, read together (one round trip on
    PostgreSQL, driver.fetch_together)."""
    where = "WHERE campaign_pk = ?"
    params: list[object] = [campaign_pk]
    if gang_ids is not None:
        wanted = list(dict.fromkeys(gang_ids))
        if not wanted:
            return {}, [await db.execute_fetchall(sql, values) for sql, values in also]
        where += f" AND id IN ({placeholders(len(wanted))})"
        params += wanted
    return await rosters_where(db, where, params, *also)


async def rosters_where(
    db: Connection, where: str, params: Sequence[object], *also: Select
) -> tuple[dict[str, RosterRows], list[Sequence[Row]]]:
    """The rosters of the gangs ``where`` finds (a WHERE clause on ``gangs``: by their
    names, say, or a battle's), and the rows of ``also``, read together."""
    gangs, fighters, vehicles, items, *rest = await fetch_together(
        db, [*_roster_selects(where, params), *also])
    return _rosters_from(gangs, fighters, vehicles, items), rest


def _roster_selects(where: str, params: Sequence[object]) -> list[Select]:
    """The SELECTs of the rows of the gangs ``where`` finds (a WHERE clause on gangs):
    the gangs, their fighters, vehicles and items (:func:`_rosters_from`)."""
    of_gangs = f"WHERE gang_pk IN (SELECT pk FROM gangs {where}) ORDER BY position"
    return [
        (f"{_GANG_SELECT} {where} ORDER BY pk", params),
        (f"{_FIGHTER_SELECT} {of_gangs}", params),
        (f"{_VEHICLE_SELECT} {of_gangs}", params),
        (f"{_ITEM_SELECT} {of_gangs}", params),
    ]


def _rosters_from(
    gangs: Sequence[Row], fighters: Sequence[Row], vehicles: Sequence[Row], items: Sequence[Row]
) -> dict[str, RosterRows]:
    # In the order the SELECTs ask for, whichever way the rows came back.
    by_pk = {int(row["pk"]): RosterRows(gang=row) for row in _sorted(gangs, "pk")}
    for row in _sorted(fighters, "position"):
        by_pk[int(row["gang_pk"])].fighters.append(row)
    for row in _sorted(vehicles, "position"):
        by_pk[int(row["gang_pk"])].vehicles.append(row)
    for row in _sorted(items, "position"):
        by_pk[int(row["gang_pk"])].items.append(row)
    return {str(rows.gang["id"]): rows for rows in by_pk.values()}


def _sorted(rows: Sequence[Row], column: str) -> list[Row]:
    return sorted(rows, key=lambda row: int(row[column]))


async def fetch_gang_rows(
    db: Connection, campaign_pk: int, gang_ids: Collection[str] | None
) -> dict[str, Row]:
    """The gangs' own rows (no fighters, vehicles or items) by gang id; missing ones left out.
    ``None``: every gang of the campaign."""
    return await _rows_by_id(db, _GANG_SELECT, "pk", campaign_pk, gang_ids)


def gang_from_rows(rows: RosterRows) -> Gang:
    """The gang as stored, built without validating it again (bot/storage/codec.py)."""
    owned: dict[tuple[str, int | None], list[Item]] = {}
    for row in rows.items:
        slot, fighter_pk, vehicle_pk = ITEM_PLACE(row)
        owner = fighter_pk if slot == FIGHTER else vehicle_pk
        found = owned.get((slot, owner))
        if found is None:
            found = owned[(slot, owner)] = []
        found.append(item_model(row))
    vehicles: tuple[list[Vehicle], list[Vehicle]] = ([], [])
    for row in rows.vehicles:
        pk, in_stash = VEHICLE_KEYS(row)
        vehicles[in_stash].append(
            vehicle_model(
                row,
                owned.get((VEHICLE_UPGRADE, pk), []),
                owned.get((VEHICLE_EQUIPMENT, pk), []),
            )
        )
    return gang_model(
        rows.gang,
        stash=owned.get((STASH, None), []),
        stash_vehicles=vehicles[1],
        fighters=[fighter_model(row, owned.get((FIGHTER, row[FIGHTER_PK]), []))
                  for row in rows.fighters],
        vehicles=vehicles[0],
    )


async def fetch_territories(
    db: Connection, campaign_pk: int, territory_ids: Collection[str] | None = None
) -> dict[str, Row]:
    return await _rows_by_id(db, _TERRITORY_SELECT, "position", campaign_pk, territory_ids)


def territories_from_rows(rows: dict[str, Row]) -> dict[str, Territory]:
    return {territory_id: territory_from_row(row) for territory_id, row in rows.items()}


@dataclass
class WorldRows:
    """The rows a world was read from: gangs by id, and every territory of the campaign.

    Handed to the ledger's check of a result computed from that world, in the same write
    transaction and with nothing written to them since, they stand for a second read
    (bot/storage/ledger.py, apply_world)."""

    gangs: dict[str, RosterRows]
    territories: dict[str, Row]


async def fetch_world(db: Connection, campaign_pk: int, gang_ids: Collection[str]) -> WorldRows:
    """The rows of the named gangs (all must exist) and of every territory."""
    rows, _also = await fetch_world_and(db, campaign_pk, gang_ids)
    return rows


async def fetch_world_and(
    db: Connection, campaign_pk: int, gang_ids: Collection[str], *also: Select
) -> tuple[WorldRows, list[Sequence[Row]]]:
    """:func:`fetch_world`, and the rows of ``also``, read together (one round trip on
    PostgreSQL)."""
    rows, [territories, *rest] = await _rosters_and(
        db, campaign_pk, gang_ids, territories_select(campaign_pk), *also)
    for gang_id in gang_ids:
        if gang_id not in rows:
            raise NotFound(f"There is no gang with id {gang_id} in this campaign.")
    return WorldRows(gangs=rows, territories=territory_rows(territories)), rest


def territories_select(campaign_pk: int) -> Select:
    """Every territory of the campaign, to be read with others."""
    return f"{_TERRITORY_SELECT} WHERE campaign_pk = ? ORDER BY position", (campaign_pk,)


def territory_rows(rows: Sequence[Row]) -> dict[str, Row]:
    """The rows of :func:`territories_select` by id, in order."""
    return {str(row["id"]): row for row in _sorted(rows, "position")}


def world_from_rows(rows: WorldRows, gang_ids: Collection[str]) -> World:
    return World(
        gangs={gang_id: gang_from_rows(rows.gangs[gang_id]) for gang_id in gang_ids},
        territories=territories_from_rows(rows.territories),
    )


# ------------------------------------------------------------------ writing


@dataclass
class GangWrite:
    """One gang to write: ``new`` None deletes it, ``old`` None creates it."""

    gang_id: str
    new: Gang | None
    old: RosterRows | None


async def save_rosters(
    db: Connection, campaign_pk: int, writes: Sequence[GangWrite]
) -> None:
    survivors: dict[str, _Survivors] = {}
    for write in writes:
        if write.old is not None:
            survivors[write.gang_id] = await _delete_missing(db, write)
    for write in writes:
        if write.new is not None and write.old is not None:
            await _release_names(db, write.new, write.old, survivors[write.gang_id])
    new_gangs = [write.new for write in writes if write.new is not None]
    built = await off_loop_if(
        is_large(len(gang.fighters) for gang in new_gangs), _child_rows, new_gangs
    )
    for write in writes:
        if write.new is not None:
            await _upsert_gang(db, campaign_pk, write.new, write.old,
                               survivors.get(write.gang_id), built[write.new.id])


ChildRows = list[tuple[str, str, Values]]


@dataclass
class _ChildRows:
    """A gang's fighter and vehicle rows as (id, name, values), built before any write."""

    fighters: ChildRows
    vehicles: ChildRows


def _child_rows(gangs: list[Gang]) -> dict[str, _ChildRows]:
    return {
        gang.id: _ChildRows(
            fighters=[(f.id, f.name, fighter_row(f, pos)) for pos, f in enumerate(gang.fighters)],
            vehicles=[
                (v.id, v.name, vehicle_row(v, pos, in_stash))
                for in_stash, vehicles in ((False, gang.vehicles), (True, gang.stash_vehicles))
                for pos, v in enumerate(vehicles)
            ],
        )
        for gang in gangs
    }


@dataclass
class _Survivors:
    """Stored rows still present after the deletes, by domain id."""

    fighters: dict[str, Row]
    vehicles: dict[str, Row]
    items: dict[str, Row]


async def _delete_missing(db: Connection, write: GangWrite) -> _Survivors:
    old = write.old
    assert old is not None
    if write.new is None:
        await db.execute("DELETE FROM gangs WHERE pk = ?", (old.pk,))
        return _Survivors({}, {}, {})
    new = write.new
    fighter_ids = {f.id for f in new.fighters}
    vehicle_ids = {v.id for v in [*new.vehicles, *new.stash_vehicles]}
    item_ids = {item.id for item in _all_items(new)}
    gone_fighters = {row["pk"] for row in old.fighters if row["id"] not in fighter_ids}
    gone_vehicles = {row["pk"] for row in old.vehicles if row["id"] not in vehicle_ids}
    # Items of a deleted fighter or vehicle go with it (ON DELETE CASCADE);
    # one that moved to the Stash or another fighter is inserted again.
    cascaded = {
        row["pk"]
        for row in old.items
        if row["fighter_pk"] in gone_fighters or row["vehicle_pk"] in gone_vehicles
    }
    gone_items = [
        row["pk"] for row in old.items if row["id"] not in item_ids and row["pk"] not in cascaded
    ]
    await _delete_pks(db, "items", gone_items)
    await _delete_pks(db, "fighters", list(gone_fighters))
    await _delete_pks(db, "vehicles", list(gone_vehicles))
    lost = set(gone_items) | cascaded
    return _Survivors(
        fighters={r["id"]: r for r in old.fighters if r["pk"] not in gone_fighters},
        vehicles={r["id"]: r for r in old.vehicles if r["pk"] not in gone_vehicles},
        items={r["id"]: r for r in old.items if r["pk"] not in lost},
    )


async def _delete_pks(db: Connection, table: str, pks: list[int]) -> None:
    if pks:
        await db.execute(f"DELETE FROM {table} WHERE pk IN ({placeholders(len(pks))})", pks)


def _all_items(gang: Gang) -> list[Item]:
    items = list(gang.stash)
    for fighter in gang.fighters:
        items += fighter.equipment
    for vehicle in [*gang.vehicles, *gang.stash_vehicles]:
        items += vehicle.upgrades + vehicle.equipment
    return items


async def _upsert_gang(
    db: Connection,
    campaign_pk: int,
    gang: Gang,
    old: RosterRows | None,
    survivors: _Survivors | None,
    children: _ChildRows,
) -> None:
    values = gang_row(gang)
    if old is None:
        gang_pk = await _insert(db, "gangs", ("campaign_pk", *GANG_COLUMNS),
                                (campaign_pk, *values), "gang", gang.name)
        survivors = _Survivors({}, {}, {})
    else:
        gang_pk = old.pk
        if tuple(old.gang)[1:] != values:
            await _update(db, "gangs", GANG_COLUMNS, values, gang_pk, "gang", gang.name,
                          campaign_pk, old.gang)
    assert survivors is not None

    fighter_pks = await _upsert_children(
        db, "fighters", "fighter", FIGHTER_COLUMNS, campaign_pk, gang_pk,
        survivors.fighters, children.fighters,
    )
    vehicle_pks = await _upsert_children(
        db, "vehicles", "vehicle", VEHICLE_COLUMNS, campaign_pk, gang_pk,
        survivors.vehicles, children.vehicles,
    )
    await _upsert_items(db, campaign_pk, gang_pk, gang, fighter_pks, vehicle_pks,
                        survivors.items)


async def _release_names(
    db: Connection, gang: Gang, old: RosterRows, survivors: _Survivors
) -> None:
    # Unique indexes are checked row by row, so two names swapped (within a
    # gang or across gangs) would collide half-way: every renamed row first
    # parks on a key no name can have, and the upserts then write the new one.
    renamed = {
        "fighters": [
            survivors.fighters[f.id]["pk"]
            for f in gang.fighters
            if f.id in survivors.fighters
            and survivors.fighters[f.id]["name_key"] != name_key(f.name)
        ],
        "vehicles": [
            survivors.vehicles[v.id]["pk"]
            for v in [*gang.vehicles, *gang.stash_vehicles]
            if v.id in survivors.vehicles
            and survivors.vehicles[v.id]["name_key"] != name_key(v.name)
        ],
        "gangs": [old.pk] if old.gang["name_key"] != name_key(gang.name) else [],
    }
    for table, pks in renamed.items():
        if pks:
            await db.execute(
                f"UPDATE {table} SET name_key = {db.dialect.parked_name_key()}"
                f" WHERE pk IN ({placeholders(len(pks))})",
                pks,
            )


async def _upsert_children(
    db: Connection,
    table: str,
    kind: str,
    columns: tuple[str, ...],
    campaign_pk: int,
    gang_pk: int,
    stored: dict[str, Row],
    rows: ChildRows,
) -> dict[str, int]:
    pks: dict[str, int] = {}
    for record_id, name, values in rows:
        row = stored.get(record_id)
        if row is None:
            pks[record_id] = await _insert(
                db, table, ("campaign_pk", "gang_pk", *columns),
                (campaign_pk, gang_pk, *values), kind, name,
            )
            continue
        pks[record_id] = int(row["pk"])
        # Rows are (pk, gang_pk, *columns) as read before any write, so a
        # row parked by _release_names still differs and is rewritten here.
        if tuple(row)[2:] != values:
            await _update(db, table, columns, values, int(row["pk"]), kind, name, campaign_pk,
                          row)
    return pks


async def _upsert_items(
    db: Connection,
    campaign_pk: int,
    gang_pk: int,
    gang: Gang,
    fighter_pks: dict[str, int],
    vehicle_pks: dict[str, int],
    stored: dict[str, Row],
) -> None:
    rows: list[Values] = [
        item_row(item, STASH, pos, None, None) for pos, item in enumerate(gang.stash)
    ]
    for fighter in gang.fighters:
        rows += [
            item_row(item, FIGHTER, pos, fighter_pks[fighter.id], None)
            for pos, item in enumerate(fighter.equipment)
        ]
    for vehicle in [*gang.vehicles, *gang.stash_vehicles]:
        vehicle_pk = vehicle_pks[vehicle.id]
        rows += [
            item_row(item, VEHICLE_UPGRADE, pos, None, vehicle_pk)
            for pos, item in enumerate(vehicle.upgrades)
        ]
        rows += [
            item_row(item, VEHICLE_EQUIPMENT, pos, None, vehicle_pk)
            for pos, item in enumerate(vehicle.equipment)
        ]
    id_at = ITEM_COLUMNS.index("id")
    inserts: list[Values] = []
    for values in rows:
        row = stored.get(values[id_at])
        if row is None:
            inserts.append((gang_pk, *values))
        elif tuple(row)[2:] != values:
            await _update(db, "items", ITEM_COLUMNS, values, int(row["pk"]), "item",
                          str(values[id_at]), campaign_pk, row)
    if inserts:
        columns = ("gang_pk", *ITEM_COLUMNS)
        try:
            async with db.savepoint():
                await db.executemany(
                    f"INSERT INTO items ({', '.join(columns)})"
                    f" VALUES ({placeholders(len(columns))})",
                    inserts,
                )
        except IntegrityError as error:
            raise InvalidRequest(
                f"{gang.name} would hold two items with the same id; nothing was saved."
            ) from error


async def _insert(
    db: Connection,
    table: str,
    columns: tuple[str, ...],
    values: Values,
    kind: str,
    name: str,
) -> int:
    try:
        async with db.savepoint():
            inserted = await db.execute_fetchall(
                f"INSERT INTO {table} ({', '.join(columns)})"
                f" VALUES ({placeholders(len(columns))}) RETURNING pk",
                values,
            )
    except IntegrityError as error:
        campaign_pk = int(values[columns.index("campaign_pk")])
        raise await duplicate(db, table, campaign_pk, kind, name, error) from error
    return int(inserted[0][0])


# The columns of the unique keys a rewrite of a row can break (with campaign_pk or
# gang_pk, which a rewrite keeps).
_UNIQUE_KEYS = ("id", "name_key")


async def _update(
    db: Connection,
    table: str,
    columns: tuple[str, ...],
    values: Values,
    pk: int,
    kind: str,
    name: str,
    campaign_pk: int,
    old: Row,
) -> None:
    """Rewrite the row ``pk`` (``old``, as read before any write of this transaction)."""
    assignments = ", ".join(f"{column} = ?" for column in columns)
    if all(values[columns.index(key)] == old[key] for key in _UNIQUE_KEYS if key in columns):
        # No name nor id changes, so no clash to explain: nobody waits for its answer
        # (PostgreSQL sends it with the next statement, or COMMIT).
        await db.defer(f"UPDATE {table} SET {assignments} WHERE pk = ?", (*values, pk))
        return
    try:
        async with db.savepoint():
            await db.execute(f"UPDATE {table} SET {assignments} WHERE pk = ?", (*values, pk))
    except IntegrityError as error:
        raise await duplicate(db, table, campaign_pk, kind, name, error) from error


async def duplicate(
    db: Connection,
    table: str,
    campaign_pk: int,
    kind: str,
    name: str,
    error: IntegrityError,
) -> InvalidRequest:
    """A readable refusal for a unique constraint that a write broke.

    A name clash names the row that holds the name: with look-alikes folded
    into the key, the player may not see why their name is taken.
    """
    text = str(error)
    if "name_key" in text:
        rows = list(
            await db.execute_fetchall(
                f"SELECT name FROM {table} WHERE campaign_pk = ? AND name_key = ?",
                (campaign_pk, name_key(name)),
            )
        )
        existing = str(rows[0][0]) if rows else name
        return InvalidRequest(name_taken(kind, name, existing, "in this campaign"))
    if error.unique:
        return InvalidRequest(f"There is already a {kind} with that id in this campaign.")
    return InvalidRequest(f"The {kind} '{name}' could not be saved: {text}.")


@dataclass
class TerritoryWrite:
    territory_id: str
    new: Territory | None
    old: Row | None


async def save_territories(
    db: Connection, campaign_pk: int, writes: Sequence[TerritoryWrite]
) -> None:
    for write in writes:
        if write.old is not None and write.new is None:
            await db.execute("DELETE FROM territories WHERE pk = ?", (write.old["pk"],))
    for write in writes:
        if write.new is None:
            continue
        if write.old is None:
            rows = list(
                await db.execute_fetchall(
                    "SELECT COALESCE(MAX(position), -1) + 1 FROM territories"
                    " WHERE campaign_pk = ?",
                    (campaign_pk,),
                )
            )
            values = territory_row(write.new, int(rows[0][0]))
            await _insert(db, "territories", ("campaign_pk", *TERRITORY_COLUMNS),
                          (campaign_pk, *values), "territory", write.new.name)
            continue
        values = territory_row(write.new, int(write.old["position"]))
        if tuple(write.old)[1:] != values:
            await _update(db, "territories", TERRITORY_COLUMNS, values, int(write.old["pk"]),
                          "territory", write.new.name, campaign_pk, write.old)


@dataclass
class BattleWorldRows:
    """A battle's world as :func:`battle_world_selects` read it, in one statement: the ids
    of the battle's gangs and of the gangs whose fighters they hold Captive, the rows of
    both, and every territory's."""

    battle_gang_ids: list[str]
    captive_owners: list[str]  # sorted
    rows: WorldRows

    def world(self, gang_ids: Sequence[str]) -> World | None:
        """The world of ``gang_ids`` and of their captives' gangs (after them, by id), as
        ``Transaction.world_rows_with_captives`` builds it. None when ``gang_ids`` are not
        the battle's gangs or a gang is gone: read them by id then."""
        if sorted(gang_ids) != sorted(self.battle_gang_ids):
            return None
        everyone = list(dict.fromkeys([*gang_ids, *self.captive_owners]))
        if any(gang_id not in self.rows.gangs for gang_id in everyone):
            return None
        return world_from_rows(self.rows, everyone)


def battle_world_selects(guild_id: int, campaign_id: str, battle_id: str) -> list[Select]:
    """The SELECTs of :class:`BattleWorldRows` (:func:`battle_world_from`), to read with
    others (driver.fetch_together): the campaign found by its id, the battle by its own,
    so that no answer waits for another's."""
    campaign = (guild_id, campaign_id)
    battle = (*campaign, battle_id)
    owners = (CAPTIVE_OWNERS.format(pk=CAMPAIGN_PK, captors=_BATTLE_GANG_IDS),
              (*campaign, *battle, FighterStatus.CAPTURED.value))
    where = (f"WHERE campaign_pk = {CAMPAIGN_PK}"
             f" AND (id IN ({_BATTLE_GANG_IDS}) OR id IN ({owners[0]}))")
    return [
        (_BATTLE_GANG_IDS, battle),
        owners,
        *_roster_selects(where, (*campaign, *battle, *owners[1])),
        (f"{_TERRITORY_SELECT} WHERE campaign_pk = {CAMPAIGN_PK} ORDER BY position", campaign),
    ]


def battle_world_from(found: Sequence[Sequence[Row]]) -> BattleWorldRows:
    """The rows of :func:`battle_world_selects`, in their order."""
    battle_gangs, owners, gangs, fighters, vehicles, items, territories = found
    return BattleWorldRows(
        battle_gang_ids=[str(row["gang_id"]) for row in battle_gangs],
        captive_owners=sorted(str(row["id"]) for row in owners),
        rows=WorldRows(gangs=_rosters_from(gangs, fighters, vehicles, items),
                       territories=territory_rows(territories)),
    )
