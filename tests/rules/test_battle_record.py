"""record_battle_fought: each gang of the battle counts it once, as a change."""

from __future__ import annotations

import pytest

from rules.battle_record import record_battle_fought
from rules.errors import NotFound
from rules.models import Battle
from rules.world import World
from tests import factories


def _world() -> World:
    return factories.world(
        factories.gang("Ash Wolves", id="g1"),
        factories.gang("Iron Fangs", id="g2"),
        factories.gang("Sump Rats", id="g3"),
    )


def test_each_gang_of_the_battle_gains_one_battle() -> None:
    world = _world()
    battle = Battle(id="b1", gang_ids=["g1", "g2"], winner="g1")
    result = record_battle_fought(world, battle)
    assert result.gang("g1").battles_fought == 1
    assert result.gang("g2").battles_fought == 1
    assert result.gang("g3").battles_fought == 0
    paths = {(c.subject_id, c.path, c.before, c.after) for c in result.changes}
    assert paths == {("g1", "battles_fought", 0, 1), ("g2", "battles_fought", 0, 1)}
    assert world.gang("g1").battles_fought == 0  # the world given is untouched


def test_draw_and_three_gangs_count_too() -> None:
    battle = Battle(id="b2", gang_ids=["g1", "g2", "g3"], winner=None)
    result = record_battle_fought(_world(), battle)
    assert [result.gang(g).battles_fought for g in ("g1", "g2", "g3")] == [1, 1, 1]
    assert any("Sump Rats has now fought 1" in note for note in result.notes)


def test_unknown_gang_is_refused() -> None:
    battle = Battle(id="b3", gang_ids=["g1", "zz"])
    with pytest.raises(NotFound):
        record_battle_fought(_world(), battle)
