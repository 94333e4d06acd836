"""/roll takes dice as players write them, modifiers included, through the real bot."""

from __future__ import annotations

import re

from demo.arena import Arena


async def test_roll_with_a_modifier_is_rolled_openly(arena: Arena) -> None:
    result = await arena.driver.slash("Underhive", "general", "alice", "roll",
                                      expression="2D6+1", purpose="to hit")
    assert not result.ephemeral
    found = re.search(r"to hit: 2D6\+1 → \[(\d), (\d)\] = \*\*(\d+)\*\*", result.content)
    assert found is not None, result.content
    first, second, total = (int(v) for v in found.groups())
    assert total == first + second + 1


async def test_an_absurd_modified_roll_is_refused_privately(arena: Arena) -> None:
    result = await arena.driver.slash("Underhive", "general", "bob", "roll",
                                      expression="D6+D6+D6+D6+D6+D6+D6")
    assert result.ephemeral and "at most 6 terms" in result.content
