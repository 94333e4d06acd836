"""A refusal quoting a name shows it as typed: its markdown escaped once, never twice.

Some refusals are composed where names are escaped already (the cogs, with
bot.render.safe), others quote them raw (rules, storage, permission checks);
both reach the player through bot.errors. Its own module: one bot process.
"""

from __future__ import annotations

from demo.arena import Arena
from tests.e2e.battle_helpers import ensure_member

G, CH, CAMP, STAR = "Underhive", "general", "Escapes", "*Star*"


async def test_a_refusal_quoting_a_name_escapes_it_exactly_once(arena: Arena) -> None:
    made = await arena.driver.slash(G, CH, "alice", "campaign create", name=CAMP)
    assert not made.ephemeral, made.content
    gang = await arena.driver.slash(G, CH, "bob", "gang create", name=STAR, house="Escher",
                                    alignment="Law Abiding", credits=100, campaign=CAMP)
    assert not gang.ephemeral, gang.content

    # Composed in the cog, the name escaped there.
    no_run = await arena.driver.slash(G, CH, "bob", "rewards claim", gang=STAR, credit_dice=1,
                                     campaign=CAMP)
    assert no_run.ephemeral
    assert no_run.content.startswith("\\*Star\\* has no post-battle sequence"), no_run.content
    assert "\\\\" not in no_run.content

    # Composed with the raw name (a permission check).
    ensure_member(arena, "dan")
    not_yours = await arena.driver.slash(G, CH, "dan", "stash add", gang=STAR, credits=10,
                                         campaign=CAMP)
    assert not_yours.ephemeral
    assert not_yours.content.startswith("\\*Star\\* is not your gang"), not_yours.content
    assert "\\\\" not in not_yours.content
