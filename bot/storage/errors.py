"""Errors the storage layer raises besides the rules' own (NotFound, InvalidRequest).

Two audiences: :class:`DatabaseTooNew` and :class:`MigrationFailed` are for the
server operator who starts the bot; :class:`StaleWorld` is a refusal a player
can read, so it is a :class:`rules.errors.RulesError` and the bot shows it as
it shows any other refusal.
"""

from __future__ import annotations

from rules.errors import RulesError


class StorageError(Exception):
    """Base of the storage layer's own failures; ``message`` is readable as it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DatabaseUnreachable(StorageError):
    """The database server could not be reached (down, starting, full, no network):
    unlike the other errors here, trying again later may well succeed."""

    def __init__(self, where: str, reason: object) -> None:
        super().__init__(f"could not reach the database {where}: {reason}")


class DatabaseTooNew(StorageError):
    """The database file was written by a newer version of the bot."""

    def __init__(self, path: str, found: int, known: int) -> None:
        super().__init__(
            f"The database {path} has schema version {found}, but this version of "
            f"Munda Arbitrator only knows versions up to {known}. It was written by a "
            "newer release of the bot: upgrade the bot, or restore a backup made by "
            "this release. The file was not changed."
        )
        self.found = found
        self.known = known


class DatabaseDamaged(StorageError):
    """The file is not a SQLite database, or its integrity check failed."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(
            f"The database {path} is damaged ({detail}). The bot did not start and did "
            "not change the file. Restore the latest backup with "
            "'munda-arbitrator restore BACKUP_FILE' (see README, Reliability)."
        )


class DatabaseReadOnly(StorageError):
    """The database file, or the folder SQLite keeps its -wal and -shm files in, is not writable."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"The database {path} cannot be written: {reason}. The bot did not start "
            "(every command that changes something would fail): give the user running "
            "the bot write access to the file and its folder."
        )


class MigrationFailed(StorageError):
    """A migration raised; its transaction was rolled back and the version kept."""


class StaleWorld(RulesError):
    """The stored gangs changed between loading them and applying a result."""


class StaleSequence(StaleWorld):
    """A stored sequence moved on between reading it and saving a decision made from it."""
