"""Steps the end-to-end tests share: a slash command as a user, what the bot said, its database.

Everything goes through the real bot process and the fake Discord, as a
player would; the database is the bot's own file, opened beside it (SQLite
WAL and a busy timeout make that safe while the bot runs).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bot.storage import Storage
from demo.arena import Arena
from fakediscord.result import InteractionResult

U, G = "Underhive", "general"


async def slash(arena: Arena, who: str, command: str, /, *, guild: str = U,
                **options: Any) -> InteractionResult:
    return await arena.driver.slash(guild, G, who, command, **options)


def said(result: InteractionResult) -> str:
    """Everything the bot answered: content and embeds of every message."""
    return "\n".join(f"{m.content}\n{m.embed_text()}" for m in result.messages)


async def ok(arena: Arena, user: str, command: str, **options: Any) -> str:
    """Run a command that must succeed publicly; return what it said."""
    result = await slash(arena, user, command, **options)
    assert not result.ephemeral, f"/{command} was refused: {result.content}"
    return said(result)


async def refused(arena: Arena, user: str, command: str, **options: Any) -> str:
    """Run a command that must be refused ephemerally; return the refusal."""
    result = await slash(arena, user, command, **options)
    assert result.ephemeral, f"/{command} was not refused: {said(result)}"
    assert "Something went wrong" not in result.content, result.content
    return result.content


async def stash(arena: Arena, gang: str) -> str:
    return await ok(arena, "bob", "stash show", gang=gang)


async def new_gang(arena: Arena, owner: str, name: str, credits: int = 1000) -> str:
    """A Goliath gang founded by ``owner`` in the default campaign."""
    await ok(arena, owner, "gang create", name=name, house="Goliath",
             alignment="Law Abiding", credits=credits)
    return name


@asynccontextmanager
async def database(arena: Arena) -> AsyncIterator[Storage]:
    """The bot's own database, opened beside it: to seed what other cogs would build, or
    to check what was stored."""
    storage = await Storage.open(arena.database_path)
    try:
        yield storage
    finally:
        await storage.close()
