"""Shared helpers for the importing tests: the hand-written fixture files and id makers."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.importing.worker import import_worker
from rules.data import default_ruleset
from rules.ruleset import RuleSet

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def slag_kings() -> dict[str, Any]:
    """The Yaktribe export of 21 gangers (one malformed), decoded fresh for each test."""
    data: dict[str, Any] = json.loads(fixture_bytes("yaktribe_slag_kings.json"))
    return data


def id_maker(prefix: str = "id") -> Callable[[], str]:
    counter = itertools.count(1)
    return lambda: f"{prefix}{next(counter)}"


@pytest.fixture
def ruleset() -> RuleSet:
    return default_ruleset()


@pytest.fixture(scope="session", autouse=True)
def _import_worker_stopped() -> Iterator[None]:
    """Tests that read files start the import worker's child; it stops with the session."""
    yield
    import_worker.shutdown()
