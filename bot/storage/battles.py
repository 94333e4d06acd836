"""Battles (rules.models.Battle) and their participants."""

from __future__ import annotations

from collections.abc import Sequence

from bot.storage.codec import BATTLE_COLUMNS, Row, battle_from_row, battle_row, now, placeholders
from bot.storage.driver import Connection, IntegrityError, Select, fetch_together, the_row
from rules.errors import InvalidRequest, NotFound
from rules.models import Battle

_SELECT = f"SELECT b.pk, {', '.join('b.' + c for c in BATTLE_COLUMNS)} FROM battles b"


async def _participants(db: Connection, pks: list[int]) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {pk: [] for pk in pks}
    if pks:
        rows = await db.execute_fetchall(
            f"SELECT battle_pk, gang_id FROM battle_gangs"
            f" WHERE battle_pk IN ({placeholders(len(pks))}) ORDER BY battle_pk, position",
            pks,
        )
        for row in rows:
            found[int(row[0])].append(str(row[1]))
    return found


async def _to_battles(db: Connection, rows: list[Row]) -> list[Battle]:
    gangs = await _participants(db, [int(row["pk"]) for row in rows])
    return [battle_from_row(row, gangs[int(row["pk"])]) for row in rows]


def _no_battle(battle_id: str) -> str:
    return f"There is no battle with id {battle_id} in this campaign."


async def _battle_pk(db: Connection, campaign_pk: int, battle_id: str) -> int:
    row = await the_row(db, "SELECT pk FROM battles WHERE campaign_pk = ? AND id = ?",
                        (campaign_pk, battle_id), _no_battle(battle_id))
    return int(row[0])


async def _check_gangs(db: Connection, campaign_pk: int, battle: Battle) -> None:
    rows = await db.execute_fetchall(
        "SELECT id FROM gangs WHERE campaign_pk = ?"
        f" AND id IN ({placeholders(len(battle.gang_ids))})",
        (campaign_pk, *battle.gang_ids),
    )
    missing = set(battle.gang_ids) - {str(row[0]) for row in rows}
    if missing:
        raise NotFound(f"There is no gang with id {sorted(missing)[0]} in this campaign.")


async def create(
    db: Connection, campaign_pk: int, battle: Battle, *, check_gangs: bool = True
) -> Battle:
    """Store a new battle; its gangs must exist unless it is history being imported."""
    if check_gangs:
        await _check_gangs(db, campaign_pk, battle)
    stamp = now()
    columns = ("campaign_pk", *BATTLE_COLUMNS, "created_at", "updated_at")
    try:
        async with db.savepoint():
            inserted = await db.execute_fetchall(
                f"INSERT INTO battles ({', '.join(columns)})"
                f" VALUES ({placeholders(len(columns))}) RETURNING pk",
                (campaign_pk, *battle_row(battle), stamp, stamp),
            )
    except IntegrityError as error:
        raise InvalidRequest(
            f"There is already a battle with id {battle.id} in this campaign."
        ) from error
    await _write_participants(db, int(inserted[0][0]), battle)
    return await get(db, campaign_pk, battle.id)


async def insert_new(db: Connection, campaign_pk: int, battle: Battle, pk: int) -> None:
    """Store a new battle under the key ``pk`` (``Dialect.next_pk``), its gangs checked
    by the caller: plain inserts, which a PostgreSQL write sends with its next statement
    (bot/storage/postgres.py, batching), and which read nothing back."""
    stamp = now()
    columns = ("pk", "campaign_pk", *BATTLE_COLUMNS, "created_at", "updated_at")
    await db.executemany(
        f"INSERT INTO battles ({', '.join(columns)}) VALUES ({placeholders(len(columns))})",
        [(pk, campaign_pk, *battle_row(battle), stamp, stamp)])
    await db.executemany(
        "INSERT INTO battle_gangs (battle_pk, position, gang_id) VALUES (?, ?, ?)",
        [(pk, position, gang_id) for position, gang_id in enumerate(battle.gang_ids)])


async def update_row(db: Connection, campaign_pk: int, battle: Battle) -> None:
    """Write a stored battle's own row (result, stake, scenario...), its gangs known to
    be those stored and to exist (read so in this transaction): one statement."""
    assignments = ", ".join(f"{column} = ?" for column in BATTLE_COLUMNS)
    changed = await db.execute(
        f"UPDATE battles SET {assignments}, updated_at = ? WHERE campaign_pk = ? AND id = ?",
        (*battle_row(battle), now(), campaign_pk, battle.id))
    if not changed:
        raise NotFound(_no_battle(battle.id))


async def _write_participants(db: Connection, battle_pk: int, battle: Battle) -> None:
    await db.execute("DELETE FROM battle_gangs WHERE battle_pk = ?", (battle_pk,))
    await db.executemany(
        "INSERT INTO battle_gangs (battle_pk, position, gang_id) VALUES (?, ?, ?)",
        [(battle_pk, position, gang_id) for position, gang_id in enumerate(battle.gang_ids)],
    )


async def update(db: Connection, campaign_pk: int, battle: Battle) -> Battle:
    """Write a battle's result and end states (e.g. as the players report them)."""
    pk = await _battle_pk(db, campaign_pk, battle.id)
    await _check_gangs(db, campaign_pk, battle)
    assignments = ", ".join(f"{column} = ?" for column in BATTLE_COLUMNS)
    await db.execute(
        f"UPDATE battles SET {assignments}, updated_at = ? WHERE pk = ?",
        (*battle_row(battle), now(), pk),
    )
    await _write_participants(db, pk, battle)
    return await get(db, campaign_pk, battle.id)


async def get(db: Connection, campaign_pk: int, battle_id: str) -> Battle:
    """The battle and its gangs, read together (one round trip on PostgreSQL)."""
    return from_selected(battle_id, *await fetch_together(db, selects(campaign_pk, battle_id)))


def selects(campaign_pk: int, battle_id: str) -> list[Select]:
    """The SELECTs of :func:`get` (its row, its gangs), to be read with others."""
    return [
        (f"{_SELECT} WHERE b.campaign_pk = ? AND b.id = ?", (campaign_pk, battle_id)),
        ("SELECT position, gang_id FROM battle_gangs WHERE battle_pk ="
         " (SELECT pk FROM battles WHERE campaign_pk = ? AND id = ?)", (campaign_pk, battle_id)),
    ]


def from_selected(battle_id: str, found: Sequence[Row], gangs: Sequence[Row]) -> Battle:
    """The battle from the rows of :func:`selects`; NotFound when there is none."""
    if not found:
        raise NotFound(_no_battle(battle_id))
    ordered = sorted(gangs, key=lambda row: int(row["position"]))
    return battle_from_row(found[0], [str(row["gang_id"]) for row in ordered])


async def list_recent(
    db: Connection, campaign_pk: int, *, gang_id: str | None, limit: int | None
) -> list[Battle]:
    """Battles newest first, optionally only those ``gang_id`` fought in."""
    sql = f"{_SELECT} WHERE b.campaign_pk = ?"
    params: list[object] = [campaign_pk]
    if gang_id is not None:
        sql += " AND b.pk IN (SELECT battle_pk FROM battle_gangs WHERE gang_id = ?)"
        params.append(gang_id)
    sql += " ORDER BY b.pk DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return await _to_battles(db, list(await db.execute_fetchall(sql, params)))
