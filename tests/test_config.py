"""Configuration: file, environment overrides, one clear line on errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parent.parent


def test_example_config_is_valid(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text((ROOT / "config.example.toml").read_text())
    config = load_config(target, environ={})
    assert config.discord.api_base == "https://discord.com/api/v10"
    assert config.database.path == tmp_path / "munda-arbitrator.db"
    assert config.logging.level == "INFO"


def test_environment_overrides_file(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text('[discord]\ntoken = "from-file"\n')
    config = load_config(target, environ={
        "MUNDA_DISCORD_TOKEN": "from-env",
        "MUNDA_DISCORD_DEV_GUILD_ID": "42",
        "MUNDA_DATABASE_PATH": "/data/x.db",
        "MUNDA_LOGGING_LEVEL": "debug",
    })
    assert config.require_token() == "from-env"
    assert config.discord.dev_guild_id == 42
    assert config.database.path == Path("/data/x.db")
    assert config.logging.level == "DEBUG"


def test_database_url_picks_postgresql_and_the_environment_sets_it(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text('[database]\nurl = "postgresql://file@db/munda"\n')
    config = load_config(target, environ={})
    assert config.database.target == "postgresql://file@db/munda"
    config = load_config(target, environ={"MUNDA_DATABASE_URL": "postgresql://env@db/munda"})
    assert config.database.target == "postgresql://env@db/munda"
    plain = load_config(None, environ={}).database
    assert plain.target == plain.path
    target.write_text('[database]\nurl = "mysql://db/munda"\n')
    with pytest.raises(ConfigError, match=r"database\.url"):
        load_config(target, environ={})


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[discord\n", "not valid TOML"),
        ('[discord]\napi_base = "ftp://x"\n', "discord.api_base"),
        ('[logging]\nlevel = "LOUD"\n', "logging.level"),
        ('[discord]\ntypo = 1\n', "discord.typo"),
    ],
)
def test_bad_config_gives_one_line(tmp_path: Path, text: str, fragment: str) -> None:
    target = tmp_path / "config.toml"
    target.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(target, environ={})
    assert fragment in str(error.value)
    assert "\n" not in str(error.value)


def test_missing_file_and_missing_token(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml", environ={})
    config = load_config(None, environ={})
    with pytest.raises(ConfigError, match="MUNDA_DISCORD_TOKEN"):
        config.require_token()


def test_a_token_file_others_can_read_is_warned_about(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text('[discord]\ntoken = "secret"\n')
    target.chmod(0o644)
    (warning,) = load_config(target, environ={}).exposure_warnings()
    assert warning.startswith(
        f"The config file {target} holds the bot token and other users can read it (mode 0644)"
    )
    assert "secret" not in warning

    target.chmod(0o600)
    assert load_config(target, environ={}).exposure_warnings() == []
    # A file without a token has nothing to hide, wherever the token comes from.
    target.write_text('[logging]\nlevel = "INFO"\n')
    target.chmod(0o644)
    config = load_config(target, environ={"MUNDA_DISCORD_TOKEN": "secret"})
    assert config.exposure_warnings() == []


def test_a_database_and_backups_others_can_read_are_warned_about(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text('[database]\npath = "munda.db"\nbackup_dir = "saves"\n')
    (tmp_path / "munda.db").touch()
    (tmp_path / "saves").mkdir()
    for path, mode in ((tmp_path / "munda.db", 0o644), (tmp_path / "saves", 0o755)):
        path.chmod(mode)
    warnings = load_config(target, environ={}).exposure_warnings()
    assert warnings == [
        f"The database {tmp_path / 'munda.db'} can be read by other users (mode 0644): "
        f"run 'chmod 600 {tmp_path / 'munda.db'}'.",
        f"The backup folder {tmp_path / 'saves'} can be read by other users (mode 0755): "
        f"run 'chmod 700 {tmp_path / 'saves'}'.",
    ]


def test_shards_default_to_the_one_shard_of_one(tmp_path: Path) -> None:
    shards = load_config(None, environ={}).discord.shards
    assert (shards.count, shards.sorted_ids()) == (1, [0])
    assert shards.every_shard and shards.syncs_commands


def test_shards_from_the_file_and_the_environment(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("[discord]\nshard_count = 4\nshard_ids = [3, 1]\n")
    shards = load_config(target, environ={}).discord.shards
    assert (shards.count, shards.sorted_ids()) == (4, [1, 3])
    assert not shards.every_shard and not shards.syncs_commands

    overridden = load_config(target, environ={
        "MUNDA_DISCORD_SHARD_COUNT": "3", "MUNDA_DISCORD_SHARD_IDS": " 0, 2",
    }).discord.shards
    assert (overridden.count, overridden.sorted_ids()) == (3, [0, 2])
    # A count without ids: this process holds every shard of it.
    every = load_config(None, environ={
        "MUNDA_DISCORD_SHARD_COUNT": "2"}).discord.shards
    assert (every.count, every.sorted_ids()) == (2, [0, 1]) and every.every_shard


@pytest.mark.parametrize(
    ("environ", "fragment"),
    [
        ({"MUNDA_DISCORD_SHARD_COUNT": "0"}, "discord.shard_count"),
        ({"MUNDA_DISCORD_SHARD_COUNT": "two"}, "discord.shard_count"),
        ({"MUNDA_DISCORD_SHARD_IDS": "1"}, "shard 1 is not one of 0 to 0"),
        ({"MUNDA_DISCORD_SHARD_COUNT": "2", "MUNDA_DISCORD_SHARD_IDS": "0,2"},
         "shard 2 is not one of 0 to 1 (shard_count is 2)"),
        ({"MUNDA_DISCORD_SHARD_COUNT": "2", "MUNDA_DISCORD_SHARD_IDS": "1,1"},
         "shard 1 is listed twice"),
        ({"MUNDA_DISCORD_SHARD_COUNT": "2", "MUNDA_DISCORD_SHARD_IDS": "0;1"},
         "separated by commas, such as 0,1"),
        ({"MUNDA_DISCORD_SHARD_COUNT": "2", "MUNDA_DISCORD_SHARD_IDS": "-1"},
         "separated by commas"),
    ],
)
def test_impossible_shards_give_one_clear_line(environ: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(None, environ=environ)
    assert fragment in str(error.value) and "\n" not in str(error.value)


def test_an_empty_shard_list_in_the_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    target.write_text("[discord]\nshard_count = 2\nshard_ids = []\n")
    with pytest.raises(ConfigError, match=r"discord\.shard_ids: .*at least one shard"):
        load_config(target, environ={})
