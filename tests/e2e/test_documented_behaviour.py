"""What the documents promise a player, through the real bot process: /help lists the
command tree, and a fighter written onto a roster by hand gets Gang Hierarchy from its
category (so a gang of a House outside the shipped House Lists makes post-battle actions).
"""

from __future__ import annotations

from demo.arena import Arena
from tests.e2e import hostile
from tests.e2e.helpers import ok, slash


async def test_help_lists_every_command_of_the_tree_privately(arena: Arena) -> None:
    shown = await slash(arena, "bob", "help")
    assert shown.ephemeral
    assert shown.embed is not None, shown.text()
    text = str(shown.embed["description"])
    lines = {line.split("**")[1]: line for line in text.splitlines()}
    for command in hostile.catalogue(arena.fake):
        top, *rest = command.path.split(" ")
        assert f"/{top}" in lines, (top, text)
        assert all(part in lines[f"/{top}"] for part in rest), (command.path, lines[f"/{top}"])
    assert "territory add/list/assign" in lines["/campaign"]
    assert "docs/arbitrator.md" in shown.text() and "docs/player.md" in shown.text()


async def test_fighters_by_hand_get_gang_hierarchy_from_their_category(arena: Arena) -> None:
    await ok(arena, "alice", "campaign create", name="Orlock Wars")
    await ok(arena, "bob", "gang create", name="Rust Hounds", house="Orlock",
             alignment="Law Abiding", credits=500)
    for name, category in (("Brakk", "Leader"), ("Sheen", "Champion"), ("Grub", "Ganger"),
                           ("Pip", "Juve")):
        await ok(arena, "bob", "fighter add", gang="Rust Hounds", name=name,
                 category=category, cost=50)
    for name in ("Brakk", "Sheen"):
        assert "Gang Hierarchy" in await ok(arena, "bob", "fighter show", fighter=name)
    for name in ("Grub", "Pip"):
        assert "Gang Hierarchy" not in await ok(arena, "bob", "fighter show", fighter=name)
