"""Configuration: a TOML file, with environment variables taking precedence.

Every setting can be overridden by ``MUNDA_<SECTION>_<KEY>`` (for example
``MUNDA_DISCORD_TOKEN`` or ``MUNDA_DATABASE_PATH``) so that a token never has
to be written into a file on a shared host. Problems are reported as one
:class:`ConfigError` line, never a traceback.
"""

from __future__ import annotations

import logging
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from bot.private_files import mode_text, readable_by_others
from bot.shards import ShardSet

DISCORD_API_BASE = "https://discord.com/api/v10"
ENV_PREFIX = "MUNDA_"


class ConfigError(Exception):
    """A configuration problem, worded for the person starting the bot."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DiscordSettings(_Section):
    token: str = ""
    # Commands sync instantly to one guild during development; global sync
    # can take up to an hour to show up in clients.
    dev_guild_id: int | None = None
    api_base: str = DISCORD_API_BASE
    # Empty: use the URL Discord's REST API hands out (GET /gateway/bot).
    gateway_url: str = ""
    # Several processes share the bot's shards (docs/deploying.md, "Shards"): each says
    # the count and which it connects; no ids means all of them.
    shard_count: int = Field(default=1, ge=1)
    shard_ids: list[int] | None = None

    @field_validator("api_base")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("gateway_url")
    @classmethod
    def _ws_url(cls, value: str) -> str:
        if value and not value.startswith(("ws://", "wss://")):
            raise ValueError("must start with ws:// or wss://")
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _id_list(cls, value: object) -> object:
        # The environment override comes as text: MUNDA_DISCORD_SHARD_IDS="0,1".
        if not isinstance(value, str):
            return value
        parts = [part.strip() for part in value.split(",")]
        if not all(part.isdecimal() for part in parts):
            raise ValueError(f"must be shard numbers separated by commas, such as 0,1, "
                             f"not {value!r}")
        return [int(part) for part in parts]

    @field_validator("shard_ids")
    @classmethod
    def _ids_of_the_count(cls, value: list[int] | None, info: ValidationInfo) -> list[int] | None:
        if value is None:
            return None
        count = info.data.get("shard_count")
        if count is None:
            return value  # the count is wrong already, and reported
        if len(set(value)) != len(value):
            twice = next(i for i in value if value.count(i) > 1)
            raise ValueError(f"shard {twice} is listed twice")
        try:
            ShardSet.of(count, value)
        except ValueError as error:
            raise ValueError(f"{error} (shard_count is {count})") from None
        return value

    @property
    def shards(self) -> ShardSet:
        """The shards this process connects."""
        return ShardSet.of(self.shard_count, self.shard_ids)


class DatabaseSettings(_Section):
    path: Path = Path("munda-arbitrator.db")
    # postgresql://user:password@host:port/database (docs/deploying.md); empty: the
    # SQLite file at ``path``.
    url: str = ""
    backup_dir: Path = Path("backups")
    # Online backups taken while the bot runs; 0 turns them off.
    backup_interval_hours: float = Field(default=24.0, ge=0)
    backups_kept: int = Field(default=7, ge=1)

    @field_validator("url")
    @classmethod
    def _postgresql_url(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("must be empty (the SQLite file at path) or a postgresql:// URL")
        return value

    @property
    def target(self) -> str | Path:
        """What open_storage takes (bot/storage/opening.py): a PostgreSQL URL or a SQLite file."""
        return self.url or self.path


class ImportingSettings(_Section):
    """Where /gang import may fetch a gang from, how long it waits and how much it reads."""

    # Only URLs on exactly this host are fetched (https; http only for a
    # loopback host, which is how the tests serve files). May carry a port.
    yaktribe_host: str = "yaktribe.games"
    fetch_timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    # Largest file read from a URL or an attachment (a gzip file: after unpacking).
    max_import_bytes: int = Field(default=10_000_000, ge=1024, le=100_000_000)

    @field_validator("yaktribe_host")
    @classmethod
    def _bare_host(cls, value: str) -> str:
        host = value.strip().lower()
        if not host or "/" in host or "@" in host or " " in host:
            raise ValueError("must be a host name such as yaktribe.games, without a scheme")
        return host


class PicturesSettings(_Section):
    """Where a new campaign's ``roster_cards`` setting starts (whether /gang show attaches
    the roster card when the player does not say); and the setting of campaigns stored
    before they had one."""

    roster_card: bool = True


class LoggingSettings(_Section):
    level: str = "INFO"

    @field_validator("level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in logging.getLevelNamesMapping():
            raise ValueError(f"unknown log level {value!r}")
        return level


class Config(_Section):
    discord: DiscordSettings = Field(default_factory=DiscordSettings)
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    importing: ImportingSettings = Field(default_factory=ImportingSettings)
    pictures: PicturesSettings = Field(default_factory=PicturesSettings)
    logging: LoggingSettings = Field(default_factory=LoggingSettings)
    # The config file, when it holds a token (set by load_config).
    _token_file: Path | None = PrivateAttr(default=None)

    def require_token(self) -> str:
        if not self.discord.token.strip():
            raise ConfigError(
                "No bot token: set [discord] token in the config file "
                "or the MUNDA_DISCORD_TOKEN environment variable."
            )
        return self.discord.token.strip()

    def exposure_warnings(self) -> list[str]:
        """One line for each file holding a secret that users other than its owner can read.

        The token lets anyone act as the bot; the database and its backups hold
        every campaign. Warned about, not refused: the operator may share them
        with a group on purpose.
        """
        warnings: list[str] = []
        token_file = self._token_file
        if token_file is not None and readable_by_others(token_file):
            warnings.append(
                f"The config file {token_file} holds the bot token and other users can "
                f"read it (mode {mode_text(token_file)}): run 'chmod 600 {token_file}', "
                "or take the token out of it and set MUNDA_DISCORD_TOKEN instead."
            )
        db = self.database
        if readable_by_others(db.path):
            warnings.append(
                f"The database {db.path} can be read by other users "
                f"(mode {mode_text(db.path)}): run 'chmod 600 {db.path}'."
            )
        if readable_by_others(db.backup_dir):
            warnings.append(
                f"The backup folder {db.backup_dir} can be read by other users "
                f"(mode {mode_text(db.backup_dir)}): run 'chmod 700 {db.backup_dir}'."
            )
        return warnings


def load_config(path: Path | None, environ: Mapping[str, str] | None = None) -> Config:
    """Read ``path`` (if given and present), apply environment overrides, validate.

    Relative database paths are resolved against the config file's folder so
    the bot finds its data wherever it is started from.
    """
    env = os.environ if environ is None else environ
    raw: dict[str, Any] = {}
    base = Path.cwd()
    if path is not None:
        if not path.is_file():
            raise ConfigError(f"Config file {path} not found (copy config.example.toml to start).")
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"Config file {path} is not valid TOML: {error}") from None
        base = path.resolve().parent
    token_file = path if path is not None and _holds_token(raw) else None
    _apply_env(raw, env)
    try:
        config = Config.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"Config setting {where}: {first['msg']}") from None
    config._token_file = token_file
    db = config.database
    if not db.path.is_absolute():
        db.path = base / db.path
    if not db.backup_dir.is_absolute():
        db.backup_dir = base / db.backup_dir
    return config


def _holds_token(raw: Mapping[str, Any]) -> bool:
    discord = raw.get("discord")
    return isinstance(discord, Mapping) and bool(str(discord.get("token", "")).strip())


def _apply_env(raw: dict[str, Any], env: Mapping[str, str]) -> None:
    for section_name, section in Config.model_fields.items():
        annotation = section.annotation
        if not isinstance(annotation, type) or not issubclass(annotation, BaseModel):
            continue
        for key in annotation.model_fields:
            name = f"{ENV_PREFIX}{section_name.upper()}_{key.upper()}"
            if env.get(name, "") != "":
                raw.setdefault(section_name, {})[key] = env[name]
