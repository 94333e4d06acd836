"""End-to-end fixtures: the real bot process against the project's fake Discord.

One bot process serves a whole test module (starting one takes a couple of
seconds); tests keep to their own names so they do not see each other's
gangs. Each module gets a fresh database. Every test of a module runs in the
module's event loop, the one its bot was started in (set here for all modules).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from demo.arena import Arena, open_arena
from tests.e2e.battle_helpers import bot_ready, ensure_member

E2E = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(E2E) and item.get_closest_marker("asyncio") is not None:
            item.add_marker(pytest.mark.asyncio(loop_scope="module"), append=False)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    workdir: Path = tmp_path_factory.mktemp("arena")
    async with open_arena(workdir) as running:
        yield running


@pytest.fixture
async def players(arena: Arena) -> None:
    """The bot ready, and dan and eve (besides alice and bob) members of the server.

    A battle module marks itself ``pytest.mark.usefixtures("players")``.
    """
    await bot_ready(arena)
    ensure_member(arena, "dan")
    ensure_member(arena, "eve")
