"""Post-battle step 4: Collect Income (PB-4).

Decisions where the text is silent:

- Only the gangs that fought collect: the step belongs to this battle's
  post-battle sequence, not to the campaign as a whole.
- Income is read from each Territory's data (``Territory.income``): a dice
  expression is rolled openly, a flat number is added as it is, "0" is skipped.
  A Territory whose income is for one alignment only (``income_only_for``,
  "D6x10 (Outlaw)") pays nothing to a gang of the other, and says so.
- Territory special rules written only as boon text (the Collapsed Dome's
  choice of dice and "a double: no income") are not applied here: the data
  set has no field for them yet, and rules never branch on a Territory name.
- Territories come after step 2, so a Territory won in this very battle pays
  already (REFERENCE: "the one that won the Territory too").
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from rules.dice import DiceRoll, Roller, roll_flat_or_dice
from rules.models import Battle
from rules.world import RuleResult, Workspace, World


class TerritoryIncome(BaseModel):
    """What one Territory paid one gang."""

    model_config = ConfigDict(frozen=True)

    gang_id: str
    territory_id: str
    roll: DiceRoll | None  # None for a flat income
    credits: int


class IncomeResult(RuleResult):
    incomes: list[TerritoryIncome]
    totals: dict[str, int]  # gang id -> credits collected, every participating gang


def collect_income(world: World, battle: Battle, roller: Roller) -> IncomeResult:
    """Add each participating gang's Territory income to its Stash (PB-4)."""
    ws = Workspace(world)
    incomes: list[TerritoryIncome] = []
    totals: dict[str, int] = {}
    gangs = [ws.gang(gang_id) for gang_id in battle.gang_ids]  # refuse unknown gangs first
    for gang in gangs:
        gang_id = gang.id
        totals[gang_id] = 0
        for territory in ws.world.territories_of(gang_id):
            if territory.income.strip() == "0":
                continue
            if territory.income_only_for not in (None, gang.alignment):
                ws.note(
                    f"{territory.name} pays income only to {territory.income_only_for} "
                    f"gangs: {gang.name} collects none from it."
                )
                continue
            purpose = f"income from {territory.name} for {gang.name}"
            rolled = roll_flat_or_dice(roller, territory.income, purpose)
            if isinstance(rolled, DiceRoll):
                ws.record(rolled)
                credits, dice = rolled.total, rolled
            else:
                credits, dice = rolled, None
            incomes.append(
                TerritoryIncome(
                    gang_id=gang_id, territory_id=territory.id, roll=dice, credits=credits
                )
            )
            totals[gang_id] += credits
        if totals[gang_id]:
            gang.credits += totals[gang_id]
            ws.note(f"{gang.name} collects {totals[gang_id]} credits of income.")
        else:
            ws.note(f"{gang.name} has no Territory that pays income.")
    return ws.finish(
        IncomeResult, clause="PB-4", title="Collect Income", incomes=incomes, totals=totals
    )
