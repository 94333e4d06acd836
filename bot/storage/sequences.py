"""Pre-/post-battle sequences in progress, stored as one JSON document each.

The storage layer stays generic: whatever pydantic model the rules engine
uses for a sequence is dumped as JSON and read back with the model type the
caller names, so a sequence resumes after a restart exactly where it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.storage.at_once import CAMPAIGN_PK, Statement
from bot.storage.codec import Row, columns, now
from bot.storage.driver import SQLITE, Connection, Dialect, Select, first_row
from bot.storage.errors import StaleSequence, StorageError
from bot.storage.records import SequenceRecord

M = TypeVar("M", bound=BaseModel)
STALE = "Someone else acted on this at the same moment. Nothing was saved; please try again."


def model_name(model_type: type[BaseModel]) -> str:
    return f"{model_type.__module__}.{model_type.__qualname__}"


STORED = "SELECT key, model, battle_id, state, revision, updated_at FROM sequences"


async def stored(db: Connection, campaign_pk: int, key: str) -> Row | None:
    return await first_row(db, f"{STORED} WHERE campaign_pk = ? AND key = ?",
                           (campaign_pk, key))


def stored_select(guild_id: int, campaign_id: str, key: str) -> Select:
    """:func:`stored` as a SELECT to read with others (driver.fetch_together)."""
    return (f"{STORED} WHERE campaign_pk = {CAMPAIGN_PK} AND key = ?",
            (guild_id, campaign_id, key))


def of_recent_battles(
    campaign_pk: int, gangs: Select, prefix: str, recent: int
) -> Select:
    """The stored states keyed ``prefix`` + battle id of the ``recent`` latest battles of
    each gang ``gangs`` selects (the ids), with the gang (``gang_id``) and how recent the
    battle is for it (``n``, 1 the latest): one SELECT for every gang's battles' runs."""
    gangs_sql, gangs_params = gangs
    return (
        "SELECT r.gang_id, r.n, s.key, s.model, s.battle_id, s.state, s.revision, s.updated_at"
        " FROM (SELECT bg.gang_id, b.id AS battle_id, ROW_NUMBER() OVER"
        " (PARTITION BY bg.gang_id ORDER BY b.pk DESC) AS n FROM battle_gangs bg"
        " JOIN battles b ON b.pk = bg.battle_pk"
        f" WHERE b.campaign_pk = ? AND bg.gang_id IN ({gangs_sql})) r"
        " JOIN sequences s ON s.campaign_pk = ? AND s.key = CAST(? AS TEXT) || r.battle_id"
        " WHERE r.n <= ?",
        (campaign_pk, *gangs_params, campaign_pk, prefix, recent))


def recent_states(rows: Sequence[Row], model_type: type[M]) -> dict[str, list[tuple[M, int]]]:
    """The rows of :func:`of_recent_battles` per gang, each state with its revision, the
    latest battle's first."""
    found: dict[str, list[tuple[M, int]]] = {}
    for row in sorted(rows, key=lambda r: int(r["n"])):
        found.setdefault(str(row["gang_id"]), []).append(
            (read_state(row, model_type), int(row["revision"])))
    return found


_UPSERT = (
    "INSERT INTO sequences (campaign_pk, key, model, battle_id, state, revision, updated_at)"
    " VALUES ({pk}, ?, ?, ?, ?, 1, ?) ON CONFLICT (campaign_pk, key) DO UPDATE"
    " SET model = excluded.model, battle_id = excluded.battle_id, state = excluded.state,"
    " revision = sequences.revision + 1, updated_at = excluded.updated_at{guard} RETURNING revision"
)


def save_statement(
    guild_id: int, campaign_id: str, key: str, state: BaseModel, battle_id: str | None,
    *, revision: int,
) -> Statement:
    """:func:`save` over ``revision`` as one statement of a write made at once
    (bot/storage/at_once.py); its one row is the new revision."""
    return Statement(
        _UPSERT.format(pk=CAMPAIGN_PK, guard=" WHERE sequences.revision = ?"),
        (guild_id, campaign_id, key, model_name(type(state)), battle_id,
         state.model_dump_json(by_alias=True), now(), revision),
        required=True,
    )


async def insert_new(
    db: Connection, campaign_pk: int, key: str, state: BaseModel, battle_id: str | None
) -> int:
    """Store the first state of ``key``, known to have none (read so in this write
    transaction): a plain insert, sent with the write's next statement on PostgreSQL.
    Returns its revision, 1 (as :func:`save`'s first)."""
    await db.executemany(
        "INSERT INTO sequences (campaign_pk, key, model, battle_id, state, revision,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(campaign_pk, key, model_name(type(state)), battle_id,
          state.model_dump_json(by_alias=True), 1, now())])
    return 1


async def save(
    db: Connection,
    campaign_pk: int,
    key: str,
    state: BaseModel,
    battle_id: str | None,
    *,
    revision: int | None = None,
) -> int | None:
    """Insert or replace the state of ``key``; returns its new revision (1, 2, ...).

    With ``revision`` (the one the state was read at; 0: not stored yet) the
    state is written only if the stored one is still at it; None when it moved
    on (nothing written). One statement either way.
    """
    guard = "" if revision is None else " WHERE sequences.revision = ?"
    if revision is not None:
        # What it returns is known: PostgreSQL sends it with the transaction's COMMIT.
        await db.defer(
            _UPSERT.format(pk="?", guard=guard),
            (campaign_pk, key, model_name(type(state)), battle_id,
             state.model_dump_json(by_alias=True), now(), revision),
            unless_empty=StaleSequence(STALE),
        )
        return revision + 1
    # One round trip to the database thread (a cursor's fetch and close are two more),
    # made while the writer lock is held.
    rows = await db.execute_fetchall(
        _UPSERT.format(pk="?", guard=guard),
        (
            campaign_pk, key, model_name(type(state)), battle_id,
            state.model_dump_json(by_alias=True), now(),
            *(() if revision is None else (revision,)),
        ),
    )
    row = next(iter(rows), None)
    if row is None or (revision == 0 and int(row[0]) != 1):
        return None
    return int(row[0])


def _set_in_state(
    dialect: Dialect, campaign: str, campaign_params: Sequence[Any], key: str,
    checks: Sequence[tuple[str, str | int]], values: Mapping[str, int],
) -> tuple[str, list[Any]]:
    conditions = f" AND {dialect.json_path_equals('state')}" * len(checks)
    sql = (
        f"UPDATE sequences SET state = {dialect.json_set('state', len(values))},"
        f" revision = revision + 1 WHERE campaign_pk = {campaign} AND key = ?{conditions}"
        " RETURNING revision"
    )
    params = [*dialect.set_params(values.items()), *campaign_params, key,
              *dialect.check_params(checks)]
    return sql, params


def set_in_state_statement(
    guild_id: int, campaign_id: str, key: str, checks: Sequence[tuple[str, str | int]],
    values: Mapping[str, int],
) -> Statement:
    """:func:`set_in_state` as a statement of a write made at once (not required: no
    match changes nothing and keeps the rest of the write)."""
    def render(dialect: Dialect) -> tuple[str, list[Any]]:
        return _set_in_state(dialect, CAMPAIGN_PK, (guild_id, campaign_id), key, checks, values)

    sql, params = render(SQLITE)
    return Statement(sql, params, render=render)


async def set_in_state(
    db: Connection, campaign_pk: int, key: str,
    checks: Sequence[tuple[str, str | int]], values: Mapping[str, int],
) -> int | None:
    """Set numbers inside the stored state (JSON paths: ``$.a."b"[2]``) in one UPDATE, if
    every ``checks`` path holds its value; returns the new revision, or None when nothing
    matched (no such state, or another one)."""
    rows = await db.execute_fetchall(
        *_set_in_state(db.dialect, "?", (campaign_pk,), key, checks, values))
    row = next(iter(rows), None)
    return None if row is None else int(row[0])


def read_state(row: Row, model_type: type[M]) -> M:
    try:
        return model_type.model_validate_json(row["state"])
    except ValidationError as error:
        problems = _without_values(error)
    # Raised outside the except block, so the validation error is neither its cause nor
    # its context: that error's text quotes the stored values, and a state may hold
    # secrets (a post-battle run's dice seeds) that no log may show.
    raise StorageError(
        f"The stored state of sequence {row['key']} (a {row['model']}) cannot be read "
        f"as {model_name(model_type)}: {problems}"
    )


def _without_values(error: ValidationError) -> str:
    """Where and why validation failed, never what the values were."""
    problems = error.errors(include_url=False, include_context=False, include_input=False)
    return "; ".join(
        f"{'.'.join(str(part) for part in problem['loc']) or 'the document'}: {problem['msg']}"
        for problem in problems
    )


async def delete(db: Connection, campaign_pk: int, key: str) -> bool:
    deleted = await db.execute(
        "DELETE FROM sequences WHERE campaign_pk = ? AND key = ?", (campaign_pk, key)
    )
    return deleted > 0


async def list_all(db: Connection, campaign_pk: int) -> list[SequenceRecord]:
    rows = await db.execute_fetchall(
        "SELECT key, model, battle_id, revision, updated_at FROM sequences"
        " WHERE campaign_pk = ? ORDER BY pk",
        (campaign_pk,),
    )
    return [SequenceRecord(**columns(row, SequenceRecord.model_fields)) for row in rows]


async def all_rows(db: Connection, campaign_pk: int) -> list[Row]:
    return list(
        await db.execute_fetchall(
            "SELECT key, model, battle_id, state, revision FROM sequences"
            " WHERE campaign_pk = ? ORDER BY pk",
            (campaign_pk,),
        )
    )
