"""Export a campaign, import it on another server; online backup of the whole file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bot.storage import EXPORT_FORMAT, Campaign, CampaignDocument, Storage, new_id
from rules.errors import InvalidRequest
from rules.models import Battle, CampaignSettings
from tests import factories as f

from .conftest import (
    ACTOR,
    GUILD_A,
    GUILD_B,
    full_gang,
    held_captive,
    post_battle_step,
    two_gangs,
)


async def populated(storage: Storage) -> Campaign:
    campaign = await storage.write(GUILD_A).create_campaign(
        CampaignSettings(name="Export Me", skirmish=True),
        arbitrator_user_ids=[12], arbitrator_role_id=34, report_channel_id=56,
    )
    wolves, kin = await two_gangs(storage, campaign)
    await held_captive(storage, campaign, kin, "b-ganger", wolves)
    await storage.write(GUILD_A).add_territory(
        campaign.id, f.territory("Sump", id=new_id(), controller=wolves.id), actor=ACTOR
    )
    battle = Battle(id=new_id(), gang_ids=[wolves.id, kin.id], winner=wolves.id)
    await storage.write(GUILD_A).create_battle(campaign.id, battle)
    world = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id])
    result = post_battle_step(world, wolves.id, "a-ganger", faces=[6, 5])
    await storage.write(GUILD_A).apply(campaign.id, result, actor=ACTOR, battle_id=battle.id)
    await storage.write(GUILD_A).save_sequence(campaign.id, f"post:{battle.id}", result.world,
                                battle_id=battle.id)
    return campaign


async def test_export_import_round_trip_onto_an_empty_server(storage: Storage) -> None:
    campaign = await populated(storage)
    document = await storage.read(GUILD_A).export_campaign(campaign.id)
    text = document.model_dump_json()
    raw = json.loads(text)
    assert (raw["format"], raw["version"]) == (EXPORT_FORMAT, 1)

    imported = await storage.write(GUILD_B).import_campaign(raw, actor="99")
    assert imported.id != campaign.id
    assert imported.is_default
    assert imported.settings == campaign.settings
    # A file carries no authority: the importer is the Arbitrator, and role and channel
    # ids are kept only when the caller vouches for them (test_export_rekey.py).
    assert imported.arbitrator_user_ids == [99]
    assert (imported.arbitrator_role_id, imported.report_channel_id) == (None, None)

    async def state(guild: int, campaign_id: str) -> tuple[object, ...]:
        gangs = await storage.read(guild).list_gangs(campaign_id)
        standings = sorted((g.name, g.rating, g.credits, g.reputation) for g in gangs)
        battles = await storage.read(guild).list_battles(campaign_id)
        territories = await storage.read(guild).list_territories(campaign_id)
        return standings, len(battles), [(t.name, t.income) for t in territories]

    assert await state(GUILD_B, imported.id) == await state(GUILD_A, campaign.id)
    # Sequences come only through the caller's history (the bot's keeps runs as history).
    assert await storage.read(GUILD_B).list_sequences(imported.id) == []
    # The history comes along, marked as imported, plus a note saying where it came from.
    old_events = await storage.read(GUILD_A).recent_events(campaign.id, limit=1000)
    new_events = await storage.read(GUILD_B).recent_events(imported.id, limit=1000)
    assert len(new_events) == len(old_events) + 1
    assert "Imported campaign 'Export Me'" in str(new_events[0].text)
    assert [(e.kind, e.path, e.subject_name) for e in new_events[1:]] == [
        (e.kind, e.path, e.subject_name) for e in old_events
    ]
    assert all(e.imported_from == "Export Me" for e in new_events[1:])
    # Nothing to undo on the new server: snapshots stay where they were made.
    with pytest.raises(InvalidRequest, match="nothing to undo"):
        await storage.write(GUILD_B).undo_last_action(imported.id, actor="99")
    # Importing again under the same name is refused; a new name is fine.
    with pytest.raises(InvalidRequest, match="already a campaign"):
        await storage.write(GUILD_B).import_campaign(document, actor="99")
    again = await storage.write(GUILD_B).import_campaign(text, actor="99", name="Copy")
    assert len(await storage.read(GUILD_B).list_gangs(again.id)) == 2


async def test_unknown_documents_are_refused(storage: Storage) -> None:
    with pytest.raises(InvalidRequest, match="not a Munda Arbitrator campaign export"):
        await storage.write(GUILD_B).import_campaign({"format": "other"}, actor="1")
    with pytest.raises(InvalidRequest, match="format version 2"):
        await storage.write(GUILD_B).import_campaign(
            {"format": EXPORT_FORMAT, "version": 2}, actor="1"
        )
    with pytest.raises(InvalidRequest, match="not JSON"):
        await storage.write(GUILD_B).import_campaign("<html>", actor="1")
    assert await storage.read(GUILD_B).list_campaigns() == []


async def test_document_schema_is_the_pydantic_model(storage: Storage) -> None:
    campaign = await populated(storage)
    document = await storage.read(GUILD_A).export_campaign(campaign.id)
    assert CampaignDocument.model_validate_json(document.model_dump_json()) == document


@pytest.mark.sqlite_only("SQLite's online backup API; PostgreSQL: pg_dump")
async def test_online_backup_opens_as_a_complete_database(
    storage: Storage, tmp_path: Path
) -> None:
    campaign = await populated(storage)
    target = tmp_path / "backups" / "copy.sqlite3"
    target.parent.mkdir()
    assert await storage.backup(target) == target
    assert not Path(f"{target}-wal").exists()
    with sqlite3.connect(target) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    async with await Storage.open(target) as copy:
        assert await copy.read(GUILD_A).list_gangs(campaign.id) == await storage.read(
            GUILD_A).list_gangs(campaign.id)
        assert len(await copy.read(GUILD_A).recent_events(campaign.id, limit=500)) == len(
            await storage.read(GUILD_A).recent_events(campaign.id, limit=500)
        )
    # A second backup replaces the first.
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Late", "l"), actor=ACTOR)
    await storage.backup(target)
    async with await Storage.open(target) as copy:
        assert len(await copy.read(GUILD_A).list_gangs(campaign.id)) == 3
