"""A deep copy of domain models that is several times faster than ``model_copy(deep=True)``.

Every rules computation works on a copy of its world (:class:`rules.world.Workspace`),
and each post-battle click makes a few: pydantic's deep copy goes through
:func:`copy.deepcopy`'s generic machinery (a memo dictionary, ``__reduce_ex__``) for
every fighter, profile and item, about 1 ms per gang of 15 fighters. Domain models
hold only models, lists, dicts and immutable values, so this walks them directly.
Frozen models are immutable and shared, as :func:`copy.deepcopy` would not need to
copy them either. Anything else falls back to :func:`copy.deepcopy`.

Most values of a roster are strings, numbers and enums, so each value is looked up in
the set of shared types before any call is made for it, and the way to copy each other
type is looked up by type, once learnt (about 0.35 ms for two gangs of 15 fighters
with 3 items each, against 0.42 ms with a call and ``isinstance`` tests per value).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")

# Types whose values nothing changes in place, shared by a copy: the immutable
# builtins, and each enum and frozen model type once met. The walk tests each value
# against this set before making a call, since most values of a roster are such leaves.
_shared: set[type] = {str, int, float, bool, type(None), bytes}
# How to copy a value of each other type met so far.
_copiers: dict[type, Callable[[Any], Any]] = {}
_new = object.__new__
_set = object.__setattr__


def deep_copy(value: T) -> T:
    """A copy sharing nothing mutable with ``value`` (equal to it, independent of it)."""
    return _copy(value)  # type: ignore[no-any-return]


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind in _shared:
        return value
    copier = _copiers.get(kind)
    if copier is None:
        copier = _copier_for(kind)
    return copier(value)


def _copier_for(kind: type) -> Callable[[Any], Any]:
    """How to copy values of ``kind``, learnt once per type (a shared type's: itself)."""
    copier: Callable[[Any], Any]
    if (issubclass(kind, BaseModel) and kind.model_config.get("frozen")) or issubclass(
        kind, Enum
    ):
        _shared.add(kind)
        copier = _itself
    elif issubclass(kind, BaseModel):
        copier = _copy_model
    elif kind is list:
        copier = _copy_list
    elif kind is dict:
        copier = _copy_dict
    elif kind is tuple or kind is frozenset:
        copier = _copy_collection
    else:
        copier = copy.deepcopy
    _copiers[kind] = copier
    return copier


def _itself(value: Any) -> Any:
    return value


def _copy_list(value: list[Any]) -> list[Any]:
    if not value:  # most lists of a roster (advancements, injuries, a weapon's profiles)
        return []
    shared = _shared
    return [item if type(item) in shared else _copy(item) for item in value]


def _copy_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    shared = _shared
    return {key: item if type(item) in shared else _copy(item) for key, item in value.items()}


def _copy_collection(value: Any) -> Any:
    return type(value)(_copy(item) for item in value)


def _copy_model(model: BaseModel) -> BaseModel:
    # What pydantic's own __copy__/__deepcopy__ set, without validating again:
    # the values were valid in the original.
    twin = _new(type(model))
    shared = _shared
    _set(twin, "__dict__", {
        name: item if type(item) in shared else _copy(item)
        for name, item in model.__dict__.items()
    })
    _set(twin, "__pydantic_fields_set__", model.__pydantic_fields_set__.copy())
    extra = model.__pydantic_extra__
    _set(twin, "__pydantic_extra__", None if extra is None else _copy(extra))
    private = model.__pydantic_private__
    _set(twin, "__pydantic_private__", None if private is None else _copy(private))
    return twin
