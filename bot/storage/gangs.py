"""Roster management: gangs, fighters, vehicles, Stash items and territories.

Every edit is made on a copy of the stored world and written through the
same path as a rules result (:func:`bot.storage.ledger.apply_world`), so a
roster edit is in the ledger with its before and after, and can be undone
like any other action.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from bot.storage.codec import Row, placeholders
from bot.storage.decoded import KeptByRow
from bot.storage.driver import Connection, Select, first_row, the_row
from bot.storage.ledger import Action, apply_world
from bot.storage.offloop import is_large, off_loop_if
from bot.storage.roster import (
    CAPTIVE_OWNERS,
    RosterRows,
    fetch_rosters,
    fetch_territories,
    gang_from_rows,
    territories_from_rows,
)
from rules.copying import deep_copy
from rules.errors import InvalidRequest, NotFound
from rules.models import Fighter, FighterStatus, Gang, Item, Territory, Vehicle
from rules.names import did_you_mean, name_key
from rules.world import Change, World, diff_worlds

ROSTER_CLAUSE = "ROSTER"

Edit = Callable[[World], None]

# A battle's gangs without their rosters (names and owners, for a click's checks and its
# message), kept by their stored row (bot/storage/decoded.py): every click reads them,
# and they rarely change between two clicks. Shared by every reader of the same row:
# never changed (they are never written back; an edit works on a copy of a whole gang).
GANGS_KEPT = 256
KEPT_GANG_ROW_CHARS = 4_000
_without_rosters: KeptByRow[Gang] = KeptByRow(GANGS_KEPT, KEPT_GANG_ROW_CHARS)


def gang_without_roster(row: Row) -> Gang:
    """The gang of its own row, with empty rosters: the one built from the same stored
    row before, if kept."""
    return _without_rosters.get(row, lambda: gang_from_rows(RosterRows(gang=row)))


async def load_world(
    db: Connection,
    campaign_pk: int,
    gang_ids: Collection[str],
    territory_ids: Collection[str] | None = None,
) -> World:
    """The named gangs (all must exist) and territories (all of the campaign for None)."""
    rows = await fetch_rosters(db, campaign_pk, gang_ids)
    for gang_id in gang_ids:
        if gang_id not in rows:
            raise NotFound(f"There is no gang with id {gang_id} in this campaign.")
    territories = await fetch_territories(db, campaign_pk, territory_ids)
    return World(
        gangs={gang_id: gang_from_rows(rows[gang_id]) for gang_id in gang_ids},
        territories=territories_from_rows(territories),
    )


async def edit(
    db: Connection,
    campaign_pk: int,
    *,
    actor: str,
    title: str,
    change: Edit,
    gang_ids: Collection[str] = (),
    territory_ids: Collection[str] = (),
) -> World:
    """Run ``change`` on a copy of the named gangs and territories and store the result."""
    before = await load_world(db, campaign_pk, gang_ids, territory_ids)
    for territory_id in territory_ids:
        if territory_id not in before.territories:
            raise NotFound(f"There is no territory with id {territory_id} in this campaign.")
    # Copying and diffing a gang at the import bounds takes a few hundred ms of Python.
    after, changes = await off_loop_if(
        is_large(len(g.fighters) for g in before.gangs.values()), _changed, before, change
    )
    if changes:
        await apply_world(
            db, campaign_pk, after, Action(ROSTER_CLAUSE, title, actor, changes=changes)
        )
    return after


def _changed(before: World, change: Edit) -> tuple[World, list[Change]]:
    after = deep_copy(before)
    change(after)
    return after, diff_worlds(before, after)


async def create(
    db: Connection, campaign_pk: int, gang: Gang, *, actor: str, title: str
) -> Gang:
    """Store a new gang: a new gang has nothing to copy or compare, so its one change
    (nothing → the gang) is written as it is; ``gang`` itself is stored, not a copy."""
    changes = await off_loop_if(is_large([len(gang.fighters)]), _created, gang)
    await apply_world(
        db, campaign_pk, World(gangs={gang.id: gang}, territories={}),
        Action(ROSTER_CLAUSE, title, actor, changes=changes),
    )
    return gang


def _created(gang: Gang) -> list[Change]:
    return diff_worlds(World(gangs={}, territories={}), World(gangs={gang.id: gang},
                                                             territories={}))


async def gang_id_by_name(db: Connection, campaign_pk: int, name: str) -> str:
    row = await first_row(db, "SELECT id FROM gangs WHERE campaign_pk = ? AND name_key = ?",
                          (campaign_pk, name_key(name)))
    if row is None:
        # A typo is the likely cause: name the gang the player probably meant.
        names = await db.execute_fetchall("SELECT name FROM gangs WHERE campaign_pk = ?",
                                          (campaign_pk,))
        raise NotFound(f"There is no gang called '{name}' in this campaign."
                       + did_you_mean(name, (str(r[0]) for r in names)))
    return str(row[0])


async def gang_ids_of_owner(db: Connection, campaign_pk: int, owner: str) -> list[str]:
    rows = await db.execute_fetchall(
        "SELECT id FROM gangs WHERE campaign_pk = ? AND owner = ? ORDER BY pk",
        (campaign_pk, owner),
    )
    return [str(row[0]) for row in rows]


async def fighter_by_name(
    db: Connection, campaign_pk: int, name: str
) -> tuple[Gang, Fighter]:
    row = await the_row(db, "SELECT g.id, f.id FROM fighters f JOIN gangs g ON g.pk = f.gang_pk"
                        " WHERE f.campaign_pk = ? AND f.name_key = ?",
                        (campaign_pk, name_key(name)),
                        f"There is no fighter called '{name}' in this campaign.")
    gang = (await load_world(db, campaign_pk, [str(row[0])], ())).gang(str(row[0]))
    return gang, gang.fighter(str(row[1]))


async def captives_held_by(
    db: Connection, campaign_pk: int, gang_id: str
) -> list[tuple[Gang, Fighter]]:
    rows = await db.execute_fetchall(
        "SELECT DISTINCT g.id FROM fighters f JOIN gangs g ON g.pk = f.gang_pk"
        " WHERE f.campaign_pk = ? AND f.captured_by = ? AND f.status = ?",
        (campaign_pk, gang_id, FighterStatus.CAPTURED.value),
    )
    world = await load_world(db, campaign_pk, [str(row[0]) for row in rows], ())
    return world.captives_held_by(gang_id)


async def captive_owners(db: Connection, campaign_pk: int, gang_ids: Sequence[str]) -> list[str]:
    """The gangs whose fighters any of ``gang_ids`` holds Captive, in one statement."""
    if not gang_ids:
        return []
    return owners_from(await db.execute_fetchall(*captive_owners_select(campaign_pk, gang_ids)))


def captive_owners_select(campaign_pk: int, gang_ids: Sequence[str]) -> Select:
    """The SELECT of :func:`captive_owners` (``gang_ids`` not empty), to be read with others."""
    return (CAPTIVE_OWNERS.format(pk="?", captors=placeholders(len(gang_ids))) + " ORDER BY g.id",
            (campaign_pk, *gang_ids, FighterStatus.CAPTURED.value))


def owners_from(rows: Sequence[Row]) -> list[str]:
    """The gang ids of :func:`captive_owners_select`'s rows, sorted."""
    return sorted(str(row[0]) for row in rows)


async def territory_ids_of(db: Connection, campaign_pk: int, gang_id: str) -> list[str]:
    rows = await db.execute_fetchall(
        "SELECT id FROM territories WHERE campaign_pk = ? AND controller = ? ORDER BY position",
        (campaign_pk, gang_id),
    )
    return [str(row[0]) for row in rows]


# ------------------------------------------------------------------ edits on a World copy
# Each returns the function that edit() runs; they raise the rules' own
# errors, with messages a player can read.


def replace_gang(gang: Gang) -> Edit:
    def change(world: World) -> None:
        world.gang(gang.id)
        world.gangs[gang.id] = gang.model_copy(deep=True)

    return change


def delete_gang(gang_id: str) -> Edit:
    def change(world: World) -> None:
        world.gang(gang_id)
        del world.gangs[gang_id]
        # Its territories are unclaimed again rather than held by no one.
        for territory in world.territories_of(gang_id):
            territory.controller = None

    return change


def set_gang_fields(gang_id: str, **fields: str) -> Edit:
    def change(world: World) -> None:
        gang = world.gang(gang_id)
        for key, value in fields.items():
            setattr(gang, key, value)

    return change


def add_fighter(gang_id: str, fighter: Fighter) -> Edit:
    def change(world: World) -> None:
        gang = world.gang(gang_id)
        if any(f.id == fighter.id for f in gang.fighters):
            raise InvalidRequest(f"{gang.name} already has a fighter with id {fighter.id}.")
        gang.fighters.append(fighter.model_copy(deep=True))

    return change


def replace_fighter(gang_id: str, fighter: Fighter) -> Edit:
    def change(world: World) -> None:
        gang = world.gang(gang_id)
        index = gang.fighters.index(gang.fighter(fighter.id))
        gang.fighters[index] = fighter.model_copy(deep=True)

    return change


def remove_fighter(gang_id: str, fighter_id: str) -> Edit:
    def change(world: World) -> None:
        gang = world.gang(gang_id)
        gang.fighters.remove(gang.fighter(fighter_id))

    return change


def _vehicle_list(gang: Gang, vehicle_id: str) -> list[Vehicle]:
    for vehicles in (gang.vehicles, gang.stash_vehicles):
        if any(v.id == vehicle_id for v in vehicles):
            return vehicles
    raise NotFound(f"{gang.name} has no vehicle with id {vehicle_id}.")


def add_vehicle(gang_id: str, vehicle: Vehicle, in_stash: bool) -> Edit:
    def change(world: World) -> None:
        gang = world.gang(gang_id)
        if any(v.id == vehicle.id for v in [*gang.vehicles, *gang.stash_vehicles]):
            raise InvalidRequest(f"{gang.name} already has a vehicle with id {vehicle.id}.")
        (gang.stash_vehicles if in_stash else gang.vehicles).append(vehicle.model_copy(deep=True))

    return change


def replace_vehicle(gang_id: str, vehicle: Vehicle) -> Edit:
    def change(world: World) -> None:
        vehicles = _vehicle_list(world.gang(gang_id), vehicle.id)
        index = next(i for i, v in enumerate(vehicles) if v.id == vehicle.id)
        vehicles[index] = vehicle.model_copy(deep=True)

    return change


def remove_vehicle(gang_id: str, vehicle_id: str) -> Edit:
    def change(world: World) -> None:
        vehicles = _vehicle_list(world.gang(gang_id), vehicle_id)
        vehicles[:] = [v for v in vehicles if v.id != vehicle_id]

    return change


def add_stash_item(gang_id: str, item: Item) -> Edit:
    def change(world: World) -> None:
        world.gang(gang_id).stash.append(item.model_copy(deep=True))

    return change


def remove_stash_item(gang_id: str, item_id: str) -> Edit:
    def change(world: World) -> None:
        gang = world.gang(gang_id)
        kept = [item for item in gang.stash if item.id != item_id]
        if len(kept) == len(gang.stash):
            raise NotFound(f"{gang.name} has no item with id {item_id} in its Stash.")
        gang.stash = kept

    return change


def add_territory(territory: Territory) -> Edit:
    def change(world: World) -> None:
        world.territories[territory.id] = territory.model_copy(deep=True)

    return change


def assign_territory(territory_id: str, gang_id: str | None) -> Edit:
    def change(world: World) -> None:
        world.territory(territory_id).controller = gang_id

    return change


def remove_territory(territory_id: str) -> Edit:
    def change(world: World) -> None:
        world.territory(territory_id)
        del world.territories[territory_id]

    return change
