"""The command reference in docs/ against the command tree the bot really syncs.

The cogs are loaded into the real bot object (no connection is made), and every
slash command of its tree must have a row in a command page of docs/, naming
each of its options; docs/commands.md must name every command of each group.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from discord import app_commands

from bot.app import MundaBot, discover_cogs
from bot.config import Config
from bot.storage import Storage

DOCS = Path(__file__).parents[2] / "docs"
PAGES = ("commands.md", "commands-campaign-gang.md", "commands-roster.md",
         "commands-battle.md", "importing.md", "battle.md")


def leaves(
    command: app_commands.Command[object, ..., object] | app_commands.Group, prefix: str = ""
) -> Iterator[tuple[str, list[str]]]:
    path = f"{prefix}{command.name}"
    if isinstance(command, app_commands.Group):
        for child in command.commands:
            yield from leaves(child, f"{path} ")
    else:
        yield path, [p.display_name for p in command.parameters]


async def tree_commands(storage: Storage) -> dict[str, list[str]]:
    bot = MundaBot(Config(), storage)
    for name in discover_cogs():
        await bot.load_extension(name)
    found: dict[str, list[str]] = {}
    for command in bot.tree.get_commands():
        if isinstance(command, app_commands.Command | app_commands.Group):
            found.update(leaves(command))
    return found


def rows_of(path: str) -> list[str]:
    """Table rows of the command pages whose first cell is the command."""
    row = re.compile(rf"^\| `/{re.escape(path)}( [^`]*)?` \|")
    return [line for page in PAGES
            for line in (DOCS / page).read_text(encoding="utf-8").splitlines()
            if row.match(line)]


async def test_every_command_has_a_row_naming_each_option(storage: Storage) -> None:
    problems: list[str] = []
    for path, options in sorted((await tree_commands(storage)).items()):
        rows = rows_of(path)
        if not rows:
            problems.append(f"/{path}: no row in {', '.join(PAGES)}")
            continue
        for option in options:
            named = re.compile(rf"[`\[ ]{re.escape(option)}[`\] ]")
            if not any(named.search(row) for row in rows):
                problems.append(f"/{path}: option {option} missing from its row")
    assert not problems, "\n".join(problems)


async def test_the_command_index_names_every_command(storage: Storage) -> None:
    index = (DOCS / "commands.md").read_text(encoding="utf-8")
    missing = []
    for path in await tree_commands(storage):
        top, *rest = path.split(" ")
        line = next((x for x in index.splitlines() if f"`/{top}" in x), "")
        if not line or not all(word in line for word in rest):
            missing.append(path)
    assert not missing, missing
