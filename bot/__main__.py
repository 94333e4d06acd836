"""The launcher: ``munda-arbitrator run|backup|restore|demo|try`` (also ``python -m bot``)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Config, ConfigError, load_config

if TYPE_CHECKING:
    from bot.startup import Shutdown
    from bot.storage import Storage
    from bot.storage.postgres import ShardClaim

log = logging.getLogger("bot")

DEFAULT_CONFIG = Path("config.toml")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="munda-arbitrator", description="A Discord bot that runs Necromunda campaigns."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="connect to Discord and serve the campaign")
    run.add_argument("--config", type=Path, default=None,
                     help="config file (default: ./config.toml if it exists)")
    backup = commands.add_parser(
        "backup", help="write an online backup now (safe while the bot runs)"
    )
    backup.add_argument("--config", type=Path, default=None)
    restore = commands.add_parser(
        "restore", help="replace the database with a backup (stop the bot first)"
    )
    restore.add_argument("backup", type=Path, help="the backup file to restore")
    restore.add_argument("--config", type=Path, default=None)
    restore.add_argument("--new", action="store_true",
                         help="this machine has no database yet: create it from the backup")
    demo = commands.add_parser(
        "demo", help="play a scripted campaign offline and print what the players would see"
    )
    demo.add_argument("--seed", type=int, default=None,
                      help="dice seed of --rules-only (default 7; same seed, same game); the full "
                      "demo rolls with secret seeds, so it plays differently each time")
    demo.add_argument("--rules-only", action="store_true",
                      help="print the rules engine's post-battle sequence without the bot")
    demo.add_argument("--pictures", type=Path, default=None, metavar="DIR",
                      help="also write the game's roster card, chart and battle card to DIR")
    commands.add_parser(
        "try", help="use the bot by hand offline: type slash commands as alice, bob, carol "
        "or dave against the fake Discord, click buttons by number"
    )
    return parser


def demo_refusal(seed: int | None, rules_only: bool, pictures: Path | None) -> str | None:
    """Why these demo options do not go together, or None: an option that would be
    ignored is refused rather than silently dropped."""
    if seed is not None and not rules_only:
        return ("--seed applies to --rules-only only: the full demo rolls with the bot's "
                "secret seeds. Add --rules-only, or leave out --seed.")
    if pictures is not None and rules_only:
        return ("--pictures needs the full demo (the bot draws the pictures); the "
                "--rules-only walk draws none. Leave out one of them.")
    return None


def configure_logging(level: str) -> None:
    logging.basicConfig(
        level=level, stream=sys.stderr,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    # aiosqlite's debug lines quote every statement with its parameters, the stored
    # post-battle runs and their secret dice seeds among them: never below INFO.
    logging.getLogger("aiosqlite").setLevel(max(logging.INFO, logging.getLogger().level))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command in ("run", "backup", "restore"):
            path = args.config
            if path is None and DEFAULT_CONFIG.is_file():
                path = DEFAULT_CONFIG
            config = load_config(path)
        if args.command == "backup":
            return asyncio.run(backup_now(config))
        if args.command == "restore":
            return asyncio.run(restore_now(config, args.backup, new=args.new))
        if args.command == "run":
            config.require_token()
            configure_logging(config.logging.level)
            for warning in config.exposure_warnings():
                log.warning("%s", warning)
            return asyncio.run(run_bot(config))
        if args.command == "try":
            from demo.prompt import run_prompt

            return run_prompt()
        if args.command == "demo":
            refused = demo_refusal(args.seed, args.rules_only, args.pictures)
            if refused:
                print(f"munda-arbitrator demo: {refused}", file=sys.stderr)
                return 2
            from demo.campaign import run_demo

            return run_demo(seed=7 if args.seed is None else args.seed,
                            rules_only=args.rules_only, pictures=args.pictures)
    except ConfigError as error:
        print(f"munda-arbitrator: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


async def backup_now(config: Config) -> int:
    from bot.backups import require_database, take_backup
    from bot.storage import Storage, StorageError

    if config.database.url:
        print("munda-arbitrator: the database is PostgreSQL (database.url): back it up "
              "with pg_dump (docs/deploying.md).", file=sys.stderr)
        return 2
    try:
        # Opening would create an empty database, and back that up.
        require_database(config.database.path, "nothing to back up")
        storage = await Storage.open(config.database.path)
    except StorageError as error:
        print(f"munda-arbitrator: {error.message}", file=sys.stderr)
        return 2
    try:
        path = await take_backup(storage, config.database.backup_dir, config.database.backups_kept)
    finally:
        await storage.close()
    print(f"backup written to {path}")
    return 0


async def restore_now(config: Config, backup: Path, *, new: bool = False) -> int:
    from bot.backups import restore_backup
    from bot.storage import StorageError

    if config.database.url:
        print("munda-arbitrator: the database is PostgreSQL (database.url): restore it "
              "with pg_restore or psql (docs/deploying.md).", file=sys.stderr)
        return 2
    try:
        kept = await restore_backup(backup, config.database.path, new=new)
    except StorageError as error:
        print(f"munda-arbitrator: {error.message}", file=sys.stderr)
        return 2
    print(f"restored {backup} to {config.database.path}")
    if kept is not None:
        print(f"the previous database was kept as {kept}")
    return 0


async def run_bot(config: Config) -> int:
    """Run until SIGTERM/SIGINT asks for a clean shutdown (or Discord closes us).

    Discord and the database are tried again, one log line per try, for as long as
    they cannot be reached (bot/startup.py); a configuration error or a refusal
    (the database in use, too new or damaged) ends it at once with exit code 2.
    """
    from bot.endpoints import apply_rest_base
    from bot.startup import Shutdown, Unreachable, pauses

    apply_rest_base(config.discord)
    shutdown = Shutdown()
    shutdown.install()
    waits = pauses()
    try:
        while True:
            try:
                return await _run_once(config, shutdown)
            except Unreachable as error:
                # Both answered, then Discord stopped answering while the bot logged in.
                pause = next(waits)
                log.warning("%s; starting again in %g s", error.message, pause)
                if await shutdown.pause(pause):
                    return 0
    finally:
        shutdown.uninstall()


@dataclass
class Opened:
    """The database, opened, with what this process holds on it until it ends."""

    storage: Storage
    held: contextlib.AsyncExitStack
    claim: ShardClaim | None


async def _open_database(config: Config) -> Opened:
    from bot.storage.lockfile import database_lock
    from bot.storage.opening import open_storage

    # The lock is held until the process ends: a second bot on this database (on
    # PostgreSQL: for one of its shards) is refused.
    held = contextlib.AsyncExitStack()
    claim: ShardClaim | None = None
    try:
        if config.database.url:
            from bot.storage.postgres import claim_shards

            claim = await claim_shards(config.database.url, config.discord.shards)
            held.push_async_callback(claim.release)
        else:
            lock = held.enter_context(database_lock(config.database.path))
            log.info("holding the database lock %s", lock)
        storage = await open_storage(config.database.target)
    except BaseException:
        await held.aclose()
        raise
    if claim is not None:
        log.info("holding %s on the database (no other process may hold them)", claim.shards)
    return Opened(storage, held, claim)


async def _run_once(config: Config, shutdown: Shutdown) -> int:
    from bot.startup import reach_discord, until_reached
    from bot.storage.errors import StorageError

    # The database first: its refusals (in use, too new, damaged) end the process
    # at once, with or without a network.
    try:
        opened = await until_reached(partial(_open_database, config), shutdown)
    except StorageError as error:
        print(f"munda-arbitrator: {error.message}", file=sys.stderr)
        return 2
    if opened is None:
        return 0
    served = False
    try:
        await until_reached(partial(reach_discord, config.discord, config.require_token()),
                            shutdown)
        if shutdown.asked.is_set():
            return 0
        served = True  # the bot closes the database from here on
        return await _serve(config, opened.storage, shutdown, opened.claim)
    finally:
        if not served:
            await opened.storage.close()
        await opened.held.aclose()


async def _serve(config: Config, storage: Storage, shutdown: Shutdown,
                 claim: ShardClaim | None = None) -> int:
    import aiohttp
    import discord

    from bot.app import make_bot
    from bot.startup import TokenRefused, Unreachable, one_line

    bot = make_bot(config, storage)
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def stop() -> None:
        if not stopping:
            stopping.add(loop.create_task(bot.close()))

    def claim_lost() -> None:
        # Another process may now take these shards: serving on would answer twice.
        log.error("lost the database connection holding %s: stopping, so that a restart "
                  "claims them again", claim.shards if claim else "the shards")
        log.info("shutting down")
        stop()

    shutdown.on_ask(stop)
    if claim is not None:
        claim.when_lost(claim_lost)
    try:
        async with bot:
            try:
                await bot.start(config.require_token())
            except discord.LoginFailure:
                raise TokenRefused("Discord refused the bot token: check MUNDA_DISCORD_TOKEN, "
                                   "or [discord] token in the config file.") from None
            except (aiohttp.ClientError, OSError, discord.DiscordServerError) as error:
                if stopping:
                    return 0
                raise Unreachable(f"could not reach Discord at {config.discord.api_base}: "
                                  f"{one_line(error)}") from None
    finally:
        shutdown.forget(stop)
        if stopping:
            await asyncio.gather(*stopping)
        await storage.close()
    # Lost shards are a failure (a supervisor restarts the process); a stop asked for is not.
    return 1 if claim is not None and claim.lost else 0


if __name__ == "__main__":
    sys.exit(main())
