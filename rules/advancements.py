"""Update Roster E: Purchase Advancements (PB-6E, campaign only).

Decisions where the texts are silent:

- Costs and credits come from the rule set. A characteristic advancement
  costs ``repeat_xp_increase`` (2) XP more for each advancement of that same
  characteristic the fighter already has, whichever table gave it; Juves and
  Prospects never pay the increase.
- An option whose ``categories`` are listed is only for those categories.
  Gangers buy nothing from the list (unless an option names Gangers): with
  enough XP they roll the Gangers' 2D6 table instead, by asking for
  :data:`GANGER_TABLE` or calling :func:`roll_ganger_advancement`.
  Hangers-on and Brutes never advance. A Captive cannot advance; a fighter
  In Recovery can.
- A characteristic already at its best cannot be improved (refused, no XP
  spent).
- Skills come from the rule set's skill sets (``skill_sets``: six names per
  set, in the order of its D6 table). A random skill is a D6 rolled openly on
  the set the player names, read as the skill's name; a skill the fighter
  already has is re-rolled, openly, and a fighter that has the whole set is
  refused before any roll. A chosen skill must be a skill of the named set
  (or, with no set named, of any set) and one the fighter does not have.
  Which sets are Primary or Secondary for a fighter is not in the data: the
  player names the set. A rule set without skill sets (a campaign's own
  data) falls back to "<set> skill <n>" for a random skill and takes a
  chosen skill's name as typed. Promotions ("Promoted to Champion, ...")
  change the fighter's category, and a promotion to Champion gives Gang
  Hierarchy.
- The Gangers' table gives a choice of two characteristics after the roll.
  A ``stat`` passed with the request is taken when the rolled line offers
  it (or the line offers only one); otherwise the XP and credits are spent,
  the advancement is recorded without a characteristic, and the player
  completes it with :func:`choose_advancement_stat`. Because the table can
  promote (with a random skill), a roll on it needs the skill set named
  first, when the rule set has skill sets: asking without one is refused
  before the 2D6 is rolled, so no roll is ever wasted.
- Advancements are refused in skirmish play (PB-0).
"""

from __future__ import annotations

import re

from pydantic import Field

from rules.dice import Roller
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import Advancement, Fighter, FighterCategory, FighterStatus, Gang, Profile
from rules.ruleset import AdvancementOption, GangerAdvancementEntry, RuleSet
from rules.wording import possessive
from rules.world import RuleResult, Workspace, World

GANGER_TABLE = "Ganger advancement roll"
_NO_REPEAT_INCREASE = frozenset({FighterCategory.JUVE, FighterCategory.PROSPECT})
_NEVER_ADVANCE = frozenset({FighterCategory.HANGER_ON, FighterCategory.BRUTE})
_PROMOTION = re.compile(r"promoted to (\w+)", re.IGNORECASE)
SKILLS_PER_SET = 6
DEFAULT_SKILL_SET = "Primary"


class AdvancementResult(RuleResult):
    gang_id: str
    fighter_id: str
    advancement: str
    xp_spent: int
    xp_left: int
    credits_added: int
    stat: str | None = None
    stat_before: int | None = None
    stat_after: int | None = None
    skill: str | None = None
    promoted_to: FighterCategory | None = None
    # The Gangers' 2D6 result, when the table was rolled.
    table_roll: int | None = None
    # Characteristics still to choose from (complete with choose_advancement_stat).
    pending_stats: list[str] = Field(default_factory=list)


class SkillSetNeeded(InvalidRequest):
    """A Gangers' table roll asked for without the skill set a promotion would roll on."""

    def __init__(self, skill_sets: list[str]) -> None:
        super().__init__(
            "Name the skill set a promotion would roll its random skill on (the Gangers' "
            f"table can promote), before the 2D6 is rolled: one of {', '.join(skill_sets)}."
        )
        self.skill_sets = skill_sets


def buy_advancement(
    world: World,
    gang_id: str,
    fighter_id: str,
    option_name: str,
    ruleset: RuleSet,
    roller: Roller,
    stat: str | None = None,
    *,
    skill: str | None = None,
    skill_set: str | None = None,
    skirmish: bool = False,
) -> AdvancementResult:
    """Spend a fighter's XP on an advancement from the rule set (PB-6E)."""
    if option_name.strip().casefold() == GANGER_TABLE.casefold():
        return roll_ganger_advancement(
            world, gang_id, fighter_id, ruleset, roller, stat,
            skill_set=skill_set, skirmish=skirmish,
        )
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    fighter = gang.fighter(fighter_id)
    _check_may_advance(gang, fighter, skirmish)
    option = _option(ruleset, option_name)
    _check_category(fighter, option)
    chosen = _chosen_stat(option, stat)
    xp_cost = _xp_cost(fighter, option, chosen)
    _check_xp(fighter, option.name, xp_cost)
    fields: dict[str, object] = {}
    if chosen is not None:
        fields.update(_improve(fighter, chosen))
    else:
        fields.update(_gain_skill(ws, fighter, option, ruleset, roller, skill, skill_set))
    bought = Advancement(name=option.name, xp_cost=xp_cost, credits=option.credits, stat=chosen)
    _spend_on(fighter, bought)
    ws.note(
        f"{fighter.name} spends {xp_cost} XP on {option.name}; their cost rises by "
        f"{option.credits} credits."
    )
    return _bought_result(ws, "Purchase an advancement", gang_id, fighter, bought, fields)


def roll_ganger_advancement(
    world: World,
    gang_id: str,
    fighter_id: str,
    ruleset: RuleSet,
    roller: Roller,
    stat: str | None = None,
    *,
    skill_set: str | None = None,
    skirmish: bool = False,
) -> AdvancementResult:
    """A Ganger spends 6 XP on a roll on the Gangers' 2D6 table (PB-6E)."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    fighter = gang.fighter(fighter_id)
    _check_may_advance(gang, fighter, skirmish)
    if fighter.category is not FighterCategory.GANGER:
        raise NotEligible(f"Only Gangers roll on the Gangers' table; {fighter.name} is not one.")
    table = ruleset.ganger_advancements
    _check_xp(fighter, "a roll on the Gangers' table", table.xp_cost)
    # Checked before the roll: a result that improves a characteristic would
    # otherwise have nothing to improve, and the roll must stand once made.
    _check_profile_set(fighter)
    chosen_set = _promotion_skill_set(ruleset, skill_set)
    dice = ws.roll(roller, "2D6", f"Gangers' advancement for {fighter.name}")
    entry = _ganger_entry(ruleset, dice.total)
    fields: dict[str, object] = {"table_roll": dice.total}
    chosen: str | None = None
    name, credits = entry.name, entry.credits
    if entry.promote_to is not None:
        fields.update(_promote(fighter, entry.promote_to))
        if not _open_skills(fighter, _skill_table(ruleset, chosen_set)):
            ws.note(f"{fighter.name} already has every {chosen_set} skill: no skill to gain.")
        else:
            fields["skill"] = _roll_skill(ws, fighter, roller, ruleset, chosen_set)
    elif entry.stats:
        # The roll is made openly and stands, so a characteristic that cannot
        # improve is dropped from the choice rather than refusing the roll.
        open_stats = [s for s in entry.stats if _can_improve(fighter, s)]
        wanted = stat.strip().lower() if stat else None
        if wanted in open_stats or len(open_stats) == 1:
            chosen = wanted if wanted in open_stats else open_stats[0]
            fields.update(_improve(fighter, chosen))
        elif open_stats:
            fields["pending_stats"] = open_stats
            ws.note(f"{fighter.name} must now choose one of {_stat_names(open_stats)}.")
        else:
            ws.note(f"Neither {_stat_names(entry.stats)} can improve further: no effect.")
            name, credits = f"{entry.name} (no effect)", 0
    rolled = Advancement(name=name, xp_cost=table.xp_cost, credits=credits, stat=chosen)
    _spend_on(fighter, rolled)
    ws.note(f"{fighter.name} rolls {dice.total}: {entry.name} (+{credits} credits).")
    return _bought_result(ws, "Gangers' advancement", gang_id, fighter, rolled, fields)


def _spend_on(fighter: Fighter, advancement: Advancement) -> None:
    """Pay the advancement's XP, add its credits to the fighter's cost, and record it."""
    fighter.xp -= advancement.xp_cost
    fighter.cost += advancement.credits
    fighter.advancements.append(advancement)


def _bought_result(
    ws: Workspace,
    title: str,
    gang_id: str,
    fighter: Fighter,
    bought: Advancement,
    fields: dict[str, object],
) -> AdvancementResult:
    return ws.finish(
        AdvancementResult,
        clause="PB-6E",
        title=title,
        gang_id=gang_id,
        fighter_id=fighter.id,
        advancement=bought.name,
        xp_spent=bought.xp_cost,
        xp_left=fighter.xp,
        credits_added=bought.credits,
        **fields,
    )


def choose_advancement_stat(
    world: World, gang_id: str, fighter_id: str, stat: str, ruleset: RuleSet
) -> AdvancementResult:
    """Complete a Gangers' table result that left a choice of characteristic."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    fighter = gang.fighter(fighter_id)
    pending = _pending(fighter, ruleset)
    if pending is None:
        raise NotEligible(f"{fighter.name} has no advancement waiting for a characteristic.")
    advancement, entry = pending
    key = stat.strip().lower()
    if key not in entry.stats:
        raise InvalidRequest(f"{entry.name}: choose one of {_stat_names(entry.stats)}.")
    fields = _improve(fighter, key)
    advancement.stat = key
    # The XP and credits were counted when the table was rolled.
    chosen = Advancement(name=entry.name, xp_cost=0, credits=0, stat=key)
    return _bought_result(ws, "Choose a characteristic", gang_id, fighter, chosen, fields)


def available_options(ruleset: RuleSet, fighter: Fighter) -> list[AdvancementOption]:
    """The options of the list this fighter's category may buy."""
    return [o for o in ruleset.advancements if _category_allows(fighter, o)]


# --------------------------------------------------------------------------- checks


def _check_may_advance(gang: Gang, fighter: Fighter, skirmish: bool) -> None:
    if skirmish:
        raise NotEligible("Advancements are bought in campaign play only; this is a skirmish.")
    if not fighter.on_roster:
        raise NotEligible(f"{fighter.name} is no longer on {possessive(gang.name)} roster.")
    if fighter.status is FighterStatus.CAPTURED:
        raise NotEligible(f"{fighter.name} is held Captive and cannot advance.")
    if fighter.category in _NEVER_ADVANCE:
        raise NotEligible(f"{fighter.name} is a {fighter.category.value} and never advances.")


def _option(ruleset: RuleSet, name: str) -> AdvancementOption:
    wanted = name.strip().casefold()
    for option in ruleset.advancements:
        if option.name.casefold() == wanted:
            return option
    raise NotFound(f"The rule set {ruleset.name} has no advancement called {name}.")


def _category_allows(fighter: Fighter, option: AdvancementOption) -> bool:
    if option.categories:
        return fighter.category in option.categories
    return fighter.category is not FighterCategory.GANGER


def _check_category(fighter: Fighter, option: AdvancementOption) -> None:
    if _category_allows(fighter, option):
        return
    if fighter.category is FighterCategory.GANGER:
        raise NotEligible(
            f"{fighter.name} is a Ganger: Gangers roll on the Gangers' table instead."
        )
    raise NotEligible(f"{option.name} is not open to a {fighter.category.value}.")


def _chosen_stat(option: AdvancementOption, stat: str | None) -> str | None:
    if not option.stats:
        return None
    if stat is None:
        if len(option.stats) == 1:
            return option.stats[0]
        raise InvalidRequest(f"{option.name}: choose one of {_stat_names(option.stats)}.")
    key = stat.strip().lower()
    if key not in option.stats:
        raise InvalidRequest(f"{option.name}: choose one of {_stat_names(option.stats)}.")
    return key


def _xp_cost(fighter: Fighter, option: AdvancementOption, stat: str | None) -> int:
    if stat is None or fighter.category in _NO_REPEAT_INCREASE:
        return option.xp_cost
    earlier = sum(1 for a in fighter.advancements if a.stat == stat)
    return option.xp_cost + option.repeat_xp_increase * earlier


def _check_xp(fighter: Fighter, what: str, xp_cost: int) -> None:
    if fighter.xp < xp_cost:
        raise NotEligible(f"{fighter.name} has {fighter.xp} XP; {what} costs {xp_cost} XP.")


# --------------------------------------------------------------------------- effects


def _check_profile_set(fighter: Fighter) -> Profile:
    """A characteristic advance needs the figure it improves: none is ever made up."""
    if fighter.profile is None:
        raise NotEligible(
            f"{possessive(fighter.name)} profile is not set, so no characteristic can improve: "
            "give it first with /fighter edit profile:."
        )
    return fighter.profile


def _can_improve(fighter: Fighter, stat: str) -> bool:
    if fighter.profile is None or not fighter.profile.has(stat):
        return False
    trial = fighter.profile.model_copy()
    trial.improve(stat)
    return trial.get(stat) != fighter.profile.get(stat)


def _improve(fighter: Fighter, stat: str) -> dict[str, object]:
    profile = _check_profile_set(fighter)
    before = profile.get(stat)
    if before is None:
        raise NotEligible(f"{fighter.name} has no {stat.upper()} (\"-\" on the profile) "
                          "to improve.")
    profile.improve(stat)
    after = profile.get(stat)
    if after == before:
        raise NotEligible(f"{possessive(fighter.name)} {stat.upper()} cannot improve any further.")
    return {"stat": stat, "stat_before": before, "stat_after": after}


def _gain_skill(
    ws: Workspace,
    fighter: Fighter,
    option: AdvancementOption,
    ruleset: RuleSet,
    roller: Roller,
    skill: str | None,
    skill_set: str | None,
) -> dict[str, object]:
    fields: dict[str, object] = {}
    promotion = _PROMOTION.search(option.name)
    is_random = "random" in option.name.casefold()
    learned: str | None = None
    if is_random:
        if not skill_set:
            raise InvalidRequest(f"{option.name}: name the skill set to roll on.")
        if not _open_skills(fighter, _skill_table(ruleset, skill_set)):
            raise NotEligible(f"{fighter.name} already has every {skill_set.strip()} skill.")
    else:
        if not (skill and skill.strip()):
            raise InvalidRequest(f"{option.name}: name the skill {fighter.name} learns.")
        learned = _chosen_skill(ruleset, skill, skill_set)
        if _has_skill(fighter, learned):
            raise NotEligible(f"{fighter.name} already has {learned}.")
    if promotion is not None:
        fields.update(_promote(fighter, _category(promotion.group(1))))
    if is_random and skill_set is not None:
        fields["skill"] = _roll_skill(ws, fighter, roller, ruleset, skill_set)
    elif learned is not None:
        fighter.skills.append(learned)
        fields["skill"] = learned
    return fields


def _chosen_skill(ruleset: RuleSet, skill: str, skill_set: str | None) -> str:
    """The data's spelling of a chosen skill, refused unless its set has it."""
    if not ruleset.skill_sets:
        return skill.strip()
    sets = [ruleset.skill_set(skill_set)] if skill_set else ruleset.skill_sets
    for candidate in sets:
        found = candidate.skill(skill)
        if found is not None:
            return found
    if skill_set:
        names = ", ".join(sets[0].skills)
        raise NotFound(f"{skill.strip()} is not a {sets[0].name} skill ({names}).")
    raise NotFound(f"{skill.strip()} is not a skill of any skill set of {ruleset.name}.")


def _promotion_skill_set(ruleset: RuleSet, skill_set: str | None) -> str:
    """The set a Gangers' table promotion rolls on, checked before the table is rolled."""
    if skill_set:
        _skill_table(ruleset, skill_set)  # refuses an unknown set now, not after the roll
        return skill_set.strip()
    if ruleset.skill_sets and any(e.promote_to for e in ruleset.ganger_advancements.entries):
        raise SkillSetNeeded([s.name for s in ruleset.skill_sets])
    return DEFAULT_SKILL_SET


def _category(name: str) -> FighterCategory:
    for category in FighterCategory:
        if category.value.casefold() == name.casefold():
            return category
    raise InvalidRequest(f"The rule set promotes to {name}, which is no fighter category.")


def _promote(fighter: Fighter, category: FighterCategory) -> dict[str, object]:
    fighter.category = category
    if category.has_gang_hierarchy:
        fighter.gang_hierarchy = True
    return {"promoted_to": category}


def _skill_table(ruleset: RuleSet, skill_set: str) -> list[str]:
    """The skills of ``skill_set`` in the order of its D6 table."""
    if ruleset.skill_sets:
        return list(ruleset.skill_set(skill_set).skills)
    return [f"{skill_set.strip()} skill {n}" for n in range(1, SKILLS_PER_SET + 1)]


def _has_skill(fighter: Fighter, skill: str) -> bool:
    return skill.casefold() in {s.casefold() for s in fighter.skills}


def _open_skills(fighter: Fighter, table: list[str]) -> list[str]:
    return [s for s in table if not _has_skill(fighter, s)]


def _roll_skill(
    ws: Workspace, fighter: Fighter, roller: Roller, ruleset: RuleSet, skill_set: str
) -> str:
    table = _skill_table(ruleset, skill_set)
    if not _open_skills(fighter, table):
        raise NotEligible(f"{fighter.name} already has every {skill_set.strip()} skill.")
    while True:
        dice = ws.roll(roller, "D6", f"random {skill_set.strip()} skill for {fighter.name}")
        skill = table[dice.total - 1]
        if not _has_skill(fighter, skill):
            break
        ws.note(f"{fighter.name} already has {skill}: re-roll.")
    fighter.skills.append(skill)
    ws.note(f"{fighter.name} rolls {dice.total} on the {skill_set.strip()} skills: {skill}.")
    return skill


def _ganger_entry(ruleset: RuleSet, total: int) -> GangerAdvancementEntry:
    for entry in ruleset.ganger_advancements.entries:
        if entry.low <= total <= entry.high:
            return entry
    raise InvalidRequest(f"The Gangers' table of {ruleset.name} has no line for {total}.")


def _pending(
    fighter: Fighter, ruleset: RuleSet
) -> tuple[Advancement, GangerAdvancementEntry] | None:
    with_choice = {e.name: e for e in ruleset.ganger_advancements.entries if len(e.stats) > 1}
    for advancement in reversed(fighter.advancements):
        entry = with_choice.get(advancement.name)
        if advancement.stat is None and entry is not None:
            return advancement, entry
    return None


def _stat_names(stats: list[str]) -> str:
    return " or ".join(s.upper() for s in stats)
