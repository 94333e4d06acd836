"""The bot object: cogs, the command tree with its single error handler, start-up and shutdown."""

from __future__ import annotations

import asyncio
import logging
import os
import pkgutil
from collections.abc import Sequence
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.backups import backup_loop
from bot.clock import Clock, SystemClock, clock_from
from bot.config import Config
from bot.endpoints import discover_gateway
from bot.errors import answer_error
from bot.importing.worker import import_worker, settle_heap
from bot.outbox import HttpSender, Outbox
from bot.pictures import PictureWorker
from bot.rulesets import warm_up as warm_up_rulesets
from bot.shards import ShardSet, hold
from bot.storage import Storage
from bot.timers import TimerWorker
from bot.ui.report_pictures import report_files
from bot.ui.routes import routed_items

log = logging.getLogger(__name__)

def discover_cogs() -> list[str]:
    """Every module of the ``cogs`` package: one cog per area of use (RoboDanny's layout)."""
    import cogs

    return sorted(f"cogs.{m.name}" for m in pkgutil.iter_modules(cogs.__path__)
                  if not m.name.startswith("_"))


class MundaTree(app_commands.CommandTree["MundaBot"]):
    """Command tree whose one error handler answers every failed command ephemerally."""

    async def on_error(
        self, interaction: discord.Interaction[MundaBot], error: app_commands.AppCommandError, /
    ) -> None:
        await answer_error(interaction, error)


def shard_options(shards: ShardSet) -> dict[str, Any]:
    """discord.py's settings for connecting ``shards``: none for the one shard of one
    (today's single process); ``shard_id`` for one shard of several (a plain bot);
    ``shard_ids`` for several (:class:`ShardedMundaBot`)."""
    if shards.count == 1:
        return {}
    if len(shards.ids) == 1:
        return {"shard_id": shards.sorted_ids()[0], "shard_count": shards.count}
    return {"shard_ids": shards.sorted_ids(), "shard_count": shards.count}


class MundaBot(commands.Bot):
    def __init__(self, config: Config, storage: Storage, cogs: Sequence[str] | None = None,
                 clock: Clock | None = None) -> None:
        self.held_shards = config.discord.shards
        # Before any event: per-server locks and start-up work check ownership with it.
        hold(self.held_shards)
        super().__init__(
            # Slash commands only: no prefix commands, no message content.
            command_prefix=commands.when_mentioned,
            intents=discord.Intents(guilds=True),
            tree_cls=MundaTree,
            # Names typed by players never turn into pings (docs/reliability.md).
            allowed_mentions=discord.AllowedMentions.none(),
            help_command=None,
            **shard_options(self.held_shards),
        )
        self.config = config
        self.storage = storage
        # Every "when" of the bot reads this clock; tests and the demo move it by hand.
        self.clock: Clock = clock or SystemClock()
        # Messages the bot owes a channel, delivered until Discord accepts them (bot/outbox.py).
        self.outbox = Outbox(storage, HttpSender.for_client(self), shards=self.held_shards)
        # Timers fire on this clock, once each, also after a restart (bot/timers.py).
        self.timers = TimerWorker(storage, self.clock, shards=self.held_shards,
                                  on_fired=self.outbox.kick, client=self)
        self._backups: asyncio.Task[None] | None = None
        # Roster cards and charts are drawn on the worker's thread, cached by revision.
        self.pictures = PictureWorker()
        # The battle report's card and chart, drawn when the outbox sends the report.
        self.outbox.on_attachments(partial(report_files, storage, self.pictures))
        self._warming: asyncio.Task[None] | None = None
        self._import_worker: asyncio.Task[int] | None = None
        self._cog_names = list(cogs) if cogs is not None else discover_cogs()

    async def setup_hook(self) -> None:
        # Fonts opened while the commands sync: no player's first card waits for them.
        self._warming = asyncio.create_task(self._warm_up_pictures())
        # Before the gateway: no first command waits for the shipped content to be read.
        warm_up_rulesets()
        await discover_gateway(self.config.discord, self.http)
        # One router routes every button and select, those sent before a restart too.
        routed_items(self)
        for name in self._cog_names:
            await self.load_extension(name)
        await self._sync_commands()
        # After the cogs, whose delivery hooks it needs; it starts with what is still owed.
        self.outbox.start()
        # After the cogs too: they register the timers' handlers.
        self.timers.start()
        db = self.config.database
        if db.backup_interval_hours > 0 and self.storage.driver == "postgresql":
            log.info("no backups by the bot on PostgreSQL: take them with pg_dump "
                     "(docs/deploying.md)")
        elif db.backup_interval_hours > 0:
            self._backups = asyncio.create_task(backup_loop(
                self.storage, db.backup_dir, db.backups_kept, db.backup_interval_hours,
                self.clock,
            ))
        # Start the file reader's child process now, so no player's import waits for it.
        self._import_worker = asyncio.create_task(import_worker.warm_up())
        settle_heap()

    async def _sync_commands(self) -> None:
        if not self.held_shards.syncs_commands:
            # Commands belong to the application, not to a shard: several processes
            # syncing at once would only race each other.
            log.info("holding %s: the process holding shard 0 syncs the slash commands; "
                     "not syncing here", self.held_shards)
            return
        guild_id = self.config.discord.dev_guild_id
        if guild_id is not None:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d slash commands%s", len(synced),
                 f" to guild {guild_id}" if guild_id else " globally")

    async def _warm_up_pictures(self) -> None:
        try:
            await self.pictures.warm_up()
        except Exception:
            # Cards are still drawn, only the first one slower: worth a log line, no more.
            log.exception("could not warm up the picture worker")

    async def on_ready(self) -> None:
        log.info("ready as %s in %d servers (%s)", self.user, len(self.guilds), self.held_shards)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (or the server deleted): its data goes at once.

        discord.py calls this only for a real removal, never for a server that is
        merely unavailable during an outage. See docs/privacy.md.
        """
        deleted = await self.storage.write(guild.id).forget_server()
        log.info("removed from server %d: deleted its %d campaigns", guild.id, deleted)

    async def close(self) -> None:
        if self._backups is not None:
            self._backups.cancel()
        if self._warming is not None:
            self._warming.cancel()
        self.pictures.close()
        try:
            await self.timers.stop()
            await self.outbox.stop()
            await super().close()
        finally:
            await self.storage.close()
            log.info("database closed")
            # Waits for a file the child is reading (seconds at most), in a thread.
            await asyncio.to_thread(import_worker.shutdown)


class ShardedMundaBot(MundaBot, commands.AutoShardedBot):
    """The bot holding several shards: one gateway session per shard, one process."""


def make_bot(config: Config, storage: Storage) -> MundaBot:
    """The bot for ``config``'s shards, on the clock the environment names (the machine's
    unless a test or the demo moves it)."""
    clock = clock_from(os.environ)
    if len(config.discord.shards.ids) > 1:
        return ShardedMundaBot(config, storage, clock=clock)
    return MundaBot(config, storage, clock=clock)
