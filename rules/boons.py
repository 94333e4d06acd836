"""Update Roster C: Gain Boons from Territories (PB-6C).

A Territory's Boons are data (``Territory.boon_effects``, from the rule data
set): the bot rolls and applies them; the player only says which Territory's
Boon it claims. What is decided:

- Only Territories the gang controls, and only those with a Boon, can be
  claimed; each at most once per post-battle sequence (the caller passes the
  Territories already claimed, see
  :meth:`rules.sequence.PostBattleSequence.claimed_boons`).
- Each Boon effect is applied in the order of the data: Reputation; credits
  (rolled openly when they are dice); a recruit roll (the Settlement's 2D6:
  the line with the most dice showing its face wins, so a double 6 gives the
  Ganger and not also the Juve); a free Hanger-on or Brute from the rule
  set. An effect ``only_for`` one alignment is passed over, with a note, for
  a gang of the other ("Law Abiding: a free Rogue Doc").
- A free fighter joins at no credit cost but keeps its own cost for the Gang
  Rating; it is hired from the gang's House List (a recruit roll's category:
  the first fighter of that category) or the rule set's Hangers-on. The
  caller gives the id (``recruit_id``) and may give the name; without a name
  it is called after its type and the Territory. A free Hanger-on or Brute
  still needs room under the limit by Reputation and its own minimum
  Reputation.
- A Boon the data marks ``manual`` (the Tunnels' deployment) is not applied:
  the result tells the players what to do at the table.
- Everything that can refuse a claim is checked before any die is rolled:
  the Territory, declared values for a Boon the bot computes (refused: the
  bot rolls them), a missing or used recruit id, a House List without the
  recruit's category, no room for a free Hanger-on, a missing roller or rule
  set.
- A Territory whose data has Boon text but no ``boon_effects`` (one an
  Arbitrator typed, or an older campaign's) keeps the old way: the player
  declares what it gives (credits, Reputation, items, free fighters) and the
  bot checks the claim and applies it. A Territory whose only rules are
  about its income (the Collapsed Dome) has no Boon to claim: Collect
  Income applies them.
- Items granted by a Boon go to the Stash marked with the sequence id, so
  they cannot be sold in the same sequence (PB-6B.4).
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field

from rules.dice import DiceRoll, Roller, roll_flat_or_dice
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import BoonKind, Fighter, FighterCategory, Gang, Item, Territory, TerritoryBoon
from rules.ruleset import FighterTemplate, RuleSet
from rules.tradingpost import (
    HANGER_ON_CATEGORIES,
    check_hanger_on_room,
    fighter_from_template,
    gain,
    hanger_on_count,
    hanger_on_template,
    house_list,
    ids_in_use,
    require_fresh_id,
)
from rules.world import RuleResult, Workspace, World

MAX_BOON_CREDITS = 10_000
MAX_BOON_REPUTATION = 20
MAX_REPUTATION = 1000


class BoonClaim(BaseModel):
    """What one Territory's Boon gives, as the player declares it."""

    territory_id: str
    credits: int = Field(default=0, ge=0, le=MAX_BOON_CREDITS)
    reputation: int = Field(default=0, ge=0, le=MAX_BOON_REPUTATION)
    items: list[Item] = Field(default_factory=list)
    fighters: list[Fighter] = Field(default_factory=list)
    description: str = Field(default="", max_length=200)
    # For a Boon the bot computes that may give a fighter: its id and name.
    recruit_id: str | None = Field(default=None, max_length=64)
    recruit_name: str | None = Field(default=None, min_length=1, max_length=100)

    @property
    def declares_anything(self) -> bool:
        return bool(self.credits or self.reputation or self.items or self.fighters)


class ClaimedBoon(BaseModel):
    model_config = ConfigDict(frozen=True)

    territory_id: str
    territory_name: str
    credits: int
    reputation: int
    item_ids: list[str]
    fighter_ids: list[str]
    # What the players must do themselves (Boons the data marks manual).
    instructions: list[str] = Field(default_factory=list)


class BoonsResult(RuleResult):
    gang_id: str
    sequence_id: str
    claimed: list[ClaimedBoon]

    @property
    def territory_ids(self) -> list[str]:
        return [boon.territory_id for boon in self.claimed]


def claim_boons(
    world: World,
    gang_id: str,
    sequence_id: str,
    claims: list[BoonClaim],
    ruleset: RuleSet | None = None,
    claimed_before: Collection[str] = (),
    *,
    roller: Roller | None = None,
) -> BoonsResult:
    """Apply the Boons a gang claims from the Territories it controls (PB-6C)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    if not claims:
        raise InvalidRequest("Name at least one Territory whose Boon you claim.")
    _check_claims(ws.world, gang, claims, claimed_before)
    _check_new_ids(ws.world, claims)
    _check_hangers_on(gang, claims, ruleset)
    for claim in claims:
        _check_computed(ws.world, gang, claim, ruleset, roller)
    outcomes = [_apply(ws, gang, sequence_id, claim, ruleset, roller) for claim in claims]
    return ws.finish(
        BoonsResult,
        clause="PB-6C",
        title="Gain Boons from Territories",
        gang_id=gang_id,
        sequence_id=sequence_id,
        claimed=outcomes,
    )


def has_boon(territory: Territory) -> bool:
    """Whether the Territory has a Boon to claim (rules about its income are not one)."""
    if territory.boon_effects:
        return True
    income_rules = territory.income_max_dice is not None or territory.income_double_injures
    return bool(territory.boons) and not income_rules


def _check_claims(
    world: World, gang: Gang, claims: list[BoonClaim], claimed_before: Collection[str]
) -> None:
    seen: set[str] = set(claimed_before)
    gained = 0
    for claim in claims:
        territory = world.territory(claim.territory_id)
        if territory.controller != gang.id:
            raise NotEligible(f"{gang.name} does not control {territory.name}.")
        if not has_boon(territory):
            raise NotEligible(f"{territory.name} grants no Boon.")
        if territory.id in seen:
            raise NotEligible(
                f"{gang.name} has already claimed the Boon of {territory.name} this sequence."
            )
        seen.add(territory.id)
        gained += claim.reputation + sum(
            e.amount for e in _effects_for(territory, gang) if e.kind is BoonKind.REPUTATION)
    if gang.reputation + gained > MAX_REPUTATION:
        raise InvalidRequest(f"Reputation cannot go above {MAX_REPUTATION}.")


def _effects_for(territory: Territory, gang: Gang) -> list[TerritoryBoon]:
    return [e for e in territory.boon_effects if e.only_for in (None, gang.alignment)]


def _check_new_ids(world: World, claims: list[BoonClaim]) -> None:
    used = ids_in_use(world)
    for claim in claims:
        new_ids = [item.id for item in claim.items] + [f.id for f in claim.fighters]
        new_ids += [claim.recruit_id] if claim.recruit_id else []
        for new_id in new_ids:
            if new_id in used:
                raise InvalidRequest(f"The id {new_id} is already in use.")
            used.add(new_id)


def _check_hangers_on(gang: Gang, claims: list[BoonClaim], ruleset: RuleSet | None) -> None:
    free = [f for claim in claims for f in claim.fighters if f.category in HANGER_ON_CATEGORIES]
    if not free:
        return
    if ruleset is None:
        raise InvalidRequest("A free Hanger-on or Brute needs the rule set to check the limit.")
    allowed = ruleset.max_hangers_on(gang.reputation)
    current = hanger_on_count(gang)
    if current + len(free) > allowed:
        raise NotEligible(
            f"With Reputation {gang.reputation} {gang.name} may have {allowed} Hangers-on and "
            f"Brutes, and already has {current}."
        )


def _check_computed(
    world: World, gang: Gang, claim: BoonClaim, ruleset: RuleSet | None, roller: Roller | None
) -> None:
    """Refuse, before any roll, a claim of a computed Boon that could not be carried out."""
    territory = world.territory(claim.territory_id)
    if not territory.boon_effects:
        return
    if claim.declares_anything:
        raise InvalidRequest(
            f"The Boon of {territory.name} is rolled and applied by the bot: claim it without "
            "entering credits, Reputation, items or fighters."
        )
    effects = _effects_for(territory, gang)
    kinds = {effect.kind for effect in effects}
    if kinds & {BoonKind.CREDITS, BoonKind.RECRUIT_ROLL} and roller is None:
        raise InvalidRequest(f"The Boon of {territory.name} needs dice: pass a roller.")
    gives_fighter = kinds & {BoonKind.RECRUIT_ROLL, BoonKind.FREE_HANGER_ON}
    if not gives_fighter:
        return
    if ruleset is None:
        raise InvalidRequest(f"The Boon of {territory.name} needs the rule set.")
    if not claim.recruit_id:
        raise InvalidRequest(
            f"The Boon of {territory.name} may give a fighter: give the id it will have."
        )
    require_fresh_id(world, claim.recruit_id)
    for effect in effects:
        if effect.kind is BoonKind.RECRUIT_ROLL:
            for outcome in effect.recruits:
                _recruit_template(ruleset, gang, outcome.category)
        elif effect.kind is BoonKind.FREE_HANGER_ON:
            template = hanger_on_template(ruleset, gang, effect.fighter_type or "")
            check_hanger_on_room(ruleset, gang, template)


def _recruit_template(
    ruleset: RuleSet, gang: Gang, category: FighterCategory
) -> FighterTemplate:
    house = house_list(ruleset, gang)
    for template in house.fighters:
        if template.category == category:
            return template
    raise NotFound(f"The {house.house} House List has no {category} to recruit.")


def _apply(
    ws: Workspace,
    gang: Gang,
    sequence_id: str,
    claim: BoonClaim,
    ruleset: RuleSet | None,
    roller: Roller | None,
) -> ClaimedBoon:
    territory = ws.world.territory(claim.territory_id)
    credits, reputation = claim.credits, claim.reputation
    fighter_ids = [f.id for f in claim.fighters]
    instructions: list[str] = []
    gain(gang, claim.credits)
    gang.reputation += claim.reputation
    for item in claim.items:
        gang.stash.append(item.model_copy(update={"boon_of_sequence": sequence_id}))
    for fighter in claim.fighters:
        gang.fighters.append(fighter.model_copy(deep=True))
    for effect in territory.boon_effects:
        if effect.only_for not in (None, gang.alignment):
            ws.note(f"{territory.name}: {effect.text or effect.kind.value} is only for "
                    f"{effect.only_for} gangs; {gang.name} does not get it.")
            continue
        if effect.kind is BoonKind.REPUTATION:
            gang.reputation += effect.amount
            reputation += effect.amount
        elif effect.kind is BoonKind.CREDITS and roller is not None:
            credits += _boon_credits(ws, gang, territory, effect, roller)
        elif effect.kind is BoonKind.RECRUIT_ROLL and roller is not None and ruleset is not None:
            fighter_ids += _recruit_roll(ws, gang, territory, effect, claim, ruleset, roller)
        elif effect.kind is BoonKind.FREE_HANGER_ON and ruleset is not None:
            template = hanger_on_template(ruleset, gang, effect.fighter_type or "")
            fighter_ids.append(_join(ws, gang, territory, template, claim))
        elif effect.kind is BoonKind.MANUAL:
            instructions.append(effect.text)
            ws.note(f"{territory.name}: the bot does not apply this Boon; at the table: "
                    f"{effect.text}")
    given = [f"{credits} credits"] if credits else []
    given += [f"+{reputation} Reputation"] if reputation else []
    given += [item.name for item in claim.items]
    given += [gang.fighter(fid).name for fid in fighter_ids]
    ws.note(f"{territory.name} gives {gang.name} {', '.join(given) or 'nothing this time'}.")
    return ClaimedBoon(
        territory_id=territory.id,
        territory_name=territory.name,
        credits=credits,
        reputation=reputation,
        item_ids=[item.id for item in claim.items],
        fighter_ids=fighter_ids,
        instructions=instructions,
    )


def _boon_credits(
    ws: Workspace, gang: Gang, territory: Territory, effect: TerritoryBoon, roller: Roller
) -> int:
    rolled = roll_flat_or_dice(roller, effect.expression or "0",
                               f"{territory.name} Boon credits for {gang.name}")
    amount = rolled if isinstance(rolled, int) else ws.record(rolled).total
    gain(gang, amount)
    return amount


def _recruit_roll(
    ws: Workspace,
    gang: Gang,
    territory: Territory,
    effect: TerritoryBoon,
    claim: BoonClaim,
    ruleset: RuleSet,
    roller: Roller,
) -> list[str]:
    dice: DiceRoll = ws.roll(roller, effect.expression or "2D6",
                             f"{territory.name} recruit roll for {gang.name}")
    # The line asking for the most matching dice wins: a double 6 is the Ganger only.
    for outcome in sorted(effect.recruits, key=lambda o: -o.count):
        if dice.faces.count(outcome.face) >= outcome.count:
            template = _recruit_template(ruleset, gang, outcome.category)
            return [_join(ws, gang, territory, template, claim)]
    ws.note(f"{gang.name} rolls {dice.total} {list(dice.faces)}: no recruit this time.")
    return []


def _join(
    ws: Workspace, gang: Gang, territory: Territory, template: FighterTemplate, claim: BoonClaim
) -> str:
    new_id = claim.recruit_id or ""
    name = claim.recruit_name or f"{template.fighter_type} of {territory.name}"[:100]
    gang.fighters.append(fighter_from_template(template, name, new_id))
    ws.note(f"{name}, a {template.fighter_type}, joins {gang.name} for free "
            f"(worth {template.cost} credits to the Gang Rating).")
    return new_id
