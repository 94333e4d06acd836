"""Export one campaign as a versioned JSON document, and import one.

Domain ids (gangs, fighters, items, vehicles, territories, battles, sequence
keys) are unique per campaign, so an import keeps them all and every
reference between them (captured_by, controller, crew_id, battle gang ids,
ids inside sequence states) stays valid; only the campaign gets a new id and
ledger events new numbers. Undo snapshots are not exported: an imported
campaign starts with nothing to undo.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import aiosqlite

from bot.storage import battles, campaigns, imports, ledger, sequences
from bot.storage.codec import dumps, now, territory_from_row
from bot.storage.records import Campaign as CampaignRecord
from bot.storage.records import CampaignDocument, ExportedCampaign, ExportedSequence
from bot.storage.roster import (
    GangWrite,
    TerritoryWrite,
    fetch_rosters,
    fetch_territories,
    gang_from_rows,
    save_rosters,
    save_territories,
)
from rules.errors import InvalidRequest


async def export_campaign(
    db: aiosqlite.Connection, guild_id: int, campaign_id: str
) -> CampaignDocument:
    row = await campaigns.campaign_row(db, guild_id, campaign_id)
    campaign = campaigns.campaign_from_row(row)
    pk = int(row["pk"])
    rosters = await fetch_rosters(db, pk)
    territories = await fetch_territories(db, pk)
    return CampaignDocument(
        exported_at=datetime.now(UTC),
        guild_id=guild_id,
        campaign=ExportedCampaign(
            id=campaign.id,
            settings=campaign.settings,
            arbitrator_user_ids=campaign.arbitrator_user_ids,
            arbitrator_role_id=campaign.arbitrator_role_id,
            report_channel_id=campaign.report_channel_id,
            created_at=campaign.created_at,
            trading_post=campaign.trading_post,
        ),
        gangs=[gang_from_rows(rows) for rows in rosters.values()],
        territories=[territory_from_row(r) for r in territories.values()],
        battles=list(reversed(await battles.list_recent(db, pk, gang_id=None, limit=None))),
        sequences=[
            ExportedSequence(
                key=r["key"],
                model=r["model"],
                battle_id=r["battle_id"],
                revision=r["revision"],
                state=json.loads(r["state"]),
            )
            for r in await sequences.all_rows(db, pk)
        ],
        ledger=await ledger.events(db, pk, newest_first=False),
        gang_imports=await imports.all_links(db, pk),
    )


Document = CampaignDocument | Mapping[str, Any] | str | bytes


def read_document(document: Document) -> CampaignDocument:
    """Accept the model, its JSON text, or the parsed JSON; refuse other formats readably."""
    if isinstance(document, CampaignDocument):
        return document
    if isinstance(document, str | bytes):
        try:
            document = json.loads(document)
        except ValueError as error:
            raise InvalidRequest("That file is not JSON, so not a campaign export.") from error
    if not isinstance(document, Mapping):
        raise InvalidRequest("That file is not a Munda Arbitrator campaign export.")
    fmt, version = document.get("format"), document.get("version")
    if fmt != "munda-arbitrator/campaign":
        raise InvalidRequest("That file is not a Munda Arbitrator campaign export.")
    if version != 1:
        raise InvalidRequest(
            f"That campaign export is format version {version}; this bot reads version 1. "
            "Upgrade the bot to import it."
        )
    return CampaignDocument.model_validate(document)


async def import_campaign(
    db: aiosqlite.Connection,
    guild_id: int,
    document: Document,
    *,
    actor: str,
    name: str | None,
) -> CampaignRecord:
    """Create the document's campaign on ``guild_id``, in the caller's transaction."""
    doc = read_document(document)
    settings = doc.campaign.settings
    if name is not None:
        settings = settings.model_copy(update={"name": name})
    # Role and channel ids belong to the server they came from.
    same_server = doc.guild_id == guild_id
    campaign = await campaigns.create(
        db, guild_id, settings,
        arbitrator_user_ids=doc.campaign.arbitrator_user_ids,
        arbitrator_role_id=doc.campaign.arbitrator_role_id if same_server else None,
        report_channel_id=doc.campaign.report_channel_id if same_server else None,
        make_default=False,
        created_at=doc.campaign.created_at.isoformat(),
        trading_post=doc.campaign.trading_post,
    )
    pk = await campaigns.campaign_pk(db, guild_id, campaign.id)
    await imports.save_links(db, pk, doc.gang_imports)
    await save_rosters(db, pk, [GangWrite(g.id, g, None) for g in doc.gangs])
    await save_territories(db, pk, [TerritoryWrite(t.id, t, None) for t in doc.territories])
    for battle in doc.battles:
        await battles.create(db, pk, battle, check_gangs=False)
    await db.executemany(
        "INSERT INTO sequences (campaign_pk, key, model, battle_id, state, revision, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (pk, s.key, s.model, s.battle_id, dumps(s.state), s.revision, now())
            for s in doc.sequences
        ],
    )
    rows = [ledger.event_values(pk, event) for event in doc.ledger]
    rows.append(
        ledger.event_values(
            pk,
            ledger.note_event(
                actor,
                f"Imported campaign '{doc.campaign.settings.name}' ({doc.campaign.id}) "
                f"exported {doc.exported_at.isoformat()} from server {doc.guild_id}.",
            ),
        )
    )
    await ledger.insert_plain_events(db, rows)
    return campaign
