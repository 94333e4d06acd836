"""Storage: the per-server campaign database behind the bot.

One :class:`Storage` holds one SQLite connection. Every call runs in its own
transaction, serialised on the connection by an asyncio lock (the busy
timeout does the same between processes). A caller that must load, decide
and write without anyone writing in between opens a write transaction::

    async with storage.transaction(guild_id) as tx:
        world = await tx.load_world(campaign_id, battle.gang_ids)
        result = collect_income(world, battle, roller)
        await tx.apply(campaign_id, result, actor=str(user.id), battle_id=battle.id)

Each public method of :class:`Transaction` is also a method of ``Storage``
taking the guild id first, e.g. ``await storage.get_gang(guild_id,
campaign_id, gang_id)``; reads run in a read transaction, writes in BEGIN
IMMEDIATE.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

import aiosqlite

from bot.storage.backup import backup_database
from bot.storage.database import DEFAULT_BUSY_TIMEOUT_MS, connect, schema_version
from bot.storage.transaction import Transaction

P = ParamSpec("P")
T = TypeVar("T")


class _GuildCall(Generic[P, T]):
    """Exposes a Transaction method on Storage as ``(guild_id, *args)``, in its own transaction."""

    def __init__(self, method: Callable[Concatenate[Transaction, P], Awaitable[T]], write: bool):
        self.method = method
        self.write = write

    @overload
    def __get__(self, storage: None, owner: type[Any]) -> _GuildCall[P, T]: ...

    @overload
    def __get__(
        self, storage: Storage, owner: type[Any]
    ) -> Callable[Concatenate[int, P], Awaitable[T]]: ...

    def __get__(self, storage: Storage | None, owner: type[Any]) -> Any:
        if storage is None:
            return self
        method, write = self.method, self.write

        @functools.wraps(method)
        async def call(guild_id: int, /, *args: P.args, **kwargs: P.kwargs) -> T:
            async with storage._scope(guild_id, write=write) as tx:
                return await method(tx, *args, **kwargs)

        return call


def _read(method: Callable[Concatenate[Transaction, P], Awaitable[T]]) -> _GuildCall[P, T]:
    return _GuildCall(method, write=False)


def _write(method: Callable[Concatenate[Transaction, P], Awaitable[T]]) -> _GuildCall[P, T]:
    return _GuildCall(method, write=True)


class Storage:
    """The campaign database: open with ``await Storage.open(path)``."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.path = path
        self._conn = conn
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None

    @classmethod
    async def open(
        cls, path: str | Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
    ) -> Storage:
        """Open (creating if needed) and migrate the database at ``path``.

        Raises DatabaseTooNew for a file written by a newer release.
        """
        conn = await connect(path, busy_timeout_ms=busy_timeout_ms)
        return cls(conn, Path(path))

    async def close(self) -> None:
        async with self._locked():
            await self._conn.close()

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def schema_version(self) -> int:
        async with self._locked():
            return await schema_version(self._conn)

    @asynccontextmanager
    async def transaction(self, guild_id: int) -> AsyncIterator[Transaction]:
        """A write transaction on ``guild_id``'s data: committed if the block ends
        normally, rolled back (nothing written, ledger included) if it raises."""
        async with self._scope(guild_id, write=True) as tx:
            yield tx

    async def backup(self, target: str | Path) -> Path:
        """Copy the whole database, online, to ``target`` (replaced when complete)."""
        async with self._locked():
            return await backup_database(self._conn, target)

    @asynccontextmanager
    async def _locked(self) -> AsyncIterator[None]:
        task = asyncio.current_task()
        if task is not None and task is self._owner:
            # asyncio.Lock is not re-entrant: waiting here would hang for ever.
            raise RuntimeError(
                "Storage was called inside its own transaction; use the transaction object."
            )
        async with self._lock:
            self._owner = task
            try:
                yield
            finally:
                self._owner = None

    @asynccontextmanager
    async def _scope(self, guild_id: int, *, write: bool) -> AsyncIterator[Transaction]:
        async with self._locked():
            # Reads take a snapshot (deferred BEGIN); writes take the write
            # lock up front so they never fail half-way on an upgrade.
            await self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            tx = Transaction(self._conn, guild_id, writable=write)
            try:
                yield tx
                await self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    await self._conn.execute("ROLLBACK")
                raise
            finally:
                tx.close()

    # Each line below is a Transaction method run in a transaction of its own.

    create_campaign = _write(Transaction.create_campaign)
    get_campaign = _read(Transaction.get_campaign)
    get_campaign_by_name = _read(Transaction.get_campaign_by_name)
    get_default_campaign = _read(Transaction.get_default_campaign)
    list_campaigns = _read(Transaction.list_campaigns)
    update_campaign = _write(Transaction.update_campaign)
    rename_campaign = _write(Transaction.rename_campaign)
    set_default_campaign = _write(Transaction.set_default_campaign)
    delete_campaign = _write(Transaction.delete_campaign)
    set_trading_post = _write(Transaction.set_trading_post)

    get_gang = _read(Transaction.get_gang)
    get_gang_by_name = _read(Transaction.get_gang_by_name)
    list_gangs = _read(Transaction.list_gangs)
    create_gang = _write(Transaction.create_gang)
    update_gang = _write(Transaction.update_gang)
    rename_gang = _write(Transaction.rename_gang)
    transfer_gang = _write(Transaction.transfer_gang)
    delete_gang = _write(Transaction.delete_gang)

    add_fighter = _write(Transaction.add_fighter)
    update_fighter = _write(Transaction.update_fighter)
    remove_fighter = _write(Transaction.remove_fighter)
    find_fighter = _read(Transaction.find_fighter)
    captives_held_by = _read(Transaction.captives_held_by)
    add_vehicle = _write(Transaction.add_vehicle)
    update_vehicle = _write(Transaction.update_vehicle)
    remove_vehicle = _write(Transaction.remove_vehicle)
    add_stash_item = _write(Transaction.add_stash_item)
    remove_stash_item = _write(Transaction.remove_stash_item)

    add_territory = _write(Transaction.add_territory)
    get_territory = _read(Transaction.get_territory)
    list_territories = _read(Transaction.list_territories)
    assign_territory = _write(Transaction.assign_territory)
    remove_territory = _write(Transaction.remove_territory)
    load_world = _read(Transaction.load_world)

    apply = _write(Transaction.apply)
    undo_last_action = _write(Transaction.undo_last_action)
    list_actions = _read(Transaction.list_actions)
    recent_events = _read(Transaction.recent_events)
    battle_events = _read(Transaction.battle_events)

    create_battle = _write(Transaction.create_battle)
    update_battle = _write(Transaction.update_battle)
    get_battle = _read(Transaction.get_battle)
    list_battles = _read(Transaction.list_battles)

    save_sequence = _write(Transaction.save_sequence)
    load_sequence = _read(Transaction.load_sequence)
    delete_sequence = _write(Transaction.delete_sequence)
    list_sequences = _read(Transaction.list_sequences)

    find_gang_import = _read(Transaction.find_gang_import)
    save_gang_import = _write(Transaction.save_gang_import)
    stage_import = _write(Transaction.stage_import)
    take_staged_import = _write(Transaction.take_staged_import)

    export_campaign = _read(Transaction.export_campaign)
    import_campaign = _write(Transaction.import_campaign)
