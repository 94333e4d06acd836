"""Update Roster C: Gain Boons from Territories (PB-6C).

A Territory's Boons are free text in the data ("+1 Reputation", "a free Rogue
Doc"), so the bot does not read them: the player declares what each claimed
Boon gives (credits, Reputation, items, free fighters) and the bot checks the
claim and applies it. What is automated, and what is decided:

- Only Territories the gang controls, and only those whose data lists a Boon,
  can be claimed; each at most once per post-battle sequence (the caller
  passes the Territories already claimed, see
  :meth:`rules.sequence.PostBattleSequence.claimed_boons`).
- Items granted by a Boon go to the Stash marked with the sequence id, so
  they cannot be sold in the same sequence (PB-6B.4).
- Free fighters (a Settlement's Juve, a Rogue Doc Shop's Rogue Doc) join at
  no credit cost but keep their own cost for the Gang Rating. A free
  Hanger-on or Brute still counts against the limit by Reputation, which
  needs the rule set.
- A Boon that needs a roll (the Settlement's 2D6 for a free recruit) or that
  depends on alignment is rolled and read by the players; the bot records
  what they declare, and the change log shows it to the Arbitrator.
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic import BaseModel, ConfigDict, Field

from rules.errors import InvalidRequest, NotEligible
from rules.models import Fighter, Gang, Item
from rules.ruleset import RuleSet
from rules.tradingpost import HANGER_ON_CATEGORIES, gain, ids_in_use
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


class ClaimedBoon(BaseModel):
    model_config = ConfigDict(frozen=True)

    territory_id: str
    territory_name: str
    credits: int
    reputation: int
    item_ids: list[str]
    fighter_ids: list[str]


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
) -> BoonsResult:
    """Apply the Boons a gang claims from the Territories it controls (PB-6C)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    if not claims:
        raise InvalidRequest("Name at least one Territory whose Boon you claim.")
    _check_claims(ws.world, gang, claims, claimed_before)
    _check_new_ids(ws.world, claims)
    _check_hangers_on(gang, claims, ruleset)
    outcomes = [_apply(ws, gang, sequence_id, claim) for claim in claims]
    return ws.finish(
        BoonsResult,
        clause="PB-6C",
        title="Gain Boons from Territories",
        gang_id=gang_id,
        sequence_id=sequence_id,
        claimed=outcomes,
    )


def _check_claims(
    world: World, gang: Gang, claims: list[BoonClaim], claimed_before: Collection[str]
) -> None:
    seen: set[str] = set(claimed_before)
    gained = 0
    for claim in claims:
        territory = world.territory(claim.territory_id)
        if territory.controller != gang.id:
            raise NotEligible(f"{gang.name} does not control {territory.name}.")
        if not territory.boons:
            raise NotEligible(f"{territory.name} grants no Boon.")
        if territory.id in seen:
            raise NotEligible(
                f"{gang.name} has already claimed the Boon of {territory.name} this sequence."
            )
        seen.add(territory.id)
        gained += claim.reputation
    if gang.reputation + gained > MAX_REPUTATION:
        raise InvalidRequest(f"Reputation cannot go above {MAX_REPUTATION}.")


def _check_new_ids(world: World, claims: list[BoonClaim]) -> None:
    used = ids_in_use(world)
    for claim in claims:
        new_ids = [item.id for item in claim.items] + [f.id for f in claim.fighters]
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
    current = sum(1 for f in gang.fighters if f.on_roster and f.category in HANGER_ON_CATEGORIES)
    if current + len(free) > allowed:
        raise NotEligible(
            f"With Reputation {gang.reputation} {gang.name} may have {allowed} Hangers-on and "
            f"Brutes, and already has {current}."
        )


def _apply(ws: Workspace, gang: Gang, sequence_id: str, claim: BoonClaim) -> ClaimedBoon:
    territory = ws.world.territory(claim.territory_id)
    gain(gang, claim.credits)
    gang.reputation += claim.reputation
    for item in claim.items:
        gang.stash.append(item.model_copy(update={"boon_of_sequence": sequence_id}))
    for fighter in claim.fighters:
        gang.fighters.append(fighter.model_copy(deep=True))
    given = [f"{claim.credits} credits"] if claim.credits else []
    given += [f"+{claim.reputation} Reputation"] if claim.reputation else []
    given += [item.name for item in claim.items] + [f.name for f in claim.fighters]
    ws.note(f"{territory.name} gives {gang.name} {', '.join(given) or 'nothing this time'}.")
    return ClaimedBoon(
        territory_id=territory.id,
        territory_name=territory.name,
        credits=claim.credits,
        reputation=claim.reputation,
        item_ids=[item.id for item in claim.items],
        fighter_ids=[f.id for f in claim.fighters],
    )
