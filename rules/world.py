"""The state a rule acts on, and the workspace that turns an action into a result.

A rules function receives a :class:`World` (the gangs and territories that
take part), opens a :class:`Workspace` on it, changes the workspace's copies,
rolls through it, and returns ``workspace.finish(...)``: a result that holds
the rolls, a list of :class:`Change` records computed by comparing the world
before and after, and the world after. Because the changes are derived from
the two states they can never disagree with what was applied, and because the
original world is never touched a refused action (an exception) changes
nothing.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rules.copying import deep_copy
from rules.dice import DiceRoll, Roller, roll
from rules.errors import NotFound
from rules.models import Fighter, FighterStatus, Gang, Territory


class World(BaseModel):
    """Gangs and territories, by id."""

    model_config = ConfigDict(extra="forbid")

    gangs: dict[str, Gang] = Field(default_factory=dict)
    territories: dict[str, Territory] = Field(default_factory=dict)

    @classmethod
    def of(cls, gangs: list[Gang], territories: list[Territory] | None = None) -> World:
        return cls(
            gangs={g.id: g for g in gangs},
            territories={t.id: t for t in territories or []},
        )

    def gang(self, gang_id: str) -> Gang:
        try:
            return self.gangs[gang_id]
        except KeyError:
            raise NotFound(f"There is no gang with id {gang_id} here.") from None

    def territory(self, territory_id: str) -> Territory:
        try:
            return self.territories[territory_id]
        except KeyError:
            raise NotFound(f"There is no territory with id {territory_id} here.") from None

    def find_fighter(self, fighter_id: str) -> tuple[Gang, Fighter]:
        for gang in self.gangs.values():
            for fighter in gang.fighters:
                if fighter.id == fighter_id:
                    return gang, fighter
        raise NotFound(f"There is no fighter with id {fighter_id} here.")

    def captives_held_by(self, gang_id: str) -> list[tuple[Gang, Fighter]]:
        """Fighters of other gangs that ``gang_id`` holds Captive (PB-1.6)."""
        return [
            (gang, fighter)
            for gang in self.gangs.values()
            for fighter in gang.fighters
            if fighter.status is FighterStatus.CAPTURED and fighter.captured_by == gang_id
        ]

    def territories_of(self, gang_id: str) -> list[Territory]:
        return [t for t in self.territories.values() if t.controller == gang_id]


class Change(BaseModel):
    """One value that a result changed, with its value before and after.

    ``path`` names the value inside the subject ("credits", "status",
    "profile.ws", "equipment[ab12]"); an added thing has ``before`` None and a
    removed one ``after`` None.
    """

    model_config = ConfigDict(frozen=True)

    subject: str  # "gang", "fighter", "vehicle", "territory"
    subject_id: str
    subject_name: str
    gang_id: str | None
    path: str
    before: JsonValue = None
    after: JsonValue = None


class RuleResult(BaseModel):
    """What a rule did: the clause, every roll, the notes that explain, the changes."""

    clause: str
    title: str
    rolls: list[DiceRoll] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    changes: list[Change] = Field(default_factory=list)
    world: World

    def gang(self, gang_id: str) -> Gang:
        return self.world.gang(gang_id)


R = TypeVar("R", bound=RuleResult)


class Workspace:
    """Copies of a world that a rules function may change, plus its rolls and notes."""

    def __init__(self, world: World) -> None:
        self.before = world
        self.world = deep_copy(world)
        self.rolls: list[DiceRoll] = []
        self.notes: list[str] = []

    def gang(self, gang_id: str) -> Gang:
        return self.world.gang(gang_id)

    def roll(self, roller: Roller, expression: str, purpose: str) -> DiceRoll:
        result = roll(roller, expression, purpose)
        self.rolls.append(result)
        return result

    def record(self, dice: DiceRoll) -> DiceRoll:
        """Keep a roll made elsewhere (e.g. by a helper that returns its record)."""
        self.rolls.append(dice)
        return dice

    def note(self, text: str) -> None:
        self.notes.append(text)

    def finish(self, result_type: type[R], clause: str, title: str, **fields: Any) -> R:
        return result_type(
            clause=clause,
            title=title,
            rolls=self.rolls,
            notes=self.notes,
            changes=diff_worlds(self.before, self.world),
            world=self.world,
            **fields,
        )


def diff_worlds(before: World, after: World) -> list[Change]:
    changes: list[Change] = []
    for gang_id in _ordered_union(before.gangs, after.gangs):
        old = before.gangs.get(gang_id)
        new = after.gangs.get(gang_id)
        name = _name_of(new, old, gang_id)
        changes += _diff_models("gang", gang_id, name, gang_id, old, new)
    for territory_id in _ordered_union(before.territories, after.territories):
        told = before.territories.get(territory_id)
        tnew = after.territories.get(territory_id)
        name = _name_of(tnew, told, territory_id)
        changes += _diff_models("territory", territory_id, name, None, told, tnew)
    return changes


# The diff is defined on the models' JSON dumps (what a Change holds), but dumping
# every gang of a world to find the one value that changed is most of its cost. Only
# what differs is dumped: the fields of the domain models hold only strings, numbers,
# booleans, None, enums, lists and models, whose Python equality is the equality of
# their dumps, so a field equal in Python (or the same object) contributes no change.


def _diff_models(
    subject: str,
    subject_id: str,
    name: str,
    gang_id: str | None,
    old: BaseModel | None,
    new: BaseModel | None,
) -> list[Change]:
    """``_diff_subject`` of the two models' dumps, dumping only the fields that differ."""
    if old is new:
        return []
    if old is None or new is None or not _diffs_by_field(old, new):
        return _diff_subject(subject, subject_id, name, gang_id, _dump(old), _dump(new))
    changes: list[Change] = []
    old_values = old.__dict__
    new_values = new.__dict__
    for field, key in _dump_keys(type(old)) or ():
        old_value = old_values[field]
        new_value = new_values[field]
        if old_value is new_value or old_value == new_value:
            continue
        if key in _NESTED_SUBJECTS and _are_records(old_value) and _are_records(new_value):
            changes += _diff_record_models(
                _NESTED_SUBJECTS[key], gang_id, key, old_value, new_value
            )
            continue
        changes += _diff_key(subject, subject_id, name, gang_id, key,
                             _dump_field(old, field, key), _dump_field(new, field, key))
    return changes


def _diff_record_models(
    subject: str,
    gang_id: str | None,
    list_name: str,
    old: list[BaseModel],
    new: list[BaseModel],
) -> list[Change]:
    """``_diff_records`` of the two lists' dumps, dumping only the records that differ."""
    old_by_id = {record.__dict__["id"]: record for record in old}
    new_by_id = {record.__dict__["id"]: record for record in new}
    changes: list[Change] = []
    for record_id in _ordered_union(old_by_id, new_by_id):
        before = old_by_id.get(record_id)
        after = new_by_id.get(record_id)
        if before is after or before == after:
            continue
        present = after if after is not None else before
        assert present is not None  # the id came from one of the two lists
        name = str(present.__dict__.get("name", record_id))
        if before is None or after is None:
            changes.append(_whole_record(subject, record_id, name, gang_id, list_name,
                                         _dump(before), _dump(after)))
        else:
            changes += _diff_models(subject, record_id, name, gang_id, before, after)
    return changes


def _diffs_by_field(old: BaseModel, new: BaseModel) -> bool:
    """Whether the dumps of ``old`` and ``new`` are their fields' dumps, in field order,
    so that the two can be compared field by field."""
    kind = type(old)
    return (
        type(new) is kind
        and _dump_keys(kind) is not None
        and old.__pydantic_extra__ is None
        and new.__pydantic_extra__ is None
    )


def _are_records(value: Any) -> bool:
    """A list of models that each have a string ``id`` field, as a roster's fighters."""
    return type(value) is list and all(
        isinstance(record, BaseModel) and type(record.__dict__.get("id")) is str
        for record in value
    )


_dump_keys_of: dict[type[BaseModel], list[tuple[str, str]] | None] = {}


def _dump_keys(kind: type[BaseModel]) -> list[tuple[str, str]] | None:
    """Each field of ``kind`` with its key in a dump by alias, in the dump's order; None
    when a dump is not that (computed or excluded fields, a serializer of the model)."""
    if kind in _dump_keys_of:
        return _dump_keys_of[kind]
    fields = kind.model_fields
    keys: list[tuple[str, str]] | None = [
        (field, info.serialization_alias or info.alias or field)
        for field, info in fields.items()
    ]
    if (
        kind.__pydantic_computed_fields__
        or kind.__pydantic_decorators__.model_serializers
        or any(info.exclude or info.exclude_if is not None for info in fields.values())
    ):
        keys = None
    _dump_keys_of[kind] = keys
    return keys


def _dump_field(model: BaseModel, field: str, key: str) -> Any:
    return model.model_dump(mode="json", by_alias=True, include={field})[key]


def _name_of(new: Gang | Territory | None, old: Gang | Territory | None, fallback: str) -> str:
    present = new or old
    return present.name if present is not None else fallback


def _dump(model: BaseModel | None) -> dict[str, Any] | None:
    return None if model is None else model.model_dump(mode="json", by_alias=True)


def _ordered_union(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    return list(first) + [key for key in second if key not in first]


# Lists of these keys hold records with an "id"; they are diffed record by
# record so that a fighter losing one item is one change, not a new roster.
_NESTED_SUBJECTS = {"fighters": "fighter", "vehicles": "vehicle", "stash_vehicles": "vehicle"}


def _diff_subject(
    subject: str,
    subject_id: str,
    name: str,
    gang_id: str | None,
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
) -> list[Change]:
    if old is None or new is None:
        return [
            Change(
                subject=subject,
                subject_id=subject_id,
                subject_name=name,
                gang_id=gang_id,
                path="",
                before=old,
                after=new,
            )
        ]
    changes: list[Change] = []
    for key in _ordered_union(old, new):
        changes += _diff_key(subject, subject_id, name, gang_id, key, old.get(key), new.get(key))
    return changes


def _diff_key(
    subject: str, subject_id: str, name: str, gang_id: str | None, key: str,
    before: Any, after: Any,
) -> list[Change]:
    """The changes of one dumped field: a list of records diffed record by record."""
    if key in _NESTED_SUBJECTS:
        return _diff_records(_NESTED_SUBJECTS[key], gang_id, key, before, after)
    return [
        Change(subject=subject, subject_id=subject_id, subject_name=name, gang_id=gang_id,
               path=path, before=value_before, after=value_after)
        for path, value_before, value_after in _diff_values(key, before, after)
    ]


def _whole_record(
    subject: str, record_id: str, name: str, gang_id: str | None, list_name: str,
    before: dict[str, Any] | None, after: dict[str, Any] | None,
) -> Change:
    """A record added to or removed from a list (a fighter hired or gone): one change."""
    return Change(subject=subject, subject_id=record_id, subject_name=name, gang_id=gang_id,
                  path=list_name, before=before, after=after)


def _diff_records(
    subject: str,
    gang_id: str | None,
    list_name: str,
    old: list[dict[str, Any]],
    new: list[dict[str, Any]],
) -> list[Change]:
    old_by_id = {r["id"]: r for r in old}
    new_by_id = {r["id"]: r for r in new}
    changes: list[Change] = []
    for record_id in _ordered_union(old_by_id, new_by_id):
        before = old_by_id.get(record_id)
        after = new_by_id.get(record_id)
        name = str((after or before or {}).get("name", record_id))
        if before is None or after is None:
            changes.append(_whole_record(subject, record_id, name, gang_id, list_name,
                                         before, after))
        else:
            changes += _diff_subject(subject, record_id, name, gang_id, before, after)
    return changes


def _diff_values(path: str, old: Any, new: Any) -> list[tuple[str, Any, Any]]:
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[str, Any, Any]] = []
        for key in _ordered_union(old, new):
            out += _diff_values(f"{path}.{key}", old.get(key), new.get(key))
        return out
    if _is_record_list(old) and _is_record_list(new):
        old_by_id = {r["id"]: r for r in old}
        new_by_id = {r["id"]: r for r in new}
        out = []
        for record_id in _ordered_union(old_by_id, new_by_id):
            out += _diff_values(
                f"{path}[{record_id}]", old_by_id.get(record_id), new_by_id.get(record_id)
            )
        return out
    return [(path, old, new)]


def _is_record_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) and "id" in v for v in value)
