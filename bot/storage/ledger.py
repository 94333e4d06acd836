"""The ledger: actions with their undo snapshots, and one event per roll, change and note.

Every write to gangs and territories goes through :func:`record_action`, in
the transaction of the write itself, so the ledger can never miss a change or
record one that was rolled back.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.storage.codec import Row, columns, dumps, now, placeholders
from bot.storage.driver import Connection, Select, the_row
from bot.storage.errors import StaleWorld
from bot.storage.offloop import is_large, off_loop_if
from bot.storage.records import ActionRecord, LedgerEvent, Snapshot
from bot.storage.roster import (
    GangWrite,
    RosterRows,
    TerritoryWrite,
    WorldRows,
    fetch_rosters,
    fetch_territories,
    gang_from_rows,
    save_rosters,
    save_territories,
    territories_from_rows,
)
from rules.dice import DiceRoll
from rules.errors import InvalidRequest, NotFound
from rules.models import Gang, Territory
from rules.world import Change, World, diff_worlds

_EVENT_COLUMNS = (
    "campaign_pk", "action_pk", "at", "actor", "kind", "clause", "battle_id", "step",
    "expression", "faces", "total", "purpose", "subject", "subject_id", "subject_name",
    "gang_id", "path", "before", "after", "text", "imported_from", "imported_at",
)
_EVENT_INSERT = (
    f"INSERT INTO ledger_events ({', '.join(_EVENT_COLUMNS)})"
    f" VALUES ({placeholders(len(_EVENT_COLUMNS))})"
)
_EVENT_SELECT = (
    f"SELECT pk, {', '.join(_EVENT_COLUMNS)},"
    # Undone: a later action undid the one that wrote it (the event itself never changes).
    " EXISTS (SELECT 1 FROM actions u WHERE u.undoes_pk = e.action_pk) AS undone"
    " FROM ledger_events e"
)
_ACTION_SELECT = (
    "SELECT a.pk, a.at, a.actor, a.clause, a.title, a.battle_id, a.step, a.notes, a.undoes_pk,"
    " (SELECT u.pk FROM actions u WHERE u.undoes_pk = a.pk) AS undone_by,"
    " (SELECT {gang_ids} FROM action_gangs g WHERE g.action_pk = a.pk)"
    " AS gang_ids FROM actions a"
)


def _action_select(db: Connection) -> str:
    return _ACTION_SELECT.format(gang_ids=db.dialect.group_array("gang_id"))


# Change paths whose values are gang ids: the gangs they name are touched too.
_GANG_REFERENCES = ("controller", "captured_by")


@dataclass(frozen=True)
class ImportedFrom:
    """Where imported ledger rows came from: the source campaign's name, and when."""

    campaign_name: str
    at: datetime


@dataclass
class Action:
    """What an action writes, whatever produced it."""

    clause: str
    title: str
    actor: str
    changes: Sequence[Change]
    rolls: Sequence[DiceRoll] = ()
    notes: Sequence[str] = ()
    battle_id: str | None = None
    step: str | None = None
    undoes: int | None = None
    undo_text: str | None = None
    extra_gang_ids: set[str] = field(default_factory=set)


def affected(changes: Iterable[Change]) -> tuple[list[str], list[str]]:
    """Gang ids and territory ids a list of changes touches, in first-seen order."""
    gangs: dict[str, None] = {}
    territories: dict[str, None] = {}
    for change in changes:
        if change.subject == "territory":
            territories[change.subject_id] = None
        elif change.subject == "gang":
            gangs[change.subject_id] = None
        elif change.gang_id is not None:
            gangs[change.gang_id] = None
    return list(gangs), list(territories)


async def apply_world(
    db: Connection, campaign_pk: int, after: World, action: Action,
    read: WorldRows | None = None,
) -> int:
    """Write the gangs and territories that ``action.changes`` touch as ``after`` has them.

    The stored state must be the one the changes were computed from: if it is
    not, someone else wrote in between and :class:`StaleWorld` refuses. Returns
    the new action's pk.

    ``read``: rows read earlier in this same write transaction, with nothing written to
    them since. They are what is stored (a write transaction holds its campaign: no other
    writer's change can land in between), so the check is made against them instead of
    reading the same rows again; gangs they lack are read.
    """
    if not action.changes:
        # Rolls and notes only: no stored state to check or to keep for undo.
        action_pk = await _insert_action(db, campaign_pk, action, _NOTHING_KEPT, [])
        await db.executemany(_EVENT_INSERT, _event_rows(campaign_pk, action_pk, action))
        return action_pk
    gang_ids, territory_ids = affected(action.changes)
    old_gangs, old_territories = await _stored_rows(db, campaign_pk, gang_ids,
                                                    territory_ids, read)
    large = is_large([
        *(len(rows.fighters) for rows in old_gangs.values()),
        *(len(after.gangs[g].fighters) for g in gang_ids if g in after.gangs),
    ])
    target, snapshot = await off_loop_if(
        large, _checked, old_gangs, old_territories, after, action.changes
    )
    action_pk = await _insert_action(db, campaign_pk, action, snapshot, gang_ids)
    await save_rosters(
        db,
        campaign_pk,
        [GangWrite(g, target.gangs.get(g), old_gangs.get(g)) for g in gang_ids],
    )
    await save_territories(
        db,
        campaign_pk,
        [TerritoryWrite(t, target.territories.get(t), old_territories.get(t))
         for t in territory_ids],
    )
    rows = await off_loop_if(large, _event_rows, campaign_pk, action_pk, action)
    await db.executemany(_EVENT_INSERT, rows)
    return action_pk


async def _stored_rows(
    db: Connection, campaign_pk: int, gang_ids: list[str], territory_ids: list[str],
    read: WorldRows | None,
) -> tuple[dict[str, RosterRows], dict[str, Row]]:
    """The stored rows of the gangs and territories an action touches (those that exist)."""
    if read is None:
        return (await fetch_rosters(db, campaign_pk, gang_ids),
                await fetch_territories(db, campaign_pk, territory_ids))
    old_gangs = {g: read.gangs[g] for g in gang_ids if g in read.gangs}
    unread = [g for g in gang_ids if g not in read.gangs]
    if unread:
        old_gangs.update(await fetch_rosters(db, campaign_pk, unread))
    # Every territory of the campaign was read: one missing does not exist.
    old_territories = {t: read.territories[t] for t in territory_ids if t in read.territories}
    return old_gangs, old_territories


def _checked(
    old_gangs: dict[str, RosterRows],
    old_territories: dict[str, Row],
    after: World,
    changes: Sequence[Change],
) -> tuple[World, bytes]:
    """The part of ``after`` that ``changes`` touch, once the stored state is found to be
    the one they were computed from, and the packed snapshot of what it replaces."""
    gang_ids, territory_ids = affected(changes)
    before = World(
        gangs={gang_id: gang_from_rows(rows) for gang_id, rows in old_gangs.items()},
        territories=territories_from_rows(old_territories),
    )
    target = World(
        gangs={g: after.gangs[g] for g in gang_ids if g in after.gangs},
        territories={t: after.territories[t] for t in territory_ids if t in after.territories},
    )
    _check_current(before, target, changes)
    snapshot = Snapshot(
        gangs={g: before.gangs.get(g) for g in gang_ids},
        territories={t: before.territories.get(t) for t in territory_ids},
    )
    return target, pack_snapshot(snapshot)


def _check_current(before: World, target: World, changes: Sequence[Change]) -> None:
    created = {
        (c.subject, c.subject_id)
        for c in changes
        if c.subject in ("gang", "territory") and c.path == "" and c.before is None
    }
    gang_ids, territory_ids = affected(changes)
    for gang_id in gang_ids:
        if gang_id not in before.gangs and ("gang", gang_id) not in created:
            raise NotFound(f"There is no gang with id {gang_id} in this campaign.")
    for territory_id in territory_ids:
        if territory_id not in before.territories and ("territory", territory_id) not in created:
            raise NotFound(f"There is no territory with id {territory_id} in this campaign.")
    # The result's own changes and the difference between what is stored and
    # what it wants to store agree exactly when nobody wrote in between.
    if not _same_changes(_stored_difference(before, target, created), changes):
        names = sorted({c.subject_name for c in changes if c.subject in ("gang", "territory")}
                       | {g.name for g in before.gangs.values()})
        raise StaleWorld(
            f"{', '.join(names) or 'The campaign'} changed while this was being worked out "
            "(someone else acted first). Nothing was saved; please try again."
        )


def _stored_difference(
    before: World, target: World, created: set[tuple[str, str]]
) -> list[Change]:
    """``diff_worlds(before, target)``, with the one change of a subject new to the store
    (nothing → the whole of it) built without validating its values again: they are a
    model's JSON dump already, and validating a new gang at the bounds is ~150 ms."""
    new_gangs = {g: gang for g, gang in target.gangs.items()
                 if ("gang", g) in created and g not in before.gangs}
    new_territories = {t: territory for t, territory in target.territories.items()
                       if ("territory", t) in created and t not in before.territories}
    rest = World(
        gangs={g: gang for g, gang in target.gangs.items() if g not in new_gangs},
        territories={t: territory for t, territory in target.territories.items()
                     if t not in new_territories},
    )
    return [
        *diff_worlds(before, rest),
        *(_creation("gang", gang, gang.id) for gang in new_gangs.values()),
        *(_creation("territory", territory, None) for territory in new_territories.values()),
    ]


def _creation(subject: str, model: Gang | Territory, gang_id: str | None) -> Change:
    return Change.model_construct(
        subject=subject, subject_id=model.id, subject_name=model.name, gang_id=gang_id,
        path="", before=None, after=model.model_dump(mode="json", by_alias=True),
    )


def _same_changes(stored: Sequence[Change], claimed: Sequence[Change]) -> bool:
    """Whether two lists hold the same changes in any order.

    Compared as values, not as JSON text: dumping a new gang at the bounds to JSON
    is one C call of 15-40 ms that holds the interpreter, even in a worker thread.
    """
    if len(stored) != len(claimed):
        return False
    unmatched: dict[tuple[str, str, str], list[Change]] = {}
    for change in stored:
        unmatched.setdefault(_change_key(change), []).append(change)
    for change in claimed:
        candidates = unmatched.get(_change_key(change), [])
        # Values at one path come from one typed field on both sides, so == (which takes
        # 1 for True) meets no value that JSON text would have told apart.
        match = next((i for i, c in enumerate(candidates) if c == change), None)
        if match is None:
            return False
        del candidates[match]
    return True


def _change_key(change: Change) -> tuple[str, str, str]:
    return change.subject, change.subject_id, change.path


# zlib's fastest level: level 6 (the default) makes a gang's snapshot only a tenth
# smaller for nearly three times the work, done by every write that touches a gang while
# it holds the writer. Any level reads back the same (zlib.decompress).
_SNAPSHOT_LEVEL = 1


def pack_snapshot(snapshot: Snapshot) -> bytes:
    return zlib.compress(snapshot.model_dump_json(by_alias=True).encode("utf-8"),
                         _SNAPSHOT_LEVEL)


# The snapshot of an action that changes nothing (what _checked packs for it).
_NOTHING_KEPT = pack_snapshot(Snapshot(gangs={}, territories={}))


def unpack_snapshot(blob: bytes) -> Snapshot:
    return Snapshot.model_validate_json(zlib.decompress(blob))


async def _insert_action(
    db: Connection,
    campaign_pk: int,
    action: Action,
    snapshot: bytes,
    gang_ids: list[str],
) -> int:
    inserted = await db.execute_fetchall(
        "INSERT INTO actions (campaign_pk, at, actor, clause, title, battle_id, step, notes,"
        " snapshot, undoes_pk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk",
        (
            campaign_pk, now(), action.actor, action.clause, action.title, action.battle_id,
            action.step, dumps(list(action.notes)), snapshot,
            action.undoes,
        ),
    )
    action_pk = int(inserted[0][0])
    touched = dict.fromkeys(gang_ids)
    for change in action.changes:
        if change.path in _GANG_REFERENCES:
            for value in (change.before, change.after):
                if isinstance(value, str):
                    touched[value] = None
    touched.update(dict.fromkeys(action.extra_gang_ids))
    await db.executemany(
        "INSERT INTO action_gangs (action_pk, gang_id) VALUES (?, ?)",
        [(action_pk, gang_id) for gang_id in touched],
    )
    return action_pk


def _event_rows(campaign_pk: int, action_pk: int, action: Action) -> list[tuple[object, ...]]:
    at = now()
    head = (campaign_pk, action_pk, at, action.actor)
    where = (action.clause, action.battle_id, action.step)
    # Recorded here: neither imported_from nor imported_at.
    here = (None, None)
    rows: list[tuple[object, ...]] = []
    if action.undo_text is not None:
        rows.append((*head, "undo", *where, *([None] * 11), action.undo_text, *here))
    for dice in action.rolls:
        rows.append(
            (*head, "roll", *where, dice.expression, dumps(list(dice.faces)), dice.total,
             dice.purpose, *([None] * 8), *here)
        )
    for note in action.notes:
        rows.append((*head, "note", *where, *([None] * 11), note, *here))
    for change in action.changes:
        rows.append(
            (*head, "change", *where, None, None, None, None, change.subject,
             change.subject_id, change.subject_name, change.gang_id, change.path,
             dumps(change.before), dumps(change.after), None, *here)
        )
    return rows


async def insert_plain_events(db: Connection, rows: list[tuple[object, ...]]) -> None:
    """Append events that belong to no action (notes, imported history), in _EVENT_COLUMNS
    order (:func:`event_values`)."""
    await db.executemany(_EVENT_INSERT, rows)


def note_event(actor: str, text: str, clause: str = "STORAGE") -> LedgerEvent:
    """A free-standing note (id 0 until stored)."""
    return LedgerEvent(id=0, kind="note", at=now(), actor=actor, clause=clause, text=text)


def event_values(
    campaign_pk: int, event: LedgerEvent, imported: ImportedFrom | None = None
) -> tuple[object, ...]:
    """An event as a row of _EVENT_COLUMNS, detached from its action.

    ``imported``: the event comes from a campaign file and is stored as history
    of that campaign (whatever the file said about it), never as recorded here.
    """
    is_change = event.kind == "change"
    return (
        campaign_pk, None, event.at.isoformat(), event.actor, event.kind, event.clause,
        event.battle_id, event.step, event.expression,
        None if event.faces is None else dumps(event.faces), event.total, event.purpose,
        event.subject, event.subject_id, event.subject_name, event.gang_id, event.path,
        dumps(event.before) if is_change else None, dumps(event.after) if is_change else None,
        event.text,
        None if imported is None else imported.campaign_name,
        None if imported is None else imported.at.isoformat(),
    )


# ------------------------------------------------------------------ undo


async def undo_last(
    db: Connection, campaign_pk: int, *, actor: str, battle_id: str | None
) -> ActionRecord:
    """Put back the snapshot of the last action not yet undone; return that action."""
    rows = list(
        await db.execute_fetchall(
            "SELECT pk, clause, title, battle_id, snapshot FROM actions a"
            " WHERE campaign_pk = ? AND undoes_pk IS NULL"
            " AND NOT EXISTS (SELECT 1 FROM actions u WHERE u.undoes_pk = a.pk)"
            " ORDER BY pk DESC LIMIT 1",
            (campaign_pk,),
        )
    )
    if not rows:
        raise InvalidRequest("There is nothing to undo in this campaign.")
    last = rows[0]
    if battle_id is not None and last["battle_id"] != battle_id:
        raise InvalidRequest(
            "The last action in this campaign was not part of this battle, and only "
            "the last action can be undone."
        )
    snapshot = unpack_snapshot(last["snapshot"])
    old_gangs = await fetch_rosters(db, campaign_pk, list(snapshot.gangs))
    old_territories = await fetch_territories(db, campaign_pk, list(snapshot.territories))
    current = World(
        gangs={g: gang_from_rows(rows) for g, rows in old_gangs.items()},
        territories=territories_from_rows(old_territories),
    )
    target = World(
        gangs={g: gang for g, gang in snapshot.gangs.items() if gang is not None},
        territories={t: terr for t, terr in snapshot.territories.items() if terr is not None},
    )
    action = Action(
        clause=last["clause"],
        title=f"Undo: {last['title']}",
        actor=actor,
        changes=diff_worlds(current, target),
        battle_id=last["battle_id"],
        undoes=int(last["pk"]),
        undo_text=f"Undid action #{last['pk']} ({last['clause']} {last['title']}).",
        extra_gang_ids=set(snapshot.gangs),
    )
    undo_snapshot = Snapshot(
        gangs={g: current.gangs.get(g) for g in snapshot.gangs},
        territories={t: current.territories.get(t) for t in snapshot.territories},
    )
    undo_pk = await _insert_action(
        db, campaign_pk, action, pack_snapshot(undo_snapshot), list(snapshot.gangs)
    )
    await save_rosters(
        db,
        campaign_pk,
        [GangWrite(g, new, old_gangs.get(g)) for g, new in snapshot.gangs.items()],
    )
    await save_territories(
        db,
        campaign_pk,
        [TerritoryWrite(t, new, old_territories.get(t)) for t, new in snapshot.territories.items()],
    )
    await _restore_sequences(db, campaign_pk, int(last["pk"]))
    await db.executemany(_EVENT_INSERT, _event_rows(campaign_pk, undo_pk, action))
    return await get_action(db, campaign_pk, int(last["pk"]))


async def _restore_sequences(db: Connection, campaign_pk: int, action_pk: int) -> None:
    rows = await db.execute_fetchall(
        "SELECT key, model, battle_id, state_before FROM action_sequences WHERE action_pk = ?",
        (action_pk,),
    )
    for row in rows:
        if row["state_before"] is None:
            await db.execute(
                "DELETE FROM sequences WHERE campaign_pk = ? AND key = ?", (campaign_pk, row["key"])
            )
            continue
        await db.execute(
            "INSERT INTO sequences (campaign_pk, key, model, battle_id, state, revision,"
            " updated_at) VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (campaign_pk, key) DO UPDATE"
            " SET model = excluded.model, battle_id = excluded.battle_id,"
            " state = excluded.state, revision = sequences.revision + 1,"
            " updated_at = excluded.updated_at",
            (campaign_pk, row["key"], row["model"], row["battle_id"], row["state_before"], now()),
        )


async def keep_stored_sequence(db: Connection, action_pk: int, campaign_pk: int, key: str) -> None:
    """:func:`remember_sequence` of the state stored now (none: a row of NULLs), read and
    kept in one statement, whose answer nobody waits for (``Connection.defer``); nothing
    is kept when ``action_pk`` remembers ``key`` already."""
    await db.defer(
        "INSERT INTO action_sequences (action_pk, key, model, battle_id, state_before)"
        " SELECT ?, ?, s.model, s.battle_id, s.state FROM (SELECT 1 AS one) AS here"
        " LEFT JOIN sequences s ON s.campaign_pk = ? AND s.key = ?"
        # WHERE: SQLite would read the ON below as the join's without one.
        " WHERE true ON CONFLICT (action_pk, key) DO NOTHING",
        (action_pk, key, campaign_pk, key),
    )


async def copy_kept_sequence(db: Connection, action_pk: int, kept_by: int, key: str) -> None:
    """Keep for ``action_pk`` the state of ``key`` that ``kept_by`` (an earlier action of
    the same transaction, which saved nothing of ``key`` since) keeps."""
    await db.defer(
        "INSERT INTO action_sequences (action_pk, key, model, battle_id, state_before)"
        " SELECT ?, key, model, battle_id, state_before FROM action_sequences"
        " WHERE action_pk = ? AND key = ? ON CONFLICT (action_pk, key) DO NOTHING",
        (action_pk, kept_by, key),
    )


async def remember_sequence(
    db: Connection,
    action_pk: int,
    key: str,
    previous: Row | None,
) -> None:
    """Keep the state a sequence had before ``action_pk`` (the first one written wins)."""
    await db.defer(
        "INSERT INTO action_sequences (action_pk, key, model, battle_id, state_before)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (action_pk, key) DO NOTHING",
        (
            action_pk,
            key,
            None if previous is None else previous["model"],
            None if previous is None else previous["battle_id"],
            None if previous is None else previous["state"],
        ),
    )


# ------------------------------------------------------------------ reading


# Columns read into the record's field of the same name, as they are.
_ACTION_PLAIN = ("at", "actor", "clause", "title", "battle_id", "step", "undone_by")


def _action_from_row(row: Row) -> ActionRecord:
    return ActionRecord(
        **columns(row, _ACTION_PLAIN),
        id=row["pk"],
        notes=json.loads(row["notes"]),
        gang_ids=json.loads(row["gang_ids"]),
        undoes=row["undoes_pk"],
    )


async def get_action(db: Connection, campaign_pk: int, action_pk: int) -> ActionRecord:
    return _action_from_row(await the_row(
        db, f"{_action_select(db)} WHERE a.campaign_pk = ? AND a.pk = ?", (campaign_pk, action_pk),
        f"There is no action #{action_pk} in this campaign."))


async def list_actions(
    db: Connection, campaign_pk: int, *, battle_id: str | None, limit: int
) -> list[ActionRecord]:
    where = "a.campaign_pk = ?"
    params: list[object] = [campaign_pk]
    if battle_id is not None:
        where, params = where + " AND a.battle_id = ?", [*params, battle_id]
    rows = await db.execute_fetchall(
        f"{_action_select(db)} WHERE {where} ORDER BY a.pk DESC LIMIT ?", (*params, limit)
    )
    return [_action_from_row(row) for row in rows]


# Columns read into the event's field of the same name, as they are.
_EVENT_PLAIN = tuple(c for c in _EVENT_COLUMNS
                     if c not in ("campaign_pk", "action_pk", "faces", "before", "after"))


def _event_from_row(row: Row) -> LedgerEvent:
    is_change = row["kind"] == "change"
    return LedgerEvent(
        **columns(row, _EVENT_PLAIN),
        id=row["pk"],
        action_id=row["action_pk"],
        faces=None if row["faces"] is None else json.loads(row["faces"]),
        before=json.loads(row["before"]) if is_change else None,
        after=json.loads(row["after"]) if is_change else None,
        undone=bool(row["undone"]),
    )


async def events(
    db: Connection,
    campaign_pk: int,
    *,
    gang_id: str | None = None,
    battle_id: str | None = None,
    limit: int | None = None,
    newest_first: bool = True,
) -> list[LedgerEvent]:
    """Events of a campaign, optionally of one gang (its changes and the rolls and
    notes of the actions that touched it) and/or one battle."""
    where = ["e.campaign_pk = ?"]
    params: list[object] = [campaign_pk]
    if gang_id is not None:
        where.append(
            "(e.gang_id = ? OR (e.gang_id IS NULL AND e.action_pk IN"
            " (SELECT action_pk FROM action_gangs WHERE gang_id = ?)))"
        )
        params += [gang_id, gang_id]
    if battle_id is not None:
        where.append("e.battle_id = ?")
        params.append(battle_id)
    order = "DESC" if newest_first else "ASC"
    sql = f"{_EVENT_SELECT} WHERE {' AND '.join(where)} ORDER BY e.pk {order}"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [_event_from_row(row) for row in await db.execute_fetchall(sql, params)]


# What the campaign chart replays (bot/pictures/series.py): changes to gangs and
# to their fighters and vehicles. Territory changes, rolls and notes are left out.
_ROSTER_SUBJECTS = ("gang", "fighter", "vehicle")
# A long campaign writes a few thousand such changes (a battle: tens to a hundred);
# the bound keeps one chart request from reading an unbounded history into memory.
ROSTER_CHANGES_MAX = 50_000


async def roster_changes(
    db: Connection, campaign_pk: int, *, limit: int
) -> list[LedgerEvent]:
    """Every change to the campaign's gangs, oldest first: at most ``limit`` of them.

    Refused when the campaign has more, since a replay needs the whole history
    from each gang's creation on. The values before a change are not read (a
    replay only needs the values after), nor whether the change was undone (the
    undo wrote change events of its own).
    """
    rows = await db.execute_fetchall(*roster_changes_select(("?", (campaign_pk,)), limit))
    return roster_changes_from(rows, limit)


def roster_changes_select(campaign_pk: Select, limit: int) -> Select:
    """The SELECT of :func:`roster_changes`, the campaign's key given as SQL and its
    parameters (a subquery, to read it with others: driver.fetch_together)."""
    pk_sql, pk_params = campaign_pk
    return (f"SELECT pk, {', '.join(c for c in _EVENT_COLUMNS if c != 'before')},"
            " 'null' AS before, 0 AS undone FROM ledger_events e"
            f" WHERE e.campaign_pk = {pk_sql} AND e.kind = 'change'"
            f" AND e.subject IN ({placeholders(len(_ROSTER_SUBJECTS))})"
            " ORDER BY e.pk LIMIT ?",
            (*pk_params, *_ROSTER_SUBJECTS, limit + 1))


def roster_changes_from(rows: Sequence[Row], limit: int) -> list[LedgerEvent]:
    """:func:`roster_changes` from the rows of :func:`roster_changes_select`."""
    found = [_event_from_row(row) for row in sorted(rows, key=lambda row: int(row["pk"]))]
    if len(found) > limit:
        raise InvalidRequest(
            f"This campaign's ledger holds more than {limit} changes to its gangs: "
            "too many to replay for a chart."
        )
    return found
