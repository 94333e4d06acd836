"""Workspace and change records: the changes are exactly the difference made."""

from __future__ import annotations

from rules.dice import ScriptedRoller
from rules.models import FighterStatus
from rules.world import RuleResult, Workspace
from tests import factories as make


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
