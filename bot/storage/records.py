"""Storage-level models: what the repository returns besides the rules' own models."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rules.dice import DiceRoll
from rules.models import Battle, CampaignSettings, Equipment, Gang, Territory
from rules.ruledata import RuleData
from rules.world import Change

EXPORT_FORMAT: Literal["munda-arbitrator/campaign"] = "munda-arbitrator/campaign"
EXPORT_VERSION: Literal[1] = 1


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


def shared_fields(model: BaseModel, fields: type[BaseModel]) -> dict[str, Any]:
    """``model``'s values of the fields ``fields`` declares (one of its bases), as they are."""
    return {name: getattr(model, name) for name in fields.model_fields}


class TradingPostEntry(Equipment):
    """One line of a campaign's own Trading Post: an item with the category it is listed under.

    ``category`` ("Basic Weapons", "Armour") is only for showing the list;
    the rules see plain :class:`rules.models.Equipment` (``bot.rulesets``).
    """

    category: str = Field(default="", max_length=100)

    def equipment(self) -> Equipment:
        return Equipment.model_validate(self.model_dump(exclude={"category"}))


class CampaignFields(Record):
    """What a campaign is, stored or exported alike (the export adds no server)."""

    id: str
    settings: CampaignSettings
    # Discord user ids of the Arbitrators, and/or a role whose members are.
    arbitrator_user_ids: list[int] = Field(default_factory=list)
    arbitrator_role_id: int | None = None
    report_channel_id: int | None = None
    created_at: datetime
    # The campaign's own Trading Post; None: the rule set's (bot.rulesets.ruleset_for).
    trading_post: list[TradingPostEntry] | None = None


class Campaign(CampaignFields):
    """One campaign of one Discord server."""

    guild_id: int
    is_default: bool = False
    # The campaign's own rule data (rules.ruledata.RuleData) as the JSON text stored,
    # validated once per distinct text by bot.rulesets; None: none.
    rule_data: str | None = None

    @property
    def name(self) -> str:
        return self.settings.name

    def is_arbitrator(self, user_id: int, role_ids: list[int] | None = None) -> bool:
        if user_id in self.arbitrator_user_ids:
            return True
        return self.arbitrator_role_id is not None and self.arbitrator_role_id in (role_ids or [])


EventKind = Literal["roll", "change", "note", "undo"]


class LedgerEvent(Record):
    """One row of the ledger: a roll, a change, a note or an undo."""

    id: int
    kind: EventKind
    at: datetime
    actor: str
    clause: str
    # The action that wrote it; None for events imported from another server.
    action_id: int | None = None
    battle_id: str | None = None
    step: str | None = None
    expression: str | None = None
    faces: list[int] | None = None
    total: int | None = None
    purpose: str | None = None
    subject: str | None = None
    subject_id: str | None = None
    subject_name: str | None = None
    gang_id: str | None = None
    path: str | None = None
    before: JsonValue = None
    after: JsonValue = None
    text: str | None = None
    # Its action was undone since: the event stays, as what happened then.
    undone: bool = False
    # Set on events brought in by /campaign import: the campaign they were recorded in
    # (by its name in the file) and when they were imported. A file's claims carry no
    # authority, so these events are history of that campaign, never rolls made here.
    imported_from: str | None = None
    imported_at: datetime | None = None

    @property
    def imported(self) -> bool:
        return self.imported_from is not None

    @property
    def roll(self) -> DiceRoll | None:
        if self.kind != "roll" or self.expression is None:
            return None
        return DiceRoll(
            expression=self.expression,
            faces=tuple(self.faces or ()),
            total=self.total or 0,
            purpose=self.purpose or "",
        )

    @property
    def change(self) -> Change | None:
        if self.kind != "change" or self.subject is None or self.subject_id is None:
            return None
        return Change(
            subject=self.subject,
            subject_id=self.subject_id,
            subject_name=self.subject_name or self.subject_id,
            gang_id=self.gang_id,
            path=self.path or "",
            before=self.before,
            after=self.after,
        )


class ActionRecord(Record):
    """One applied action: a rules result, a roster edit or an undo."""

    id: int
    at: datetime
    actor: str
    clause: str
    title: str
    battle_id: str | None = None
    step: str | None = None
    notes: list[str] = Field(default_factory=list)
    gang_ids: list[str] = Field(default_factory=list)
    # Set on an undo: the action it reverted.
    undoes: int | None = None
    # Set on an action that a later undo reverted.
    undone_by: int | None = None


class Snapshot(Record):
    """Gangs and territories as they were before an action (None: did not exist)."""

    gangs: dict[str, Gang | None] = Field(default_factory=dict)
    territories: dict[str, Territory | None] = Field(default_factory=dict)


class SequenceFields(Record):
    """What names a stored sequence and its version, listed or exported alike."""

    key: str
    model: str
    battle_id: str | None = None
    revision: int


class SequenceRecord(SequenceFields):
    """A stored sequence state, without the state itself."""

    updated_at: datetime


class ExportedSequence(SequenceFields):
    state: dict[str, Any]


class ExportedCampaign(CampaignFields):
    # The campaign's own rule data (docs/rule-data.md), validated like an imported file.
    rule_data: RuleData | None = None


class GangImportLink(Record):
    """Which gang an outside source (a Yaktribe gang id) was imported as (docs/importing.md)."""

    source: str = Field(min_length=1, max_length=32)
    external_id: str = Field(min_length=1, max_length=200)
    gang_id: str = Field(min_length=1, max_length=64)
    # The source's fighter keys (Yaktribe ganger_id) -> fighter ids here.
    fighter_ids: dict[str, str] = Field(default_factory=dict)
    imported_at: datetime


class CampaignDocument(Record):
    """A whole campaign as one versioned JSON document (docs/storage.md)."""

    format: Literal["munda-arbitrator/campaign"] = EXPORT_FORMAT
    version: Literal[1] = EXPORT_VERSION
    exported_at: datetime
    guild_id: int
    campaign: ExportedCampaign
    gangs: list[Gang] = Field(default_factory=list)
    territories: list[Territory] = Field(default_factory=list)
    battles: list[Battle] = Field(default_factory=list)
    sequences: list[ExportedSequence] = Field(default_factory=list)
    # Oldest first; ids are the source server's and are renumbered on import.
    ledger: list[LedgerEvent] = Field(default_factory=list)
    gang_imports: list[GangImportLink] = Field(default_factory=list)
