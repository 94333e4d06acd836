"""Read a campaign's own Trading Post from CSV or JSON (pure: bytes in, entries out).

Shapes (docs/importing.md):

- CSV with a header row: ``name,category,cost,availability`` (any order;
  ``;`` or tab separators work too; optional ``kind`` and ``two_slots``
  columns). Other columns are ignored and reported.
- JSON: a list of objects with the same keys, or ``{"trading_post": [...]}``
  / ``{"items": [...]}``.

``availability`` is ``Common``, ``Rare (X)``, ``Illegal (X)`` or
``Exclusive``; the older ``Rarity rating N`` is read as Rare (N) and
``Legality rating N`` as Illegal (N) (PB-6B.7); ``Rare 9`` is accepted too.
``cost`` may carry a unit ("15 credits", "15¢").

Decisions: every row must be good or nothing is stored: all bad rows are
listed with their line numbers (CSV) or positions (JSON). The item's kind
(weapon, armour, wargear, vehicle upgrade; it decides weapon slots) comes
from the ``kind`` column when there is one, else from words in the category
("Basic Weapons", "Grenades" -> weapon; "Armour" -> armour; "Weapon
Accessories", "Ammo" -> wargear).

Bounds (``rules.limits``): at most MAX_TRADING_POST_ITEMS rows and
MAX_COLUMNS columns; reading stops at the first row past the bound.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from bot.importing.common import decode_text, load_json, require_worker_thread
from bot.importing.values import read_int, read_name
from bot.render import clip
from bot.storage import TradingPostEntry
from rules.errors import InvalidRequest
from rules.limits import (
    MAX_COLUMNS,
    MAX_CREDITS,
    MAX_JSON_VALUES,
    MAX_TRADING_POST_ITEMS,
    check_count,
)
from rules.models import Availability, EquipmentKind

if TYPE_CHECKING:
    from _csv import Reader

# Bad rows listed in the refusal before "and N more" (Discord messages are short).
SHOWN_PROBLEMS = 12

REQUIRED = ("name", "cost", "availability")
KNOWN = frozenset({*REQUIRED, "category", "kind", "two_slots"})
_ALIASES = {
    "item": "name", "item_name": "name", "price": "cost", "credits": "cost",
    "rarity": "availability", "type": "category", "slots": "two_slots",
}
_KINDS = {kind.value: kind for kind in EquipmentKind} | {
    "armor": EquipmentKind.ARMOUR, "upgrade": EquipmentKind.VEHICLE_UPGRADE,
}
_TRUE = frozenset({"yes", "y", "true", "1", "*", "x"})
_FALSE = frozenset({"no", "n", "false", "0", ""})
_SHORT_AVAILABILITY = re.compile(r"^\s*(rare|illegal)\s*(\d{1,2})\s*$", re.IGNORECASE)


class TradingPostParse(BaseModel):
    format: Literal["CSV", "JSON"]
    entries: list[TradingPostEntry] = Field(default_factory=list)
    # "line 4: cost 'lots' is not a number"; empty when every row is good.
    problems: list[str] = Field(default_factory=list)
    ignored_columns: list[str] = Field(default_factory=list)


def read_trading_post(data: bytes, filename: str = "") -> TradingPostParse:
    """The whole file read and checked (every row good); for a worker thread."""
    require_worker_thread("Reading a Trading Post file")
    parsed = parse_trading_post(data, filename)
    require_clean(parsed)
    return parsed


def parse_trading_post(data: bytes, filename: str = "") -> TradingPostParse:
    """Every row of the file, good ones as entries and bad ones as problems."""
    text = decode_text(data)
    stripped = text.lstrip()
    if filename.lower().endswith(".json") or stripped.startswith(("[", "{")):
        return _from_json(load_json(data, "a Trading Post", max_values=MAX_JSON_VALUES))
    return _from_csv(text)


def require_clean(parsed: TradingPostParse) -> list[TradingPostEntry]:
    """The entries, or a refusal that lists the bad rows (nothing is stored then)."""
    if parsed.problems:
        shown = parsed.problems[:SHOWN_PROBLEMS]
        more = len(parsed.problems) - len(shown)
        tail = f"\n- and {more} more" if more else ""
        raise InvalidRequest(
            f"The Trading Post was not imported: {len(parsed.problems)} "
            f"{'row is' if len(parsed.problems) == 1 else 'rows are'} not right. "
            "Fix them and import the file again; nothing was changed.\n- "
            + "\n- ".join(shown) + tail
        )
    if not parsed.entries:
        raise InvalidRequest("That file lists no items; nothing was changed.")
    return parsed.entries


# --------------------------------------------------------------------------- CSV and JSON


def _from_csv(text: str) -> TradingPostParse:
    sample = text[:4096]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    try:
        return _read_csv(reader)
    except csv.Error as error:
        raise InvalidRequest(_csv_refusal(error, reader.line_num)) from None


def _csv_refusal(error: csv.Error, line: int) -> str:
    reason = str(error)
    if "field larger than field limit" in reason:
        reason = f"a cell is longer than {csv.field_size_limit()} characters"
    return f"That CSV file cannot be read past line {line} ({reason}); nothing was changed."


def _read_csv(reader: Reader) -> TradingPostParse:
    header = next(reader, None)
    if header is None:
        raise InvalidRequest("That file is empty; nothing was changed.")
    check_count(len(header), MAX_COLUMNS, "columns")
    columns = [_column(name) for name in header]
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise InvalidRequest(
            "That CSV file needs a header row with the columns name, category, cost and "
            f"availability; it lacks {', '.join(missing)}. Nothing was changed."
        )
    result = TradingPostParse(format="CSV", ignored_columns=_ignored(columns))
    rows: list[tuple[str, dict[str, Any]]] = []
    for count, cells in enumerate(filter(_filled, reader), start=1):
        check_count(count, MAX_TRADING_POST_ITEMS, "items", so_far=True)
        where = f"line {reader.line_num}"
        if len(cells) > len(columns):
            result.problems.append(f"{where}: more cells than the header has columns")
            continue
        rows.append((where, dict(zip(columns, cells, strict=False))))
    _read_rows(rows, result)
    return result


def _from_json(data: Any) -> TradingPostParse:
    if isinstance(data, Mapping):
        data = data.get("trading_post", data.get("items"))
    if not isinstance(data, list):
        raise InvalidRequest(
            "That JSON file should be a list of items (name, category, cost, availability); "
            "nothing was changed."
        )
    check_count(len(data), MAX_TRADING_POST_ITEMS, "items")
    result = TradingPostParse(format="JSON")
    rows: list[tuple[str, dict[str, Any]]] = []
    ignored: set[str] = set()
    for index, raw in enumerate(data, start=1):
        where = f"item #{index}"
        if not isinstance(raw, Mapping):
            result.problems.append(f"{where}: not an object")
            continue
        row = {_column(str(key)): value for key, value in raw.items()}
        ignored |= {key for key in row if key not in KNOWN}
        check_count(len(ignored), MAX_COLUMNS, "keys the bot does not know in its items")
        rows.append((where, row))
    result.ignored_columns = sorted(ignored)
    _read_rows(rows, result)
    return result


def _filled(cells: list[str]) -> bool:
    return any(cell.strip() for cell in cells)


def _column(name: str) -> str:
    key = re.sub(r"[\s-]+", "_", name.strip().lower())
    return _ALIASES.get(key, key)


def _ignored(columns: list[str]) -> list[str]:
    return [c for c in columns if c and c not in KNOWN]


# --------------------------------------------------------------------------- rows


def _read_rows(rows: list[tuple[str, dict[str, Any]]], result: TradingPostParse) -> None:
    seen: dict[str, str] = {}
    for where, row in rows:
        try:
            entry = _entry(row)
        except ValueError as error:
            result.problems.append(f"{where}: {error}")
            continue
        key = entry.name.casefold()
        if key in seen:
            result.problems.append(f"{where}: '{clip(entry.name, 40)}' is already on {seen[key]}")
            continue
        seen[key] = where
        result.entries.append(entry)


def _entry(row: dict[str, Any]) -> TradingPostEntry:
    problems = []
    name = category = ""
    cost = 0
    availability: Availability | None = None
    try:
        name = read_name(row.get("name"), "name")
    except ValueError as error:
        problems.append(str(error))
    raw_category = row.get("category")
    category = " ".join(str(raw_category).split())[:100] if raw_category is not None else ""
    try:
        cost = read_int(row.get("cost"), high=MAX_CREDITS)
    except ValueError as error:
        problems.append(f"cost {error}")
    try:
        availability = _availability(row.get("availability"))
    except ValueError as error:
        problems.append(str(error))
    kind = _kind(row.get("kind"), category, problems)
    two_slots = _flag(row.get("two_slots"), problems)
    if problems or availability is None:
        raise ValueError("; ".join(problems))
    try:
        return TradingPostEntry(
            name=name, category=category, cost=cost, kind=kind, availability=availability,
            two_slots=two_slots,
        )
    except ValidationError as error:
        raise ValueError(error.errors()[0]["msg"]) from None


def _availability(value: Any) -> Availability:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("availability is missing")
    short = _SHORT_AVAILABILITY.match(value)
    text = f"{short.group(1)} ({short.group(2)})" if short else value
    try:
        return Availability.parse(text)
    except ValueError:
        raise ValueError(
            f"availability '{clip(value, 30)}' is not Common, Rare (X), Illegal (X), "
            "Exclusive or Rarity rating N"
        ) from None


def _kind(value: Any, category: str, problems: list[str]) -> EquipmentKind:
    if value is not None and str(value).strip():
        kind = _KINDS.get(re.sub(r"[\s_-]+", " ", str(value).strip().lower()))
        if kind is None:
            problems.append(
                f"kind '{clip(str(value), 20)}' is not weapon, wargear, armour or vehicle upgrade"
            )
            return EquipmentKind.WARGEAR
        return kind
    return kind_of_category(category)


def kind_of_category(category: str) -> EquipmentKind:
    """The kind an item listed under ``category`` most likely is."""
    text = category.lower()
    if "vehicle" in text:
        return EquipmentKind.WEAPON if "weapon" in text else EquipmentKind.VEHICLE_UPGRADE
    if re.search(r"accessor|ammo|ammunition|sight|attachment|upgrade", text):
        return EquipmentKind.WARGEAR
    if re.search(r"armou?r", text):
        return EquipmentKind.ARMOUR
    if re.search(r"weapon|pistol|grenade|basic|special|heavy|close.?combat|melee", text):
        return EquipmentKind.WEAPON
    return EquipmentKind.WARGEAR


def _flag(value: Any, problems: list[str]) -> bool:
    if value is None or isinstance(value, bool):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    problems.append(f"two_slots '{clip(str(value), 10)}' is not yes or no")
    return False
