"""Campaign storage: per-server SQLite with migrations, transactions and a ledger.

See docs/storage.md. Everything SQL stays inside this package; callers use
:class:`Storage` (one call, one transaction) or ``storage.transaction()``.
"""

from bot.storage.calendar import CalendarSettings, ScheduledBattle, ScheduleStatus
from bot.storage.codec import new_id
from bot.storage.database import LATEST_VERSION
from bot.storage.errors import (
    DatabaseDamaged,
    DatabaseTooNew,
    MigrationFailed,
    StaleSequence,
    StaleWorld,
    StorageError,
)
from bot.storage.outbox import OutboxEntry
from bot.storage.records import (
    EXPORT_FORMAT,
    EXPORT_VERSION,
    ActionRecord,
    Campaign,
    CampaignDocument,
    GangImportLink,
    LedgerEvent,
    SequenceRecord,
    Snapshot,
    TradingPostEntry,
)
from bot.storage.repository import Storage
from bot.storage.timers import Timer
from bot.storage.transaction import Transaction

__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_VERSION",
    "LATEST_VERSION",
    "ActionRecord",
    "CalendarSettings",
    "Campaign",
    "CampaignDocument",
    "DatabaseDamaged",
    "DatabaseTooNew",
    "GangImportLink",
    "LedgerEvent",
    "MigrationFailed",
    "OutboxEntry",
    "ScheduleStatus",
    "ScheduledBattle",
    "SequenceRecord",
    "Snapshot",
    "StaleSequence",
    "StaleWorld",
    "Storage",
    "StorageError",
    "Timer",
    "TradingPostEntry",
    "Transaction",
    "new_id",
]
