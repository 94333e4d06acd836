"""/postbattle start answers from its in-memory index before reading storage, and a
refusal found only in storage still reaches just the one who asked.

The index is made stale here behind the bot's back: the test renames a gang in the
database file directly, a write the bot never counted (in production, a write whose
task has not yet counted it). The bot's storage check is the authority either way.
"""

from __future__ import annotations

import asyncio
import sqlite3

from demo.arena import Arena
from fakediscord import InteractionResult
from fakediscord.common import CallbackType
from rules.names import name_key
from tests.e2e.postbattle_steps import CH, G, campaign_of_two, eventually, thread_of


def _rename_behind_the_bots_back(arena: Arena, old: str, new: str) -> None:
    with sqlite3.connect(arena.database_path) as db:
        changed = db.execute("UPDATE gangs SET name = ?, name_key = ? WHERE name = ?",
                             (new, name_key(new), old)).rowcount
    assert changed == 1


async def _start(arena: Arena, user: str, camp: str, *gangs: str) -> InteractionResult:
    named = {f"gang{i}": g for i, g in enumerate(gangs, start=1)}
    return await arena.driver.slash(G, CH, user, "postbattle start", winner=gangs[0],
                                    campaign=camp, **named)


async def test_a_start_answered_from_the_index_is_still_refused_privately(
    arena: Arena,
) -> None:
    camp = await campaign_of_two(arena, "Indexed Wastes", "Rust Rats", "Glass Eyes")
    for _attempt in range(20):
        # A start naming no such gang is refused on any path; with the index stale it
        # has the index read again.
        unknown = await _start(arena, "bob", camp, "Rust Rats", "Nobody Here")
        assert unknown.ephemeral and "no gang called" in unknown.content, unknown.text()
        await asyncio.sleep(0.2)  # the index's read in the background
        _rename_behind_the_bots_back(arena, "Rust Rats", "Rust Kings")
        asked = await _start(arena, "bob", camp, "Rust Rats", "Glass Eyes")
        record = asked.record
        if record.callback_type == CallbackType.DEFERRED_CHANNEL_MESSAGE:
            break
        # Answered after reading storage (the index was not read yet): try again.
        assert asked.ephemeral and "no gang called" in asked.content, asked.text()
        _rename_behind_the_bots_back(arena, "Rust Kings", "Rust Rats")
    else:
        raise AssertionError("/postbattle start never answered before its storage check")
    # The index said yes; storage said no gang is called that: the public answer is
    # taken back and the refusal goes to Bob alone.
    refusal = await eventually(
        lambda: [m for m in record.followups if m.ephemeral and not m.deleted],
        "the private refusal")
    assert "no gang called" in refusal[0].content
    assert record.original is not None and record.original.deleted
    public = [m for m in [record.original, *record.followups]
              if not m.ephemeral and not m.deleted]
    assert public == []
    assert not [t for t in arena.driver.threads(CH, guild=G) if "Rust Rats" in t.name]
    # Storage as the index read it again: answered first, and started.
    _rename_behind_the_bots_back(arena, "Rust Kings", "Rust Rats")
    started = await _start(arena, "bob", camp, "Rust Rats", "Glass Eyes")
    assert started.record.callback_type == CallbackType.DEFERRED_CHANNEL_MESSAGE
    await eventually(lambda: started.message is not None and started.message.embeds,
                     "the start message")
    assert not started.ephemeral
    await thread_of(arena, "Rust Rats vs Glass Eyes")
