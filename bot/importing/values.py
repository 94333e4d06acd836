"""Reading loosely typed values from exported files: numbers as text, names, lists of names.

Gang managers write numbers as they print them: ``4``, ``"4"``, ``"4+"``,
``"5\""``, ``"120 credits"``. Each reader returns the value or raises
``ValueError`` with a short reason that a report line can quote.
"""

from __future__ import annotations

import re
from typing import Any

from bot.render import clip
from rules.names import visible

# A whole number with the marks gang sheets print after it: 4+ (target
# numbers), 5" (Movement), credits.
_NUMBER = re.compile(
    r'^\s*([+-]?\d{1,9})\s*(?:\+|"|”|″|\'\'|cr|credits?|¢|c)?\s*$', re.IGNORECASE
)
NAME_MAX = 100


def read_int(value: Any, *, low: int = 0, high: int = 1_000_000) -> int:
    """A whole number from an int, an integral float or text such as "4+" or "5\"".

    The bounds are inclusive; booleans, fractions and anything else are refused.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value!r} is not a whole number")
        number = int(value)
    elif isinstance(value, str):
        match = _NUMBER.match(value)
        if match is None:
            raise ValueError(f"'{clip(value, 20)}' is not a number")
        number = int(match.group(1))
    else:
        raise ValueError(f"{type(value).__name__} is not a number")
    if not low <= number <= high:
        raise ValueError(f"{number} is outside {low}..{high}")
    return number


def read_name(value: Any, what: str = "name") -> str:
    """A name as stored: text, whitespace collapsed, 1..100 characters."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"the {what} is not text")
    name = " ".join(value.split())
    if not name:
        raise ValueError(f"the {what} is empty")
    if not visible(name):
        # The models refuse such a name too, but with an error no player should see.
        raise ValueError(f"the {what} has nothing visible in it (only invisible characters)")
    if len(name) > NAME_MAX:
        raise ValueError(f"the {what} is longer than {NAME_MAX} characters")
    return name


def read_names(value: Any, what: str) -> tuple[list[str], list[str]]:
    """A list of names (text, or objects with a "name"); returns (names, problems)."""
    if value is None:
        return [], []
    if not isinstance(value, list):
        return [], [f"{what} is not a list"]
    names: list[str] = []
    problems: list[str] = []
    for index, entry in enumerate(value, start=1):
        raw = entry.get("name") if isinstance(entry, dict) else entry
        try:
            names.append(read_name(raw, what))
        except ValueError as error:
            problems.append(f"{what} #{index}: {error}")
    return names, problems


ID_MAX = 200


def read_id(value: Any) -> str | None:
    """An outside id (number or text) as text; None when absent or unusable."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value) if isinstance(value, int) else value
    if isinstance(text, str) and 0 < len(text.strip()) <= ID_MAX:
        return text.strip()
    return None
