"""Workspace and change records: the changes are exactly the difference made."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import Field, computed_field

from rules.dice import ScriptedRoller
from rules.models import Fighter, FighterStatus, Gang
from rules.world import (
    Change,
    RuleResult,
    Workspace,
    World,
    _diff_subject,
    _dump,
    _name_of,
    _ordered_union,
    diff_worlds,
)
from tests import factories as make
from tests.rules.test_properties import worlds


def test_workspace_never_touches_the_original() -> None:
    gang = make.gang(credits=100)
    world = make.world(gang)
    ws = Workspace(world)
    ws.gang(gang.id).credits = 10
    assert world.gang(gang.id).credits == 100


def test_changes_list_each_difference_with_before_and_after() -> None:
    gang = make.gang(credits=100)
    target = gang.fighters[2]
    world = make.world(gang)
    ws = Workspace(world)
    copy = ws.gang(gang.id)
    copy.credits = 150
    copy.fighter(target.id).profile.worsen("bs")
    copy.fighter(target.id).set_status(FighterStatus.IN_RECOVERY)
    ws.roll(ScriptedRoller([4]), "D6", "why")
    result = ws.finish(RuleResult, clause="TEST", title="test")
    found = {(c.subject, c.subject_id, c.path, c.before, c.after) for c in result.changes}
    assert found == {
        ("gang", gang.id, "credits", 100, 150),
        ("fighter", target.id, "profile.bs", 4, 5),
        ("fighter", target.id, "status", "Active", "In Recovery"),
    }
    assert [r.faces for r in result.rolls] == [(4,)]
    assert result.world.gang(gang.id).credits == 150


def test_removed_and_added_records_are_one_change_each() -> None:
    gang = make.gang()
    world = make.world(gang)
    ws = Workspace(world)
    copy = ws.gang(gang.id)
    gone = copy.fighters.pop()
    copy.stash.append(make.item("Frag grenades", 30))
    result = ws.finish(RuleResult, clause="TEST", title="test")
    removed = [c for c in result.changes if c.subject == "fighter"]
    assert len(removed) == 1
    assert removed[0].subject_id == gone.id and removed[0].after is None
    stash = [c for c in result.changes if c.path.startswith("stash")]
    assert len(stash) == 1 and stash[0].before is None


def test_target_stats_worsen_upwards_and_clamp() -> None:
    f = make.fighter()
    f.profile.worsen("ld")
    assert f.profile.ld == 8
    f.profile.worsen("s", 10)
    assert f.profile.s == 0
    f.profile.improve("ws", 20)
    assert f.profile.ws == 1


def test_rating_and_wealth_follow_definitions() -> None:
    captive = make.fighter("Skab", cost=40)
    captive.capture("other")
    dead = make.fighter("Gone", cost=70, status=FighterStatus.DEAD)
    armed = make.fighter("Armed", cost=50, equipment=[make.item("Lasgun", 15)])
    gang = make.gang(fighters=[armed, captive, dead], credits=80,
                     stash=[make.item("Frag grenades", 30)])
    assert gang.rating == 65
    assert gang.wealth == 65 + 80 + 30


# --------------------------------------------------------------------------- the diff's definition

EDITS = st.lists(st.tuples(st.sampled_from([
    "credits", "notes", "stash_pop", "stash_add", "fighter_xp", "fighter_status",
    "fighter_skill", "fighter_stat", "fighter_no_profile", "fighter_item_pop",
    "fighter_item_cost", "fighter_remove", "fighter_add", "fighter_twin", "fighter_reorder",
    "fighter_duplicate", "vehicle_add", "vehicle_edit", "gang_remove", "gang_add",
    "territory_add", "territory_edit", "territory_remove", "rebuild",
]), st.integers(0, 9)), max_size=6)


def _edit(world: World, edit: str, n: int) -> None:
    """One change to ``world`` of the kind ``edit``, on its ``n``-th gang/fighter/item."""
    gang = list(world.gangs.values())[n % len(world.gangs)] if world.gangs else None
    if gang is None or edit in ("territory_add", "territory_edit", "territory_remove"):
        _edit_territories(world, edit, n)
        return
    fighter = gang.fighters[n % len(gang.fighters)] if gang.fighters else None
    if edit == "credits":
        gang.credits += n + 1
    elif edit == "notes":
        gang.notes += "!"
    elif edit == "stash_pop" and gang.stash:
        gang.stash.pop(n % len(gang.stash))
    elif edit == "stash_add":
        gang.stash.append(make.item("Frag grenades", n, id=f"new-s{n}-{len(gang.stash)}"))
    elif edit == "vehicle_add":
        gang.vehicles.append(make.vehicle(id=f"new-v{n}-{len(gang.vehicles)}"))
    elif edit == "vehicle_edit" and gang.vehicles:
        gang.vehicles[0].lasting_damage.append("Persistent Rattle")
    elif edit == "gang_remove":
        del world.gangs[gang.id]
    elif edit == "gang_add":
        world.gangs[f"new-g{n}"] = make.gang(id=f"new-g{n}")
    elif edit == "rebuild":  # equal values, no object shared
        world.gangs[gang.id] = Gang.model_validate(gang.model_dump())
    elif fighter is not None:
        _edit_fighter(gang, fighter, edit, n)


def _edit_fighter(gang: Gang, fighter: Fighter, edit: str, n: int) -> None:
    if edit == "fighter_xp":
        fighter.xp += 1
    elif edit == "fighter_status":
        fighter.set_status(FighterStatus.IN_RECOVERY)
    elif edit == "fighter_skill":
        fighter.skills.append(f"Skill {n}")
    elif edit == "fighter_stat" and fighter.profile is not None:
        fighter.profile.worsen("ld" if n % 2 else "int")
    elif edit == "fighter_no_profile":
        fighter.profile = None
    elif edit == "fighter_item_pop" and fighter.equipment:
        fighter.equipment.pop()
    elif edit == "fighter_item_cost" and fighter.equipment:
        fighter.equipment[0].cost += 5
    elif edit == "fighter_remove":
        gang.fighters.remove(fighter)
    elif edit == "fighter_add":
        gang.fighters.append(make.fighter(id=f"new-f{n}-{len(gang.fighters)}"))
    elif edit == "fighter_twin":  # an equal fighter, a separate object
        gang.fighters[gang.fighters.index(fighter)] = Fighter.model_validate(fighter.model_dump())
    elif edit == "fighter_reorder":
        gang.fighters.reverse()
    elif edit == "fighter_duplicate":  # two records with one id: the last one counts
        gang.fighters.append(fighter.model_copy(update={"xp": fighter.xp + n}, deep=True))


def _edit_territories(world: World, edit: str, n: int) -> None:
    if edit == "territory_add" or not world.territories:
        world.territories[f"new-t{n}"] = make.territory(id=f"new-t{n}", controller="g0")
    elif edit == "territory_edit":
        next(iter(world.territories.values())).controller = f"g{n % 2}"
    else:
        del world.territories[next(iter(world.territories))]


def dumped_diff(before: World, after: World) -> list[Change]:
    """The diff as defined: each gang's and territory's whole JSON dump compared."""
    changes: list[Change] = []
    for gang_id in _ordered_union(before.gangs, after.gangs):
        old, new = before.gangs.get(gang_id), after.gangs.get(gang_id)
        changes += _diff_subject("gang", gang_id, _name_of(new, old, gang_id), gang_id,
                                 _dump(old), _dump(new))
    for territory_id in _ordered_union(before.territories, after.territories):
        told, tnew = before.territories.get(territory_id), after.territories.get(territory_id)
        changes += _diff_subject("territory", territory_id, _name_of(tnew, told, territory_id),
                                 None, _dump(told), _dump(tnew))
    return changes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=worlds, edits=EDITS)
def test_the_diff_is_that_of_the_whole_dumps(world: World, edits: list[tuple[str, int]]) -> None:
    world.territories["t0"] = make.territory(id="t0", controller="g1")
    space = Workspace(world)
    for edit, n in edits:
        _edit(space.world, edit, n)
    after = space.world
    assert diff_worlds(world, after) == dumped_diff(world, after)
    assert diff_worlds(after, world) == dumped_diff(after, world)
    rebuilt = World.model_validate(world.model_dump())  # equal, sharing nothing
    assert diff_worlds(rebuilt, after) == dumped_diff(rebuilt, after)
    assert diff_worlds(rebuilt, world) == []


class _CountedGang(Gang):
    """A gang whose dump is not its fields': one computed, one left out."""

    secret: str = Field(default="", exclude=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def size(self) -> int:
        return len(self.fighters)


def test_a_dump_with_computed_or_excluded_fields_is_diffed_whole() -> None:
    gang = _CountedGang.model_validate(make.gang(id="g0").model_dump())
    world = make.world(gang)
    space = Workspace(world)
    copy = space.world.gang("g0")
    assert isinstance(copy, _CountedGang)
    copy.secret = "not in the dump"
    copy.fighters.pop()
    changes = diff_worlds(world, space.world)
    assert changes == dumped_diff(world, space.world)
    assert [(c.path, c.before, c.after) for c in changes if c.subject == "gang"] == [("size", 3, 2)]
