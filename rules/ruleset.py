"""The shape of a rule data set: every table the sequence texts mention but do not print.

The tables themselves live in data files (``rules/data/<name>/*.toml``) that
:func:`rules.data.load_ruleset` reads and validates into a :class:`RuleSet`.
A campaign may load its own directory of files instead. Nothing here holds a
game value; that is the point.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated

from pydantic import Field, field_validator, model_validator

from rules.campaign_types import CampaignType
from rules.errors import InvalidRequest
from rules.limits import (
    MAX_DICE_RESULT,
    MAX_EFFECTS,
    MAX_EQUIPMENT_LIST,
    MAX_FIGHTER_TYPES,
    MAX_HANGERS_ON,
    MAX_REPUTATION,
    MAX_RULE_TEXT,
    MAX_SHORT_LIST,
    MAX_SKILLS,
    MAX_SPECIAL_RULES,
    MAX_STAT_CHANGE,
    MAX_TABLE_ENTRIES,
    MAX_VEHICLE_TYPES,
    MAX_XP_COST,
)
from rules.models import (
    Credits,
    Description,
    Equipment,
    FighterCategory,
    Model,
    Name,
    Profile,
    RuleText,
    Territory,
    WeaponProfile,
)
from rules.names import name_key
from rules.profiles import parse_profile


class InjuryEffectKind(StrEnum):
    """What a Lasting Injury (or Lasting Damage) result does to the model."""

    NONE = "none"  # Out Cold and the like
    CONVALESCENCE = "convalescence"
    RECOVERY = "recovery"
    STAT = "stat"  # worsen (or improve, with a negative amount) a characteristic
    XP = "xp"  # gain XP by a dice expression ("D3")
    SKILL = "skill"  # gain a skill or special rule ("Fearsome")
    CAPTURED = "captured"  # the escape roll of PB-1.2 follows
    CRITICAL = "critical"  # dies unless a Medical Escort saves it (PB-5.5)
    DEAD = "dead"  # Memorable Death
    MULTIPLE = "multiple"  # roll more times (a dice expression), re-rolling ``reroll`` results
    # Written on the card, no mechanical effect (Bitter Enmity, vehicle Lasting Damage).
    NOTE = "note"
    # After each battle roll ``expression``; on one of ``on_results`` the fighter
    # goes into Convalescence (Old Battle Wound), rolled in the Wrap-up.
    AFTER_BATTLE = "after battle"


class InjuryEffect(Model):
    kind: InjuryEffectKind
    stat: RuleText | None = None
    # Positive amount makes the stat worse; "Impressive Scars: +1 Cool" is -1.
    amount: int = Field(default=1, ge=-MAX_STAT_CHANGE, le=MAX_STAT_CHANGE)
    expression: RuleText | None = None  # for XP and MULTIPLE
    skill: RuleText | None = None
    # For MULTIPLE: result names re-rolled.
    reroll: list[RuleText] = Field(default_factory=list, max_length=MAX_TABLE_ENTRIES)
    # The result applies once; a repeat counts as this other result ("Out Cold").
    repeat_as: RuleText | None = None
    # Applies only when the fighter already has this result ("Partially
    # Deafened: none; a second time -1 Leadership").
    on_repeat: bool = False
    # For AFTER_BATTLE: the results of ``expression`` that bring Convalescence.
    on_results: list[Annotated[int, Field(ge=1, le=MAX_DICE_RESULT)]] = Field(
        default_factory=list, max_length=MAX_SHORT_LIST)
    text: Description | None = None


class InjuryEntry(Model):
    low: int = Field(ge=1, le=MAX_DICE_RESULT)
    high: int = Field(ge=1, le=MAX_DICE_RESULT)
    name: Name
    effects: list[InjuryEffect] = Field(default_factory=list, max_length=MAX_EFFECTS)
    description: Description = ""


class InjuryTable(Model):
    """A D66 table (Lasting Injury) or a D6 table (vehicle Lasting Damage)."""

    name: Name
    dice: RuleText = "D66"
    entries: list[InjuryEntry] = Field(max_length=MAX_TABLE_ENTRIES)

    @model_validator(mode="after")
    def _no_overlaps(self) -> InjuryTable:
        seen: set[int] = set()
        for entry in self.entries:
            if entry.low > entry.high:
                raise ValueError(f"entry {entry.name} has low > high")
            span = set(range(entry.low, entry.high + 1))
            if span & seen:
                raise ValueError(f"entry {entry.name} overlaps another")
            seen |= span
        return self

    def lookup(self, result: int) -> InjuryEntry:
        for entry in self.entries:
            if entry.low <= result <= entry.high:
                return entry
        # Results above the table (a Lasting Damage roll boosted by Persistent
        # Rattle) take the highest entry, as "7+ Write-off" reads.
        highest = max(self.entries, key=lambda e: e.high)
        if result > highest.high:
            return highest
        raise ValueError(f"{self.name} has no entry for {result}")


class Scenario(Model):
    roll: int = Field(ge=1, le=6)
    name: Name
    min_gangs: int = Field(default=2, ge=2, le=4)
    max_gangs: int = Field(default=4, ge=2, le=4)
    # "Zone Mortalis" / "Sector Mechanicus" when the scenario dictates it (PRE-5).
    battlefield: RuleText | None = None


class HangerOnLimit(Model):
    min_reputation: int = Field(ge=0, le=MAX_REPUTATION)
    max_hangers_on: int = Field(ge=0, le=MAX_HANGERS_ON)


class AdvancementOption(Model):
    name: Name
    xp_cost: int = Field(ge=0, le=MAX_XP_COST)
    credits: Credits
    # Characteristics the player may choose from; empty for skills.
    stats: list[RuleText] = Field(default_factory=list, max_length=MAX_SHORT_LIST)
    # Repeats of the same characteristic cost this much more XP each (not Juves/Prospects).
    repeat_xp_increase: int = Field(default=2, ge=0, le=MAX_XP_COST)
    # Empty: any.
    categories: list[FighterCategory] = Field(default_factory=list, max_length=MAX_SHORT_LIST)


class GangerAdvancementEntry(Model):
    """One line of the Gangers' 2D6 advancement table."""

    low: int = Field(ge=2, le=12)
    high: int = Field(ge=2, le=12)
    name: Name
    stats: list[RuleText] = Field(default_factory=list, max_length=MAX_SHORT_LIST)
    credits: Credits
    promote_to: FighterCategory | None = None


class GangerAdvancementTable(Model):
    xp_cost: int = Field(default=6, ge=0, le=MAX_XP_COST)
    entries: list[GangerAdvancementEntry] = Field(max_length=MAX_TABLE_ENTRIES)


class FighterTemplate(Model):
    """A fighter of a House List, hired at founding cost (PB-6B.1)."""

    fighter_type: Name
    category: FighterCategory
    cost: Credits
    # What a fighter hired from the template starts with; None: the data gives none,
    # and the fighter's profile is "not set" until a player gives it.
    profile: Profile | None = None
    gang_hierarchy: bool = False
    # Bounded as a fighter's own are in a gang file, so a fighter hired from the type
    # is one its gang's export can bring back.
    special_rules: list[RuleText] = Field(default_factory=list, max_length=MAX_SPECIAL_RULES)
    skills: list[RuleText] = Field(default_factory=list, max_length=MAX_SKILLS)
    # Its own Equipment List, whose prices take precedence (PB-6B.5, PB-6D).
    equipment_list: list[Equipment] = Field(default_factory=list, max_length=MAX_EQUIPMENT_LIST)
    # A Hanger-on or Brute needs at least this Reputation (PB-6B.3).
    min_reputation: int = Field(default=0, ge=0, le=MAX_REPUTATION)
    # A figure the project ships as an example, to be replaced by a campaign's own.
    example: bool = False
    # "0-X" of a House List: at most this many in one gang; None for no limit.
    max_in_gang: int | None = Field(default=None, ge=0, le=99)
    # Skill sets the type may pick from (PB-6E): Primary and Secondary, by set name.
    primary_skills: list[Name] = Field(default_factory=list, max_length=MAX_SHORT_LIST)
    secondary_skills: list[Name] = Field(default_factory=list, max_length=MAX_SHORT_LIST)
    # Where a shipped entry's figures come from (a source file), for people checking them.
    source: str = Field(default="", max_length=MAX_RULE_TEXT)

    @field_validator("profile", mode="before")
    @classmethod
    def _pasted_profile(cls, value: object) -> object:
        """A profile may be written as players paste it: ``M5" WS4+ BS4+ ...``."""
        if not isinstance(value, str):
            return value
        try:
            return parse_profile(value)
        except InvalidRequest as error:
            raise ValueError(error.message) from None


# A vehicle's characteristics as its card prints them: label and whether it is a target
# number ("5+") rather than a plain figure; Movement is in inches.
VEHICLE_STATS: tuple[tuple[str, str], ...] = (
    ("m", "M"), ("front", "Front"), ("side", "Side"), ("rear", "Rear"), ("hp", "HP"),
    ("hnd", "Hnd"), ("sv", "Sv"),
)
_VEHICLE_TARGETS = frozenset({"hnd", "sv"})


class VehicleProfile(Model):
    """A vehicle type's profile: Movement, Toughness by facing, Hull Points, Handling and
    Save. Its crew's BS, Ld, Cl, Wil and Int are the crew fighter's own profile."""

    m: int = Field(ge=0, le=20)
    front: int = Field(ge=0, le=20)
    side: int = Field(ge=0, le=20)
    rear: int = Field(ge=0, le=20)
    hp: int = Field(ge=0, le=20)
    hnd: int = Field(ge=1, le=12)
    sv: int = Field(ge=1, le=12)

    def cells(self) -> list[tuple[str, str]]:
        """Each characteristic's label and printed value ('7"', "5", "6+")."""
        return [(label, self.text(stat)) for stat, label in VEHICLE_STATS]

    def text(self, stat: str) -> str:
        value = int(getattr(self, stat))
        if stat == "m":
            return f'{value}"'
        return f"{value}+" if stat in _VEHICLE_TARGETS else str(value)

    @property
    def line(self) -> str:
        """``M7" Front5 Side4 Rear4 HP3 Hnd5+ Sv5+``."""
        return " ".join(f"{label}{value}" for label, value in self.cells())


class VehicleTemplate(Model):
    """A vehicle a House List offers: its base cost, profile and its own Equipment List
    (weapons, Upgrades and vehicle wargear at the list's prices)."""

    vehicle_type: Name
    cost: Credits
    # None: the data gives none, and a vehicle of the type shows no profile.
    profile: VehicleProfile | None = None
    equipment_list: list[Equipment] = Field(default_factory=list, max_length=MAX_EQUIPMENT_LIST)
    source: str = Field(default="", max_length=MAX_RULE_TEXT)


class SkillSet(Model):
    """A skill set's names, in the order of its D6 table (PB-6E)."""

    name: Name
    skills: list[Name] = Field(min_length=6, max_length=6)
    # Content the project ships as an example, to be replaced by a campaign's own.
    example: bool = False
    source: str = Field(default="", max_length=MAX_RULE_TEXT)

    def skill(self, name: str) -> str | None:
        """The set's spelling of ``name``, if the set has it."""
        wanted = name.strip().casefold()
        return next((s for s in self.skills if s.casefold() == wanted), None)


class HouseList(Model):
    house: Name
    fighters: list[FighterTemplate] = Field(default_factory=list, max_length=MAX_FIGHTER_TYPES)
    vehicles: list[VehicleTemplate] = Field(default_factory=list, max_length=MAX_VEHICLE_TYPES)


class RuleSet(Model):
    """Every table a campaign plays with."""

    name: Name
    description: str = ""
    fighter_injuries: InjuryTable
    crew_injuries: InjuryTable
    lasting_damage: InjuryTable
    scenarios: list[Scenario]
    hangers_on_limits: list[HangerOnLimit]
    advancements: list[AdvancementOption]
    ganger_advancements: GangerAdvancementTable
    territories: list[Territory] = Field(default_factory=list)
    trading_post: list[Equipment] = Field(default_factory=list)
    houses: list[HouseList] = Field(default_factory=list)
    skill_sets: list[SkillSet] = Field(default_factory=list)
    # Hangers-on and Brutes on offer to every house (PB-6B.3).
    hangers_on: list[FighterTemplate] = Field(default_factory=list)
    # Campaign types: phases, cycles and Triumphs (rules/campaign_types.py).
    campaign_types: list[CampaignType] = Field(default_factory=list)

    def skill_set(self, name: str) -> SkillSet:
        for skill_set in self.skill_sets:
            if skill_set.name.casefold() == name.strip().casefold():
                return skill_set
        from rules.errors import NotFound

        known = ", ".join(s.name for s in self.skill_sets) or "none"
        raise NotFound(f"The rule set {self.name} has no skill set called {name} "
                       f"(its skill sets: {known}).")

    def max_hangers_on(self, reputation: int) -> int:
        allowed = [lim.max_hangers_on for lim in self.hangers_on_limits
                   if reputation >= lim.min_reputation]
        return max(allowed, default=0)

    def house(self, name: str) -> HouseList:
        for house in self.houses:
            if house.house.casefold() == name.casefold():
                return house
        from rules.errors import NotFound

        raise NotFound(f"The rule set {self.name} has no House List called {name}.")

    def weapon_lines(self, names: Iterable[str]) -> dict[str, list[WeaponProfile]]:
        """The profile lines the rule data gives each weapon of ``names``, by its casefolded
        name: the Trading Post's weapon, else a House List entry's (a House's own weapon).
        A name the data gives no lines is left out."""
        wanted = {name_key(n): n.casefold() for n in names}
        found: dict[str, list[WeaponProfile]] = {}
        lists = [e for h in self.houses for t in h.fighters for e in t.equipment_list]
        lists += [e for h in self.houses for v in h.vehicles for e in v.equipment_list]
        for entry in [*self.trading_post, *lists]:
            key = name_key(entry.name)
            if entry.profiles and key in wanted and wanted[key] not in found:
                found[wanted[key]] = list(entry.profiles)
        return found

    def vehicle_profiles(self, vehicle_types: Iterable[str]) -> dict[str, VehicleProfile]:
        """The profile of each vehicle type of ``vehicle_types`` the House Lists give, by its
        casefolded name."""
        wanted = {name_key(t): t.casefold() for t in vehicle_types if t.strip()}
        found: dict[str, VehicleProfile] = {}
        for template in (v for h in self.houses for v in h.vehicles):
            key = name_key(template.vehicle_type)
            if template.profile is not None and key in wanted and wanted[key] not in found:
                found[wanted[key]] = template.profile
        return found

    def trading_post_item(self, name: str) -> Equipment:
        for item in self.trading_post:
            if item.name.casefold() == name.casefold():
                return item
        from rules.errors import NotFound

        raise NotFound(f"The Trading Post has no item called {name}.")
