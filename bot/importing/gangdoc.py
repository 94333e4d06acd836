"""The gang file of ``/gang export``, and reading it back with ``/gang import``.

Its JSON (docs/importing.md)::

    {"format": "munda-arbitrator/gang", "version": 1, "exported_at": "...",
     "guild_id": 1, "campaign_id": "...", "campaign_name": "...", "ruleset": "core-2023",
     "gang": { rules.models.Gang }, "territories": ["names of the Territories it holds"]}

The gang is exactly the storage layer's model. Read back into another
campaign it gets fresh gang, fighter and vehicle ids (those are unique per
campaign), item ids are kept (unique per gang only); a fighter held captive
by a gang of the old campaign comes back Active.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.importing.parsed import ParsedGang
from bot.importing.report import ImportReport
from bot.storage import Campaign
from rules.errors import InvalidRequest
from rules.models import FighterStatus, Gang, Territory

GANG_FORMAT: Literal["munda-arbitrator/gang"] = "munda-arbitrator/gang"
SOURCE = "munda"
LABEL = "a Munda Arbitrator gang file"


class GangDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["munda-arbitrator/gang"] = GANG_FORMAT
    version: Literal[1] = 1
    exported_at: datetime
    guild_id: int
    campaign_id: str
    campaign_name: str
    ruleset: str
    gang: Gang
    territories: list[str] = Field(default_factory=list)


def gang_document(
    guild_id: int, campaign: Campaign, gang: Gang, territories: list[Territory]
) -> GangDocument:
    return GangDocument(
        exported_at=datetime.now(UTC),
        guild_id=guild_id,
        campaign_id=campaign.id,
        campaign_name=campaign.name,
        ruleset=campaign.settings.ruleset,
        gang=gang,
        territories=[t.name for t in territories if t.controller == gang.id],
    )


def is_gang_document(data: Any) -> bool:
    return isinstance(data, Mapping) and data.get("format") == GANG_FORMAT


def read_gang_document(data: Any) -> GangDocument:
    if not is_gang_document(data):
        raise InvalidRequest("That file is not a Munda Arbitrator gang file.")
    if data.get("version") != 1:
        raise InvalidRequest(
            f"That gang file is format version {data.get('version')}; this bot reads version 1."
        )
    try:
        return GangDocument.model_validate(data)
    except ValidationError as error:
        where = [
            ".".join(str(part) for part in detail["loc"]) + f": {detail['msg']}"
            for detail in error.errors()[:3]
        ]
        raise InvalidRequest(
            "That gang file is damaged and nothing was imported: " + "; ".join(where) + "."
        ) from None


def parse_gang_document(
    data: Any, *, owner: str, make_id: Callable[[], str], campaign_id: str
) -> ParsedGang:
    """The gang of a gang file with fresh ids, owned by ``owner`` (pure)."""
    doc = read_gang_document(data)
    gang = doc.gang.model_copy(deep=True)
    report = ImportReport()
    fighter_ids = {f.id: make_id() for f in gang.fighters}
    vehicle_ids = {v.id: make_id() for v in [*gang.vehicles, *gang.stash_vehicles]}
    same_campaign = doc.campaign_id == campaign_id
    for fighter in gang.fighters:
        fighter.id = fighter_ids[fighter.id]
        if fighter.status is FighterStatus.CAPTURED and not same_campaign:
            fighter.set_status(FighterStatus.ACTIVE)
            report.problem(
                f"'{fighter.name}' was held captive in {doc.campaign_name}; it comes back Active."
            )
    for vehicle in [*gang.vehicles, *gang.stash_vehicles]:
        vehicle.id = vehicle_ids[vehicle.id]
        if vehicle.crew_id is not None:
            vehicle.crew_id = fighter_ids.get(vehicle.crew_id)
    gang.id = make_id()
    gang.owner = owner
    if doc.territories:
        report.note(
            "Territories it held (not assigned here; an Arbitrator assigns them): "
            + ", ".join(doc.territories)
        )
    return ParsedGang(
        gang=gang,
        report=report,
        source=SOURCE,
        source_label=LABEL,
        external_id=f"{doc.campaign_id}/{doc.gang.id}",
        fighter_keys={new: old for old, new in fighter_ids.items()},
        has_vehicles=True,
    )
