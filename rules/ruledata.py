"""A campaign's own rule data: House Lists, weapons, wargear, skills, Hangers-on, Territories.

The shipped data sets (``rules/data``) are the default content; a campaign may
bring its own in one file (docs/rule-data.md), read into :class:`RuleData`.
:func:`apply_rule_data` lays it over the rule set the campaign plays with:

- A House List, skill set, Hanger-on or Brute, Territory, weapon or piece of
  wargear of the file **replaces** the one of the same name (compared as
  :func:`rules.names.same_name` does) and otherwise **extends** the set. What
  the file does not name stays as the base set has it.
- Weapons and wargear join the Trading Post with their availability
  (Exclusive ones are never sold there, as PB-6B.6 reads).
- An Equipment List entry without profiles takes those of the weapon of the
  same name, so a fighter equipped from its list shows the weapon's profile.
- A whole table (``fighter_injuries``, ``crew_injuries``, ``lasting_damage``,
  ``scenarios``, ``hangers_on_limits``, ``advancements``,
  ``ganger_advancements``) given by the file replaces the base's whole: a dice
  table is played as one piece, never merged result by result.
- A fighter type's ``profile`` is a pasted line (``M5" WS4+ ...``, read by
  :func:`rules.profiles.parse_profile`) or a table of the twelve values; a
  type without one hires fighters whose profile is "not set".

:func:`rule_data_of` writes a rule set back in the same format, so the
shipped content can be exported, edited and imported again. The shipped data
sets are themselves files in this format (``rules/data``, read by
:mod:`rules.data` through :mod:`rules.ruledata_reader`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal, TypeVar

from pydantic import Field, field_validator, model_validator

from rules.campaign_types import CampaignType
from rules.limits import (
    MAX_CAMPAIGN_TYPES,
    MAX_DESCRIPTION,
    MAX_HANGERS_ON,
    MAX_HOUSES,
    MAX_ITEMS,
    MAX_RULE_TERRITORIES,
    MAX_SKILL_SETS,
    MAX_TABLE_ENTRIES,
)
from rules.models import Equipment, EquipmentKind, FighterCategory, Model, Territory
from rules.names import name_key
from rules.ruleset import (
    AdvancementOption,
    FighterTemplate,
    GangerAdvancementTable,
    HangerOnLimit,
    HouseList,
    InjuryTable,
    RuleSet,
    Scenario,
    SkillSet,
)

FORMAT: Literal["munda-arbitrator/rule-data"] = "munda-arbitrator/rule-data"
VERSION: Literal[1] = 1
_HANGER_ON_CATEGORIES = (FighterCategory.HANGER_ON, FighterCategory.BRUTE)

T = TypeVar("T")
# Tables a file gives whole or not at all; each replaces the base's whole.
WHOLE_TABLES = ("fighter_injuries", "crew_injuries", "lasting_damage", "scenarios",
                "hangers_on_limits", "advancements", "ganger_advancements")


class RuleData(Model):
    """One file of a campaign's own content (docs/rule-data.md)."""

    format: Literal["munda-arbitrator/rule-data"] = FORMAT
    version: Literal[1] = VERSION
    name: str = Field(default="", max_length=100)
    description: str = Field(default="", max_length=MAX_DESCRIPTION)
    # Every list is bounded (rules.limits), and so is each list inside an entry.
    houses: list[HouseList] = Field(default_factory=list, max_length=MAX_HOUSES)
    weapons: list[Equipment] = Field(default_factory=list, max_length=MAX_ITEMS)
    wargear: list[Equipment] = Field(default_factory=list, max_length=MAX_ITEMS)
    skill_sets: list[SkillSet] = Field(default_factory=list, max_length=MAX_SKILL_SETS)
    # Hangers-on and Brutes on offer to every house (PB-6B.3).
    hangers_on: list[FighterTemplate] = Field(default_factory=list, max_length=MAX_HANGERS_ON)
    territories: list[Territory] = Field(default_factory=list, max_length=MAX_RULE_TERRITORIES)
    campaign_types: list[CampaignType] = Field(default_factory=list,
                                               max_length=MAX_CAMPAIGN_TYPES)
    # Whole tables: left out (None), the base's stays.
    fighter_injuries: InjuryTable | None = None
    crew_injuries: InjuryTable | None = None
    lasting_damage: InjuryTable | None = None
    scenarios: list[Scenario] | None = Field(default=None, max_length=MAX_TABLE_ENTRIES)
    hangers_on_limits: list[HangerOnLimit] | None = Field(default=None,
                                                          max_length=MAX_TABLE_ENTRIES)
    advancements: list[AdvancementOption] | None = Field(default=None,
                                                         max_length=MAX_TABLE_ENTRIES)
    ganger_advancements: GangerAdvancementTable | None = None

    @field_validator("weapons", mode="before")
    @classmethod
    def _weapons_are_weapons(cls, value: object) -> object:
        if isinstance(value, list):
            return [{**entry, "kind": entry.get("kind", EquipmentKind.WEAPON.value)}
                    if isinstance(entry, dict) else entry for entry in value]
        return value

    @model_validator(mode="after")
    def _consistent(self) -> RuleData:
        for weapon in self.weapons:
            if weapon.kind is not EquipmentKind.WEAPON:
                raise ValueError(f"weapons: {weapon.name} is listed as {weapon.kind.value}; "
                                 "put it under wargear")
        for gear in self.wargear:
            if gear.kind is EquipmentKind.WEAPON or gear.profiles:
                raise ValueError(f"wargear: {gear.name} is a weapon; put it under weapons")
        for template in self.hangers_on:
            if template.category not in _HANGER_ON_CATEGORIES:
                raise ValueError(f"hangers_on: {template.fighter_type} is a "
                                 f"{template.category.value}, not a Hanger-on or Brute")
        _once("houses", (h.house for h in self.houses))
        for house in self.houses:
            _once(f"houses: {house.house}: fighters", (t.fighter_type for t in house.fighters))
        _once("weapons and wargear", (e.name for e in [*self.weapons, *self.wargear]))
        _once("skill_sets", (s.name for s in self.skill_sets))
        _once("hangers_on", (t.fighter_type for t in self.hangers_on))
        _once("territories", (t.name for t in self.territories))
        _once("territories (ids)", (t.id for t in self.territories))
        _once("campaign_types", (t.name for t in self.campaign_types))
        return self

    @property
    def equipment(self) -> list[Equipment]:
        return [*self.weapons, *self.wargear]

    @property
    def whole_tables(self) -> dict[str, object]:
        """The whole tables the file gives, by their key."""
        return {key: getattr(self, key) for key in WHOLE_TABLES if getattr(self, key) is not None}

    @property
    def is_empty(self) -> bool:
        return not (self.houses or self.equipment or self.skill_sets or self.hangers_on
                    or self.territories or self.campaign_types or self.whole_tables)


def _once(what: str, names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        key = name_key(name)
        if key in seen:
            raise ValueError(f"{what}: '{name}' is given twice")
        seen.add(key)


# --------------------------------------------------------------------------- applying


def apply_rule_data(base: RuleSet, data: RuleData) -> RuleSet:
    """``base`` with the file's content over it; ``base`` itself is left as it was."""
    trading_post = _merged(base.trading_post, data.equipment, lambda e: e.name)
    houses = [_with_profiles(h, trading_post)
              for h in _merged(base.houses, data.houses, lambda h: h.house)]
    return base.model_copy(update={
        "trading_post": trading_post,
        "houses": houses,
        "skill_sets": _merged(base.skill_sets, data.skill_sets, lambda s: s.name),
        "hangers_on": _merged(base.hangers_on, data.hangers_on, lambda t: t.fighter_type),
        "territories": _merged(base.territories, data.territories, lambda t: t.name),
        "campaign_types": _merged(base.campaign_types, data.campaign_types, lambda t: t.name),
        **data.whole_tables,
    })


def _merged(base: Sequence[T], own: Sequence[T], name: Callable[[T], str]) -> list[T]:
    """The base's entries, each replaced by the file's of the same name, then the file's new."""
    by_key = {name_key(name(entry)): entry for entry in own}
    merged = [by_key.pop(name_key(name(entry)), entry) for entry in base]
    return merged + [entry for entry in own if name_key(name(entry)) in by_key]


def _with_profiles(house: HouseList, catalogue: Sequence[Equipment]) -> HouseList:
    """Equipment List entries take the profiles of the catalogue's weapon of their name."""

    def given(entry: Equipment, known: Equipment) -> Equipment | None:
        if entry.profiles:
            return None
        return entry.model_copy(update={"profiles": list(known.profiles), "kind": known.kind})

    return _list_entries_changed(house, catalogue, given)


def _without_catalogue_profiles(house: HouseList, catalogue: Sequence[Equipment]) -> HouseList:
    """Equipment List entries without the profiles :func:`_with_profiles` gave them: the
    file reads back the same, and is not a copy of every weapon's profile per fighter type
    (a full set of House Lists would otherwise outgrow what one file may hold)."""

    def taken(entry: Equipment, known: Equipment) -> Equipment | None:
        if entry.profiles != known.profiles:
            return None
        return entry.model_copy(update={"profiles": []})

    return _list_entries_changed(house, catalogue, taken)


def _list_entries_changed(
    house: HouseList, catalogue: Sequence[Equipment],
    change: Callable[[Equipment, Equipment], Equipment | None],
) -> HouseList:
    """``house`` with each Equipment List entry that names a catalogue weapon with profiles
    replaced by ``change(entry, weapon)``, where that gives one (None: left as it is)."""
    profiles = {name_key(e.name): e for e in catalogue if e.profiles}
    changed = False
    templates = []
    for template in house.fighters:
        entries = []
        for entry in template.equipment_list:
            known = profiles.get(name_key(entry.name))
            replaced = change(entry, known) if known is not None else None
            if replaced is not None:
                entry = replaced
                changed = True
            entries.append(entry)
        templates.append(template.model_copy(update={"equipment_list": entries}))
    return house.model_copy(update={"fighters": templates}) if changed else house


# --------------------------------------------------------------------------- preview


def preview_lines(current: RuleSet, data: RuleData) -> list[str]:
    """What importing ``data`` adds and replaces, against the rule set played now."""
    lines: list[str] = []
    groups: list[tuple[str, list[str], list[str]]] = [
        ("House Lists", [h.house for h in data.houses], [h.house for h in current.houses]),
        ("weapons", [w.name for w in data.weapons], [e.name for e in current.trading_post]),
        ("wargear", [w.name for w in data.wargear], [e.name for e in current.trading_post]),
        ("skill sets", [s.name for s in data.skill_sets], [s.name for s in current.skill_sets]),
        ("Hangers-on and Brutes", [t.fighter_type for t in data.hangers_on],
         [t.fighter_type for t in current.hangers_on]),
        ("Territories", [t.name for t in data.territories],
         [t.name for t in current.territories]),
        ("campaign types", [t.name for t in data.campaign_types],
         [t.name for t in current.campaign_types]),
    ]
    for label, names, existing in groups:
        if not names:
            continue
        known = {name_key(n) for n in existing}
        replaced = [n for n in names if name_key(n) in known]
        added = [n for n in names if name_key(n) not in known]
        if added:
            lines.append(f"Adds {len(added)} {label}: {_listed(added)}.")
        if replaced:
            lines.append(f"Replaces {len(replaced)} {label}: {_listed(replaced)}.")
    for key in data.whole_tables:
        lines.append(f"Replaces the whole table {key}.")
    types = sum(len(h.fighters) for h in data.houses)
    profiled = sum(1 for h in data.houses for t in h.fighters if t.profile is not None)
    if types:
        lines.append(f"Fighter types: {types}, {profiled} with a profile "
                     f"(the others hire fighters whose profile is not set).")
    return lines


def _listed(names: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


# --------------------------------------------------------------------------- export


def rule_data_of(ruleset: RuleSet) -> RuleData:
    """The content a campaign plays with, in the format of its own files."""
    weapons = [e for e in ruleset.trading_post if e.kind is EquipmentKind.WEAPON]
    wargear = [e for e in ruleset.trading_post if e.kind is not EquipmentKind.WEAPON]
    return RuleData(
        name=ruleset.name, description=ruleset.description[:MAX_DESCRIPTION],
        houses=[_without_catalogue_profiles(h, ruleset.trading_post) for h in ruleset.houses],
        weapons=weapons, wargear=wargear, skill_sets=list(ruleset.skill_sets),
        hangers_on=list(ruleset.hangers_on), territories=list(ruleset.territories),
        campaign_types=list(ruleset.campaign_types),
        **{key: getattr(ruleset, key) for key in WHOLE_TABLES},
    )
