"""Storage for imports: a campaign's own Trading Post, import links, staged imports, export."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.importing.plan import StagedGangImport
from bot.importing.tradingpost import parse_trading_post, require_clean
from bot.storage import LATEST_VERSION, Campaign, GangImportLink, Storage, TradingPostEntry
from rules.errors import InvalidRequest
from tests import factories as f
from tests.importing.conftest import fixture_bytes
from tests.storage.conftest import ACTOR, GUILD_A, GUILD_B, campaign, scalar

__all__ = ["campaign"]  # a fixture; db_path and storage come from tests/conftest.py


def entries() -> list[TradingPostEntry]:
    return require_clean(parse_trading_post(fixture_bytes("trading_post.csv")))


@pytest.fixture
def staged(campaign: Campaign) -> StagedGangImport:
    """A gang staged for import into ``campaign`` (a confirmation not yet given)."""
    return StagedGangImport(campaign_id=campaign.id, gang=f.gang("Ash Wolves"),
                            source_label="Yaktribe")


async def taken(
    storage: Storage, campaign: Campaign, token: str, **limits: timedelta
) -> tuple[str, StagedGangImport] | None:
    """What taking the import staged under ``token`` gives (None: nothing to take)."""
    return await storage.write(GUILD_A).take_staged_import(campaign.id, token, StagedGangImport,
                                            **limits)


def link(gang_id: str = "g1", external: str = "48213") -> GangImportLink:
    return GangImportLink(source="yaktribe", external_id=external, gang_id=gang_id,
                          fighter_ids={"9001": "f1"}, imported_at=datetime.now(UTC))


async def test_the_schema_has_the_import_tables(storage: Storage) -> None:
    assert LATEST_VERSION >= 3
    assert await storage.schema_version() == LATEST_VERSION


async def test_a_campaigns_trading_post_is_stored_and_noted(
    storage: Storage, campaign: Campaign
) -> None:
    assert campaign.trading_post is None
    saved = await storage.write(GUILD_A).set_trading_post(
        campaign.id, entries(), actor=ACTOR, note="Trading Post imported: 13 items"
    )
    assert saved.trading_post == entries()
    again = await storage.read(GUILD_A).get_campaign_by_name("ash wastes")
    assert again.trading_post is not None and again.trading_post[0].category == "Basic Weapons"
    events = await storage.read(GUILD_A).recent_events(campaign.id)
    assert events[0].text == "Trading Post imported: 13 items" and events[0].actor == ACTOR
    cleared = await storage.write(GUILD_A).set_trading_post(
        campaign.id, None, actor=ACTOR, note="x")
    assert cleared.trading_post is None
    # Other settings edits leave the Trading Post alone.
    await storage.write(GUILD_A).set_trading_post(campaign.id, entries(), actor=ACTOR, note="y")
    renamed = await storage.write(GUILD_A).rename_campaign(campaign.id, "Dust Falls II")
    assert renamed.trading_post == entries()


async def test_another_server_cannot_set_it(storage: Storage, campaign: Campaign) -> None:
    with pytest.raises(InvalidRequest):
        await storage.write(GUILD_B).set_trading_post(campaign.id, entries(), actor=ACTOR, note="x")


async def test_import_links_are_kept_and_replaced(storage: Storage, campaign: Campaign) -> None:
    assert await storage.read(GUILD_A).find_gang_import(campaign.id, "yaktribe", "48213") is None
    await storage.write(GUILD_A).save_gang_import(campaign.id, link("g1"))
    found = await storage.read(GUILD_A).find_gang_import(campaign.id, "yaktribe", "48213")
    assert found is not None and found.gang_id == "g1" and found.fighter_ids == {"9001": "f1"}
    await storage.write(GUILD_A).save_gang_import(campaign.id, link("g2"))
    found = await storage.read(GUILD_A).find_gang_import(campaign.id, "yaktribe", "48213")
    assert found is not None and found.gang_id == "g2"
    assert await storage.read(GUILD_A).find_gang_import(campaign.id, "munda", "48213") is None


async def test_staged_imports_are_taken_once(
    storage: Storage, campaign: Campaign, staged: StagedGangImport
) -> None:
    await storage.write(GUILD_A).stage_import(campaign.id, "tok1", ACTOR, staged)
    assert await taken(storage, campaign, "tok1") == (ACTOR, staged)
    assert await taken(storage, campaign, "tok1") is None


async def test_a_failed_confirmation_puts_the_staged_import_back(
    storage: Storage, campaign: Campaign, staged: StagedGangImport
) -> None:
    await storage.write(GUILD_A).stage_import(campaign.id, "tok2", ACTOR, staged)
    with pytest.raises(RuntimeError):
        async with storage.transaction(GUILD_A) as tx:
            assert await tx.take_staged_import(campaign.id, "tok2", StagedGangImport)
            raise RuntimeError("the gang could not be stored")
    assert await taken(storage, campaign, "tok2")


async def test_old_staged_imports_expire(
    storage: Storage, campaign: Campaign, staged: StagedGangImport
) -> None:
    await storage.write(GUILD_A).stage_import(campaign.id, "old", ACTOR, staged)
    assert await taken(storage, campaign, "old", max_age=timedelta(0)) is None
    await storage.write(GUILD_A).stage_import(campaign.id, "old2", ACTOR, staged)
    # Staging another sweeps what is older than its max_age.
    await storage.write(GUILD_A).stage_import(
        campaign.id, "new", ACTOR, staged, max_age=timedelta(0))
    assert await taken(storage, campaign, "old2") is None


async def test_export_and_import_carry_the_trading_post_and_links(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).set_trading_post(campaign.id, entries(), actor=ACTOR, note="x")
    await storage.write(GUILD_A).create_gang(
        campaign.id, f.gang("Ash Wolves", id="g1"), actor=ACTOR)
    await storage.write(GUILD_A).save_gang_import(campaign.id, link("g1"))
    document = await storage.read(GUILD_A).export_campaign(campaign.id)
    assert document.campaign.trading_post == entries()
    assert [x.gang_id for x in document.gang_imports] == ["g1"]
    imported = await storage.write(GUILD_B).import_campaign(
        document.model_dump_json(), actor=ACTOR
    )
    assert imported.trading_post == entries()
    found = await storage.read(GUILD_B).find_gang_import(imported.id, "yaktribe", "48213")
    # The link follows its gang to the fresh id it got on import.
    gang = await storage.read(GUILD_B).get_gang_by_name(imported.id, "Ash Wolves")
    assert found is not None and found.gang_id == gang.id != "g1"


async def test_an_older_export_without_the_new_fields_still_imports(
    storage: Storage, campaign: Campaign
) -> None:
    data = (await storage.read(GUILD_A).export_campaign(campaign.id)).model_dump(mode="json")
    del data["gang_imports"]
    del data["campaign"]["trading_post"]
    imported = await storage.write(GUILD_B).import_campaign(data, actor=ACTOR)
    assert imported.trading_post is None


async def test_deleting_a_campaign_takes_its_import_rows(
    storage: Storage, campaign: Campaign, staged: StagedGangImport
) -> None:
    await storage.write(GUILD_A).stage_import(campaign.id, "tok", ACTOR, staged)
    await storage.write(GUILD_A).save_gang_import(campaign.id, link())
    await storage.write(GUILD_A).delete_campaign(campaign.id)
    assert await scalar(storage, "SELECT COUNT(*) FROM gang_imports") == 0
    assert await scalar(storage, "SELECT COUNT(*) FROM staged_imports") == 0
