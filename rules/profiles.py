"""Fighter profiles as players write them: read a pasted line, write one back.

Players copy a profile from a roster (``M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+
Cl7+ Wil7+ Int7+``) and paste it whole. :func:`parse_profile` reads it:

- labels in any case, with or without spaces around the values, with or
  without the inch mark of Movement and the "+" of target numbers;
- the table form too: the twelve labels first, then the twelve values
  (``M WS BS ... Int`` on one line, ``5" 4+ 4+ ...`` on the next);
- "-" for a characteristic the fighter does not have.

Every characteristic must be there exactly once: a profile with a gap would
need a made-up figure to fill it. A refusal names the first characteristic
(or piece of text) it could not read, so the player knows what to fix.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from rules.errors import InvalidRequest
from rules.models import PROFILE_STATS, TARGET_STATS, Profile, stat_bounds

LABELS = {
    "m": "M", "ws": "WS", "bs": "BS", "s": "S", "t": "T", "w": "W", "i": "I", "a": "A",
    "ld": "Ld", "cl": "Cl", "wil": "Wil", "int": "Int",
}
# Longest accepted paste: a profile line is about 60 characters, a table about 100.
MAX_PROFILE_TEXT = 300
_ABSENT = "-"
_INCH_MARKS = ('"', "”", "″", "''")
# Letters are labels, anything else that is not space is a value ('5"', "4+", "-").
_TOKEN = re.compile(r"[A-Za-z]+|[^A-Za-z\s]+")
_VALUE = re.compile(r"^(\d{1,3})(.*)$")
_ORDER = ", ".join(LABELS.values())


def stat_text(stat: str, value: int | None) -> str:
    """One characteristic as a roster prints it: '5"', "4+", "3" or "-"."""
    if value is None:
        return _ABSENT
    return f'{value}"' if stat == "m" else f"{value}+" if stat in TARGET_STATS else str(value)


def profile_line(profile: Profile) -> str:
    """``M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+`` ("-" where absent)."""
    return " ".join(f"{LABELS[stat]}{stat_text(stat, profile.get(stat))}"
                    for stat in PROFILE_STATS)


def parse_profile(text: str) -> Profile:
    """Read a pasted profile; refuse, naming the first unreadable characteristic."""
    if len(text) > MAX_PROFILE_TEXT:
        raise InvalidRequest(f"A profile is at most {MAX_PROFILE_TEXT} characters; "
                             f"this one has {len(text)}.")
    tokens = _TOKEN.findall(text)
    if not tokens:
        raise InvalidRequest(f"Paste a profile such as {_example()}.")
    pairs = _pairs(tokens)
    values: dict[str, int | None] = {}
    for label, raw in pairs:
        stat = label.lower()
        if stat not in LABELS:
            raise InvalidRequest(f"'{label[:20]}' is not a characteristic; a profile has "
                                 f"{_ORDER}.")
        if stat in values:
            raise InvalidRequest(f"{LABELS[stat]} is given twice.")
        values[stat] = _value(stat, raw)
    missing = [LABELS[s] for s in PROFILE_STATS if s not in values]
    if missing:
        raise InvalidRequest(f"The profile has no {', '.join(missing)}: give all twelve "
                             f"characteristics ({_ORDER}), '-' for one the fighter lacks.")
    try:
        return Profile.model_validate(values)
    except ValidationError as error:  # bounds are checked in _value; this is a safety net
        raise InvalidRequest(f"That profile cannot be read: {error.errors()[0]['msg']}.") from None


def _pairs(tokens: list[str]) -> list[tuple[str, str]]:
    """(label, value) pairs from the line form or the table form."""
    count = len(PROFILE_STATS)
    labels_first = tokens[:count]
    if (len(tokens) == 2 * count and all(t.isalpha() for t in labels_first)
            and not any(t.isalpha() for t in tokens[count:])):
        return list(zip(labels_first, tokens[count:], strict=True))
    pairs: list[tuple[str, str]] = []
    index = 0
    while index < len(tokens):
        label = tokens[index]
        if not label.isalpha():
            raise InvalidRequest(f"'{label[:20]}' has no characteristic before it: write each "
                                 f"value after its label, as in {_example()}.")
        if index + 1 >= len(tokens) or tokens[index + 1].isalpha():
            name = LABELS.get(label.lower(), label[:20])
            raise InvalidRequest(f"{name} has no value: write it as in {_example()}, "
                                 "or '-' if the fighter lacks it.")
        pairs.append((label, tokens[index + 1]))
        index += 2
    return pairs


def _value(stat: str, raw: str) -> int | None:
    label = LABELS[stat]
    if raw == _ABSENT:
        return None
    match = _VALUE.match(raw)
    if match is None:
        raise InvalidRequest(f"{label} '{raw[:20]}' is not a value: write a number "
                             f"({_hint(stat)}), or '-' if the fighter lacks it.")
    number, rest = int(match.group(1)), match.group(2)
    allowed = {"", "+"} if stat in TARGET_STATS else {""}
    if stat == "m":
        allowed |= set(_INCH_MARKS)
    if rest not in allowed:
        raise InvalidRequest(f"{label} '{raw[:20]}' is not a value: write it as {_hint(stat)}.")
    low, high = stat_bounds(stat)
    if not low <= number <= high:
        shown = f"{low}+ to {high}+" if stat in TARGET_STATS else f"{low} to {high}"
        raise InvalidRequest(f"{label} {raw[:20]} is out of range: {label} goes from {shown}.")
    return number


def _hint(stat: str) -> str:
    if stat == "m":
        return '5" or 5'
    return "4+ or 4" if stat in TARGET_STATS else "3"


def _example() -> str:
    return "`M5\" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+`"
