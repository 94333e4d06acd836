"""/postbattle start where Discord refuses the battle's thread: the players are told why.

The sequence still runs (in the channel), and a message in the channel says
Discord's answer and which permissions would give later battles a thread.
"""

from __future__ import annotations

from demo.arena import Arena
from fakediscord.common import Perm
from tests.e2e.postbattle_steps import ARENA, CH, G, campaign_of_two, eventually, titled


async def test_a_refused_thread_is_explained_in_the_channel(arena: Arena) -> None:
    ARENA[:] = [arena]
    camp = await campaign_of_two(arena, "No Threads Here", "Rust Rats", "Tin Cans")
    guild = arena.fake.guild(G)
    # The bot's own role and @everyone both grant it on a new server.
    roles = [r for r in guild.roles.values() if r.managed or r.id == guild.id]
    kept = {r.id: r.permissions for r in roles}
    for role in roles:
        role.permissions &= ~Perm.CREATE_PUBLIC_THREADS
    try:
        result = await arena.driver.slash(G, CH, "bob", "postbattle start", winner="Rust Rats",
                                          gang1="Rust Rats", gang2="Tin Cans", campaign=camp)
        assert not result.ephemeral, result.text()

        def channel_text() -> list[str]:
            return [m.content or "" for m in arena.driver.messages(CH, guild=G,
                                                                  include_ephemeral=False)]

        notice = await eventually(
            lambda: [t for t in channel_text() if "could not open a thread" in t],
            "the notice that no thread could be opened")
        assert "403" in notice[-1] and "Missing Permissions" in notice[-1], notice
        assert "Create Public Threads" in notice[-1], notice
        # The sequence goes on in the channel itself: both report panels are there.
        for gang in ("Rust Rats", "Tin Cans"):
            await eventually(
                lambda gang=gang: titled(arena.driver.messages(CH, guild=G,
                                                               include_ephemeral=False),
                                         f"End of battle: {gang}"),
                f"the report panel of {gang} in the channel")
        assert not [t for t in arena.driver.threads(CH, guild=G) if "Rust Rats" in t.name]
    finally:
        for role in roles:
            role.permissions = kept[role.id]
