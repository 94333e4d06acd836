"""Shared fixtures for the rules tests."""

from __future__ import annotations

import pytest

from rules.data import default_ruleset
from rules.ruleset import RuleSet


@pytest.fixture(scope="module")
def ruleset() -> RuleSet:
    return default_ruleset()
