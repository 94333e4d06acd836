"""The necrovox Markdown (2023 rules): House Lists, the Armoury, skills, Hangers-on and Brutes.

Every function returns plain values for the rule data format plus the slips
it found (``Report``); nothing but figures and names is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules.names import loose_keys
from tools.content.markdown import (
    Heading,
    Table,
    clean,
    headings,
    section_end,
    sections,
    tables,
)

HOUSES = {
    "Goliath": "house-goliath/house-goliath.md",
    "Escher": "house-escher/house-escher.md",
    "Orlock": "house-orlock/house-orlock.md",
    "Van Saar": "house-van-saar/house-van-saar.md",
    "Cawdor": "house-cawdor/house-cawdor.md",
    "Delaque": "house-delaque/house-delaque.md",
}
EQUIPMENT_LISTS = {
    "Goliath": "house-goliath/goliath-equipment-list.md",
    "Escher": "house-escher/equipment-list.md",
    "Orlock": "house-orlock/orlock-equipment-list.md",
    "Van Saar": "house-van-saar/equipment-list.md",
    "Cawdor": "house-cawdor/equipment-list.md",
    "Delaque": "house-delaque/equipment-list.md",
}
GANG_LISTS = Path("gang-docs/gang-lists")
ARMOURY = Path("Necromunda_Docs/12-armoury")
SKILLS = Path("Necromunda_Docs/3-gang-fighters-and-their-weaponry/5-skills")
ADDITIONS = Path("gang-docs/gang-additions/2-hangers-on-and-brutes")
WEAPON_FILES = ("1-basic-weapons.md", "2-pistols.md", "3-special-weapons.md",
                "4-heavy-weapons.md", "5-close-combat.md", "6-grenades.md")
# Armoury files of wargear, with the kind their items are.
WARGEAR_FILES = (("11-armour.md", "armour"), ("13-field-armour.md", "armour"),
                 ("14-bionics.md", "wargear"), ("15-gang-equipment.md", "wargear"),
                 ("16-personal-equipment.md", "wargear"), ("17-chems.md", "wargear"),
                 ("18-weapon-accessories.md", "wargear"), ("19-status-items.md", "wargear"),
                 ("20-vehicle-upgrades.md", "vehicle upgrade"))

STATS = ("m", "ws", "bs", "s", "t", "w", "i", "a", "ld", "cl", "wil", "int")
_CATEGORIES = {
    "leader": ("Leader", False), "champion": ("Champion", False),
    "specialist champion": ("Champion", True), "ganger": ("Ganger", False),
    "juve prospect": ("Prospect", True), "prospect": ("Prospect", True),
    "juve": ("Juve", False), "brute": ("Brute", False), "n18 brute": ("Brute", False),
    "exotic beast": ("Exotic Beast", False), "crew": ("Crew", False),
}
_FIGHTER = re.compile(r"^(?:0-(\d+)\s+)?(.+?)\s*\(([^()]+)\)(?:\s*-\s*Cost\s+(\d+))?$")
_CARD_COST = re.compile(r'<(?:Fighter|Vehicle)Card cost="(\d+)"')
_COST_LINE = re.compile(r"\*\*Cost:\*\*\s*(\d+)")
_INCLUDE = re.compile(r"^<([A-Z][A-Za-z]*)\s*/>")
_IMPORT = re.compile(r"^import\s+(\w+)\s+from\s+'\./(.+?)';")
_CREDITS = re.compile(r"(\d+)\s*credits?(?:\s*[-–]\s*((?:Rare|Illegal)\s*\(\d+\)|Common|"
                      r"Exclusive))?", re.IGNORECASE)
_SKILL = re.compile(r"^\d\.\s+(.+)$")


@dataclass
class Report:
    """What the converter met in the sources and did not copy."""

    slips: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def slip(self, text: str) -> None:
        self.slips.append(text)

    def skip(self, text: str) -> None:
        self.skipped.append(text)


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def source_of(root: Path, path: Path) -> str:
    return "necrovox/" + path.relative_to(root).as_posix()


# --------------------------------------------------------------------------- profiles


def stat_value(text: str) -> int | None:
    """'5"', '4+', '7 +', '6" (5")' read as the first number; '-' and blank as absent."""
    text = text.strip()
    if text in ("", "-", "–"):
        return None
    match = re.match(r"^(\d+)", text.replace(" ", ""))
    if match is None:
        raise ValueError(text)
    return int(match.group(1))


_BOUNDS = {"m": (0, 20), "s": (0, 10), "t": (0, 10), "w": (0, 10), "a": (0, 10)}


def profile_from(table: Table) -> dict[str, int | None] | None:
    """The characteristics of a profile table; None when a value is out of any bound."""
    profile, unread = read_profile(table)
    return None if unread else profile


def read_profile(table: Table) -> tuple[dict[str, int | None], list[str]]:
    """The characteristics of a profile table, and those out of any bound ("68+" for a
    Cool), which are left absent; every one is unread when the table is no profile."""
    header = [h.strip().casefold() for h in table.header]
    profile: dict[str, int | None] = dict.fromkeys(STATS)
    if not table.rows or not set(header) <= set(STATS) or "bs" not in header:
        return profile, list(STATS)
    unread = []
    for stat, cell in zip(header, table.rows[0], strict=False):
        value = stat_value(cell)
        low, high = _BOUNDS.get(stat, (1, 12))
        if value is not None and not low <= value <= high:
            unread.append(stat)
            value = None
        profile[stat] = value
    return profile, unread


def _profile_table(lines: list[str], start: int, end: int) -> Table | None:
    for table in tables(lines, start, end):
        header = [h.strip().casefold() for h in table.header]
        if "bs" in header and set(header) <= set(STATS):
            return table
    return None


# A vehicle profile's columns; a House List card writes the Hull Points "W".
_COLUMNS = {"m": "m", "front": "front", "side": "side", "rear": "rear", "hp": "hp",
            "w": "hp", "hnd": "hnd", "sv": "sv"}

def vehicle_profile(table: Table) -> dict[str, int] | None:
    """A vehicle's profile table (M, Front, Side, Rear, HP, Hnd, Sv); None when it is not
    one or a figure cannot be read."""
    header = [h.strip().casefold() for h in table.header]
    if "front" not in header or not table.rows:
        return None
    profile: dict[str, int] = {}
    for label, cell in zip(header, table.rows[0], strict=False):
        stat, value = _COLUMNS.get(label), stat_value(cell)
        if stat is None or value is None:
            return None
        profile[stat] = value
    return profile if len(profile) == len(set(_COLUMNS.values())) else None


def profile_in(lines: list[str], start: int, end: int) -> dict[str, int] | None:
    return next((p for t in tables(lines, start, end) for p in [vehicle_profile(t)] if p), None)


# --------------------------------------------------------------------------- houses


@dataclass
class Fighter:
    name: str
    category: str
    specialist: bool
    cost: int | None
    profile: dict[str, int | None] | None
    limit: int | None
    group: str
    special_rules: list[str]
    skills: list[str]
    source: str
    primary: list[str] = field(default_factory=list)
    secondary: list[str] = field(default_factory=list)
    own_access: bool = False
    # A profile printed with characteristics out of any bound: what was read, what was not,
    # and the printed row (the converter looks for the missing figures in Gyrinx).
    read: dict[str, int | None] | None = None
    unread: list[str] = field(default_factory=list)
    printed: str = ""


def _names_after(lines: list[str], start: int, end: int, label: str) -> list[str]:
    for index, line in enumerate(lines[start:end], start):
        if line.startswith(f"**{label}:**"):
            text = clean(line[len(label) + 5:]).rstrip(". ")
            if not text:
                # The Goliath list gives its Leader's rules as bullets under the label.
                return _bullets(lines, index + 1, end)
            if "custom" in text.casefold() or text.casefold() == "none":
                return []
            names = [n.strip().rstrip(".") for n in re.split(r",(?![^()]*\))", text)]
            # "(same as ...)" and a bracketed description ("Impetuous (consolidate 4"
            # instead of 2")") are rules text, not part of the name.
            names = [_DESCRIBED.sub("", n) for n in names if n]
            # "When recruited, a Goliath Stimmer may choose one skill..." is a rule, not names.
            return [] if any(n[:1].islower() or n.startswith("When ") for n in names) else names
    return []


_DESCRIBED = re.compile(r"\s*\((?:same as[^)]*|[a-z][^()]*\s[^()]*\s[^()]*)\)")


def _bullets(lines: list[str], start: int, end: int) -> list[str]:
    names: list[str] = []
    for line in lines[start:end]:
        item = re.match(r"^\s*[*-]\s+(.*)$", line)
        if item is None:
            break
        names.append(clean(item.group(1)).rstrip("."))
    return names


def house_fighters(root: Path, house: str, report: Report
                   ) -> tuple[list[Fighter], list[dict[str, Any]]]:
    """A House's fighter types (with skill access) and its vehicles (name and cost)."""
    path = root / GANG_LISTS / HOUSES[house]
    lines = read_lines(path)
    includes = _includes(root, path, lines, report)
    marks = headings(lines)
    fighters: list[Fighter] = []
    vehicles: list[dict[str, Any]] = []
    group = ""
    seen: set[tuple[str, str]] = set()
    for index, heading in enumerate(marks):
        if heading.level == 2:
            group = heading.text
            continue
        if heading.level != 3:
            continue
        match = _FIGHTER.match(heading.text)
        if match is None:
            continue
        limit, name, kind, heading_cost = match.groups()
        kind_key = kind.strip().casefold()
        if kind_key not in _CATEGORIES and kind_key != "vehicle":
            continue
        end = section_end(marks, heading, len(lines))
        previous = marks[index - 1].line if index else 0
        cost = _fighter_cost(lines, previous, heading.line, end, heading_cost)
        name = _corrected_name(name, house, report)
        if kind_key == "vehicle":
            if cost is not None:
                vehicles.append(vehicle_entry(name, cost, lines, heading.line, end,
                                              source_of(root, path), report))
            continue
        category, specialist = _CATEGORIES[kind_key]
        if (name.casefold(), category) in seen:
            report.slip(f"{house}: {name} ({kind}) is given twice in {path.name}; "
                        "the first is kept")
            continue
        seen.add((name.casefold(), category))
        profile_lines, profile_source = lines, path
        body = [ln.strip() for ln in lines[heading.line:end]]
        included = next((inc for tag, inc in includes.items()
                         if any(ln.startswith(f"<{tag}") for ln in body)), None)
        start, stop = heading.line, end
        if included is not None:
            profile_source = included
            profile_lines = read_lines(included)
            start, stop = 0, len(profile_lines)
        table = _profile_table(profile_lines, start, stop)
        profile, unread = read_profile(table) if table is not None else (None, [])
        if table is None:
            report.slip(f"{house}: {name} has no profile table; its profile is left not set")
        fighter = Fighter(
            name=name, category=category, specialist=specialist, cost=cost, profile=profile,
            limit=int(limit) if limit else None, group=group,
            special_rules=_names_after(profile_lines, start, stop, "Special Rules"),
            skills=_names_after(profile_lines, start, stop, "Skills"),
            source=source_of(root, profile_source),
        )
        if unread and table is not None:
            fighter.profile = None
            fighter.read = profile
            fighter.unread = unread
            fighter.printed = " ".join(table.rows[0])
        if included is not None:
            _own_access(profile_lines, fighter)
        fighters.append(fighter)
    _skill_access(lines, marks, fighters, house, report)
    return fighters, vehicles


def vehicle_entry(name: str, cost: int, lines: list[str], start: int, end: int, source: str,
                  report: Report) -> dict[str, Any]:
    """A vehicle type with its cost and the profile its card prints between ``start`` and
    ``end``."""
    entry: dict[str, Any] = {"vehicle_type": name, "cost": cost}
    profile = profile_in(lines, start, end)
    if profile is None:
        report.slip(f"Vehicles: {name} has no readable profile; left not set")
    else:
        entry["profile"] = profile
    entry["source"] = source
    return entry


def _corrected_name(name: str, house: str, report: Report) -> str:
    name = name.strip()
    if house == "Van Saar" and name.startswith("Var Saar "):
        report.slip(f"Van Saar: '{name}' is misspelt in the source; written 'Van Saar "
                    f"{name[len('Var Saar '):]}'")
        return "Van Saar " + name[len("Var Saar "):]
    return name


def _fighter_cost(lines: list[str], previous: int, line: int, end: int,
                  heading_cost: str | None) -> int | None:
    if heading_cost:
        return int(heading_cost)
    for text in reversed(lines[previous:line]):
        card = _CARD_COST.search(text)
        if card:
            return int(card.group(1))
    for text in lines[line:end]:
        found = _COST_LINE.search(text)
        if found:
            return int(found.group(1))
    return None


def _includes(root: Path, path: Path, lines: list[str], report: Report) -> dict[str, Path]:
    """``<Leader />`` components and the file each names; a file missing under its imported
    name is looked for under the House's prefix (``_champion.md``: ``van-saar-champion.md``)."""
    found: dict[str, Path] = {}
    prefix = path.stem.removeprefix("house-")
    for line in lines:
        match = _IMPORT.match(line.strip())
        if not match:
            continue
        tag, name = match.groups()
        name = name.replace("\\_", "_")
        target = path.parent / name
        if not target.is_file():
            fallback = path.parent / f"{prefix}-{name.lstrip('_')}"
            if fallback.is_file():
                report.slip(f"{path.parent.name}: {name} is imported but the profile is in "
                            f"{fallback.name}; read from there")
                target = fallback
            else:
                continue
        found[tag] = target
    return found


def _access_columns(table: Table) -> list[str]:
    return [h.strip() for h in table.header]


def _own_access(lines: list[str], fighter: Fighter) -> None:
    for table in tables(lines):
        header = _access_columns(table)
        if "Agility" in header or "Combat" in header:
            for name, cell in zip(header, table.rows[0] if table.rows else [], strict=False):
                _take_access(fighter, name, cell)
            fighter.own_access = True
            return


def _take_access(fighter: Fighter, skill_set: str, cell: str) -> None:
    cell = cell.strip().casefold()
    if not skill_set:
        return
    if cell.startswith("primary") and skill_set not in fighter.primary:
        fighter.primary.append(skill_set)
    elif cell.startswith("secondary") and skill_set not in fighter.secondary:
        fighter.secondary.append(skill_set)


def _row_fighters(label: str, candidates: list[Fighter]) -> list[Fighter]:
    """The fighter types a skill access row names: by name, else by category."""
    text = label.casefold()
    named = [f for f in candidates if f.name.casefold() in text
             or any(part.strip().casefold() in f.name.casefold()
                    for part in re.findall(r"\(([^)]+)\)", label))]
    named = [f for f in named if f.category.casefold() in text
             or f.name.casefold() in text or f.category in ("Brute", "Exotic Beast", "Crew")]
    if named:
        return named
    base = re.sub(r"\s*\(.*\)", "", text).strip()
    specialist = "specialist" in text or "prospect" in text
    wanted = {"leader": "Leader", "champion": "Champion", "ganger": "Ganger",
              "juve": "Juve", "prospect": "Prospect", "brute": "Brute",
              "exotic beast": "Exotic Beast", "crew": "Crew"}.get(base)
    if wanted == "Juve" and specialist:
        wanted = "Prospect"
    if wanted is None:
        return []
    matching = [f for f in candidates if f.category == wanted]
    if wanted == "Champion":
        matching = [f for f in matching if f.specialist == specialist]
    return matching


def _skill_access(lines: list[str], marks: list[Heading], fighters: list[Fighter],
                  house: str, report: Report) -> None:
    top = next((h for h in marks if h.level == 2 and h.text == "Skill Access"), None)
    if top is None:
        return
    end = section_end(marks, top, len(lines))
    groups = [h for h in marks if top.line < h.line < end and h.level == 3]
    for table in tables(lines, top.line, end):
        group = next((g.text for g in reversed(groups) if g.line < table.line), "")
        candidates = [f for f in fighters if not f.own_access]
        if group and group != "Other":
            candidates = [f for f in candidates if group.casefold() in f.group.casefold()]
        for row in table.rows:
            matched = _row_fighters(row[0], candidates)
            if not matched and row[0].strip():
                report.skip(f"{house}: skill access row '{row[0]}' names no fighter type")
            for fighter in matched:
                for name, cell in zip(table.header[1:], row[1:], strict=False):
                    _take_access(fighter, name.strip(), cell)


# --------------------------------------------------------------------------- equipment lists


def _column_fighters(label: str, fighters: list[Fighter]) -> list[Fighter]:
    text = label.strip()
    group = ""
    if re.match(r"^[CR]\.\s", text):
        group = "Cawdor" if text.startswith("C.") else "Redemptionist"
        text = text[2:].strip()
    key = text.casefold()
    named = [f for f in fighters
             if key and re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", f.name.casefold())]
    if named:
        return named
    base = re.sub(r"\s*\(.*\)", "", key).strip()
    specialist = "specialist" in key
    wanted = {"leader": "Leader", "champ": "Champion", "champion": "Champion",
              "ganger": "Ganger", "juve": "Juve", "prospect": "Prospect", "brute": "Brute",
              "crew": "Crew"}.get(base)
    if wanted == "Juve" and specialist:
        wanted = "Prospect"
    matching = [f for f in fighters if f.category == wanted]
    if wanted == "Champion":
        matching = [f for f in matching if f.specialist == specialist]
    if group:
        matching = [f for f in matching if group.casefold() in f.group.casefold()]
    return matching


_SECTION_KINDS = {"armour": "armour", "field armour": "armour"}
_WEAPON_SECTIONS = ("basic", "pistol", "special", "heavy", "close combat", "grenade")


def equipment_lists(root: Path, house: str, fighters: list[Fighter], report: Report
                    ) -> dict[str, list[dict[str, Any]]]:
    """Each fighter type's Equipment List: name, cost, kind, two slots, Trading Post tick."""
    path = root / GANG_LISTS / EQUIPMENT_LISTS[house]
    lines = read_lines(path)
    marks = headings(lines)
    lists: dict[str, list[dict[str, Any]]] = {f.name: [] for f in fighters}
    source = source_of(root, path)
    for heading in marks:
        if heading.level != 2:
            continue
        section = heading.text.casefold()
        if "vehicle" in section:
            break
        kind = _SECTION_KINDS.get(section) or (
            "weapon" if any(w in section for w in _WEAPON_SECTIONS) else "wargear")
        end = section_end(marks, heading, len(lines))
        for table in tables(lines, heading.line, end):
            if not table.header or table.header[0].casefold() != "item":
                continue
            columns = [(_column_fighters(label, fighters), i + 1)
                       for i, label in enumerate(table.header[1:])]
            ticks: dict[int, bool] = {}
            for row in table.rows:
                label = row[0].strip()
                if label.casefold() == "eligibility":
                    ticks = {i: "✓" in cell for i, cell in enumerate(row)}
                    continue
                if not label or label.startswith(("-", "+")) or label.isupper():
                    continue
                name, two_slots = _list_name(label)
                for matched, column in columns:
                    cell = row[column].strip() if column < len(row) else ""
                    if not re.fullmatch(r"\d+", cell):
                        continue
                    for fighter in matched:
                        entries = lists[fighter.name]
                        if any(e["name"] == name for e in entries):
                            continue
                        entry: dict[str, Any] = {"name": name, "cost": int(cell), "kind": kind}
                        if two_slots:
                            entry["two_slots"] = True
                        if ticks.get(column):
                            entry["trading_post"] = True
                        entry["source"] = source
                        entries.append(entry)
    return lists


def _list_name(label: str) -> tuple[str, bool]:
    two_slots = "*" in label
    name = label.replace("*", "").replace("†", "").replace("↑", "")
    return re.sub(r"\s+", " ", name).strip(), two_slots


# --------------------------------------------------------------------------- Armoury


def _availability(code: str) -> str | None:
    code = code.replace("*", "").strip().upper()
    if code == "C":
        return "Common"
    if code == "E":
        return "Exclusive"
    match = re.fullmatch(r"([RI])\s*(\d{1,2})", code)
    if match:
        return f"{'Rare' if match.group(1) == 'R' else 'Illegal'} ({match.group(2)})"
    return None


def _cost(text: str) -> int | None:
    match = re.fullmatch(r"(\d+)\**", text.replace("\\", "").replace(" ", ""))
    return int(match.group(1)) if match else None


_PROFILE_KEYS = ("short_range", "long_range", "short_accuracy", "long_accuracy", "strength",
                 "ap", "damage", "ammo")


def _profile_line(row: list[str], name: str) -> dict[str, Any] | None:
    figures = [cell.strip() or "-" for cell in row[1:9]]
    if len(figures) < 8 or all(f == "-" for f in figures):
        return None
    line: dict[str, Any] = {"name": name} if name else {}
    for key, value in zip(_PROFILE_KEYS, figures, strict=True):
        line[key] = value.replace("”", '"')
    traits = [t.strip() for t in re.split(r",(?![^()]*\))", row[9]) if t.strip()] \
        if len(row) > 9 else []
    line["traits"] = [t for t in traits if t not in ("-", "–")]
    return line


_VARIANT = ("-", "~", "+")
_MISSPELT = {"Kroot long rife": "Kroot long rifle"}
# "+ Digi (D060-K13)": a named fighter's own version of the weapon (a Hired Gun's), not a
# profile line of the Trading Post's weapon.
_SIGNATURE = re.compile(r"^\+\s*.+\(([A-Z][^()]*)\)$")
_COMPONENTS = ("primary component", "secondary component")


def weapons(root: Path, report: Report) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Armoury's weapons with their profile lines: those with a cost and availability
    (the Trading Post's), and those without (a House List's own, priced by its list)."""
    found: dict[str, dict[str, Any]] = {}
    exclusive: dict[str, dict[str, Any]] = {}
    for filename in WEAPON_FILES:
        path = root / ARMOURY / filename
        lines = read_lines(path)
        for table in tables(lines):
            header = [h.casefold() for h in table.header]
            if not header or header[0] not in ("weapon", "profile") or len(header) < 10:
                continue
            al = header.index("al") if "al" in header else None
            cost = header.index("cost") if "cost" in header else None
            current: dict[str, Any] | None = None
            for row in table.rows:
                label = row[0].strip()
                if not label:
                    continue
                variant = label
                if label.startswith(_VARIANT) or variant.casefold() in _COMPONENTS:
                    if current is None:
                        continue
                    if _SIGNATURE.match(label):
                        report.skip(f"Armoury: '{label.lstrip('+ ')}' under {current['name']} "
                                    "is a named fighter's own weapon; left out")
                        continue
                    line = _profile_line(row, variant.lstrip("-~+ ").strip())
                    if line is not None:
                        current["profiles"].append(line)
                    continue
                current = _new_weapon(row, label, al, cost, root, path)
                if current["name"] in _MISSPELT:
                    report.slip(f"Armoury: '{current['name']}' is misspelt in the source; "
                                f"written '{_MISSPELT[current['name']]}'")
                    current["name"] = _MISSPELT[current["name"]]
                key = loose_keys(current["name"])[0]
                if "cost" not in current:
                    if key in exclusive or key in found:
                        current = None
                    else:
                        exclusive[key] = current
                    continue
                if key in found:
                    report.slip(f"Armoury: {current['name']} is given twice "
                                f"({path.name}); the first is kept")
                    current = None
                    continue
                found[key] = current
    for weapon in [*found.values(), *exclusive.values()]:
        if len(weapon["profiles"]) > 8:
            report.skip(f"Armoury: {weapon['name']} has {len(weapon['profiles'])} profile "
                        "lines; the first 8 are kept")
            weapon["profiles"] = weapon["profiles"][:8]
    for key in list(exclusive):
        if key in found or not exclusive[key]["profiles"]:
            del exclusive[key]
    return list(found.values()), list(exclusive.values())


def _new_weapon(row: list[str], label: str, al: int | None, cost: int | None, root: Path,
                path: Path) -> dict[str, Any]:
    availability = _availability(row[al]) if al is not None and al < len(row) else None
    price = _cost(row[cost]) if cost is not None and cost < len(row) else None
    name = label.replace("*", "").strip()
    weapon: dict[str, Any] = {"name": name[:1].upper() + name[1:]}
    if availability is not None and price is not None:
        weapon.update(cost=price, availability=availability)
    weapon.update(profiles=[], source=source_of(root, path))
    line = _profile_line(row, "")
    if line is not None:
        weapon["profiles"].append(line)
    return weapon


def wargear(root: Path, report: Report) -> list[dict[str, Any]]:
    """The Armoury's wargear: each ``###`` item with its credits and availability line."""
    found: dict[str, dict[str, Any]] = {}
    for filename, kind in WARGEAR_FILES:
        path = root / ARMOURY / filename
        lines = read_lines(path)
        for section in sections(lines, 3):
            # "Mono-Sight(Basic, ...)†": the footnote mark is no part of the name.
            name = re.sub(r"(\S)\(", r"\1 (", section.heading.text.replace("†", "")).strip()
            body = lines[section.heading.line + 1:section.end]
            for entry_name, cost, availability in _priced(body, name):
                key = loose_keys(entry_name)[0]
                if key in found:
                    continue
                found[key] = {"name": entry_name, "cost": cost, "kind": kind,
                              "availability": availability, "source": source_of(root, path)}
    return list(found.values())


def _priced(lines: list[str], name: str) -> list[tuple[str, int, str]]:
    """An item's price lines: ``**35 Credits – Rare (8)**`` or ``**Light:** _80 credits...``."""
    priced: list[tuple[str, int, str]] = []
    for line in lines:
        sub = re.match(r"^\*\*([^*:]+):\*\*\s*_?(\d+\s*credits?[^_]*)_?", line, re.IGNORECASE)
        if sub:
            match = _CREDITS.search(sub.group(2))
            label = sub.group(1).strip()
            # "### Flak" then "**Flak Armour:** 10 credits": the label is the item's full
            # name, not one of its kinds ("**Light:**").
            named = label if label.casefold().startswith(name.casefold()) else (
                f"{name} ({label})")
            if match:
                priced.append((named, int(match.group(1)), match.group(2) or "Common"))
            continue
        if not priced and line.startswith("**") and "credit" in line.casefold():
            match = _CREDITS.search(clean(line))
            if match:
                return [(name, int(match.group(1)), _normal(match.group(2) or "Common"))]
    return [(n, c, _normal(a)) for n, c, a in priced]


def _normal(availability: str) -> str:
    availability = re.sub(r"\s+", " ", availability.strip())
    return availability[:1].upper() + availability[1:].lower().replace("(", "(")


# --------------------------------------------------------------------------- skills


def skill_sets(root: Path, report: Report) -> list[dict[str, Any]]:
    """Skill sets of six, by name, in the order of their D6 table."""
    result: list[dict[str, Any]] = []
    for filename in ("5-skills.md", "gang-specific-skills.md"):
        path = root / SKILLS / filename
        lines = read_lines(path)
        marks = headings(lines)
        for section in sections(lines, 2):
            names = [_title(m.group(1).strip()) for h in marks
                     if section.heading.line < h.line < section.end and h.level == 3
                     for m in [_SKILL.match(h.text)] if m]
            set_name = section.heading.text.split(":")[-1].strip()
            if len(names) != 6:
                if names:
                    report.skip(f"Skills: {set_name} lists {len(names)} skills, not six; "
                                "left out")
                continue
            result.append({"name": set_name, "skills": names,
                           "source": source_of(root, path)})
    return result


_SMALL_WORDS = frozenset({"of", "the", "and", "on", "to", "in", "a"})


def _title(name: str) -> str:
    """A skill name with the headings' capitals on small words undone ("Nerves of Steel")."""
    words = name.split(" ")
    return " ".join([words[0], *(w.lower() if w.lower() in _SMALL_WORDS else w
                                 for w in words[1:])])


# --------------------------------------------------------------------------- Hangers-on


def _singular(name: str, lines: list[str], category: str, report: Report) -> str:
    """A type a heading names in the plural ("0-2 Rogue Docs") by the name its file gives
    one of them ("Rogue Doc"), as every other type is named."""
    one = name[:-1]
    if not name.endswith("s") or name.endswith("ss"):
        return name
    pattern = re.compile(rf"\b{re.escape(one)}\b(?!s)")
    if not any(pattern.search(line) for line in lines):
        return name
    report.slip(f"{category}: '{name}' is the plural of the type; written '{one}'")
    return one


def hangers_on(root: Path, report: Report) -> list[dict[str, Any]]:
    """Hangers-on and Brutes on offer to every gang, with profile, cost and 0-X limit."""
    result: list[dict[str, Any]] = []
    for filename, category in (("hangers-on.md", "Hanger-on"), ("brutes.md", "Brute")):
        path = root / ADDITIONS / filename
        lines = read_lines(path)
        for section in sections(lines, 3):
            heading, end = section.heading, section.end
            match = re.match(r"^0-(\d+)\s+(.+)$", heading.text)
            if match is None:
                continue
            cost = _fighter_cost(lines, section.previous, heading.line, end, None)
            name = _singular(match.group(2).strip(), lines, category, report)
            if cost is None:
                report.skip(f"{category}: {name} gives no cost; left out")
                continue
            table = _profile_table(lines, heading.line, end)
            entry: dict[str, Any] = {"fighter_type": name, "category": category, "cost": cost,
                                     "max_in_gang": int(match.group(1))}
            profile = profile_from(table) if table is not None else None
            if profile is None:
                report.slip(f"{category}: {name} has no readable profile; left not set")
            else:
                entry["profile"] = profile
            entry["source"] = source_of(root, path)
            result.append(entry)
    return result
