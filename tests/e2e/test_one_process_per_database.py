"""One bot per database, with two real processes; the files it makes are its owner's only.

The bot of this module is started from a config file that holds the token and
other users can read (mode 0644), as an operator might leave it. A second
``python -m bot run`` and a ``restore`` are started beside it on the same
database and must be refused at once, while ``backup`` works and the first bot
goes on answering.

Its own module: one bot process (killed and restarted at the end) and database.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from demo.arena import TOKEN, Arena, open_arena
from tests.e2e.processes import Finished, bot_command


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    workdir: Path = tmp_path_factory.mktemp("one-bot")
    # The usual umask, so that a file created without an explicit mode would be 0644.
    umask = os.umask(0o022)
    try:
        async with open_arena(workdir, start=False) as running:
            config = running.config_path.read_text(encoding="utf-8")
            running.config_path.write_text(
                config.replace("[discord]\n", f'[discord]\ntoken = "{TOKEN}"\n'),
                encoding="utf-8",
            )
            running.config_path.chmod(0o644)
            await running.start_bot()
            yield running
    finally:
        os.umask(umask)


async def launcher(arena: Arena, *args: str) -> Finished:
    """``python -m bot <args> --config <the arena's>``, beside the arena's bot."""
    return await bot_command(*args, config=arena.config_path, workdir=arena.workdir)


def lock_file(arena: Arena) -> Path:
    return arena.database_path.with_name(arena.database_path.name + ".lock")


def bot_pid(arena: Arena) -> int:
    assert arena.process is not None
    return arena.process.pid


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def still_answers(arena: Arena) -> None:
    result = await arena.driver.slash("Underhive", "general", "alice", "roll", expression="D6")
    assert "D6 → [" in result.content


async def test_a_token_in_a_file_others_can_read_is_warned_about(arena: Arena) -> None:
    log = arena.log_path.read_text(errors="replace")
    assert (f"The config file {arena.config_path} holds the bot token and other users "
            "can read it (mode 0644)") in log


async def test_the_database_its_wal_and_its_lock_are_the_owners_only(arena: Arena) -> None:
    await still_answers(arena)
    db = arena.database_path
    for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), lock_file(arena)):
        assert mode(path) == 0o600, f"{path.name}: {mode(path):04o}"
    held = dict(line.split("=", 1) for line in lock_file(arena).read_text().splitlines())
    assert held["pid"] == str(bot_pid(arena))


async def test_a_second_bot_on_the_same_database_is_refused(arena: Arena) -> None:
    # Without the token warning: the refusal must be the second process's only line.
    arena.config_path.chmod(0o600)
    identified = arena.fake.gateway.identify_count

    second = await launcher(arena, "run")

    assert second.code == 2, second.stderr
    lines = second.stderr.splitlines()
    assert len(lines) == 1, second.stderr
    assert lines[0].startswith(f"munda-arbitrator: The database {arena.database_path} is in use")
    assert str(lock_file(arena)) in lines[0]
    assert f"pid {bot_pid(arena)}" in lines[0]
    assert arena.fake.gateway.identify_count == identified
    await still_answers(arena)


@pytest.mark.parametrize("link", ["symlink", "hard link"])
async def test_a_second_bot_through_another_name_of_the_file_is_refused(
    arena: Arena, link: str
) -> None:
    # Another folder: a lock file beside the link would not be the first bot's.
    elsewhere = arena.workdir / f"elsewhere-{link.replace(' ', '-')}"
    elsewhere.mkdir()
    other_name = elsewhere / "same.db"
    if link == "symlink":
        other_name.symlink_to(arena.database_path)
    else:
        os.link(arena.database_path, other_name)
    arena.config_path.chmod(0o600)
    identified = arena.fake.gateway.identify_count
    try:
        second = await bot_command("run", config=arena.config_path, workdir=arena.workdir,
                                   env={"MUNDA_DATABASE_PATH": str(other_name)})

        assert second.code == 2, second.stderr
        lines = [line for line in second.stderr.splitlines() if "hard links)" not in line]
        assert len(lines) == 1, second.stderr
        assert lines[0].startswith(f"munda-arbitrator: The database {other_name}")
        assert "is in use by another Munda Arbitrator process" in lines[0]
        if link == "symlink":
            assert f"(the file {arena.database_path})" in lines[0]
            assert str(lock_file(arena)) in lines[0]
            assert f"pid {bot_pid(arena)}" in lines[0]
        else:
            assert "through another name of the same file: it has 2 hard links" in lines[0]
        assert arena.fake.gateway.identify_count == identified
        assert sorted(p.name for p in elsewhere.iterdir()) == ["same.db"]
        await still_answers(arena)
    finally:
        other_name.unlink()
        elsewhere.rmdir()


async def test_backup_works_beside_the_bot_and_is_private(arena: Arena) -> None:
    made = await launcher(arena, "backup")
    assert made.code == 0, made.stderr
    folder = arena.workdir / "backups"
    (backup,) = folder.iterdir()
    assert f"backup written to {backup}" in made.stdout
    assert mode(folder) == 0o700
    assert mode(backup) == 0o600


async def test_restore_is_refused_while_the_bot_runs(arena: Arena) -> None:
    made = await launcher(arena, "backup")
    assert made.code == 0, made.stderr
    backup = Path(made.stdout.split("backup written to ", 1)[1].strip())
    before = arena.database_path.stat()
    files_before = sorted(p.name for p in arena.workdir.iterdir())

    restored = await launcher(arena, "restore", str(backup))

    assert restored.code == 2, restored.stdout + restored.stderr
    lines = restored.stderr.splitlines()
    assert len(lines) == 1, restored.stderr
    assert str(lock_file(arena)) in lines[0]
    assert f"pid {bot_pid(arena)}" in lines[0]
    after = arena.database_path.stat()
    assert (after.st_ino, after.st_dev) == (before.st_ino, before.st_dev)
    assert sorted(p.name for p in arena.workdir.iterdir()) == files_before
    await still_answers(arena)


async def test_a_killed_bot_leaves_no_lock_in_the_way(arena: Arena) -> None:
    killed = bot_pid(arena)
    assert await arena.stop_bot(kill=True) == -9
    # The file outlives a SIGKILL, still naming the dead process; the lock does not.
    assert f"pid={killed}\n" in lock_file(arena).read_text()

    await arena.start_bot()

    await still_answers(arena)
    assert f"pid={bot_pid(arena)}\n" in lock_file(arena).read_text()
    assert await arena.stop_bot() == 0
    assert not lock_file(arena).exists()
