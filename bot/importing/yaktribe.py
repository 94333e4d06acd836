"""Read a Yaktribe gang export into the rules' models, with a report of what was skipped.

Pure: no I/O, no storage. The shape read (docs/importing.md):

- gang: ``gang_id, gang_name, gang_type, gang_rating, credits, reputation,
  wealth, alignment, territories[], stash[], gangers[]`` (a document that
  wraps it as ``{"gang": {...}}`` is unwrapped);
- fighter: ``ganger_id, name, type, category, m, ws, bs, s, t, w, i, a, ld,
  cl, wil, int, cost, xp, kills, advance_count, equipment[{name, qty, cost,
  kind, profiles}], skills[], special_rules[], injuries[], status, notes``.

Decisions where the format is silent:

- Numbers may be text ("4+", "5\"", "7"). A gang without a name, a type or
  a list of gangers is refused whole. A fighter without a name, a type, a
  readable profile within the bot's bounds or a cost is skipped, with a line
  saying why; anything optional that is unreadable is replaced by its default
  (0 XP, 1 Reputation...) with a line too.
- Yaktribe's fighter ``cost`` is read as the fighter's whole value, equipment
  included (what its Gang Rating adds up). The bot keeps a fighter's cost
  without equipment, so the prices of the items it recognises are taken off;
  unknown items are kept at 0 credits. So each fighter's total, and the Gang
  Rating, stay as Yaktribe counts them.
- ``type`` gives the category through the campaign rule set's House List (own
  house first, then any list, e.g. shared Hangers-on), else the file's
  ``category`` or a keyword in the type (Leader, Champion, Ganger, Juve...),
  else the importing player's ``categories``; a type still unsettled becomes a
  question the preview asks (bot.importing.questions), never a made-up Ganger.
- A target-number characteristic written 0 (or any written "-") is one the
  fighter does not have: kept as absent, not refused.
- Equipment is matched loosely (case, punctuation, "armor"/"armour") and
  priced from the fighter's own Equipment List, then the campaign's Trading
  Post; an item neither knows keeps the file's cost, kind and weapon
  profiles; without a kind (and without profiles) its kind is a question too.
  Gang and fighter notes and special rules are kept.
- Status Alive (or none) is Active, Recovery is In Recovery; Dead and Retired
  fighters are not imported (Clean House would delete them anyway).
  Captured is imported as Active: the captor is not in this campaign.
- Territories are listed in the report, not assigned: Territories belong to
  the campaign and its Arbitrators.
- ``gang_rating`` and ``wealth`` are computed by the bot; a different stated
  rating is reported. ``advance_count`` is not kept: the cost includes them.
- Every list is bounded (``rules.limits``); a file over a bound is
  refused whole, before the rest of it is read.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from bot.importing.parsed import ParsedGang
from bot.importing.questions import ask_categories, ask_kinds
from bot.importing.report import ImportReport
from bot.importing.values import read_id, read_int, read_name, read_names
from bot.render import clip
from rules.errors import InvalidRequest
from rules.limits import (
    MAX_CREDITS,
    MAX_FIGHTER_ITEMS,
    MAX_FIGHTERS,
    MAX_GANG_ITEMS,
    MAX_INJURIES,
    MAX_QTY,
    MAX_SKILLS,
    MAX_STASH_ITEMS,
    MAX_TERRITORIES,
    check_count,
)
from rules.models import (
    NOTES_MAX,
    PROFILE_STATS,
    TARGET_STATS,
    Alignment,
    Equipment,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterStatus,
    Gang,
    Item,
    Profile,
    WeaponProfile,
)
from rules.names import loosely_same, name_key
from rules.ruleset import FighterTemplate, HouseList, RuleSet

T = TypeVar("T")

# Where a gang or fighter keeps its notes, and an item says what kind it is.
_NOTES_KEYS = ("notes", "gang_notes", "fighter_notes", "description")
_KIND_KEYS = ("kind", "type", "category")

SOURCE = "yaktribe"
LABEL = "Yaktribe"

GANG_FIELDS = frozenset({
    "gang_id", "gang_name", "gang_type", "gang_rating", "credits", "reputation", "wealth",
    "alignment", "territories", "stash", "gangers", *_NOTES_KEYS,
})
FIGHTER_FIELDS = frozenset({
    "ganger_id", "name", "type", *PROFILE_STATS, "cost", "xp", "kills", "advance_count",
    "equipment", "skills", "injuries", "status", "category", "special_rules", "rules",
    *_NOTES_KEYS,
})
ITEM_FIELDS = frozenset({"name", "qty", "cost", *_KIND_KEYS, "profiles", "traits"})
# Keys of a weapon profile as a roster file may spell them, by the bot's field.
_PROFILE_KEYS: dict[str, tuple[str, ...]] = {
    "name": ("name", "profile", "profile_name"),
    "short_range": ("short_range", "range_short", "rng_s", "rng_short", "sr", "s_range"),
    "long_range": ("long_range", "range_long", "rng_l", "rng_long", "lr", "l_range"),
    "short_accuracy": ("short_accuracy", "accuracy_short", "acc_s", "acc_short", "sa"),
    "long_accuracy": ("long_accuracy", "accuracy_long", "acc_l", "acc_long", "la"),
    "strength": ("strength", "str", "s"),
    "ap": ("ap",),
    "damage": ("damage", "dmg", "d"),
    "ammo": ("ammo", "am"),
}

# Keywords in a fighter type, most specific first ("Ganger (Juve)" is a Juve).
_KEYWORDS: tuple[tuple[str, FighterCategory], ...] = (
    (r"hangers?[\s-]*on", FighterCategory.HANGER_ON),
    (r"exotic[\s-]*beast", FighterCategory.EXOTIC_BEAST),
    (r"brute", FighterCategory.BRUTE),
    (r"crew", FighterCategory.CREW),
    (r"prospect", FighterCategory.PROSPECT),
    (r"juve", FighterCategory.JUVE),
    (r"specialist", FighterCategory.SPECIALIST),
    (r"champion", FighterCategory.CHAMPION),
    (r"leader", FighterCategory.LEADER),
    (r"ganger", FighterCategory.GANGER),
)
_HIERARCHY = frozenset({FighterCategory.LEADER, FighterCategory.CHAMPION})

_STATUSES: dict[str, FighterStatus | None] = {
    "alive": FighterStatus.ACTIVE,
    "active": FighterStatus.ACTIVE,
    "recovery": FighterStatus.IN_RECOVERY,
    "in recovery": FighterStatus.IN_RECOVERY,
    "convalescent": FighterStatus.CONVALESCENT,
    "convalescence": FighterStatus.CONVALESCENT,
    "captured": FighterStatus.ACTIVE,
    # None: not imported at all.
    "dead": None,
    "retired": None,
}


@dataclass
class _Asked:
    """What the file leaves open, for the preview to ask: fighter id -> its type as
    written, item id -> its name as written."""

    types: dict[str, str] = dataclasses.field(default_factory=dict)
    items: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _Reading:
    """One file being read: the rule set and House List it is read against, where new ids
    come from, the categories the player gave, and what the reading found."""

    ruleset: RuleSet
    house: HouseList | None
    make_id: Callable[[], str]
    categories: Mapping[str, FighterCategory]
    report: ImportReport
    asked: _Asked = dataclasses.field(default_factory=_Asked)


class _Skip(Exception):
    """A fighter that cannot be imported; the message says why."""


def parse_yaktribe(
    data: Any, *, ruleset: RuleSet, owner: str, make_id: Callable[[], str],
    categories: Mapping[str, FighterCategory] | None = None,
) -> ParsedGang:
    """The gang of a decoded Yaktribe export; InvalidRequest if its gang fields are broken.

    ``categories`` gives the category of fighter types (by name key) that neither the
    rule data nor the file settles; what stays open is in ``questions``.
    """
    _refuse_campaign_export(data)
    data = _unwrap(data)
    report = ImportReport()
    name, house_typed = _required_gang_fields(data)
    house = _house_list(ruleset, house_typed)
    for key in data:
        if key not in GANG_FIELDS:
            report.skip_field("gang", str(key))
    gang = Gang(
        id=make_id(),
        name=name,
        house=house.house if house else house_typed,
        owner=owner,
        alignment=_alignment(data.get("alignment"), report),
        credits=_credits(data, report),
        reputation=_reputation(data.get("reputation"), report),
        notes=_notes(data, "the gang", report),
    )
    if house is None:
        report.note(
            f"House '{clip(house_typed, 80)}' is not a House List of the rule set {ruleset.name}: "
            "fighter categories come from the file (a category, or a keyword in the type)."
        )
    _territories(data.get("territories"), report)
    reading = _Reading(ruleset, house, make_id, categories or {}, report)
    gang.stash = _items(data.get("stash"), None, reading, "the Stash", MAX_STASH_ITEMS)
    keys = _read_fighters(data["gangers"], gang, reading)
    check_count(
        len(gang.stash) + sum(len(f.equipment) for f in gang.fighters), MAX_GANG_ITEMS,
        "items in the gang (fighters' equipment and the Stash, counting quantities)",
    )
    declared = _declared(data, "gang_rating", report)
    _declared(data, "wealth", report)
    if declared is not None and declared != gang.rating:
        report.note(
            f"Yaktribe states a Gang Rating of {declared}; the bot counts {gang.rating} "
            "from the fighters imported."
        )
    external = read_id(data.get("gang_id"))
    if external is None:
        report.note("The file has no gang_id: importing it again founds another gang.")
    return ParsedGang(
        gang=gang, report=report, source=SOURCE, source_label=LABEL, external_id=external,
        fighter_keys=keys, has_vehicles=False, declared_rating=declared,
        questions=(ask_categories(gang, reading.asked.types)
                   + ask_kinds(gang, reading.asked.items)),
    )


# --------------------------------------------------------------------------- gang fields


def _refuse_campaign_export(data: Any) -> None:
    """A Yaktribe campaign export holds several gangs: say so rather than "malformed"."""
    if not isinstance(data, dict):
        return
    wrapped = data.get("campaign")
    inner: dict[str, Any] = wrapped if isinstance(wrapped, dict) else data
    markers = ("campaign_id", "campaign_name")
    if "gang_name" in inner or not any(key in inner for key in markers):
        return
    name = inner.get("campaign_name") or inner.get("name") or ""
    gangs = inner.get("gangs")
    count = f" with {len(gangs)} gangs" if isinstance(gangs, list) else ""
    called = f" '{clip(str(name), 60)}'" if name else ""
    raise InvalidRequest(
        f"That is a Yaktribe campaign export (campaign{called}{count}), not one gang. "
        "Export each gang from its own Yaktribe page and bring it in with /gang import; "
        "nothing was imported."
    )


def _notes(data: dict[str, Any], what: str, report: ImportReport) -> str:
    parts = [data[key] for key in _NOTES_KEYS if isinstance(data.get(key), str)]
    text = "\n".join(p.strip() for p in parts if p.strip())
    if len(text) > NOTES_MAX:
        report.problem(f"The notes of {what} are cut to {NOTES_MAX} characters.")
        text = text[:NOTES_MAX]
    return text


def _unwrap(data: Any) -> dict[str, Any]:
    if isinstance(data, dict) and "gang_name" not in data and isinstance(data.get("gang"), dict):
        data = data["gang"]
    if not isinstance(data, dict):
        raise InvalidRequest(
            "That is not a Yaktribe gang export: it should be one JSON object with "
            "gang_name, gang_type and gangers. Nothing was imported."
        )
    return data


def _required_gang_fields(data: dict[str, Any]) -> tuple[str, str]:
    problems = []
    name = house = ""
    try:
        name = read_name(data.get("gang_name"), "gang_name")
    except ValueError as error:
        problems.append(str(error))
    try:
        house = read_name(data.get("gang_type"), "gang_type")
    except ValueError as error:
        problems.append(str(error))
    gangers = data.get("gangers")
    if not isinstance(gangers, list):
        problems.append("gangers is missing or not a list")
    elif len(gangers) > MAX_FIGHTERS:
        problems.append(f"it lists {len(gangers)} gangers; at most {MAX_FIGHTERS} are read")
    if problems:
        raise InvalidRequest(
            "That Yaktribe gang export cannot be imported: " + "; ".join(problems)
            + ". Nothing was imported."
        )
    return name, house


def _house_list(ruleset: RuleSet, typed: str) -> HouseList | None:
    wanted = typed.casefold()
    bare = re.sub(r"^house\s+", "", wanted)
    for house in ruleset.houses:
        if house.house.casefold() in (wanted, bare):
            return house
    return None


def _alignment(value: Any, report: ImportReport) -> Alignment:
    if value is None or value == "":
        report.note("The file gives no alignment: the gang is Law Abiding.")
        return Alignment.LAW_ABIDING
    text = re.sub(r"[\s_-]+", " ", str(value)).strip().casefold()
    if text in ("law abiding", "lawful", "law"):
        return Alignment.LAW_ABIDING
    if text == "outlaw":
        return Alignment.OUTLAW
    report.problem(f"alignment '{clip(str(value), 30)}' is unknown: the gang is Law Abiding.")
    return Alignment.LAW_ABIDING


def _credits(data: dict[str, Any], report: ImportReport) -> int:
    what = "the gang's credits"
    credits = _optional_int(data, "credits", 0, -MAX_CREDITS, MAX_CREDITS, report, what)
    if credits < 0:
        # A gang in debt on Yaktribe: the rules know no negative credits, so it starts
        # at 0, and the preview says so before the player confirms.
        report.problem(f"{what}: the file's value {credits} is negative; read as 0.")
        return 0
    return credits


def _reputation(value: Any, report: ImportReport) -> int:
    if value is None:
        return 1
    try:
        reputation = read_int(value, low=0, high=1000)
    except ValueError as error:
        report.problem(f"reputation: {error}; it is 1.")
        return 1
    if reputation == 0:
        report.note("Reputation 0 is kept as 1, the lowest the bot records.")
        return 1
    return reputation


def _optional_int(
    data: dict[str, Any], key: str, default: int, low: int, high: int,
    report: ImportReport, what: str,
) -> int:
    if data.get(key) is None:
        return default
    try:
        return read_int(data[key], low=low, high=high)
    except ValueError as error:
        report.problem(f"{what}: {error}; read as {default}.")
        return default


def _declared(data: dict[str, Any], key: str, report: ImportReport) -> int | None:
    if data.get(key) is None:
        return None
    try:
        return read_int(data[key], low=0, high=100_000_000)
    except ValueError as error:
        report.problem(f"{key}: {error}; ignored (the bot computes it).")
        return None


def _territories(value: Any, report: ImportReport) -> None:
    if isinstance(value, list):
        check_count(len(value), MAX_TERRITORIES, "territories")
    names, problems = read_names(value, "territories")
    for problem in problems:
        report.problem(problem)
    if names:
        report.note(
            "Territories held on Yaktribe (not assigned here; an Arbitrator assigns them): "
            + ", ".join(clip(n, 40) for n in names)
        )


# --------------------------------------------------------------------------- fighters


def _read_fighters(gangers: list[Any], gang: Gang, reading: _Reading) -> dict[str, str]:
    report = reading.report
    keys: dict[str, str] = {}
    taken: set[str] = set()
    for index, raw in enumerate(gangers, start=1):
        label = _label(raw, index)
        try:
            fighter, key = _fighter(raw, index, reading)
        except _Skip as skip:
            report.problem(f"{label}: {skip}; not imported.")
            continue
        if fighter is None:
            continue
        fighter.name = _unique(fighter.name, taken, report)
        gang.fighters.append(fighter)
        keys[fighter.id] = key or f"name:{fighter.name.casefold()}"
    return keys


def _label(raw: Any, index: int) -> str:
    name = raw.get("name") if isinstance(raw, dict) else None
    if isinstance(name, str) and name.strip():
        return f"Fighter #{index} '{clip(' '.join(name.split()), 40)}'"
    return f"Fighter #{index}"


def _unique(name: str, taken: set[str], report: ImportReport) -> str:
    """Fighter names are unique in a campaign; a repeated one gets a number."""
    candidate, number = name, 1
    while candidate.casefold() in taken:
        number += 1
        candidate = f"{name[:94]} ({number})"
    if candidate != name:
        report.problem(f"Two fighters are called '{clip(name, 40)}': the second is '{candidate}'.")
    taken.add(candidate.casefold())
    return candidate


def _fighter(raw: Any, index: int, reading: _Reading) -> tuple[Fighter | None, str | None]:
    report = reading.report
    if not isinstance(raw, dict):
        raise _Skip("it is not an object")
    for key in raw:
        if key not in FIGHTER_FIELDS:
            report.skip_field("fighter", str(key))
    status = _status(raw.get("status"), _label(raw, index), report)
    if status is None:
        report.note(
            f"{_label(raw, index)} is {clip(str(raw.get('status')), 20)} on Yaktribe: "
            "not imported."
        )
        return None, None
    problems: list[str] = []
    name = _attempt(problems, lambda: read_name(raw.get("name")))
    fighter_type = _attempt(problems, lambda: read_name(raw.get("type"), "type"))
    profile = _attempt(problems, lambda: _profile(raw))
    cost = _attempt(problems, lambda: _cost(raw.get("cost")))
    if name is None or fighter_type is None or profile is None or cost is None:
        raise _Skip("; ".join(problems))
    label = f"'{clip(name, 40)}'"
    template, category = _category(fighter_type, raw.get("category"), reading)
    equipment = _items(raw.get("equipment"), template, reading, label, MAX_FIGHTER_ITEMS)
    priced = sum(item.cost for item in equipment)
    base = cost - priced
    if base < 0:
        report.problem(
            f"{label} costs {cost} but its equipment is worth {priced}: "
            "its own cost is kept at 0."
        )
        base = 0
    fighter = Fighter(
        id=reading.make_id(),
        name=name,
        category=category or FighterCategory.GANGER,
        fighter_type=template.fighter_type if template else fighter_type,
        cost=base,
        profile=profile,
        xp=_fighter_int(raw, "xp", label, report),
        kills=_fighter_int(raw, "kills", label, report),
        skills=_fighter_names(raw, "skills", MAX_SKILLS, label, report),
        lasting_injuries=_fighter_names(raw, "injuries", MAX_INJURIES, label, report),
        special_rules=_special_rules(raw, template, label, report),
        notes=_notes(raw, label, report),
        gang_hierarchy=template.gang_hierarchy if template else category in _HIERARCHY,
        equipment=equipment,
        status=status,
    )
    if category is None:
        # Stored as a Ganger until the player answers; the Confirm waits for the answer.
        reading.asked.types[fighter.id] = fighter_type
    if raw.get("advance_count") not in (None, 0, "0"):
        report.note(
            "advance_count is not kept: a fighter's cost already includes its advancements, "
            "and the bot records new ones as they are bought."
        )
    return fighter, read_id(raw.get("ganger_id"))


def _attempt(problems: list[str], read: Callable[[], T]) -> T | None:
    """``read()``, or None with its reason added to ``problems``."""
    try:
        return read()
    except ValueError as error:
        problems.append(str(error))
        return None


def _cost(value: Any) -> int:
    if value is None:
        raise ValueError("cost is missing")
    try:
        return read_int(value, high=MAX_CREDITS)
    except ValueError as error:
        raise ValueError(f"cost {error}") from None


def _status(value: Any, label: str, report: ImportReport) -> FighterStatus | None:
    if value is None or value == "":
        return FighterStatus.ACTIVE
    text = " ".join(str(value).split()).casefold()
    if text not in _STATUSES:
        report.problem(f"{label}: status '{clip(str(value), 20)}' is unknown; imported as Active.")
        return FighterStatus.ACTIVE
    if text == "captured":
        report.problem(
            f"{label} is Captured on Yaktribe; its captor is not in this campaign, so it is "
            "imported as Active."
        )
    return _STATUSES[text]


def _special_rules(
    raw: dict[str, Any], template: FighterTemplate | None, label: str, report: ImportReport
) -> list[str]:
    """The template's special rules, then those the file adds."""
    rules = list(template.special_rules) if template else []
    for key in ("special_rules", "rules"):
        for name in _fighter_names(raw, key, MAX_SKILLS, label, report):
            if name_key(name) not in {name_key(r) for r in rules}:
                rules.append(name)
    return rules


def _absent(stat: str, value: Any) -> bool:
    """Yaktribe writes 0 (or "-") for a characteristic the fighter does not have (a
    Psychic Familiar's BS); 0 is no target number, so it can only mean that."""
    if isinstance(value, str) and value.strip() in ("-", "", "–"):
        return True
    return stat in TARGET_STATS and value in (0, "0", "0+")


def _profile(raw: dict[str, Any]) -> Profile:
    values: dict[str, int | None] = {}
    problems = []
    for stat in PROFILE_STATS:
        if raw.get(stat) is None:
            problems.append(f"{stat} is missing")
            continue
        if _absent(stat, raw[stat]):
            values[stat] = None
            continue
        try:
            values[stat] = read_int(raw[stat], low=0, high=99)
        except ValueError as error:
            problems.append(f"{stat} {error}")
    if problems:
        raise ValueError("; ".join(problems[:4]))
    try:
        return Profile.model_validate(values)
    except ValidationError as error:
        bad = []
        for detail in error.errors()[:4]:
            stat = str(detail["loc"][0]).rstrip("_") if detail["loc"] else "profile"
            bad.append(f"{stat} {values.get(stat, '?')} ({detail['msg'].lower()})")
        raise ValueError("; ".join(bad)) from None


def _category(
    fighter_type: str, stated: Any, reading: _Reading
) -> tuple[FighterTemplate | None, FighterCategory | None]:
    """The House List's category, else the file's (its category, or a keyword in the type),
    else the one the importing player gave; else None: the preview asks for it."""
    template = _template(fighter_type, reading.house, reading.ruleset)
    if template is not None:
        return template, template.category
    for text in (stated, fighter_type):
        found = _keyword_category(text) if isinstance(text, str) else None
        if found is not None:
            return None, found
    given = reading.categories.get(name_key(fighter_type))
    if given is not None:
        return None, given
    return None, None


def _keyword_category(text: str) -> FighterCategory | None:
    lowered = text.casefold()
    for category in FighterCategory:
        if lowered.strip() == category.value.casefold():
            return category
    for pattern, category in _KEYWORDS:
        if re.search(rf"\b{pattern}\b", lowered):
            return category
    return None


def _template(
    fighter_type: str, house: HouseList | None, ruleset: RuleSet
) -> FighterTemplate | None:
    wanted = {fighter_type.casefold()}
    # "Forge Boss (Champion)" and "Goliath Forge Boss" name the template "Forge Boss".
    wanted.add(re.sub(r"\s*\(.*\)\s*$", "", fighter_type).casefold())
    if house is not None:
        prefix = house.house.casefold() + " "
        wanted |= {w[len(prefix):] for w in list(wanted) if w.startswith(prefix)}
    keys = {loose_key(w) for w in wanted}
    lists = ([house] if house else []) + [h for h in ruleset.houses if h is not house]
    for candidates in lists:
        for template in candidates.fighters:
            if loose_key(template.fighter_type) in keys:
                return template
    # The shipped lists name some types with their House ("Goliath Forge Tyrant") and
    # spell others in the plural: the House's name and a closing "s" aside.
    for candidates in lists:
        prefix = candidates.house.casefold() + " "
        for template in candidates.fighters:
            own = template.fighter_type.casefold()
            bare = own[len(prefix):] if own.startswith(prefix) else own
            if any(loosely_same(bare, w) or loosely_same(own, w) for w in wanted):
                return template
    return None


def loose_key(name: str) -> str:
    """A name as roster tools spell it loosely: case, punctuation and spacing aside, and
    "armor" for "armour" ("Mesh Armor" is the Trading Post's "Mesh armour")."""
    folded = name_key(name).replace("armor", "armour")
    return re.sub(r"[\W_]+", "", folded)


def _fighter_int(raw: dict[str, Any], key: str, label: str, report: ImportReport) -> int:
    if raw.get(key) is None:
        return 0
    try:
        return read_int(raw[key], high=100_000)
    except ValueError as error:
        report.problem(f"{label}: {key} {error}; read as 0.")
        return 0


def _fighter_names(
    raw: dict[str, Any], key: str, limit: int, label: str, report: ImportReport
) -> list[str]:
    value = raw.get(key)
    if isinstance(value, list):
        check_count(len(value), limit, f"{key} for {label}")
    names, problems = read_names(value, key)
    for problem in problems:
        report.problem(f"{label}: {problem}; left out.")
    return names


# --------------------------------------------------------------------------- equipment


def _items(
    value: Any, template: FighterTemplate | None, reading: _Reading, owner_label: str, limit: int
) -> list[Item]:
    report = reading.report
    if value is None:
        return []
    if not isinstance(value, list):
        report.problem(f"{owner_label}: equipment is not a list; left out.")
        return []
    what = f"items for {owner_label}"
    check_count(len(value), limit, what)
    items: list[Item] = []
    for index, raw in enumerate(value, start=1):
        entry = {"name": raw} if isinstance(raw, str) else raw
        if not isinstance(entry, dict):
            report.problem(f"{owner_label}: equipment #{index} is not an item; left out.")
            continue
        for key in entry:
            if key not in ITEM_FIELDS:
                report.skip_field("equipment", str(key))
        try:
            name = read_name(entry.get("name"), "item name")
        except ValueError as error:
            report.problem(f"{owner_label}: equipment #{index}: {error}; left out.")
            continue
        qty = 1
        if entry.get("qty") is not None:
            try:
                qty = read_int(entry["qty"], low=0, high=MAX_QTY)
            except ValueError as error:
                report.problem(f"{owner_label}: {clip(name, 40)} qty {error}; counted as 1.")
        catalogue = _catalogue_entry(name, template, reading.ruleset)
        try:
            stated = _stated_item(entry, name, owner_label, report)
        except ValidationError:
            report.problem(f"{owner_label}: equipment #{index}: its name cannot be used; "
                           "left out.")
            continue
        if catalogue is None:
            catalogue = stated
            if qty and stated.cost == 0 and stated.kind is EquipmentKind.WARGEAR:
                report.unknown_item(name, qty)
        elif stated.profiles and not catalogue.profiles:
            catalogue = catalogue.model_copy(update={"profiles": stated.profiles})
        check_count(len(items) + qty, limit, f"{what} (counting quantities)", so_far=True)
        made = [_item(catalogue, reading.make_id()) for _ in range(qty)]
        if catalogue is stated and _item_kind(entry) is None and not stated.profiles:
            # Wargear until the player answers: the preview asks the kind of each such item.
            reading.asked.items.update((item.id, name) for item in made)
        items += made
    return items


def _catalogue_entry(
    name: str, template: FighterTemplate | None, ruleset: RuleSet
) -> Equipment | None:
    wanted = {loose_key(name), loose_key(re.sub(r"\s*\(.*\)\s*$", "", name))}
    own = template.equipment_list if template else []
    for catalogue in (own, ruleset.trading_post):
        for entry in catalogue:
            if loose_key(entry.name) in wanted:
                return entry
    # "Frag Grenades" is the Armoury's "Frag grenade"; "Mesh Armor (5+)" its "Mesh armour".
    for catalogue in (own, ruleset.trading_post):
        for entry in catalogue:
            if loosely_same(entry.name, name):
                return entry
    return None


def _stated_item(
    entry: dict[str, Any], name: str, owner_label: str, report: ImportReport
) -> Equipment:
    """The item as the file itself describes it: its name, cost, kind and profiles."""
    cost = 0
    if entry.get("cost") is not None:
        try:
            cost = read_int(entry["cost"], high=MAX_CREDITS)
        except ValueError as error:
            report.problem(f"{owner_label}: {clip(name, 40)} cost {error}; read as 0.")
    profiles = _weapon_profiles(entry.get("profiles"), name, owner_label, report)
    kind = _item_kind(entry)
    if kind is None:
        kind = EquipmentKind.WEAPON if profiles else EquipmentKind.WARGEAR
    return Equipment(name=name, cost=cost, kind=kind, profiles=profiles)


def _item_kind(entry: dict[str, Any]) -> EquipmentKind | None:
    for key in _KIND_KEYS:
        value = entry.get(key)
        if not isinstance(value, str):
            continue
        text = loose_key(value)
        if "weapon" in text:
            return EquipmentKind.WEAPON
        if "armour" in text:
            return EquipmentKind.ARMOUR
        if "upgrade" in text:
            return EquipmentKind.VEHICLE_UPGRADE
        if "wargear" in text or "gear" in text:
            return EquipmentKind.WARGEAR
    return None


def _weapon_profiles(
    value: Any, name: str, owner_label: str, report: ImportReport
) -> list[WeaponProfile]:
    if not isinstance(value, list):
        return []
    profiles: list[WeaponProfile] = []
    for raw in value[:8]:
        if not isinstance(raw, dict):
            continue
        fields: dict[str, Any] = {}
        for field, keys in _PROFILE_KEYS.items():
            found = next((raw[k] for k in keys if raw.get(k) not in (None, "")), None)
            if found is not None:
                fields[field] = clip(" ".join(str(found).split()), 12 if field != "name" else 60)
        traits = raw.get("traits")
        if isinstance(traits, str):
            traits = [t for t in (p.strip() for p in traits.split(",")) if t]
        if isinstance(traits, list):
            fields["traits"] = [clip(str(t), 60) for t in traits if str(t).strip()][:20]
        try:
            profiles.append(WeaponProfile.model_validate(fields))
        except ValidationError:
            report.problem(f"{owner_label}: a profile of {clip(name, 40)} could not be read; "
                           "left out.")
    return profiles


def _item(entry: Equipment, item_id: str) -> Item:
    return Item(id=item_id, **entry.model_dump())
