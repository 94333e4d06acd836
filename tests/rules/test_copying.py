"""``deep_copy``: what every rules computation works on must equal its world and share
nothing that can change with it."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel

from rules.battle_record import record_battle_fought
from rules.copying import deep_copy
from rules.models import Availability, Battle, Rarity
from rules.world import Workspace, World
from tests import factories
from tests.rules.test_properties import worlds

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mutable_parts(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every list, dict and non-frozen model inside ``value``, with where it is."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, BaseModel):
        if not value.model_config.get("frozen"):
            found.append((path, value))
        for name, item in value.__dict__.items():
            found += mutable_parts(item, f"{path}.{name}")
    elif isinstance(value, list):
        found.append((path, value))
        for index, item in enumerate(value):
            found += mutable_parts(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        found.append((path, value))
        for key, item in value.items():
            found += mutable_parts(item, f"{path}[{key!r}]")
    return found


@SETTINGS
@given(world=worlds)
def test_a_copy_equals_its_world_and_shares_nothing_mutable(world: World) -> None:
    twin = deep_copy(world)
    assert twin == world
    assert twin.model_dump() == world.model_dump()
    assert twin.model_fields_set == world.model_fields_set
    originals = mutable_parts(world)
    copies = mutable_parts(twin)
    assert [path for path, _ in originals] == [path for path, _ in copies]
    for (path, original), (_, copied) in zip(originals, copies, strict=True):
        assert copied is not original, f"{path} is shared"
        assert type(copied) is type(original)


@SETTINGS
@given(world=worlds)
def test_changing_a_copy_leaves_the_world_as_it_was(world: World) -> None:
    before = world.model_dump()
    twin = deep_copy(world)
    gang = twin.gang("g0")
    gang.credits += 1
    gang.fighters[0].xp += 1
    profile = gang.fighters[0].profile
    assert profile is not None
    profile.ws = 2 if profile.ws == 1 else 1
    gang.fighters[0].equipment.clear()
    gang.stash.append(gang.stash[0] if gang.stash else gang.fighters[0].model_copy())
    del twin.gangs["g1"]
    assert world.model_dump() == before


def test_a_copy_still_validates_assignment() -> None:
    world = World()
    twin = deep_copy(world)
    twin.gangs = {}
    assert twin == world


def test_frozen_models_are_shared_and_everything_else_copied() -> None:
    rare = Availability(rarity=Rarity.RARE, level=9)
    held = {"offers": [rare], "note": "kept"}
    twin = deep_copy(held)
    assert twin == held
    assert twin["offers"] is not held["offers"]
    assert twin["offers"][0] is rare  # immutable: sharing it is safe


@given(world=worlds)
@SETTINGS
def test_a_workspace_works_on_its_own_copy(world: World) -> None:
    space = Workspace(world)
    space.world.gang("g1").reputation += 1
    assert world.gang("g1").reputation + 1 == space.world.gang("g1").reputation


@SETTINGS
@given(world=worlds)
def test_a_result_shares_nothing_mutable_with_the_world_it_was_given(world: World) -> None:
    """Gang g1 did not fight: its copy in the result must not be the given one either."""
    world.gangs["g2"] = factories.gang("Sump Rats", id="g2")
    result = record_battle_fought(world, Battle(id="b", gang_ids=["g0", "g2"]))
    given_parts = {id(part) for _, part in mutable_parts(world)}
    shared = [path for path, part in mutable_parts(result.world) if id(part) in given_parts]
    assert shared == []
    result.world.gang("g1").fighters.clear()
    assert world.gang("g1").fighters
