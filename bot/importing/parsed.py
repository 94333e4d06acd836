"""What every gang parser returns: the gang as it would be stored, and what it skipped."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from bot.importing.questions import ImportQuestion
from bot.importing.report import ImportReport
from rules.models import Gang

Source = Literal["yaktribe", "munda"]


class ParsedGang(BaseModel):
    """A gang read from a file, with fresh ids, owned by whoever imports it.

    ``fighter_keys`` maps each fighter id in ``gang`` to the source's own key
    for that fighter (Yaktribe's ganger_id, or the fighter id in the other
    campaign), which is how a re-import recognises its fighters.
    """

    gang: Gang
    report: ImportReport = Field(default_factory=ImportReport)
    source: Source
    # Shown to players: "Yaktribe", "a Munda Arbitrator gang file".
    source_label: str
    # The source's id for the gang (Yaktribe's gang_id); None: cannot be re-imported.
    external_id: str | None = None
    fighter_keys: dict[str, str] = Field(default_factory=dict)
    # Whether the source lists vehicles; if not, a re-import keeps the stored ones.
    has_vehicles: bool = False
    # The Gang Rating the source itself states, to compare with the bot's.
    declared_rating: int | None = None
    # What neither the rule data nor the file settles (a fighter type's category, an
    # item's kind): the preview asks the importing player before Confirm.
    questions: list[ImportQuestion] = Field(default_factory=list)
