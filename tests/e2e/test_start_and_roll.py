"""The real bot process starts against the fake Discord, answers, and shuts down cleanly."""

from __future__ import annotations

import re

from demo.arena import Arena


async def test_roll_is_public_and_shows_faces(arena: Arena) -> None:
    result = await arena.driver.slash("Underhive", "general", "alice", "roll",
                                      expression="2D6", purpose="availability roll")
    assert not result.ephemeral
    assert re.search(r"availability roll: 2D6 → \[\d, \d\] = \*\*\d+\*\*", result.content)


async def test_bad_expression_gets_a_polite_ephemeral_error(arena: Arena) -> None:
    result = await arena.driver.slash("Underhive", "general", "bob", "roll", expression="D7")
    assert result.ephemeral
    assert "not a dice expression" in result.content
    assert "Traceback" not in result.content


async def test_sigterm_shuts_down_cleanly_and_restart_works(arena: Arena) -> None:
    code = await arena.stop_bot()
    assert code == 0, arena.log_tail()
    assert "database closed" in arena.log_tail()
    await arena.start_bot()
    result = await arena.driver.slash("Underhive", "general", "alice", "roll", expression="D6")
    assert "D6 → [" in result.content
