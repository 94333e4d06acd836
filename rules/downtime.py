"""The effects of Downtime on one gang (Dominion campaign, "The Effects of Downtime" A-D).

Figures and step names come from the Dominion campaign of the 2023 core rules
(necrovox ``Necromunda_Docs/8-campaigns/dominion-campaign/3-running-the-campaign.md``);
Law and Misrule's Downtime (``law-and-misrule-campaign/law-and-misrule-campaign.md``,
Phase 2) takes steps A, C and D of the same list.

Decisions where the texts are silent:

- Fighters Recover clears In Recovery only: Convalescence and Captured are other boxes.
- Captives are Returned acts in the captor's Downtime: the captor releases every
  fighter it holds (back Active on its owner's roster) and takes half of each one's
  credits value with its equipment (the value the Sell to the Guilders action reads,
  PB-5.2), rounded up to 5. The captive's gear goes home with it.
- Promotion is the player's choice ("may be promoted"): a Juve or Prospect with three or
  more advancements takes one of the types its "Promotion (...)" special rule names
  (any type the player names when it has no such rule, a fighter written by hand), and
  loses that rule; its characteristics and cost stay. Its category becomes the new
  type's in the House List when the list has the type.
- Fresh Recruitment's credits are put in the Stash as the step opens so that the usual
  hiring and buying commands can spend them; when the step closes, whatever of them is
  still there goes (:func:`unspent_recruitment`): credits spent come out of the
  Downtime credits first, and the gang's own Stash credits are never taken.
"""

from __future__ import annotations

import re

from rules.errors import InvalidRequest, NotEligible
from rules.models import Fighter, FighterCategory, FighterStatus
from rules.money import percent_of
from rules.ruleset import FighterTemplate
from rules.wording import possessive
from rules.world import RuleResult, Workspace, World

# 3-running-the-campaign.md, "D. Fresh Recruitment": "All gangs gain 250 credits".
FRESH_RECRUITMENT_CREDITS = 250
# 3-running-the-campaign.md, "C. ...": "three or more Advancements".
PROMOTION_ADVANCEMENTS = 3
# 3-running-the-campaign.md, "B. ...": "half their credits value (rounding up to the nearest
# 5 credits)".
CAPTIVE_RETURN_PERCENT = 50
PROMOTABLE = frozenset({FighterCategory.JUVE, FighterCategory.PROSPECT})
_PROMOTION_RULE = re.compile(r"^\s*Promotion\s*\((?P<types>[^)]*)\)\s*$", re.IGNORECASE)


def fighters_recover(world: World, gang_id: str) -> RuleResult:
    """DT-A: every In Recovery box of the gang is cleared."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    recovered = [f for f in gang.fighters if f.status is FighterStatus.IN_RECOVERY]
    for fighter in recovered:
        fighter.set_status(FighterStatus.ACTIVE)
        ws.note(f"{fighter.name} recovers.")
    if not recovered:
        ws.note(f"Nobody in {gang.name} was In Recovery.")
    return ws.finish(RuleResult, "DT-A", f"{gang.name}: Fighters Recover")


def return_captives(world: World, gang_id: str) -> RuleResult:
    """DT-B: the gang releases every captive it holds and takes half of each one's value.

    ``world`` holds the gangs the captives belong to (:meth:`World.captives_held_by`).
    """
    ws = Workspace(world)
    captor = ws.gang(gang_id)
    held = ws.world.captives_held_by(gang_id)
    for owner, captive in held:
        gained = percent_of(captive.total_cost, CAPTIVE_RETURN_PERCENT)
        captive.set_status(FighterStatus.ACTIVE)
        captor.credits += gained
        ws.note(f"{captive.name} goes back to {owner.name}; {captor.name} receives "
                f"{gained} credits (half of {captive.total_cost}, rounded up to 5).")
    if not held:
        ws.note(f"{captor.name} holds no captives.")
    return ws.finish(RuleResult, "DT-B", f"{captor.name}: Captives are Returned")


def promotion_candidates(world: World, gang_id: str) -> list[Fighter]:
    """The gang's Juves and Prospects with enough advancements to be promoted."""
    return [f for f in world.gang(gang_id).fighters if _promotable(f)]


def _promotable(fighter: Fighter) -> bool:
    return (fighter.on_roster and fighter.category in PROMOTABLE
            and len(fighter.advancements) >= PROMOTION_ADVANCEMENTS)


def promotion_types(fighter: Fighter) -> list[str]:
    """The types a fighter's "Promotion (A or B)" special rule names; empty without one."""
    for rule in fighter.special_rules:
        found = _PROMOTION_RULE.match(rule)
        if found is not None:
            return [t.strip() for t in re.split(r"\s+or\s+|,", found["types"]) if t.strip()]
    return []


def promotion_note(world: World, gang_id: str) -> RuleResult:
    """DT-C as it opens: who may be promoted (nothing changes until the player chooses)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    candidates = promotion_candidates(ws.world, gang_id)
    for fighter in candidates:
        types = promotion_types(fighter)
        to = " or ".join(types) if types else "the type its fighter entry names"
        ws.note(f"{fighter.name} ({fighter.category.value}, {len(fighter.advancements)} "
                f"advancements) may be promoted to {to}.")
    if not candidates:
        ws.note(f"{gang.name} has no Juve or Prospect with {PROMOTION_ADVANCEMENTS} or more "
                "advancements.")
    return ws.finish(RuleResult, "DT-C", f"{gang.name}: who may be promoted")


def promote(
    world: World, gang_id: str, fighter_id: str, new_type: str,
    template: FighterTemplate | None = None,
) -> RuleResult:
    """DT-C: the player promotes one eligible fighter to ``new_type``.

    ``template``: the House List's entry for ``new_type``, when the list has one (its
    category becomes the fighter's).
    """
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    fighter = gang.fighter(fighter_id)
    if not _promotable(fighter):
        raise NotEligible(
            f"Only a Juve or Prospect with {PROMOTION_ADVANCEMENTS} or more advancements may "
            f"be promoted; {fighter.name} is a {fighter.category.value} with "
            f"{len(fighter.advancements)}.")
    wanted = new_type.strip()
    if not wanted:
        raise InvalidRequest("Name the type the fighter is promoted to.")
    types = promotion_types(fighter)
    if types:
        chosen = next((t for t in types if t.casefold() == wanted.casefold()), None)
        if chosen is None:
            raise NotEligible(f"{possessive(fighter.name)} fighter entry promotes it to "
                              f"{' or '.join(types)}, not {wanted}.")
        wanted = chosen
    before = fighter.fighter_type or fighter.category.value
    fighter.fighter_type = wanted
    fighter.special_rules = [r for r in fighter.special_rules if not _PROMOTION_RULE.match(r)]
    if template is not None:
        fighter.category = template.category
        fighter.gang_hierarchy = fighter.gang_hierarchy or template.gang_hierarchy
    ws.note(f"{fighter.name} is promoted from {before} to {wanted}; characteristics and "
            "cost are unchanged.")
    return ws.finish(RuleResult, "DT-C", f"{gang.name}: {fighter.name} promoted")


def fresh_recruitment(world: World, gang_id: str, budget: int) -> RuleResult:
    """DT-D as it opens: the gang gains ``budget`` credits to spend now."""
    if budget < 0:
        raise InvalidRequest("The Fresh Recruitment credits cannot be negative.")
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    gang.credits += budget
    ws.note(f"{gang.name} gains {budget} credits to spend now on recruits and equipment; "
            "what is not spent when the step is confirmed is lost.")
    return ws.finish(RuleResult, "DT-D", f"{gang.name}: Fresh Recruitment")


def unspent_recruitment(world: World, gang_id: str, credits_before: int, budget: int) -> RuleResult:
    """DT-D as it closes: the Fresh Recruitment credits not spent go (never the Stash's own).

    ``credits_before``: the gang's credits before the step gave it ``budget``.
    """
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    lost = max(0, min(budget, gang.credits - credits_before))
    gang.credits -= lost
    if lost:
        ws.note(f"{lost} of the {budget} Fresh Recruitment credits were not spent and are "
                "lost: they cannot be kept in the Stash.")
    else:
        ws.note(f"All {budget} Fresh Recruitment credits were spent.")
    return ws.finish(RuleResult, "DT-D", f"{gang.name}: unspent Fresh Recruitment credits")
