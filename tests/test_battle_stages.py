"""Which steps compute something as they open (rules/stages.py): the others open
from names and owners alone, and the Confirm that opens them reads no roster and no
battle (bot/battle/engine.py). The list and the computations must agree."""

from __future__ import annotations

from rules.data import default_ruleset
from rules.models import Battle
from rules.sequence import STAGES, PostBattleSequence, SubStep
from rules.stages import StageInputs, declared, opening_computations
from tests import factories as f


def test_a_step_rolls_as_it_opens_exactly_when_it_has_computations() -> None:
    battle = Battle(id="b1", gang_ids=["g1", "g2"], winner="g1", campaign=True)
    world = f.world(f.gang("Ash Wolves", id="g1"), f.gang("Iron Fangs", id="g2"))
    inputs = StageInputs(
        battle=battle, sequence=PostBattleSequence.start("s1", battle, world, skirmish=False),
        ruleset=default_ruleset(), in_recovery_before=[], captor_by_fighter={},
    )
    rolling = [stage for stage in STAGES if opening_computations(stage, inputs)]
    assert [stage for stage in STAGES if declared(stage).rolls_as_it_opens] == rolling
    assert (rolling[0][1], rolling[-1][1]) == (None, None) and len(rolling) == 6
    assert sum(substep is SubStep.CLEAN_HOUSE for _step, substep in rolling) == 1
