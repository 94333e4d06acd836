"""Values written into a PostgreSQL statement's text, for the statements a write
transaction sends together as one script (bot/storage/postgres.py).

A script of several statements goes in one round trip only by PostgreSQL's simple query
protocol, which takes no parameters: each value is written as a literal. Strings are
escape strings (``E'...'``), whose meaning does not depend on the server's
``standard_conforming_strings``: a backslash and a quote are each doubled, and nothing
else in the text can end the literal. A value of any other type than those below is
refused (TypeError) rather than guessed at.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from bot.storage.driver import placeholders_filled


def literal(value: Any) -> str:
    """``value`` as a PostgreSQL literal of the type its column or operator asks for."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):  # before int: True is an int too
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        # In brackets, so that a minus never meets another into a comment ("- -1").
        return f"({value})" if value < 0 else str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "'NaN'::float8"
        if math.isinf(value):
            return "'Infinity'::float8" if value > 0 else "'-Infinity'::float8"
        return f"({value!r})" if value < 0 else repr(value)
    if isinstance(value, Decimal):
        return f"'{value}'::numeric"
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("PostgreSQL text cannot hold a NUL character.")
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    if isinstance(value, bytes):
        return f"E'\\\\x{value.hex()}'::bytea"
    if isinstance(value, datetime):
        return f"'{value.isoformat()}'::timestamptz"
    if isinstance(value, date):
        return f"'{value.isoformat()}'::date"
    raise TypeError(f"No PostgreSQL literal for a {type(value).__name__}.")


def inlined(sql: str, params: Any) -> str:
    """``sql`` (``?`` placeholders) with ``params`` written in as literals."""
    return placeholders_filled(sql, [literal(value) for value in params])
