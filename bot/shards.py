"""Which of Discord's shards this process holds, and so which servers are its own.

A bot in many servers connects several gateway sessions (shards); Discord sends a
server's events to shard ``(guild_id >> 22) % shard_count`` and to no other, and
direct messages to shard 0. Several bot processes may share the shards (and one
PostgreSQL database); each then serves, delivers and resumes only its own servers.
See docs/deploying.md, "Shards".

The process's shard set is set once at start-up (:func:`hold`); until then, and in
a process that holds every shard, every server is its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# A server id's bits above the 22 low ones are its creation time: Discord's routing key.
SHARD_KEY_SHIFT = 22


def shard_of(guild_id: int | None, count: int) -> int:
    """The shard Discord routes ``guild_id``'s events to (None, a direct message: 0)."""
    return ((guild_id or 0) >> SHARD_KEY_SHIFT) % count


@dataclass(frozen=True)
class ShardSet:
    """Shards ``ids`` of ``count``: what one process connects."""

    count: int = 1
    ids: frozenset[int] = frozenset({0})

    @classmethod
    def of(cls, count: int, ids: Iterable[int] | None = None) -> ShardSet:
        """``ids`` of ``count`` (None: all of them); raises ValueError for an impossible set."""
        if count < 1:
            raise ValueError(f"the shard count must be at least 1, not {count}")
        chosen = frozenset(range(count) if ids is None else ids)
        if not chosen:
            raise ValueError("at least one shard must be held")
        outside = sorted(i for i in chosen if not 0 <= i < count)
        if outside:
            raise ValueError(f"shard {outside[0]} is not one of 0 to {count - 1}")
        return cls(count, chosen)

    @property
    def every_shard(self) -> bool:
        return len(self.ids) == self.count

    @property
    def syncs_commands(self) -> bool:
        """Slash commands are an application's, not a shard's: one process syncs them,
        the one holding shard 0 (there is always one)."""
        return 0 in self.ids

    def owns(self, guild_id: int | None) -> bool:
        return self.every_shard or shard_of(guild_id, self.count) in self.ids

    def sorted_ids(self) -> list[int]:
        return sorted(self.ids)

    def __str__(self) -> str:
        if self.every_shard:
            return f"every shard of {self.count}"
        return f"shard{'s' if len(self.ids) > 1 else ''} " \
            f"{', '.join(map(str, self.sorted_ids()))} of {self.count}"


EVERY_SHARD = ShardSet()
_held: ShardSet = EVERY_SHARD


def hold(shards: ShardSet) -> None:
    """Make ``shards`` this process's (at start-up, before any server's event)."""
    global _held
    _held = shards


def held() -> ShardSet:
    return _held


def owns_guild(guild_id: int | None) -> bool:
    """Whether Discord routes ``guild_id``'s events to this process."""
    return _held.owns(guild_id)


class ServerOfAnotherProcess(RuntimeError):
    """An internal error: this process acted for a server another process holds."""

    def __init__(self, guild_id: int, doing: str) -> None:
        shards = _held
        super().__init__(
            f"{doing} for server {guild_id}, which is on shard "
            f"{shard_of(guild_id, shards.count)}, but this process holds {shards}: "
            "Discord routes a server's events to one shard only, so another process "
            "serves it (docs/deploying.md, Shards)"
        )
        self.guild_id = guild_id
