"""The campaign chart's data, rebuilt from the ledger alone.

The ledger stores no Gang Rating: it is always computed from the roster. It
does store every change to every gang, with the value before and after, from
the gang's creation (the whole gang as ``after``) on. Replaying the change
events in order therefore gives each gang's roster at any moment, and so its
Gang Rating, Wealth, Reputation and credits then.

Battles are those whose events changed at least one gang, numbered 1, 2, ...
in the order they began (their first event). A gang took part in a battle when
the battle's events changed it. Each gang's series has a point at every battle
it took part in (its figures after the battle's last event: Wrap-up, rewards,
income and roster updates included), and a starting point one battle number
earlier, just before its first battle began. Undone actions need no special
care: the undo wrote change events that put the values back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.storage.records import LedgerEvent
from rules.models import Gang


class Measure(StrEnum):
    RATING = "Gang Rating"
    WEALTH = "Wealth"
    REPUTATION = "Reputation"
    CREDITS = "Credits"


class ChartPoint(BaseModel):
    model_config = ConfigDict(frozen=True)

    battle: int
    rating: int
    wealth: int
    reputation: int
    credits: int

    def value(self, measure: Measure) -> int:
        return {
            Measure.RATING: self.rating,
            Measure.WEALTH: self.wealth,
            Measure.REPUTATION: self.reputation,
            Measure.CREDITS: self.credits,
        }[measure]


class GangSeries(BaseModel):
    """One gang's line: its latest name and a point per battle it took part in."""

    model_config = ConfigDict(frozen=True)

    gang_id: str
    gang_name: str
    points: list[ChartPoint]

    def values(self, measure: Measure) -> list[tuple[int, int]]:
        """(battle number, value) pairs."""
        return [(point.battle, point.value(measure)) for point in self.points]


_STEP = re.compile(r"\.([^.\[]+)|\[([^\]]+)\]")
# Lists of records that a change names by subject rather than by path.
_RECORD_LISTS = {"fighter": ("fighters",), "vehicle": ("vehicles", "stash_vehicles")}

Document = dict[str, Any]


def _steps(path: str) -> list[tuple[str, str]]:
    """"equipment[i3].cost" -> [("key", "equipment"), ("id", "i3"), ("key", "cost")]."""
    head = re.split(r"[.\[]", path, maxsplit=1)[0]
    steps = [("key", head)]
    for match in _STEP.finditer(path[len(head):]):
        key, record = match.groups()
        steps.append(("key", key) if key is not None else ("id", record))
    return steps


def _set(document: Document, path: str, value: Any) -> None:
    """Put ``value`` at ``path``; None at a record id removes the record."""
    steps = _steps(path)
    node: Any = document
    for kind, name in steps[:-1]:
        node = node[name] if kind == "key" else _record(node, name)
        if node is None:
            return
    kind, name = steps[-1]
    if kind == "key":
        node[name] = value
        return
    records = [r for r in node if not (isinstance(r, dict) and r.get("id") == name)]
    if value is not None:
        records.append(value)
    node[:] = records


def _record(records: list[Any], record_id: str) -> Any:
    for record in records:
        if isinstance(record, dict) and record.get("id") == record_id:
            return record
    return None


def _subject(gang: Document, subject: str, subject_id: str) -> Document | None:
    for list_name in _RECORD_LISTS.get(subject, ()):
        found = _record(gang.get(list_name, []), subject_id)
        if found is not None:
            return found  # type: ignore[no-any-return]
    return None


def _apply(gangs: dict[str, Document], event: LedgerEvent) -> None:
    """Replay one change event on the gangs' JSON documents."""
    subject, subject_id, path = event.subject, event.subject_id, event.path or ""
    if subject == "gang" and subject_id is not None:
        if path == "":
            if isinstance(event.after, dict):
                gangs[subject_id] = dict(event.after)
            else:
                gangs.pop(subject_id, None)
            return
        if subject_id in gangs:
            _set(gangs[subject_id], path, event.after)
        return
    gang = gangs.get(event.gang_id or "")
    if gang is None or subject not in _RECORD_LISTS or subject_id is None:
        return
    if path in _RECORD_LISTS[subject]:
        # A whole fighter or vehicle joined or left this list.
        _set(gang, f"{path}[{subject_id}]", event.after)
        return
    record = _subject(gang, subject, subject_id)
    if record is not None:
        _set(record, path, event.after)


def _point(battle: int, document: Document) -> ChartPoint | None:
    try:
        gang = Gang.model_validate(document)
    except ValidationError:
        return None
    return ChartPoint(
        battle=battle, rating=gang.rating, wealth=gang.wealth,
        reputation=gang.reputation, credits=gang.credits,
    )


def chart_series(events: Iterable[LedgerEvent]) -> list[GangSeries]:
    """Every gang's figures over the campaign's battles, from its ledger events.

    ``events`` may come in any order (they are replayed by ledger id) and may
    hold rolls and notes too (only changes are read). Gangs that never fought
    are left out; gangs are listed in the order they first fought.
    """
    changes = sorted((e for e in events if e.kind == "change"), key=lambda e: e.id)
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    fought: dict[str, set[str]] = {}
    for event in changes:
        if event.battle_id is None or event.gang_id is None:
            continue
        first.setdefault(event.battle_id, event.id)
        last[event.battle_id] = event.id
        fought.setdefault(event.battle_id, set()).add(event.gang_id)
    numbers = {battle: n for n, battle in enumerate(sorted(first, key=first.__getitem__), 1)}
    starts = {first[b]: b for b in numbers}
    ends = {last[b]: b for b in numbers}
    gangs: dict[str, Document] = {}
    points: dict[str, list[ChartPoint]] = {}
    for event in changes:
        starting = starts.get(event.id)
        if starting is not None:
            for gang_id in sorted(fought[starting]):
                if gang_id not in points and gang_id in gangs:
                    point = _point(numbers[starting] - 1, gangs[gang_id])
                    points[gang_id] = [point] if point is not None else []
        _apply(gangs, event)
        ending = ends.get(event.id)
        if ending is not None:
            for gang_id in sorted(fought[ending]):
                if gang_id in gangs:
                    point = _point(numbers[ending], gangs[gang_id])
                    if point is not None:
                        points.setdefault(gang_id, []).append(point)
    names = {event.gang_id: event.subject_name for event in changes
             if event.subject == "gang" and event.gang_id and event.subject_name}
    return [
        GangSeries(gang_id=gang_id, gang_name=names.get(gang_id, gang_id), points=line)
        for gang_id, line in points.items()
        if line
    ]
