"""Post-battle step 4: Collect Income (PB-4).

Decisions where the text is silent:

- Only the gangs that fought collect: the step belongs to this battle's
  post-battle sequence, not to the campaign as a whole.
- Income is read from each Territory's data (``Territory.income``): a dice
  expression is rolled openly, a flat number is added as it is, "0" is skipped.
  A Territory whose income is for one alignment only (``income_only_for``,
  "D6x10 (Outlaw)") pays nothing to a gang of the other, and says so.
- Rules about the income dice are data, never a branch on a Territory's
  name. ``income_max_dice`` (the Collapsed Dome: "2D6x10 up to 6D6x10"): the
  controller chooses how many dice, from the income's own count up to that
  many, passed as ``income_dice`` (Territory id -> dice); unchosen, the
  income is rolled as written. A choice for a Territory without the rule, or
  out of its range, is refused before any roll. ``income_double_injures``:
  any double on the income roll pays nothing, and a random fighter of the
  gang rolls a Lasting Injury. The random fighter is picked with one die
  with as many faces as there are candidates (every fighter on the roster
  who is not a Captive, in roster order), rolled openly; a lone candidate
  needs no roll. Its Lasting Injury re-rolls Captured (no enemy is there to
  take it); any other result applies as in the Wrap-up, a Critical Injury
  included (a Medical Escort can still be made in this sequence). That
  injury needs the rule set (``ruleset``); asking without it is refused
  before any roll.
- Territories come after step 2, so a Territory won in this very battle pays
  already (REFERENCE: "the one that won the Territory too").
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from rules.dice import DiceRoll, Roller, parse, roll, roll_flat_or_dice
from rules.errors import InvalidRequest
from rules.injuries import InjuryOutcome, apply_lasting_injury, injury_table_for
from rules.models import Battle, FighterStatus, Gang, Territory
from rules.ruleset import RuleSet
from rules.world import RuleResult, Workspace, World

# No enemy is there to take a fighter injured by a Territory.
TERRITORY_INJURY_REROLLS = frozenset({"Captured"})


class TerritoryIncome(BaseModel):
    """What one Territory paid one gang."""

    model_config = ConfigDict(frozen=True)

    gang_id: str
    territory_id: str
    roll: DiceRoll | None  # None for a flat income
    credits: int
    # A double on an income that injures (the Collapsed Dome): who rolled a Lasting Injury.
    injury: InjuryOutcome | None = None


class IncomeResult(RuleResult):
    incomes: list[TerritoryIncome]
    totals: dict[str, int]  # gang id -> credits collected, every participating gang


def collect_income(
    world: World,
    battle: Battle,
    roller: Roller,
    *,
    ruleset: RuleSet | None = None,
    income_dice: Mapping[str, int] | None = None,
) -> IncomeResult:
    """Add each participating gang's Territory income to its Stash (PB-4)."""
    ws = Workspace(world)
    incomes: list[TerritoryIncome] = []
    totals: dict[str, int] = {}
    chosen = dict(income_dice or {})
    gangs = [ws.gang(gang_id) for gang_id in battle.gang_ids]  # refuse unknown gangs first
    _check_choices(ws, gangs, chosen, ruleset)
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
            income = _income(ws, gang, territory, roller, chosen.get(territory.id), ruleset)
            incomes.append(income)
            totals[gang_id] += income.credits
        if totals[gang_id]:
            gang.credits += totals[gang_id]
            ws.note(f"{gang.name} collects {totals[gang_id]} credits of income.")
        else:
            ws.note(f"{gang.name} has no Territory that pays income.")
    return ws.finish(
        IncomeResult, clause="PB-4", title="Collect Income", incomes=incomes, totals=totals
    )


def income_dice_range(territory: Territory) -> tuple[int, int] | None:
    """How many income dice the controller may choose from, or None without a choice."""
    if territory.income_max_dice is None:
        return None
    return parse(territory.income).count, territory.income_max_dice


def check_income_dice(territory: Territory, dice: int) -> None:
    """Refuse ``dice`` unless ``territory`` offers that many income dice."""
    span = income_dice_range(territory)
    if span is None:
        raise InvalidRequest(f"{territory.name} has no choice of income dice.")
    if not span[0] <= dice <= span[1]:
        raise InvalidRequest(
            f"{territory.name}: choose between {span[0]} and {span[1]} income dice.")


def _check_choices(
    ws: Workspace, gangs: list[Gang], chosen: dict[str, int], ruleset: RuleSet | None
) -> None:
    held = {t.id: t for gang in gangs for t in ws.world.territories_of(gang.id)}
    for territory_id, dice in chosen.items():
        territory = held.get(territory_id)
        if territory is None:
            raise InvalidRequest("Income dice can only be chosen for a Territory a gang of "
                                 "this battle holds.")
        check_income_dice(territory, dice)
    if ruleset is None and any(t.income_double_injures for t in held.values()):
        raise InvalidRequest("This income can injure a fighter: it needs the rule set.")


def _income(
    ws: Workspace,
    gang: Gang,
    territory: Territory,
    roller: Roller,
    dice_count: int | None,
    ruleset: RuleSet | None,
) -> TerritoryIncome:
    purpose = f"income from {territory.name} for {gang.name}"
    if dice_count is not None:
        parsed = parse(territory.income)
        expression = parsed.model_copy(update={"count": dice_count}).canonical
        ws.note(f"{gang.name} chooses to roll {expression} for {territory.name}.")
        rolled: DiceRoll | int = roll(roller, expression, purpose)
    else:
        rolled = roll_flat_or_dice(roller, territory.income, purpose)
    if isinstance(rolled, int):
        return TerritoryIncome(gang_id=gang.id, territory_id=territory.id, roll=None,
                               credits=rolled)
    ws.record(rolled)
    if not (territory.income_double_injures and rolled.is_double and ruleset is not None):
        return TerritoryIncome(gang_id=gang.id, territory_id=territory.id, roll=rolled,
                               credits=rolled.total)
    ws.note(f"A double on the income of {territory.name}: {gang.name} collects nothing from it, "
            "and a random fighter is hurt.")
    injury = _injure_random_fighter(ws, gang, territory, roller, ruleset)
    return TerritoryIncome(gang_id=gang.id, territory_id=territory.id, roll=rolled, credits=0,
                           injury=injury)


def _injure_random_fighter(
    ws: Workspace, gang: Gang, territory: Territory, roller: Roller, ruleset: RuleSet
) -> InjuryOutcome | None:
    candidates = [f for f in gang.fighters
                  if f.on_roster and f.status is not FighterStatus.CAPTURED]
    if not candidates:
        ws.note(f"{gang.name} has no fighter to be hurt.")
        return None
    if len(candidates) == 1:
        victim = candidates[0]
    else:
        face = roller.face(len(candidates))
        ws.record(DiceRoll(expression=f"D{len(candidates)}", faces=(face,), total=face,
                           purpose=f"random fighter of {gang.name} hurt in {territory.name}"))
        victim = candidates[face - 1]
    ws.note(f"{victim.name} is hurt in {territory.name}.")
    return apply_lasting_injury(
        ws, gang.id, victim.id, injury_table_for(victim, ruleset), roller,
        reroll=TERRITORY_INJURY_REROLLS,
        purpose=f"Lasting Injury for {victim.name} ({territory.name})",
    )
