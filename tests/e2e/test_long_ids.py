"""A campaign with 64-character ids plays its post-battle sequence like any other.

Its ids do not fit in Discord's 100-character custom ids as they are; the
report panels and steps still post, every select and button still reaches
the bot, and the ids carried by their keys resolve back (a fighter's in the
injuries select too). Its own module: one bot process and database.
"""

from __future__ import annotations

from typing import Any

from bot.storage import Storage
from bot.ui.custom_ids import CUSTOM_ID_MAX, id_key
from demo.arena import Arena
from fakediscord.entities import Message
from rules.models import Gang
from tests.e2e.postbattle_steps import (
    CH,
    G,
    campaign,
    confirm,
    eventually,
    gang,
    in_thread,
    pick,
    report_panel,
    start,
    submit,
    titled,
)

HOME, AWAY = "Long Ids Home", "Long Ids Away"
FIRST, SECOND = "Longhaul Kin", "Farreach Crew"


def long(stored_id: str) -> str:
    return (stored_id + "-imported-" + "z" * 64)[:64]


async def copy_with_long_ids(arena: Arena, name: str) -> None:
    """A copy of the home campaign whose gangs and fighters have 64-character ids, as
    imports made before every import got fresh ids left them in a database."""
    storage = await Storage.open(arena.database_path)
    try:
        guild = arena.fake.world.guild(G).id
        home = await storage.read(guild).get_campaign_by_name(HOME)
        copy = await storage.write(guild).create_campaign(
            home.settings.model_copy(update={"name": name}),
            arbitrator_user_ids=home.arbitrator_user_ids,
        )
        for stored in await storage.read(guild).list_gangs(home.id):
            data = stored.model_dump(by_alias=True)
            data["id"] = long(stored.id)
            for fighter in data["fighters"]:
                fighter["id"] = long(fighter["id"])
            await storage.write(guild).create_gang(copy.id, Gang.model_validate(data), actor="0")
    finally:
        await storage.close()


async def away_fighter_id(arena: Arena, name: str) -> str:
    storage = await Storage.open(arena.database_path)
    try:
        guild = arena.fake.world.guild(G).id
        found = await storage.read(guild).get_campaign_by_name(AWAY)
        gang_ = await storage.read(guild).get_gang_by_name(found.id, SECOND)
    finally:
        await storage.close()
    return next(f.id for f in gang_.fighters if f.name == name)


def custom_ids(messages: list[Message]) -> list[str]:
    return [str(c["custom_id"]) for m in messages for c in m.iter_components()
            if c.get("custom_id")]


def newest_panel_with(arena: Arena, thread: Any, prefix: str) -> Message | None:
    panel = report_panel(arena, thread, SECOND)
    return panel if any(c.startswith(prefix) for c in custom_ids([panel])) else None


async def test_a_campaign_with_64_character_ids_plays_its_post_battle(
    arena: Arena,
) -> None:
    await campaign(arena, HOME)
    await gang(arena, "bob", FIRST, HOME)
    await gang(arena, "carol", SECOND, HOME)
    await copy_with_long_ids(arena, AWAY)

    _, thread = await start(arena, "bob", AWAY, FIRST, FIRST, SECOND)
    posted = custom_ids(in_thread(arena, thread))
    assert posted and all(len(c) <= CUSTOM_ID_MAX for c in posted)

    await pick(arena, thread, SECOND, "carol", "ooa", [f"{SECOND} 3"])
    assert f"{SECOND} 3" in report_panel(arena, thread, SECOND).embed_text()

    # The injuries select names the fighter: a 64-character id travels as its key.
    fighter_id = await away_fighter_id(arena, f"{SECOND} 3")
    assert len(fighter_id) == 64
    panel = report_panel(arena, thread, SECOND)
    section = next(s for s in panel.selects if s["placeholder"] == "Report which part?")
    value = next(o["value"] for o in section["options"]
                 if o["label"] == "Lasting Injuries rolled at the table")
    await arena.driver.select(panel, section["custom_id"], [value], "carol")
    panel = await eventually(lambda: newest_panel_with(arena, thread, "munda:pb:inj:"),
                             "the injuries section")
    select = next(s for s in panel.selects if s["custom_id"].startswith("munda:pb:inj:"))
    assert select["custom_id"].endswith(f":{id_key(fighter_id)}")
    eye = next(o["value"] for o in select["options"] if o["label"] == "Eye Injury")
    picked = await arena.driver.select(panel, select["custom_id"], [eye], "carol")
    assert not picked.ephemeral, picked.text()
    await eventually(lambda: "Eye Injury" in report_panel(arena, thread, SECOND).embed_text(),
                     "the panel to show the injury entered")

    assert "Waiting for" in await submit(arena, thread, FIRST, "bob")
    assert "Wrap-up" in await submit(arena, thread, SECOND, "carol")
    wrap = await eventually(lambda: titled(in_thread(arena, thread), "Wrap-up"), "the Wrap-up")
    assert "Eye Injury" in wrap[-1].embed_text()
    assert "Confirmed Wrap-up" in await confirm(arena, thread, "bob")
    assert "Next: Assign/Reassign Territory" in await confirm(arena, thread, "carol")


async def test_a_gang_with_a_64_character_id_is_deleted_with_its_confirm_button(
    arena: Arena,
) -> None:
    third = "Long Ids Third"
    await copy_with_long_ids(arena, third)
    asked = await arena.driver.slash(G, CH, "carol", "gang delete", gang=SECOND,
                                     campaign=third)
    assert asked.ephemeral and "Delete **Farreach Crew**" in asked.content, asked.content
    button = next(b for b in asked.message.buttons if b["label"] == "Confirm")
    assert len(button["custom_id"]) <= CUSTOM_ID_MAX and "~" in button["custom_id"]
    done = await arena.driver.click(asked, "Confirm", "carol")
    assert "has been deleted" in done.content, done.content
    listed = await arena.driver.slash(G, CH, "carol", "gang list", campaign=third)
    assert SECOND not in listed.text() and FIRST in listed.text()
