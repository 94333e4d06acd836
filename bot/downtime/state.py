"""The stored state of one gang's Downtime run (what survives a restart).

A :class:`DowntimeRun` wraps the rules' :class:`rules.downtime_sequence.DowntimeSequence`
with what the bot needs in Discord: where its messages go, what each step showed, the
ledger actions each step stored (an undo takes exactly those back), and who confirmed.
It is stored as one JSON document under the key ``downtime:<run id>`` with no battle,
so nothing that lists a battle's runs or reads a battle's ledger sees it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from bot.battle.state import StageStatus
from rules.downtime_sequence import DowntimeSequence
from rules.steps import DowntimeStep

DOWNTIME_KEY_PREFIX = "downtime:"


def downtime_key(run_id: str) -> str:
    return f"{DOWNTIME_KEY_PREFIX}{run_id}"


class _Stored(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class DowntimeRecord(_Stored):
    """One step's message: what it showed, what it stored and who confirmed it."""

    number: int = Field(ge=1)
    step: DowntimeStep
    status: StageStatus = StageStatus.OPEN
    lines: list[str] = Field(default_factory=list)
    # Ledger actions stored as the step opened (with the closing ones of the step before)
    # and by the commands played in it, oldest first.
    action_ids: list[int] = Field(default_factory=list)
    # Party -> who confirmed for it ("<@id>", "<@id> for the owner").
    confirmed_by: dict[str, str] = Field(default_factory=dict)
    # The sequence as it was when the step opened: an undo of the next step comes back here.
    opened_with: DowntimeSequence
    # How often this step's message was posted (a reopened step posts a new one).
    posts: int = Field(default=1, ge=1)
    note: str = ""

    @property
    def label(self) -> str:
        return self.step.value


class DowntimeRun(_Stored):
    """One gang's Downtime, as stored."""

    id: str = Field(min_length=1, max_length=64)
    campaign_id: str
    gang_id: str
    gang_name: str
    owner: str
    sequence: DowntimeSequence
    # Where its messages go: the gang's thread, or the channel when no thread could be made.
    channel_id: int
    opened_by: str
    stages: list[DowntimeRecord] = Field(default_factory=list)
    cancelled: bool = False

    @property
    def key(self) -> str:
        return downtime_key(self.id)

    @property
    def in_progress(self) -> bool:
        return not self.cancelled and not self.sequence.finished

    @property
    def current(self) -> DowntimeRecord | None:
        """The open record (the last step's, or the finished marker's)."""
        return next((r for r in reversed(self.stages) if r.status is StageStatus.OPEN), None)

    def record(self, number: int) -> DowntimeRecord | None:
        return self.stages[number - 1] if 1 <= number <= len(self.stages) else None
