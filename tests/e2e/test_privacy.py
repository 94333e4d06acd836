"""What the bot forgets, through the real bot process: /campaign delete with its Confirm
button, and a server removing the bot (docs/privacy.md).

One bot serves the module. The Underhive keeps a campaign of its own throughout, so
each test also proves that nothing outside what was deleted went with it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from demo.arena import Arena
from tests.e2e.battle_helpers import bot_ready, new_fighter, new_gang, until
from tests.e2e.helpers import G, U, said, slash

KEPT, DOOMED = "Kept Hive", "Doomed Hive"

# Everything a campaign holds, by the table's campaign column.
CAMPAIGN_TABLES = ("gangs", "territories", "battles", "actions", "ledger_events", "sequences",
                   "staged_imports", "gang_imports")


def count(arena: Arena, sql: str, *args: object) -> int:
    """One number straight from the bot's database file (WAL lets it read beside the bot)."""
    with sqlite3.connect(f"file:{arena.database_path}?mode=ro", uri=True) as db:
        return int(db.execute(sql, args).fetchone()[0])


def held_by(arena: Arena, campaign_pk: int) -> dict[str, int]:
    return {table: count(arena, f"SELECT COUNT(*) FROM {table} WHERE campaign_pk = ?",
                         campaign_pk) for table in CAMPAIGN_TABLES}


def campaign_pk(arena: Arena, name: str) -> int:
    return count(arena, "SELECT pk FROM campaigns WHERE name = ?", name)


def outbox_of(arena: Arena, campaign_id: str) -> int:
    return count(arena, "SELECT COUNT(*) FROM outbox WHERE json_extract(link, '$.campaign') = ?",
                 campaign_id)


def campaign_id(arena: Arena, name: str) -> str:
    with sqlite3.connect(f"file:{arena.database_path}?mode=ro", uri=True) as db:
        return str(db.execute("SELECT id FROM campaigns WHERE name = ?", (name,)).fetchone()[0])


async def settled(check: Callable[[], bool], what: str) -> None:
    await until(lambda: True if check() else None, what, timeout=15.0)


async def test_campaign_delete_asks_then_removes_everything_in_it(arena: Arena) -> None:
    driver = arena.driver
    for name in (KEPT, DOOMED):
        started = await slash(arena, "alice", "campaign create", name=name)
        assert "has begun" in started.content, started.content
    await new_gang(driver, "alice", KEPT, "Survivors")
    for owner, gang, leader in (("alice", "Red Lords", "Grax"), ("bob", "Blue Fangs", "Vell")):
        await new_gang(driver, owner, DOOMED, gang)
        await new_fighter(driver, owner, DOOMED, gang, leader, "Goliath Forge Tyrant")
    await slash(arena, "alice", "stash add", gang="Red Lords", credits=5, campaign=DOOMED)
    # A run in progress: a battle, its sequence, its thread's messages in the outbox.
    begun = await driver.slash(U, G, "alice", "postbattle start", winner="Red Lords",
                               gang1="Red Lords", gang2="Blue Fangs", campaign=DOOMED)
    assert not begun.ephemeral, begun.content
    doomed_pk, doomed_id = campaign_pk(arena, DOOMED), campaign_id(arena, DOOMED)
    await settled(lambda: outbox_of(arena, doomed_id) > 0, "the run's messages to be owed")
    before = held_by(arena, doomed_pk)
    assert all(before[t] > 0 for t in ("gangs", "battles", "ledger_events", "sequences")), before
    kept = held_by(arena, campaign_pk(arena, KEPT))

    not_arbitrator = await slash(arena, "bob", "campaign delete", campaign=DOOMED)
    assert not_arbitrator.ephemeral and "Only an Arbitrator" in not_arbitrator.content
    asked = await slash(arena, "alice", "campaign delete", campaign=DOOMED)
    assert asked.ephemeral
    assert "Delete **Doomed Hive** and everything in it: 2 gangs, 1 battle," in asked.content
    assert "[Confirm] [Cancel]" in asked.text()
    cancelled = await driver.click(asked, "Cancel", "alice")
    assert cancelled.content == "Cancelled; nothing was changed."
    assert held_by(arena, doomed_pk) == before

    asked_again = await slash(arena, "alice", "campaign delete", campaign=DOOMED)
    twice = await slash(arena, "alice", "campaign delete", campaign=DOOMED)
    done = await driver.click(asked_again, "Confirm", "alice")
    assert done.content == "**Doomed Hive** has been deleted, with everything in it."
    notice = await done.wait_followups(1)
    assert not notice[0].ephemeral and "deleted the campaign **Doomed Hive**" in notice[0].content
    assert count(arena, "SELECT COUNT(*) FROM campaigns WHERE name = ?", DOOMED) == 0
    assert set(held_by(arena, doomed_pk).values()) == {0}
    assert outbox_of(arena, doomed_id) == 0
    assert held_by(arena, campaign_pk(arena, KEPT)) == kept
    late = await driver.click(twice, "Confirm", "alice")
    assert "already gone" in late.content
    gone = await slash(arena, "alice", "campaign show", campaign=DOOMED)
    assert gone.ephemeral and "no campaign called" in gone.content


async def test_a_server_that_removes_the_bot_loses_its_data_at_once(arena: Arena) -> None:
    # bob is an Administrator of the Spire; the Underhive keeps its campaign.
    started = await arena.driver.slash("Spire", G, "bob", "campaign create", name="Spire Wars")
    assert not started.ephemeral, said(started)
    founded = await arena.driver.slash("Spire", G, "bob", "gang create", name="Spire Gang",
                                       house="Goliath", alignment="Law Abiding", credits=500)
    assert not founded.ephemeral, said(founded)
    spire = arena.fake.guild("Spire").id
    underhive = arena.fake.guild(U).id
    kept = count(arena, "SELECT COUNT(*) FROM campaigns WHERE guild_id = ?", underhive)
    assert kept > 0
    assert count(arena, "SELECT COUNT(*) FROM campaigns WHERE guild_id = ?", spire) == 1

    await bot_ready(arena)
    arena.fake.gateway.dispatch_guild_delete(spire)
    await settled(
        lambda: count(arena, "SELECT COUNT(*) FROM campaigns WHERE guild_id = ?", spire) == 0,
        "the Spire's campaign to be deleted",
    )
    assert count(arena, "SELECT COUNT(*) FROM gangs") == count(
        arena, "SELECT COUNT(*) FROM gangs JOIN campaigns ON campaigns.pk = gangs.campaign_pk"
        " WHERE campaigns.guild_id = ?", underhive)
    assert count(arena, "SELECT COUNT(*) FROM outbox WHERE guild_id = ?", spire) == 0
    assert count(arena, "SELECT COUNT(*) FROM campaigns WHERE guild_id = ?", underhive) == kept



async def test_campaign_delete_asks_again_whether_the_clicker_is_still_an_arbitrator(
    arena: Arena,
) -> None:
    driver = arena.driver
    contested = "Contested Hive"
    started = await slash(arena, "alice", "campaign create", name=contested)
    assert "has begun" in started.content, started.content
    await new_gang(driver, "bob", contested, "Grey Wolves")
    made = await slash(arena, "alice", "campaign settings", campaign=contested,
                       arbitrator_add="bob")
    assert not made.ephemeral, said(made)
    asked = await slash(arena, "bob", "campaign delete", campaign=contested)
    assert asked.ephemeral and "[Confirm] [Cancel]" in asked.text(), said(asked)
    # Between the question and the click, bob stops being an Arbitrator.
    unmade = await slash(arena, "alice", "campaign settings", campaign=contested,
                         arbitrator_remove="bob")
    assert not unmade.ephemeral, said(unmade)
    pk = campaign_pk(arena, contested)
    before = held_by(arena, pk)
    assert before["gangs"] == 1, before
    late = await driver.click(asked, "Confirm", "bob")

    assert "Only an Arbitrator of Contested Hive" in late.content, said(late)
    assert "deleted" not in said(late)
    assert count(arena, "SELECT COUNT(*) FROM campaigns WHERE name = ?", contested) == 1
    assert held_by(arena, pk) == before
