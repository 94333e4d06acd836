"""Shared pytest configuration: a real storage for each test, on both drivers.

``storage`` is a fresh SQLite file, and again a fresh PostgreSQL database (copied
from a migrated template) on a throwaway server started for the session
(tests/postgres_server.py). Tests marked ``sqlite_only`` (file modes, the lock
file, quick_check, the backup API, old-version files, SQL against the file) run
on SQLite alone. Without a server the PostgreSQL cases are skipped and the summary
says so; with ``CI`` set they fail instead.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.storage import Storage
from bot.storage.opening import open_storage
from fakediscord import FakeDiscord
from tests import postgres_server

DRIVERS = ["sqlite", "postgresql"]


@dataclass
class _Postgres:
    admin_url: str | None = None
    problem: str | None = None
    server: postgres_server.LocalServer | None = None
    started: bool = False
    ran: int = 0
    skipped: int = 0
    seconds: float = 0.0
    tried: bool = field(default=False)


_PG = _Postgres()


def _start_postgres() -> None:
    if _PG.tried:
        return
    _PG.tried = True
    url = os.environ.get(postgres_server.URL_VARIABLE, "")
    try:
        if not url:
            binaries = postgres_server.binaries()
            if binaries is None:
                _PG.problem = "no PostgreSQL server binaries in /usr/lib/postgresql"
                return
            _PG.server = postgres_server.LocalServer(binaries)
            url = _PG.server.start()
        # The first test to ask runs inside its own event loop: the template is made
        # on a loop of its own, in a thread.
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, postgres_server.prepare_template(url)).result()
    except Exception as error:  # any failure to start is reported, never hidden
        _PG.problem = f"{type(error).__name__}: {error}"[:500]
        if _PG.server is not None:
            _PG.server.stop()
            _PG.server = None
        return
    _PG.admin_url = url


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only(why): runs on SQLite alone (the reason says why)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop the PostgreSQL case of tests that are SQLite's alone."""
    kept, dropped = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        driver = callspec.params.get("storage") if callspec is not None else None
        if driver == "postgresql" and item.get_closest_marker("sqlite_only") is not None:
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _PG.server is not None:
        _PG.server.stop()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _PG.tried:
        return
    if _PG.admin_url is None:
        terminalreporter.write_line(
            f"{postgres_server.SKIP_REASON} [{_PG.skipped} cases; {_PG.problem}]",
            yellow=True, bold=True,
        )
    else:
        terminalreporter.write_line(
            f"PostgreSQL tests ran: {_PG.ran} cases on a real server"
        )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "campaigns.sqlite3"


@pytest.fixture
def postgres_admin_url() -> Iterator[str]:
    """The session's PostgreSQL server (skipped, or failed under CI, when there is none)."""
    _start_postgres()
    if _PG.admin_url is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the PostgreSQL tests, but: {_PG.problem}")
        _PG.skipped += 1
        pytest.skip(postgres_server.SKIP_REASON)
    _PG.ran += 1
    yield _PG.admin_url


@pytest.fixture
async def postgres_url(postgres_admin_url: str) -> AsyncIterator[str]:
    """A fresh, EMPTY database on the session's server."""
    url = await postgres_server.create_database(postgres_admin_url, migrated=False)
    try:
        yield url
    finally:
        await postgres_server.drop_database(postgres_admin_url, url)


@pytest.fixture(params=DRIVERS)
async def storage(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[Storage]:
    if request.param == "sqlite":
        store = await Storage.open(db_path)
        try:
            yield store
        finally:
            await store.close()
        return
    admin: str = request.getfixturevalue("postgres_admin_url")
    url = await postgres_server.create_database(admin, migrated=True)
    store = await open_storage(url)
    try:
        yield store
    finally:
        await store.close()
        await postgres_server.drop_database(admin, url)


# The token the fake Discord of the outbox tests accepts.
FAKE_TOKEN = "tests-token"


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """The fake Discord with its demo server, running on loopback for one test (its own
    tests, in tests/fakediscord, set theirs up apart)."""
    discord = FakeDiscord.demo(token=FAKE_TOKEN)
    await discord.start()
    try:
        yield discord
    finally:
        await discord.stop()


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The connection (its id) of every call queued to an aiosqlite thread."""
    made: list[int] = []
    queue = aiosqlite.Connection._execute

    async def counted(conn: aiosqlite.Connection, fn: Callable[..., Any], *args: Any,
                      **kwargs: Any) -> Any:
        made.append(id(conn))
        return await queue(conn, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    yield made


@pytest.fixture
def pg_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The text of every statement asyncpg sends: each of its calls is one round trip to
    the server (BEGIN, COMMIT and a pooled connection's reset included: they are
    ``execute`` calls too; ``executemany`` sends its rows in one)."""
    made: list[str] = []

    def spy(original: Callable[..., Any]) -> Callable[..., Any]:
        async def counted(conn: asyncpg.Connection, query: str, *args: Any,
                          **kwargs: Any) -> Any:
            made.append(" ".join(query.split())[:60])
            return await original(conn, query, *args, **kwargs)
        return counted

    for name in ("execute", "fetch", "fetchrow", "fetchval", "executemany"):
        monkeypatch.setattr(asyncpg.Connection, name, spy(getattr(asyncpg.Connection, name)))
    yield made
