"""necrovox's vehicles: profile, base cost, the gangs that may take them and their
Equipment Lists (weapons, Upgrades and vehicle wargear with their credits).

The universal vehicles sit in ``gang-additions/4-vehicles`` (one file each, the index
``4-vehicles.md`` naming the gangs); a House's own vehicle is a card of its House List;
a House's "Vehicle Equipment List" adds to the list of every vehicle of that House.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tools.content.markdown import clean, headings, section_end, split_row, tables
from tools.content.necrovox import (
    EQUIPMENT_LISTS,
    GANG_LISTS,
    HOUSES,
    Report,
    read_lines,
    source_of,
    vehicle_entry,
)

VEHICLES = Path("gang-docs/gang-additions/4-vehicles")
INDEX = "4-vehicles.md"
# The custom vehicle builder gives templates to build from, not vehicle types.
_NOT_TYPES = ("wasteland-workshop.md",)
_KINDS = {"weapons": "weapon", "vehicle upgrades": "vehicle upgrade", "wargear": "wargear",
          "vehicle wargear": "wargear"}
_CARD = re.compile(r'<VehicleCard cost="(\d+)"')
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.IGNORECASE)


def universal(root: Path, report: Report) -> list[tuple[dict[str, Any], list[str]]]:
    """Each universal vehicle type with the gangs (by name, or "Any") the index gives it."""
    folder = root / VEHICLES
    gangs = _index_gangs(read_lines(folder / INDEX))
    found: list[tuple[dict[str, Any], list[str]]] = []
    for path in sorted(folder.glob("*.md")):
        if path.name == INDEX or path.name in _NOT_TYPES:
            continue
        lines = read_lines(path)
        title = next(h.text for h in headings(lines) if h.level == 1)
        start, cost = next((i, int(m.group(1))) for i, line in enumerate(lines)
                           for m in [_CARD.search(line)] if m)
        end = next(i for i in range(start, len(lines)) if "</VehicleCard>" in lines[i])
        source = source_of(root, path)
        entry = vehicle_entry(title, cost, lines, start, end, source, report)
        entry["equipment_list"] = equipment(lines, end, len(lines), source)
        found.append((entry, gangs.get(path.name, ["Any"])))
    return found


def crew_list(root: Path) -> list[dict[str, Any]]:
    """The index's Universal Crew Equipment List: its pistols and wargear with credits."""
    path = root / VEHICLES / INDEX
    lines = read_lines(path)
    marks = headings(lines)
    top = next(h for h in marks if h.text.casefold() == "universal crew equipment list")
    entries: list[dict[str, Any]] = []
    for table in tables(lines, top.line, section_end(marks, top, len(lines))):
        kind = "weapon" if table.header[0].casefold().startswith("pistol") else "wargear"
        entries += [{"name": row[0], "cost": int(row[1]), "kind": kind,
                     "source": source_of(root, path)}
                    for row in table.rows if len(row) > 1 and re.fullmatch(r"\d+", row[1])]
    return entries


def crew_costs(root: Path) -> dict[str, int]:
    """The index's List of Crew: each crew type's cost, by its casefolded name."""
    lines = read_lines(root / VEHICLES / INDEX)
    return {row[0].casefold(): int(row[2]) for table in tables(lines)
            if [h.casefold() for h in table.header[:3]] == ["name", "gang", "cost"]
            for row in table.rows if len(row) > 2 and row[2].isdigit()}


def _index_gangs(lines: list[str]) -> dict[str, list[str]]:
    """The index's Gang column by the file each row links to."""
    gangs: dict[str, list[str]] = {}
    for line in lines:
        link = re.search(r"\]\(([\w.-]+\.md)\)", line)
        if link is None or not line.lstrip().startswith("|"):
            continue
        cells = [clean(c) for c in split_row(line)]
        if len(cells) >= 3:
            gangs[link.group(1)] = [g.strip() for g in cells[2].split(",")]
    return gangs


def equipment(lines: list[str], start: int, end: int, source: str) -> list[dict[str, Any]]:
    """The priced rows of the Weapons, Vehicle Upgrades and Wargear tables between ``start``
    and ``end`` (a "### Weapons" heading or a ``<summary>Weapons</summary>`` names the
    kind); "inc." rows (fitted already) and other sections are not items to buy."""
    entries: list[dict[str, Any]] = []
    names: set[str] = set()
    kind: str | None = None
    for line in lines[start:end]:
        section = re.match(r"^#{2,6}\s+(.*)$", line) or _SUMMARY.search(line)
        if section is not None:
            kind = _KINDS.get(clean(section.group(1)).casefold())
            continue
        if kind is None or not line.lstrip().startswith("|"):
            continue
        cells = [clean(c) for c in split_row(line)]
        if len(cells) < 2 or not re.fullmatch(r"\d+", cells[1]):
            continue
        name = re.sub(r"[\\*†↑]", "", cells[0]).strip()
        if not name or name.startswith(("-", "+")) or name in names:
            continue
        names.add(name)
        entries.append({"name": name, "cost": int(cells[1]), "kind": kind, "source": source})
    return entries


def house_list(root: Path, house: str) -> list[dict[str, Any]]:
    """What every vehicle of the House adds to its Equipment List (the House's equipment
    list file, "X Vehicle Equipment List")."""
    path = root / GANG_LISTS / EQUIPMENT_LISTS[house]
    lines = read_lines(path)
    marks = headings(lines)
    top = next((h for h in marks if h.level == 2
                and "vehicle equipment list" in h.text.casefold()), None)
    if top is None:
        return []
    end = section_end(marks, top, len(lines))
    # The list's own sections are "### Weapons" / "### Wargear" or <summary> lines.
    return equipment(lines, top.line + 1, end, source_of(root, path))


def house_vehicles(root: Path, report: Report, own: dict[str, list[dict[str, Any]]]
                   ) -> dict[str, list[dict[str, Any]]]:
    """Each House's vehicle types: its own (``own``, from its list) and the universal ones
    the index opens to it, each with the House's vehicle Equipment List added."""
    shared = universal(root, report)
    result: dict[str, list[dict[str, Any]]] = {}
    for house in HOUSES:
        extra = house_list(root, house)
        vehicles = [*own.get(house, []),
                    *(entry for entry, gangs in shared if "Any" in gangs or house in gangs)]
        result[house] = [_with_list(v, extra) for v in vehicles]
    return result


def _with_list(vehicle: dict[str, Any], extra: list[dict[str, Any]]) -> dict[str, Any]:
    entries = list(vehicle.get("equipment_list", []))
    known = {e["name"].casefold() for e in entries}
    entries += [e for e in extra if e["name"].casefold() not in known]
    result = {k: v for k, v in vehicle.items() if k not in ("equipment_list", "source")}
    if entries:
        result["equipment_list"] = entries
    result["source"] = vehicle["source"]
    return result
