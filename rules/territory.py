"""Post-battle step 2: Assign/Reassign Territory (PB-2).

Decisions where the text is silent:

- The winner takes the staked Territory from whoever holds it, a gang that
  did not fight included: the stake was agreed before the battle.
- A battle with no staked Territory changes nothing; the result says so.
- A Territory that cannot be staked (a Settlement) is refused with
  NotEligible rather than silently ignored, so a mistaken stake is noticed.
"""

from __future__ import annotations

from rules.errors import NotEligible
from rules.models import Battle
from rules.world import RuleResult, Workspace, World


class TerritoryResult(RuleResult):
    """Who controls the staked Territory after the battle."""

    territory_id: str | None
    controller_before: str | None
    controller_after: str | None

    @property
    def changed_hands(self) -> bool:
        return self.controller_before != self.controller_after


def assign_territory(world: World, battle: Battle) -> TerritoryResult:
    """Give the staked Territory to the winner; a draw leaves it where it was (PB-2)."""
    ws = Workspace(world)
    for gang_id in battle.gang_ids:
        ws.gang(gang_id)
    if battle.staked_territory is None:
        ws.note("No Territory was staked on this battle.")
        return _finish(ws, None, None, None)

    territory = ws.world.territory(battle.staked_territory)
    if not territory.can_be_staked:
        raise NotEligible(f"{territory.name} cannot be staked on a battle.")
    before = territory.controller
    holder = _holder_name(ws, before)

    if battle.winner is None:
        if before is None:
            ws.note(f"The battle was a draw: {territory.name} stays unclaimed.")
        else:
            ws.note(f"The battle was a draw: {territory.name} stays with {holder}.")
        return _finish(ws, territory.id, before, before)

    winner = ws.gang(battle.winner)
    if before == winner.id:
        ws.note(f"{winner.name} won and keeps {territory.name}.")
    else:
        territory.controller = winner.id
        ws.note(f"{winner.name} won and takes control of {territory.name} from {holder}.")
    return _finish(ws, territory.id, before, winner.id)


def _holder_name(ws: Workspace, gang_id: str | None) -> str:
    if gang_id is None:
        return "no one"
    held_by = ws.world.gangs.get(gang_id)
    # The holder may be a gang of the campaign that is not loaded in this world.
    return held_by.name if held_by is not None else "its previous holder"


def _finish(
    ws: Workspace, territory_id: str | None, before: str | None, after: str | None
) -> TerritoryResult:
    return ws.finish(
        TerritoryResult,
        clause="PB-2",
        title="Assign/Reassign Territory",
        territory_id=territory_id,
        controller_before=before,
        controller_after=after,
    )
