"""Names that look alike, through the real bot process: one name, refused politely."""

from __future__ import annotations

from demo.arena import Arena
from fakediscord.result import InteractionResult
from tests.e2e.helpers import slash


async def create_gang(arena: Arena, who: str, name: str) -> InteractionResult:
    return await slash(arena, who, "gang create", name=name, house="Goliath",
                       alignment="Outlaw")


async def gang_names(arena: Arena) -> str:
    listed = await slash(arena, "carol", "gang list")
    assert not listed.ephemeral, listed.content
    return listed.text()


async def test_a_zero_width_twin_of_a_gang_is_refused(arena: Arena) -> None:
    await slash(arena, "alice", "campaign create", name="Dust Falls")
    made = await create_gang(arena, "alice", "Red Ones")
    assert not made.ephemeral, made.content
    twin = await create_gang(arena, "bob", "Red Ones\u200b")
    assert twin.ephemeral
    assert "There is already a gang called 'Red Ones' in this campaign." in twin.content
    assert (await gang_names(arena)).count("Red Ones") == 1


async def test_a_cyrillic_look_alike_is_refused_naming_the_gang(arena: Arena) -> None:
    fake = await create_gang(arena, "bob", "R\u0435d \u041enes")
    assert fake.ephemeral
    assert "looks the same as the gang 'Red Ones' in this campaign" in fake.content
    assert "choose a name that can be told apart" in fake.content
    assert "\u0435" not in await gang_names(arena)
    # Typed with the look-alike letters, the name still finds the real gang.
    shown = await slash(arena, "carol", "gang show", gang="R\u0435d \u041enes")
    assert not shown.ephemeral and "Red Ones" in shown.text()


async def test_a_name_with_nothing_visible_is_refused(arena: Arena) -> None:
    before = await gang_names(arena)
    for blank in ("\u200b", "\u200b\u202e\u2060", "\u3164"):
        refused = await create_gang(arena, "bob", blank)
        assert refused.ephemeral
        assert "The gang name has nothing visible in it" in refused.content
        assert "Please use letters, digits or symbols." in refused.content
    assert await gang_names(arena) == before


async def test_a_name_is_stored_without_its_hidden_characters(arena: Arena) -> None:
    made = await create_gang(arena, "bob", "\u2066Grey\u200b Ones\u2069")
    assert not made.ephemeral, made.content
    assert "**Grey Ones** (Goliath" in made.content and "\u200b" not in made.content
    renamed = await slash(arena, "bob", "gang edit", gang="Grey Ones", name="R\u0435d Ones")
    assert renamed.ephemeral and "looks the same as the gang 'Red Ones'" in renamed.content


async def test_look_alikes_from_other_scripts_are_refused_naming_the_gang(arena: Arena) -> None:
    before = await gang_names(arena)
    # Lisu, Cherokee, Lisu, Armenian, Cherokee letters in place of Latin ones.
    for fake in ("\ua4e3ed Ones", "\u13a1ed Ones", "Red \u13a4nes", "Red One\ua4e2",
                 "Red O\u0578es"):
        refused = await create_gang(arena, "bob", fake)
        assert refused.ephemeral, fake
        assert (f"The name '{fake}' looks the same as the gang 'Red Ones' in this campaign"
                in refused.content), refused.content
    assert await gang_names(arena) == before


async def test_look_alike_fighters_are_refused_naming_the_fighter(arena: Arena) -> None:
    made = await slash(arena, "alice", "fighter add", gang="Red Ones", name="Krag",
                       category="Champion", cost=50)
    assert not made.ephemeral, made.content
    for fake in ("\ua4d7rag", "Kra\u0261"):  # Lisu K, Latin script g
        refused = await slash(arena, "alice", "fighter add", gang="Red Ones", name=fake,
                              category="Ganger", cost=50)
        assert refused.ephemeral, fake
        assert (f"The name '{fake}' looks the same as the fighter 'Krag' in this campaign"
                in refused.content), refused.content


async def test_names_a_player_can_tell_apart_are_allowed_in_any_script(arena: Arena) -> None:
    # One letter apart, and Cyrillic names that look like no other gang.
    for name in ("Rex", "Rox", "Жуки", "Шахтёры"):
        made = await create_gang(arena, "carol", name)
        assert not made.ephemeral, (name, made.content)
    listed = await gang_names(arena)
    assert all(name in listed for name in ("Rex", "Rox", "Жуки", "Шахтёры"))
