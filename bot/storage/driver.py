"""The seam between the storage modules and a database: one connection interface, two
drivers (bot/storage/sqlite_driver.py on aiosqlite, bot/storage/postgres.py on asyncpg).

The modules write ONE SQL text for both wherever the two agree (``?`` placeholders,
which the PostgreSQL driver numbers; ``RETURNING``; ``ON CONFLICT``), and ask the
connection's :class:`Dialect` for the few fragments that differ (JSON functions, an
aggregate into a JSON array, a name key no name can have).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, cast

from bot.storage.errors import StorageError
from rules.errors import NotFound


class Row(Protocol):
    """A result row, read by column name or position (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def __len__(self) -> int: ...


class IntegrityError(StorageError):
    """A write broke a constraint; ``unique`` when it was a uniqueness one."""

    def __init__(self, message: str, *, unique: bool) -> None:
        super().__init__(message)
        self.unique = unique


class Connection(Protocol):
    """What the storage modules use of a connection inside a transaction."""

    @property
    def dialect(self) -> Dialect: ...

    @property
    def defers(self) -> bool:
        """Whether :meth:`defer` keeps writes for later (else it runs them at once)."""
        ...

    async def execute_fetchall(self, sql: str, params: Iterable[Any] = ()) -> Sequence[Row]:
        """Run one statement; its rows (those of RETURNING for a write)."""
        ...

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one statement; how many rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> None: ...

    def savepoint(self) -> AbstractAsyncContextManager[None]:
        """Around a statement that may break a constraint when the caller goes on reading
        after the error (PostgreSQL refuses everything after an error until a rollback)."""
        ...

    async def claim(self, key: int) -> None:
        """Serialise writers of ``key`` until the transaction ends (see :func:`campaign_key`)."""
        ...

    async def defer(
        self, sql: str, params: Iterable[Any] = (), *, unless_empty: Exception | None = None
    ) -> None:
        """Run a write whose answer nobody reads, at the latest when the transaction
        commits. With ``unless_empty``, ``sql`` returns rows (RETURNING) and none means
        the write must not stand: ``unless_empty`` is raised then and nothing of the
        transaction is kept. SQLite runs it now; PostgreSQL sends it with the next
        statement that goes to the server, COMMIT at the latest (one round trip)."""
        ...


async def run_now(
    db: Connection, sql: str, params: Iterable[Any], unless_empty: Exception | None
) -> None:
    """:meth:`Connection.defer` made at once: the drivers whose trips cost nothing to
    keep (SQLite's, on the database's own thread)."""
    rows = await db.execute_fetchall(sql, params)
    if unless_empty is not None and not rows:
        raise unless_empty


async def first_row(db: Connection, sql: str, params: Iterable[Any] = ()) -> Row | None:
    """The first row of a query, None when it has none."""
    rows = await db.execute_fetchall(sql, params)
    return rows[0] if rows else None


async def the_row(db: Connection, sql: str, params: Iterable[Any], missing: str) -> Row:
    """The row a lookup must find; NotFound(``missing``) when there is none."""
    row = await first_row(db, sql, params)
    if row is None:
        raise NotFound(missing)
    return row


def campaign_key(campaign_pk: int) -> int:
    return campaign_pk


def server_key(guild_id: int) -> int:
    # Negative, so it never meets a campaign's pk (positive) in the same key space.
    return -guild_id


Select = tuple[str, Sequence[Any]]  # one SELECT's text (``?`` placeholders) and parameters


class JsonRow(dict[str, Any]):
    """A row that came back as a JSON object (:func:`fetch_together`), read as a driver's
    row is: by column name or position, its values in column order. A dict, so that a
    lookup by name, the commonest by far, is the dict's own (no call in Python: the
    profiles counted thousands per roster read)."""

    __slots__ = ()

    def __missing__(self, key: object) -> Any:
        if isinstance(key, int):
            return list(self.values())[key]
        raise KeyError(key)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values())  # a row iterates over its values, not its names


def json_rows(text: str) -> list[Row]:
    """The rows of a JSON array of objects (one per row) as driver rows."""
    return cast(list[Row], [JsonRow(found) for found in json.loads(text)])


async def fetch_together(db: Connection, selects: Sequence[Select]) -> list[Sequence[Row]]:
    """The rows of several SELECTs that do not depend on each other's answers.

    On PostgreSQL they go as ONE statement (each SELECT's rows aggregated into a JSON
    array): one round trip, and one snapshot even outside a transaction. The columns
    read so must be TEXT or integers (JSON gives those back exactly), and a SELECT's
    ORDER BY is kept as PostgreSQL aggregates a sorted subquery, which its manual calls
    usual, not promised: callers look rows up, they do not count on their order.
    SQLite runs them one after another (on its own thread, inside one trip already)."""
    combined = db.dialect.together(selects)
    if combined is None:
        return [await db.execute_fetchall(sql, params) for sql, params in selects]
    rows = await db.execute_fetchall(*combined)
    return [json_rows(text) for text in rows[0]]


class Dialect:
    """SQL fragments that differ between the databases; SQLite's spelling here."""

    name = "sqlite"

    def together(self, selects: Sequence[Select]) -> Select | None:
        """Several SELECTs as one statement (:func:`fetch_together`); None: run each."""
        return None

    def claiming(self, campaign_pk: str) -> str | None:
        """A column that claims the campaign of ``campaign_pk`` (``Connection.claim``) as
        the row is read; None where a claim is nothing to send (SQLite's one writer)."""
        return None

    def group_array(self, expression: str) -> str:
        """An aggregate of ``expression`` into a JSON array text ('[]' for no rows)."""
        return f"json_group_array({expression})"

    def next_pk(self, table: str) -> str:
        """A SELECT of the key the next row of ``table`` will get, so that a row and the
        rows naming it can be inserted without reading the key back. SQLite's own choice
        for an INTEGER PRIMARY KEY without AUTOINCREMENT, made under its one writer lock."""
        return f"SELECT COALESCE(MAX(pk), 0) + 1 AS pk FROM {table}"

    def json_text(self, column: str, key: str) -> str:
        """The top-level field ``key`` of the JSON text in ``column``, as text."""
        return f"json_extract({column}, '$.{key}')"

    def json_set(self, column: str, paths: int) -> str:
        """``column``'s JSON with ``paths`` (path, integer) pairs set: 2 params each."""
        return f"json_set({column}{', ?, ?' * paths})"

    def json_path_equals(self, column: str) -> str:
        """The value at a path (1st param) of ``column``'s JSON equals the 2nd param."""
        return f"json_extract({column}, ?) = ?"

    def set_params(self, values: Iterable[tuple[str, int]]) -> list[Any]:
        return [part for pair in values for part in pair]

    def check_params(self, checks: Iterable[tuple[str, str | int]]) -> list[Any]:
        return [part for pair in checks for part in pair]

    def parked_name_key(self) -> str:
        """A name key no cleaned name can have (rules.names strips control characters)."""
        return "char(0) || pk"


class PostgresDialect(Dialect):
    """PostgreSQL: JSON documents stay TEXT and are cast to jsonb where read."""

    name = "postgresql"

    def claiming(self, campaign_pk: str) -> str | None:
        return f"pg_advisory_xact_lock({campaign_pk})"  # campaign_key(pk) is the pk

    def together(self, selects: Sequence[Select]) -> Select | None:
        parts = [f"(SELECT COALESCE(json_agg(q)::text, '[]') FROM ({sql}) q)"
                 for sql, _params in selects]
        return "SELECT " + ", ".join(parts), [p for _sql, params in selects for p in params]

    def group_array(self, expression: str) -> str:
        return f"COALESCE(json_agg({expression})::text, '[]')"

    def next_pk(self, table: str) -> str:
        # Taken from the identity's sequence: no other writer gets it, committed or not.
        return f"SELECT nextval(pg_get_serial_sequence('{table}', 'pk')) AS pk"

    def json_text(self, column: str, key: str) -> str:
        return f"({column}::jsonb ->> '{key}')"

    def json_set(self, column: str, paths: int) -> str:
        # As SQLite's json_set: a missing key is made, an array index one past the end
        # appends, one further is ignored (the length is the stored document's).
        parent = f"{column}::jsonb #> ?::text[]"
        room = (f"COALESCE(jsonb_array_length(CASE WHEN jsonb_typeof({parent}) = 'array'"
                f" THEN {parent} END) >= ?::int, true)")
        sql = f"{column}::jsonb"
        for _ in range(paths):
            sql = f"jsonb_set({sql}, ?::text[], to_jsonb(?::bigint), {room})"
        return f"({sql})::text"

    def json_path_equals(self, column: str) -> str:
        return f"jsonb_path_query_first({column}::jsonb, ?::jsonpath) = ?::jsonb"

    def set_params(self, values: Iterable[tuple[str, int]]) -> list[Any]:
        params: list[Any] = []
        for path, value in values:
            parts = path_parts(path)
            index = int(parts[-1]) if path.endswith("]") else None
            params += [parts, value, parts[:-1], parts[:-1], index]
        return params

    def check_params(self, checks: Iterable[tuple[str, str | int]]) -> list[Any]:
        return [part for path, value in checks for part in (path, json.dumps(value))]

    def parked_name_key(self) -> str:
        # PostgreSQL text cannot hold NUL; U+0001 is stripped from names all the same.
        return "chr(1) || pk"


SQLITE = Dialect()
POSTGRESQL = PostgresDialect()

URL_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: str | Path) -> bool:
    """Whether a database target (``database.target``) is a PostgreSQL URL, not a SQLite file."""
    return str(target).startswith(URL_SCHEMES)

_PATH_PART = re.compile(r'\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_]*))|\[(\d+)\]')


def path_parts(path: str) -> list[str]:
    """A JSON path as SQLite and PostgreSQL's jsonpath write it (``$.a."b c"[2]``) as
    jsonb_set's list of keys (``['a', 'b c', '2']``)."""
    if not path.startswith("$"):
        raise StorageError(f"Not a JSON path: {path!r}")
    parts: list[str] = []
    at = 1
    while at < len(path):
        match = _PATH_PART.match(path, at)
        if match is None:
            raise StorageError(f"Unsupported JSON path: {path!r}")
        quoted, plain, index = match.groups()
        parts.append(quoted if quoted is not None else plain if plain is not None else index)
        at = match.end()
    return parts


# What ``?`` inside is not a placeholder: a quoted string or name (a doubled quote is an
# escaped one; an unclosed one runs to the end) and a comment; or a placeholder.
_NOT_PLACEHOLDERS = re.compile(r"""'[^']*(?:''[^']*)*'?|"[^"]*(?:""[^"]*)*"?|--[^\n]*|\?""")


@lru_cache(maxsize=2048)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2...``; those in quoted strings, quoted
    names and comments are left alone. The scan is a regular expression's (a loop over
    the characters in Python cost milliseconds for a long statement, the profiles
    showed: statements that carry batched inserts are seldom seen twice)."""
    count = 0

    def number(found: re.Match[str]) -> str:
        nonlocal count
        if found.group() != "?":
            return found.group()
        count += 1
        return f"${count}"

    return _NOT_PLACEHOLDERS.sub(number, sql)


def placeholders_filled(sql: str, values: Sequence[str]) -> str:
    """``sql`` with its ``?`` placeholders replaced by ``values`` (texts of SQL), in order;
    those in quoted strings, quoted names and comments are left alone, as by
    :func:`numbered`. ValueError unless there is one value per placeholder."""
    given = iter(values)

    def fill(found: re.Match[str]) -> str:
        if found.group() != "?":
            return found.group()
        try:
            return next(given)
        except StopIteration:
            raise ValueError(f"Too few values for the statement {sql[:60]!r}.") from None

    filled = _NOT_PLACEHOLDERS.sub(fill, sql)
    if next(given, None) is not None:
        raise ValueError(f"Too many values for the statement {sql[:60]!r}.")
    return filled


class NoSavepoint:
    """SQLite goes on after a failed statement; nothing to set up."""

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None

