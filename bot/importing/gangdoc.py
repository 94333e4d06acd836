"""The gang file of ``/gang export``, and reading it back with ``/gang import``.

Its JSON (docs/importing.md)::

    {"format": "munda-arbitrator/gang", "version": 1, "exported_at": "...",
     "guild_id": 1, "campaign_id": "...", "campaign_name": "...", "ruleset": "core-2023",
     "gang": { rules.models.Gang }, "territories": ["names of the Territories it holds"]}

The gang is exactly the storage layer's model. Read back into another
campaign it gets fresh gang, fighter and vehicle ids (those are unique per
campaign), item ids are kept (unique per gang only); a fighter held captive
by a gang of the old campaign comes back Active. Its lists, numbers and texts
are bounded as a Yaktribe export's are (``rules.limits``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.importing.parsed import ParsedGang
from bot.importing.report import ImportReport
from bot.render import clip
from bot.storage import Campaign
from rules.errors import InvalidRequest
from rules.limits import (
    FIGHTER_LISTS,
    MAX_COUNT,
    MAX_FIGHTER_ITEMS,
    MAX_FIGHTERS,
    MAX_GANG_ITEMS,
    MAX_INJURIES,
    MAX_STASH_ITEMS,
    MAX_TERRITORIES,
    MAX_TEXT,
    MAX_VEHICLES,
    check_count,
)
from rules.models import Fighter, FighterStatus, Gang, Name, Territory
from rules.tradingpost import MAX_CREDITS

GANG_FORMAT: Literal["munda-arbitrator/gang"] = "munda-arbitrator/gang"
SOURCE = "munda"
LABEL = "a Munda Arbitrator gang file"


class GangDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["munda-arbitrator/gang"] = GANG_FORMAT
    version: Literal[1] = 1
    exported_at: datetime
    guild_id: int
    # Bounded as the bot's own ids and names are: the import link keeps "campaign_id/gang id".
    campaign_id: str = Field(min_length=1, max_length=64)
    campaign_name: Name
    ruleset: str = Field(max_length=64)
    gang: Gang
    territories: list[Name] = Field(default_factory=list)


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
            f"That gang file is format version {clip(str(data.get('version')), 20)}; "
            "this bot reads version 1."
        )
    _check_texts(data)
    try:
        doc = GangDocument.model_validate(_fighters_validated(data))
    except ValidationError as error:
        raise _damaged(error) from None
    _check_bounds(doc)
    return doc


def _fighters_validated(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The document with its fighters already validated, one at a time.

    Validating a whole gang in one call holds the GIL, and so the event loop,
    for a third of a second at the bounds; fighter by fighter, the loop runs
    in between. The document's own validation takes the models as they are.
    """
    gang = data.get("gang")
    fighters = gang.get("fighters") if isinstance(gang, Mapping) else None
    if not isinstance(gang, Mapping) or not isinstance(fighters, list):
        return data
    check_count(len(fighters), MAX_FIGHTERS, "fighters")
    validated = []
    for index, raw in enumerate(fighters):
        try:
            validated.append(Fighter.model_validate(raw))
        except ValidationError as error:
            raise _damaged(error, ("gang", "fighters", index)) from None
    return {**data, "gang": {**gang, "fighters": validated}}


def _damaged(error: ValidationError, within: tuple[str | int, ...] = ()) -> InvalidRequest:
    where = [
        ".".join(str(part) for part in (*within, *detail["loc"])) + f": {detail['msg']}"
        for detail in error.errors()[:3]
    ]
    return InvalidRequest(
        "That gang file is damaged and nothing was imported: " + "; ".join(where) + "."
    )


def _check_texts(data: Any) -> None:
    """Refuse a key or text longer than MAX_TEXT anywhere in the decoded file."""
    pending: list[Any] = [data]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise InvalidRequest(
                    f"That gang file has a text of {len(value)} characters at "
                    f"{_where_too_long(data)}; this bot reads at most {MAX_TEXT}. "
                    "Nothing was imported."
                )
        elif isinstance(value, Mapping):
            pending += value.keys()
            pending += value.values()
        elif isinstance(value, list):
            pending += value


def _where_too_long(data: Any) -> str:
    """Where the first text over MAX_TEXT is ("gang.fighters.0.skills.3"), for the refusal.

    Only called to explain a refusal, so the walk above need not carry paths.
    """
    pending: list[tuple[Any, str]] = [(data, "")]
    while pending:
        value, where = pending.pop()
        if isinstance(value, str) and len(value) > MAX_TEXT:
            return where
        if isinstance(value, Mapping):
            for key, item in value.items():
                pending += [(key, f"{where} (a key)"), (item, _path(where, clip(key, 40)))]
        elif isinstance(value, list):
            pending += [(item, _path(where, str(index))) for index, item in enumerate(value)]
    return "somewhere"


def _path(where: str, part: str) -> str:
    return f"{where}.{part}" if where else part


def _check_bounds(doc: GangDocument) -> None:
    gang = doc.gang
    check_count(len(doc.territories), MAX_TERRITORIES, "territories")
    check_count(len(gang.fighters), MAX_FIGHTERS, "fighters")
    check_count(len(gang.vehicles), MAX_VEHICLES, "vehicles")
    check_count(len(gang.stash_vehicles), MAX_VEHICLES, "vehicles in the Stash")
    check_count(len(gang.stash), MAX_STASH_ITEMS, "items in the Stash")
    _check_number(gang.battles_fought, MAX_COUNT, "battles fought")
    items = len(gang.stash)
    for fighter in gang.fighters:
        label = f"'{clip(fighter.name, 40)}'"
        for field, (limit, entries) in FIGHTER_LISTS.items():
            check_count(len(getattr(fighter, field)), limit, f"{entries} for {label}")
        _check_number(fighter.xp, MAX_COUNT, f"the XP of {label}")
        _check_number(fighter.kills, MAX_COUNT, f"the kills of {label}")
        for advancement in fighter.advancements:
            _check_number(advancement.xp_cost, MAX_COUNT, f"an advancement's XP for {label}")
            _check_number(advancement.credits, MAX_CREDITS, f"an advancement's cost for {label}")
        items += len(fighter.equipment)
    for vehicle in [*gang.vehicles, *gang.stash_vehicles]:
        label = f"'{clip(vehicle.name, 40)}'"
        check_count(len(vehicle.equipment), MAX_FIGHTER_ITEMS, f"items for {label}")
        check_count(len(vehicle.upgrades), MAX_FIGHTER_ITEMS, f"upgrades for {label}")
        check_count(len(vehicle.lasting_damage), MAX_INJURIES, f"Lasting Damage for {label}")
        items += len(vehicle.equipment) + len(vehicle.upgrades)
    check_count(items, MAX_GANG_ITEMS, "items in the gang (equipment, upgrades and the Stash)")


def _check_number(value: int, limit: int, what: str) -> None:
    if value > limit:
        raise InvalidRequest(
            f"That gang file gives {what} as more than {limit}, the most this bot reads. "
            "Nothing was imported."
        )


def parse_gang_document(
    data: Any, *, owner: str, make_id: Callable[[], str], campaign_id: str
) -> ParsedGang:
    """The gang of a gang file with fresh ids, owned by ``owner`` (pure)."""
    doc = read_gang_document(data)
    # The document was just read from ``data``: its gang is this call's own to change.
    gang = doc.gang
    external_id = f"{doc.campaign_id}/{gang.id}"
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
        external_id=external_id,
        fighter_keys={new: old for old, new in fighter_ids.items()},
        has_vehicles=True,
    )
