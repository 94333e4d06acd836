"""The battle report composed from the battle's record in the ledger.

The report gives each gang's aftermath (rules/aftermath.py): what the Wrap-up
rolled, who died or was taken, the XP, credits and Territories. The sequence
keeps none of that past its steps, but the ledger has every change and note of
the battle with the step that made it; what an undo took back stays out.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.storage import LedgerEvent, Transaction
from rules.aftermath import Happening
from rules.models import Battle
from rules.report import BattleReport, battle_report
from rules.world import World


def happenings(events: Iterable[LedgerEvent]) -> list[Happening]:
    """The changes and notes of ``events`` (oldest first) that still stand."""
    found = []
    for event in events:
        if event.undone or event.imported:
            continue
        step = event.step or ""
        if event.kind == "note" and event.text:
            found.append(Happening(step=step, note=event.text))
        elif (change := event.change) is not None:
            found.append(Happening(step=step, change=change))
    return found


async def composed_report(
    tx: Transaction, campaign_id: str, world: World, battle: Battle
) -> BattleReport:
    """The report of ``battle`` as the campaign reads it, aftermath included."""
    events = await tx.battle_events(campaign_id, battle.id)
    return battle_report(world, battle, happenings(events))
