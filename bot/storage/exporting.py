"""Export one campaign as a versioned JSON document, and import one.

An export is a faithful copy of the campaign, less two things: undo
snapshots (an imported campaign starts with nothing to undo) and the secret
dice seeds of post-battle sequences (whoever holds them knows every roll
still to come).

An imported document is untrusted input (docs/importing.md). Nothing in it
keeps its id: :mod:`bot.storage.rekeying` mints fresh ids for the campaign
and everything in it and rewrites every reference. No Discord id in it
carries authority either: the caller vouches, in an :class:`ImportGrant`,
for the report channel, Arbitrator role and gang owners it checked against
its own server, and names the importer; everything else is dropped.
Sequences are passed through the caller's ``history`` (the bot keeps
post-battle sequences as history only); without it none is imported. Ledger
events are stored marked as imported, with the source campaign's name and
the date of the import.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.storage import battles, campaigns, imports, ledger, sequences
from bot.storage.codec import columns, dumps, new_id, now, territory_from_row
from bot.storage.driver import Connection
from bot.storage.records import Campaign as CampaignRecord
from bot.storage.records import (
    CampaignDocument,
    CampaignFields,
    ExportedCampaign,
    ExportedSequence,
    SequenceFields,
    shared_fields,
)
from bot.storage.rekeying import rekey
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
from rules.names import name_key
from rules.ruledata import RuleData

# Keys of a sequence state that never leave the server: bot.battle.state.PostBattleRun's
# per-stage dice seeds. Knowing them is knowing every roll the sequence will make.
SECRET_STATE_KEYS = frozenset({"seeds"})
# Ledger rows written per statement by an import (see import_campaign).
LEDGER_SLICE = 2000


def public_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A sequence state as it may be exported: without its secrets."""
    return {key: value for key, value in state.items() if key not in SECRET_STATE_KEYS}


async def export_campaign(
    db: Connection, guild_id: int, campaign_id: str
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
            **shared_fields(campaign, CampaignFields),
            rule_data=(None if campaign.rule_data is None
                       else RuleData.model_validate_json(campaign.rule_data)),
        ),
        gangs=[gang_from_rows(rows) for rows in rosters.values()],
        territories=[territory_from_row(r) for r in territories.values()],
        battles=list(reversed(await battles.list_recent(db, pk, gang_id=None, limit=None))),
        sequences=[
            ExportedSequence(
                **columns(r, SequenceFields.model_fields),
                state=public_state(json.loads(r["state"])),
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


@dataclass(frozen=True)
class ImportGrant:
    """What the importing server vouches for; nothing else from the file carries authority.

    The caller checks each id against its own server before naming it here.
    ``owner`` (the importer, a user id as text) owns every gang whose owner is not
    in ``owners``.
    """

    owner: str
    arbitrator_user_ids: tuple[int, ...] = ()
    arbitrator_role_id: int | None = None
    report_channel_id: int | None = None
    owners: frozenset[str] = frozenset()

    @classmethod
    def importer_only(cls, actor: str) -> ImportGrant:
        """The importer is the only Arbitrator and owns every gang."""
        return cls(owner=actor, arbitrator_user_ids=(int(actor),) if actor.isdigit() else ())


# A sequence as it is imported (a new copy, as history only), or None to leave it out.
# Called with the sequence already re-keyed and the new campaign's id.
SequenceHistory = Callable[[ExportedSequence, str], ExportedSequence | None]


@dataclass(frozen=True)
class PreparedImport:
    """A document made safe to store: fresh ids, sequences as history (see module doc)."""

    document: CampaignDocument
    source_name: str


def prepare_import(document: Document, history: SequenceHistory | None = None) -> PreparedImport:
    """Read, check and re-key ``document``; pure, so a large one can be prepared in a thread."""
    doc = read_document(document)
    _check_unique(doc)
    campaign_id = new_id()
    fresh = rekey(doc, campaign_id)
    battle_ids = {battle.id for battle in fresh.battles}
    kept: list[ExportedSequence] = []
    for number, sequence in enumerate(fresh.sequences):
        if sequence.battle_id is not None and sequence.battle_id not in battle_ids:
            raise InvalidRequest(
                f"That campaign export is damaged and nothing was imported: sequence "
                f"{number + 1} belongs to a battle the file does not have."
            )
        made = history(sequence, campaign_id) if history is not None else None
        if made is not None:
            kept.append(made)
    return PreparedImport(
        document=fresh.model_copy(update={"sequences": kept}),
        source_name=doc.campaign.settings.name,
    )


def _check_unique(doc: CampaignDocument) -> None:
    """Refuse ids and names the file repeats (storage would refuse them half-way)."""
    fighters = [f for g in doc.gangs for f in g.fighters]
    vehicles = [v for g in doc.gangs for v in (*g.vehicles, *g.stash_vehicles)]
    _unique("gang ids", (g.id for g in doc.gangs))
    _unique("gang names", (name_key(g.name) for g in doc.gangs))
    _unique("fighter ids", (f.id for f in fighters))
    _unique("fighter names", (name_key(f.name) for f in fighters))
    _unique("vehicle ids", (v.id for v in vehicles))
    _unique("vehicle names", (name_key(v.name) for v in vehicles))
    _unique("territory ids", (t.id for t in doc.territories))
    _unique("battle ids", (b.id for b in doc.battles))
    _unique("sequence keys", (s.key for s in doc.sequences))
    for gang in doc.gangs:
        items = [*gang.stash, *(i for f in gang.fighters for i in f.equipment)]
        items += [i for v in (*gang.vehicles, *gang.stash_vehicles)
                  for i in (*v.upgrades, *v.equipment)]
        _unique(f"item ids of gang {gang.name[:40]}", (i.id for i in items))


def _unique(what: str, values: Iterable[str]) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise InvalidRequest(
                f"That campaign export is damaged and nothing was imported: its {what} "
                f"repeat '{value[:40]}'."
            )
        seen.add(value)


async def import_campaign(
    db: Connection,
    guild_id: int,
    document: Document | PreparedImport,
    *,
    actor: str,
    name: str | None,
    grant: ImportGrant | None = None,
) -> CampaignRecord:
    """Create the document's campaign on ``guild_id``, in the caller's transaction.

    ``document`` is prepared here unless it was already (:func:`prepare_import`).
    ``grant`` defaults to the importer alone (``actor``).
    """
    prepared = document if isinstance(document, PreparedImport) else prepare_import(document)
    grant = grant or ImportGrant.importer_only(actor)
    doc = prepared.document
    settings = doc.campaign.settings
    if name is not None:
        settings = settings.model_copy(update={"name": name})
    campaign = await campaigns.create(
        db, guild_id, settings,
        arbitrator_user_ids=grant.arbitrator_user_ids,
        arbitrator_role_id=grant.arbitrator_role_id,
        report_channel_id=grant.report_channel_id,
        make_default=False,
        campaign_id=doc.campaign.id,
        created_at=doc.campaign.created_at.isoformat(),
        trading_post=doc.campaign.trading_post,
        rule_data=(None if doc.campaign.rule_data is None
                   else doc.campaign.rule_data.model_dump_json(by_alias=True)),
    )
    pk = await campaigns.campaign_pk(db, guild_id, campaign.id)
    gangs = [
        gang if gang.owner in grant.owners else gang.model_copy(update={"owner": grant.owner})
        for gang in doc.gangs
    ]
    await imports.save_links(db, pk, doc.gang_imports)
    await save_rosters(db, pk, [GangWrite(g.id, g, None) for g in gangs])
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
    source = ledger.ImportedFrom(prepared.source_name, datetime.fromisoformat(now()))
    # Up to 200,000 rows: converted in a worker thread, which lets the event loop run.
    rows = await asyncio.to_thread(
        lambda: [ledger.event_values(pk, event, source) for event in doc.ledger]
    )
    rows.append(
        ledger.event_values(
            pk,
            ledger.note_event(
                actor,
                f"Imported campaign '{prepared.source_name}' from a file exported "
                f"{doc.exported_at.isoformat()}: {len(doc.ledger)} ledger entries kept as "
                "imported history.",
            ),
        )
    )
    # One executemany of 100,000 rows keeps aiosqlite's thread binding values with the GIL
    # held for seconds, and the event loop then waits its turn for long stretches;
    # slices hand the loop a turn between them.
    for start in range(0, len(rows), LEDGER_SLICE):
        await ledger.insert_plain_events(db, rows[start:start + LEDGER_SLICE])
    return campaign
