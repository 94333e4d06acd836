"""A throwaway PostgreSQL server for the test session, and a fresh database per test.

``MUNDA_TEST_POSTGRES_URL`` (a server the tests may create and drop databases on)
wins; otherwise the Debian server binaries (/usr/lib/postgresql/<version>/bin) are
started on a temporary folder, as the ``postgres`` user when the tests run as root
(the server refuses to run as root). No server: :data:`UNAVAILABLE` says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import asyncpg

URL_VARIABLE = "MUNDA_TEST_POSTGRES_URL"
SKIP_REASON = (
    "PostgreSQL tests SKIPPED: no server (set MUNDA_TEST_POSTGRES_URL or install postgresql)"
)
TEMPLATE = "munda_template"
_names = itertools.count(1)


def _binaries() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                   else 0)
    return found[-1].parent if found else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalServer:
    """initdb + postgres in a temporary folder, stopped (and removed) at the end."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="munda-pg-"))
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            self._as_user = ["runuser", "-u", "postgres", "--"]

    def start(self) -> str:
        data = self.folder / "data"
        subprocess.run(
            [*self._as_user, str(self.binaries / "initdb"), "-D", str(data), "-U", "postgres",
             "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
            check=True, capture_output=True,
        )
        self.process = subprocess.Popen(
            [*self._as_user, str(self.binaries / "postgres"), "-D", str(data),
             "-p", str(self.port), "-h", "127.0.0.1", "-k", str(self.folder),
             # A throwaway server: durability buys nothing here.
             "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
             "-c", "max_connections=200"],
            stdout=subprocess.DEVNULL, stderr=open(self.folder / "server.log", "wb"),  # noqa: SIM115
        )
        url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError((self.folder / "server.log").read_text(errors="replace"))
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not start in 30 s")
            time.sleep(0.05)
        return url

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=20)
        shutil.rmtree(self.folder, ignore_errors=True)


def with_database(url: str, database: str) -> str:
    base, _, _ = url.rpartition("/")
    return f"{base}/{database}"


async def create_database(admin_url: str, *, migrated: bool) -> str:
    """A new empty database (or a copy of the migrated template); returns its URL."""
    name = f"munda_test_{os.getpid()}_{next(_names)}"
    conn = await asyncpg.connect(admin_url)
    try:
        template = TEMPLATE if migrated else "template0"
        await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        await conn.close()
    return with_database(admin_url, name)


async def drop_database(admin_url: str, url: str) -> None:
    name = url.rpartition("/")[2]
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def prepare_template(admin_url: str) -> None:
    """The template every test database is copied from: migrated once per session."""
    from bot.storage.opening import open_storage

    deadline = time.monotonic() + 30
    while True:  # the port opens before the server takes connections
        try:
            conn = await asyncpg.connect(admin_url)
            break
        except (OSError, asyncpg.CannotConnectNowError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{TEMPLATE}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{TEMPLATE}" TEMPLATE template0')
    finally:
        await conn.close()
    store = await open_storage(with_database(admin_url, TEMPLATE))
    await store.close()


def binaries() -> Path | None:
    return _binaries()
