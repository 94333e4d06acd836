"""docs/importing.md lists every bound of rules/limits.py with the value the module has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules import limits

DOC = (Path(__file__).parents[2] / "docs" / "importing.md").read_text(encoding="utf-8")
BOUNDS = {name: value for name, value in vars(limits).items()
          if name.isupper() and isinstance(value, int)}


def row_naming(name: str) -> str:
    rows = [line for line in DOC.splitlines()
            if line.startswith("|") and re.search(rf"`{name}`", line)]
    assert rows, f"docs/importing.md has no table row naming `{name}`"
    return rows[0]


def spelled(value: int) -> set[str]:
    """How the doc may write ``value``: 2000 or 2,000."""
    return {str(value), f"{value:,}"}


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_every_bound_is_in_the_table_with_its_value(name: str) -> None:
    row = row_naming(name)
    numbers = set(re.findall(r"\d[\d,]*\d|\d", row))
    assert spelled(BOUNDS[name]) & numbers, f"{name} = {BOUNDS[name]} but the doc says: {row}"


def test_the_campaign_list_limits_are_in_the_table() -> None:
    row = row_naming("CAMPAIGN_LIST_LIMITS")
    for key, value in limits.CAMPAIGN_LIST_LIMITS.items():
        assert re.search(rf"\b{key} ({value:,}|{value})\b", row), (key, value)
