"""Hostile import files through the real bot process: each is refused with a message that says
what is wrong (for a list too long, which bound), and the database is left exactly as it was.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from demo.arena import Arena, open_arena
from fakediscord import Upload
from fakediscord.result import InteractionResult
from rules.limits import MAX_JSON_VALUES, MAX_SKILLS

FIXTURES = Path(__file__).parent.parent / "importing" / "fixtures"
U, G = "Underhive", "general"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    async with open_arena(tmp_path_factory.mktemp("arena")) as running:
        created = await running.driver.slash(U, G, "alice", "campaign create", name="Scrap Hollow")
        assert not created.ephemeral, created.content
        yield running


def slag_kings() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "yaktribe_slag_kings.json").read_bytes())
    return data


def database_rows(arena: Arena) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the bot's database, read beside the running bot."""
    uri = f"file:{arena.database_path}?mode=ro"
    with sqlite3.connect(uri, uri=True) as db:
        tables = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )]
        return {t: sorted(db.execute(f'SELECT * FROM "{t}"'), key=repr) for t in tables}


async def import_file(arena: Arena, name: str, data: bytes) -> InteractionResult:
    return await arena.driver.slash(U, G, "alice", "gang import", file=Upload(name, data))


async def test_a_million_skills_are_refused_naming_the_bound_and_nothing_is_stored(
    arena: Arena,
) -> None:
    data = slag_kings()
    data["gangers"][0]["skills"] = ["x"] * 1_000_000
    before = database_rows(arena)

    refused = await import_file(arena, "skills.json", json.dumps(data, separators=(",", ":"))
                                .encode())

    assert refused.ephemeral
    assert f"more than {MAX_JSON_VALUES} values" in refused.content
    assert f"this bot reads at most {MAX_JSON_VALUES} in a gang export" in refused.content
    assert "Nothing was imported" in refused.content
    assert database_rows(arena) == before


async def test_a_list_over_its_own_bound_is_refused_naming_it(arena: Arena) -> None:
    data = slag_kings()
    data["gangers"][0]["skills"] = ["Nerves of Steel"] * (MAX_SKILLS + 1)
    before = database_rows(arena)

    refused = await import_file(arena, "skills.json", json.dumps(data).encode())

    assert refused.ephemeral
    assert f"{MAX_SKILLS + 1} skills for 'Krug Ironhide'" in refused.content
    assert f"this bot reads at most {MAX_SKILLS}" in refused.content
    assert database_rows(arena) == before


async def test_files_that_used_to_go_wrong_are_refused_in_words(arena: Arena) -> None:
    before = database_rows(arena)
    long_number = b'{"gang_name": "A", "gang_type": "Goliath", "gangers": [], "credits": ' + (
        b"9" * 5000 + b"}"
    )
    number = await import_file(arena, "number.json", long_number)
    assert "holds a number of more than 30 digits" in number.content
    half = await import_file(
        arena, "half.json", b'{"gang_name": "A\\ud800", "gang_type": "Goliath", "gangers": []}'
    )
    assert "half a character" in half.content
    idna = await arena.driver.slash(U, G, "alice", "gang import",
                                    url="https://xn--yaktribe-.games/x")
    assert "That is not a URL this bot can read" in idna.content
    cell = b'name,category,cost,availability\n"' + b"a" * 140_000 + b'",Basic,15,Common\n'
    csv_refused = await arena.driver.slash(U, G, "alice", "campaign tradingpost import",
                                           file=Upload("post.csv", cell))
    assert "a cell is longer than 131072 characters" in csv_refused.content
    for answer in (number, half, idna, csv_refused):
        assert answer.ephemeral and "Something went wrong" not in answer.content
    assert database_rows(arena) == before
