"""The Python steps of migrations 0006 and 0010: stored names made clean and re-keyed.

Older releases stored names with only whitespace collapsed and keyed them by
case folding alone, so "Red Ones" and "Red Ones" + a zero-width space, or a
Cyrillic "Red Оnes", were different names. This step rewrites every stored
name in its clean form (:func:`rules.names.clean`) and every ``name_key``
with :func:`rules.names.name_key`.

Where two rows of one scope (campaigns of a server; gangs, fighters,
vehicles, Territories of a campaign) now have the same key, the first keeps
its name and each later one is renamed "<name> (2)", "(3)"...: nothing is
deleted, and every row can still be named in a command. A plain name (no
hidden characters, compatibility forms or look-alike letters) goes first,
as the other is the likelier impostor; then the older row. Renaming only
adds the number: a name's letters are kept as typed. A name with nothing visible becomes
"Unnamed <kind>". Each rename is logged as a warning (names quoted with
their escapes, so hidden characters show) and written to the campaign's
ledger with the old name, so players can see what happened and why.

Migration 0010 (SQLite and its PostgreSQL twin) re-keys the stored names
again when keys came to be the Unicode confusable skeleton (rules/names.py):
names that were two before and look the same now (a Lisu "ꓣed Ones" beside
"Red Ones") are handled exactly as above, by the same code: the plainer, then
older, keeps its name, the other gets "(2)" and a ledger note.

It uses the SQL of schema version 6, never the current codec, so it keeps
working when later migrations change the tables (the tables and columns it
touches are the same at version 9, on either database).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import groupby

import aiosqlite

from bot.storage.driver import Connection
from bot.storage.sqlite_driver import SqliteConnection
from rules.names import MAX_LENGTH, clean, name_key, visible

log = logging.getLogger(__name__)

ACTOR = "Munda Arbitrator upgrade"
CLAUSE = "NAMES"
_CHUNK = 500
_PARKED = "\x01"


@dataclass(frozen=True)
class _Keyed:
    table: str
    kind: str
    scope_word: str
    # Columns: pk, scope, campaign_pk, id, name, name_key, gang_id.
    select: str


_KEYED = (
    _Keyed("campaigns", "campaign", "server",
           "SELECT pk, guild_id, pk, id, name, name_key, NULL FROM campaigns"),
    _Keyed("gangs", "gang", "campaign",
           "SELECT pk, campaign_pk, campaign_pk, id, name, name_key, id FROM gangs"),
    _Keyed("fighters", "fighter", "campaign",
           "SELECT f.pk, f.campaign_pk, f.campaign_pk, f.id, f.name, f.name_key, g.id"
           " FROM fighters f JOIN gangs g ON g.pk = f.gang_pk"),
    _Keyed("vehicles", "vehicle", "campaign",
           "SELECT v.pk, v.campaign_pk, v.campaign_pk, v.id, v.name, v.name_key, g.id"
           " FROM vehicles v JOIN gangs g ON g.pk = v.gang_pk"),
    _Keyed("territories", "territory", "campaign",
           "SELECT pk, campaign_pk, campaign_pk, id, name, name_key, NULL FROM territories"),
)
# Names without a key: only made clean.
_PLAIN = (("gangs", "house", "Unknown House"), ("items", "name", "Unnamed item"))


@dataclass(frozen=True)
class _Row:
    pk: int
    scope: int
    campaign_pk: int
    id: str
    name: str
    key: str
    gang_id: str | None


@dataclass(frozen=True)
class _Rename:
    row: _Row
    name: str
    key: str
    # Why the name is not just made clean; None: it is.
    reason: str | None


async def rekey_names(conn: aiosqlite.Connection) -> None:
    """Migration 0006 (SQLite only)."""
    db = SqliteConnection(conn)
    await _rekey(db, 6)
    for table, column, fallback in _PLAIN:
        await _clean_plain(db, table, column, fallback)


async def rekey_by_skeleton(db: Connection) -> None:
    """Migration 0010, on either database: every key recomputed, new clashes renamed."""
    await _rekey(db, 10)


async def _rekey(db: Connection, version: int) -> None:
    at = datetime.now(UTC).isoformat(timespec="microseconds")
    for keyed in _KEYED:
        rows = [_Row(*row) for row in await db.execute_fetchall(keyed.select)]
        renames = [r for r in _plan(keyed, rows) if (r.name, r.key) != (r.row.name, r.row.key)]
        await _write(db, keyed.table, renames)
        for rename in renames:
            await _record(db, keyed, rename, at, version)


def _plan(keyed: _Keyed, rows: list[_Row]) -> list[_Rename]:
    plan: list[_Rename] = []
    ordered = sorted(rows, key=lambda r: (r.scope, not _plain(r.name), r.pk))
    for _scope, group in groupby(ordered, key=lambda r: r.scope):
        holders: dict[str, str] = {}
        for row in group:
            base = _clean(row.name, f"Unnamed {keyed.kind}")
            name, key = base, name_key(base)
            reason = None if visible(row.name) else "it had nothing visible in it"
            if key in holders and reason is None:
                reason = (f"it looked the same as the {keyed.kind} '{holders[key]}' "
                          f"in this {keyed.scope_word}")
            number = 2
            while key in holders:
                suffix = f" ({number})"
                name = clean(base[: MAX_LENGTH - len(suffix)] + suffix)
                key = name_key(name)
                number += 1
            holders[key] = name
            plan.append(_Rename(row, name, key, reason))
    return plan


def _plain(name: str) -> bool:
    """No hidden characters, compatibility forms or look-alike letters."""
    return clean(name) == name and name_key(name) == name.casefold()


def _clean(text: str, fallback: str) -> str:
    # NFKC may lengthen a name past the limit; cut, then clean the cut end.
    return clean(clean(text)[:MAX_LENGTH]) if visible(text) else fallback


async def _write(conn: Connection, table: str, renames: Sequence[_Rename]) -> None:
    # Keys are unique row by row: every changed row first parks on a key no
    # name can have (clean names hold no control character; PostgreSQL's text
    # takes no NUL), so a row may take a key another row is giving up.
    pks = [r.row.pk for r in renames]
    for start in range(0, len(pks), _CHUNK):
        chunk = pks[start : start + _CHUNK]
        await conn.execute(
            f"UPDATE {table} SET name_key = ? || CAST(pk AS TEXT)"
            f" WHERE pk IN ({','.join('?' * len(chunk))})",
            [_PARKED, *chunk],
        )
    await conn.executemany(
        f"UPDATE {table} SET name = ?, name_key = ? WHERE pk = ?",
        [(r.name, r.key, r.row.pk) for r in renames],
    )


async def _record(
    conn: Connection, keyed: _Keyed, rename: _Rename, at: str, version: int
) -> None:
    row = rename.row
    if rename.reason is None:
        if rename.name != row.name:
            log.info("Schema %d: %s %s name %r is now stored as %r.",
                     version, keyed.kind, row.id, row.name, rename.name)
        return
    log.warning(
        "Schema %d: %s %s %r (%s %s) renamed to %r: %s.", version,
        keyed.kind, row.id, row.name, keyed.scope_word, row.scope, rename.name, rename.reason,
    )
    note = f"The {keyed.kind} '{row.name}' is now called '{rename.name}': {rename.reason}."
    await conn.execute(
        "INSERT INTO ledger_events (campaign_pk, action_pk, at, actor, kind, clause, gang_id,"
        " text) VALUES (?, NULL, ?, ?, 'note', ?, ?, ?)",
        (row.campaign_pk, at, ACTOR, CLAUSE, row.gang_id, note),
    )
    if keyed.table == "campaigns":
        return
    await conn.execute(
        "INSERT INTO ledger_events (campaign_pk, action_pk, at, actor, kind, clause, subject,"
        " subject_id, subject_name, gang_id, path, before, after)"
        " VALUES (?, NULL, ?, ?, 'change', ?, ?, ?, ?, ?, 'name', ?, ?)",
        (row.campaign_pk, at, ACTOR, CLAUSE, keyed.kind, row.id, rename.name, row.gang_id,
         json.dumps(row.name, ensure_ascii=False), json.dumps(rename.name, ensure_ascii=False)),
    )


async def _clean_plain(conn: Connection, table: str, column: str, fallback: str) -> None:
    changes: list[tuple[str, int]] = []
    for pk, text in await conn.execute_fetchall(f"SELECT pk, {column} FROM {table}"):
        cleaned = _clean(text, fallback)
        if cleaned != text:
            log.info("Schema 6: %s %s %s %r is now stored as %r.", table, pk, column, text,
                     cleaned)
            changes.append((cleaned, pk))
    await conn.executemany(f"UPDATE {table} SET {column} = ? WHERE pk = ?", changes)
