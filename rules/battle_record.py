"""Bookkeeping of a fought battle on the gangs' records.

Every participating gang's ``battles_fought`` goes up by one once per battle;
the bot does it in the Wrap-up's transaction (PB-1.5: "any other end of
battle effect happens in the Wrap-up"), as a rules result so the ledger
records it and an undo of the Wrap-up takes it back. The counter feeds the
pre-battle tie-break of PRE-2.
"""

from __future__ import annotations

from rules.errors import InvalidRequest
from rules.models import Battle
from rules.world import RuleResult, Workspace, World


class BattleFoughtResult(RuleResult):
    gang_ids: list[str]


def record_battle_fought(world: World, battle: Battle) -> BattleFoughtResult:
    """Add one to ``battles_fought`` of every gang that fought ``battle``."""
    if len(set(battle.gang_ids)) != len(battle.gang_ids):
        raise InvalidRequest("A gang cannot fight a battle twice.")
    ws = Workspace(world)
    for gang_id in battle.gang_ids:
        gang = ws.gang(gang_id)
        gang.battles_fought += 1
        ws.note(f"{gang.name} has now fought {gang.battles_fought} battle(s).")
    return ws.finish(
        BattleFoughtResult,
        clause="PB-1.5",
        title="Battle recorded",
        gang_ids=list(battle.gang_ids),
    )
