"""What a Territory's income and Boons do is stored, and migration 0007 restores it."""

from __future__ import annotations

from pathlib import Path

import aiosqlite

from bot.storage import Campaign, Storage, new_id
from bot.storage.database import connect, load_migrations
from rules.data import default_ruleset
from rules.models import Alignment

from .conftest import ACTOR, GUILD_A, write_old_territories


async def test_a_territory_keeps_the_alignment_its_income_is_for(
    storage: Storage, campaign: Campaign
) -> None:
    doc_shop = next(t for t in default_ruleset().territories if t.income_only_for is not None)
    added = doc_shop.model_copy(update={"id": new_id()})
    await storage.write(GUILD_A).add_territory(campaign.id, added, actor=ACTOR)
    [stored] = [t for t in await storage.read(GUILD_A).list_territories(campaign.id)
                if t.id == added.id]
    assert stored.income_only_for is doc_shop.income_only_for is Alignment.OUTLAW
    world = await storage.read(GUILD_A).load_world(campaign.id, [])
    assert world.territories[added.id].income_only_for is Alignment.OUTLAW


async def test_migration_7_gives_territories_what_their_template_does(db_path: Path) -> None:
    conn = await connect(db_path, migrations=[m for m in load_migrations() if m.version <= 6])
    await conn.execute(
        "INSERT INTO campaigns (pk, id, guild_id, name, name_key, is_default, scenario_die,"
        " ruleset, skirmish, created_at) VALUES (1, 'c1', ?, 'Dust Falls', 'dust falls', 1,"
        " 'D6', 'core-2023', 0, '2024-01-01T00:00:00+00:00')", (GUILD_A,),
    )
    await write_old_territories(conn, ["Rogue Doc Shop", "Tunnels", "Doc's Own Shop"],
                                income="D6x10")
    async with await Storage.open(db_path) as storage:
        found = {t.name: t for t in await storage.read(GUILD_A).list_territories("c1")}
    assert found["Rogue Doc Shop"].income_only_for is Alignment.OUTLAW
    shipped = {t.name: t for t in default_ruleset().territories}
    assert found["Rogue Doc Shop"].boon_effects == shipped["Rogue Doc Shop"].boon_effects
    assert found["Rogue Doc Shop"].boon_effects  # a free Rogue Doc for the Law Abiding
    assert found["Tunnels"].income_only_for is None
    assert found["Doc's Own Shop"].income_only_for is None  # named by hand: pays every gang
    async with aiosqlite.connect(db_path) as raw:
        cursor = await raw.execute("SELECT income_only_for FROM territories ORDER BY pk")
        assert [row[0] for row in await cursor.fetchall()] == ["Outlaw", None, None]

