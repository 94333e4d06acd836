"""JSON text from a file nobody vouches for, decoded with refusals a player can read.

One decoder for every JSON file the bot reads from a player: a gang, a
Trading Post, a campaign export, rule data. Beyond the syntax (left to the
caller, which knows how to name the place), it refuses what Python's own
decoder raises on or lets through: numbers of more than
:data:`rules.limits.MAX_NUMBER_DIGITS` digits, nesting deeper than the
interpreter's stack, text with half a character in it (a lone surrogate
escape), and a key given twice in one object. TOML refuses a repeated key
itself; JSON's last-one-wins would import a value the file also contradicts.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from rules.errors import InvalidRequest
from rules.limits import MAX_DEPTH, MAX_JSON_VALUES, MAX_NUMBER_DIGITS

# A \uD800-\uDFFF escape: JSON's only way to smuggle in half a character.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONGEST_NUMBER = 10**MAX_NUMBER_DIGITS


class _NumberTooLong(Exception):
    pass


class _KeyTwice(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _read_int(text: str) -> int:
    if len(text) - text.startswith("-") > MAX_NUMBER_DIGITS:
        raise _NumberTooLong
    return int(text)


def _read_float(text: str) -> float:
    if len(text) > 2 * MAX_NUMBER_DIGITS:
        raise _NumberTooLong
    return float(text)


def _read_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(pairs)
    if len(made) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise _KeyTwice(key)
            seen.add(key)
    return made


def loads(text: str, what: str, *, subject: str = "That file") -> Any:
    """Decoded JSON; :class:`InvalidRequest` naming what is wrong (``subject`` names the
    file, ``what`` what it should have been: "a gang export").

    Text that is not JSON raises :class:`json.JSONDecodeError`, for the caller to
    say where. Numbers and objects are made by Python functions, not inside the C
    decoder, so a worker thread decoding a file lets the event loop run in between
    (the C decoder holds the GIL throughout).
    """
    try:
        decoded = json.loads(
            text, parse_int=_read_int, parse_float=_read_float, object_pairs_hook=_read_object
        )
    except _NumberTooLong:
        raise InvalidRequest(
            f"{subject} holds a number of more than {MAX_NUMBER_DIGITS} digits, too long to "
            f"be {what}."
        ) from None
    except _KeyTwice as twice:
        raise InvalidRequest(
            f"{subject} gives the key {_shown(twice.key)} twice in one object, so it is not "
            f"{what}: which one is meant?"
        ) from None
    except RecursionError:
        raise InvalidRequest(f"{subject} is nested too deeply to be {what}.") from None
    if _SURROGATE_ESCAPE.search(text):
        _require_whole_characters(decoded, what, subject)
    return decoded


def _shown(key: str) -> str:
    clipped = key if len(key) <= 40 else key[:39] + "…"
    return json.dumps(clipped, ensure_ascii=True)


def _require_whole_characters(decoded: Any, what: str, subject: str) -> None:
    """Refuse text with a lone surrogate (escapes in pairs decode to one whole character)."""
    try:
        json.dumps(decoded, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidRequest(
            f"{subject} holds text with half a character in it (an unpaired escape "
            f"between \\ud800 and \\udfff), so it is not {what}."
        ) from None
    except RecursionError:
        raise InvalidRequest(f"{subject} is nested too deeply to be {what}.") from None


def check_plain(decoded: Any, what: str, *, subject: str = "That file",
                max_values: int = MAX_JSON_VALUES, max_depth: int = MAX_DEPTH) -> None:
    """Refuse decoded JSON or TOML with more values, deeper nesting, longer numbers or
    other floats than a file may have (:mod:`rules.limits`), before a model reads it.

    TOML needs this as much as JSON: its reader makes a 4000-digit integer, an
    ``inf`` and nesting to the interpreter's limit without complaint.
    """
    stack: list[tuple[Any, int]] = [(decoded, 0)]
    values = 0
    while stack:
        value, depth = stack.pop()
        values += 1
        if values > max_values:
            raise too_many_values(what, subject, max_values)
        if depth > max_depth:
            raise InvalidRequest(
                f"{subject} is nested more than {max_depth} levels deep, too deep to be {what}.")
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int) and abs(value) >= _LONGEST_NUMBER:
            raise InvalidRequest(
                f"{subject} holds a number of more than {MAX_NUMBER_DIGITS} digits, too long "
                f"to be {what}.")
        elif isinstance(value, float) and not math.isfinite(value):
            raise InvalidRequest(f"{subject} holds a number that is not finite ({value}), so "
                                 f"it is not {what}.")


def too_many_values(what: str, subject: str = "That file",
                    limit: int = MAX_JSON_VALUES) -> InvalidRequest:
    """The refusal of a file with more than ``limit`` values."""
    return InvalidRequest(
        f"{subject} holds more than {limit} values (texts, numbers, list entries); "
        f"this bot reads at most {limit} in {what}. Nothing was imported.")
