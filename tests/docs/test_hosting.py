"""The hosting files checked against what can be checked without systemd or Docker running:
the systemd units (one bot; one process per shard, docs/deploying.md) parse and name real
settings, and the Dockerfile's commands are the README's own install and run commands
(docs/hosting.md)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bot.config import load_config
from bot.shards import ShardSet

ROOT = Path(__file__).parents[2]
UNIT = ROOT / "deploy" / "munda-arbitrator.service"
SHARD_UNIT = ROOT / "deploy" / "munda-arbitrator@.service"
DOCKERFILE = ROOT / "Dockerfile"
SECTIONS = {"Unit", "Service", "Install"}


def unit_entries(text: str) -> dict[str, dict[str, list[str]]]:
    """systemd's syntax: [Section] headers, Key=value lines (a key may repeat), # comments."""
    found: dict[str, dict[str, list[str]]] = {}
    section: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if header := re.fullmatch(r"\[([A-Za-z]+)\]", line):
            section = header.group(1)
            assert section not in found, f"line {number}: [{section}] twice"
            found[section] = {}
            continue
        key, equals, value = line.partition("=")
        assert section is not None and equals and re.fullmatch(r"[A-Za-z]+", key), (
            f"line {number} is not Key=value inside a section: {line!r}")
        found[section].setdefault(key, []).append(value)
    return found


def readme_commands() -> list[str]:
    """Every line of the README's sh code blocks."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text("utf-8"))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip())
            for line in text.splitlines() if line.strip() and not line.startswith("#")]


def settings_from(assignments: dict[str, str]) -> None:
    """Every MUNDA_ variable set is a real setting: the config loaded with it takes it."""
    munda = {k: v for k, v in assignments.items() if k.startswith("MUNDA_")}
    assert munda
    config = load_config(None, munda)
    for key, value in munda.items():
        _, section, name = key.split("_", 2)
        got = getattr(getattr(config, section.lower()), name.lower())
        assert str(got) == value, (key, got)


def test_the_unit_parses_and_says_how_the_bot_runs() -> None:
    unit = unit_entries(UNIT.read_text("utf-8"))
    assert set(unit) == SECTIONS
    service = unit["Service"]
    assert service["User"] != ["root"] and service["User"][0]
    assert service["Restart"] == ["on-failure"]
    # Exit code 2 is munda-arbitrator's "configuration error": restarting cannot help.
    assert service["RestartPreventExitStatus"] == ["2"]
    [workdir], [start] = service["WorkingDirectory"], service["ExecStart"]
    program, *arguments = start.split()
    assert program == f"{workdir}/.venv/bin/munda-arbitrator"
    assert arguments[0] == "run" and arguments[1] == "--config"
    run_line = f".venv/bin/munda-arbitrator {arguments[0]}"
    assert any(run_line in line for line in readme_commands()), run_line
    settings_from(dict(v.split("=", 1) for v in service["Environment"]))
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


# The shard template is checked as an instance of it (systemd fills in %i).
@pytest.mark.parametrize(("unit", "name"), [(UNIT, UNIT.name),
                                            (SHARD_UNIT, "munda-arbitrator@1.service")])
def test_systemd_accepts_the_unit(tmp_path: Path, unit: Path, name: str) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here")
    # verify also wants the program to exist: point it at one that does.
    text = unit.read_text("utf-8")
    text = re.sub(r"^ExecStart=\S+", f"ExecStart={shutil.which('true')}", text, flags=re.M)
    copy = tmp_path / name
    copy.write_text(text, "utf-8")
    done = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True,
                          check=False, timeout=60)
    complaints = [line for line in (done.stdout + done.stderr).splitlines()
                  if str(copy) in line]
    assert done.returncode == 0 and not complaints, done.stdout + done.stderr


def test_the_shard_unit_runs_the_same_bot_with_its_instance_as_its_shards() -> None:
    plain = unit_entries(UNIT.read_text("utf-8"))["Service"]
    text = SHARD_UNIT.read_text("utf-8")
    unit = unit_entries(text)
    assert set(unit) == SECTIONS
    service = unit["Service"]
    for key in ("User", "WorkingDirectory", "ExecStart", "KillSignal", "Restart",
                "RestartPreventExitStatus"):
        assert service[key] == plain[key], key
    assert service["Environment"] == ["MUNDA_DISCORD_SHARD_IDS=%i"]
    # No file of its own: the campaigns are in PostgreSQL, shared by every instance.
    assert "StateDirectory" not in service
    assert service["EnvironmentFile"] == ["/etc/munda-arbitrator/token.env",
                                          "/etc/munda-arbitrator/shards.env"]
    # The shared file its comment shows, with an instance's ids, makes real settings.
    shared = dict(line.lstrip("# ").split("=", 1) for line in text.splitlines()
                  if re.match(r"#\s+MUNDA_\w+=", line))
    assert set(shared) == {"MUNDA_DISCORD_SHARD_COUNT", "MUNDA_DATABASE_URL"}
    config = load_config(None, {**shared, "MUNDA_DISCORD_SHARD_IDS": "1"})
    assert config.discord.shards == ShardSet.of(int(shared["MUNDA_DISCORD_SHARD_COUNT"]), [1])
    assert config.database.url == shared["MUNDA_DATABASE_URL"]
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_the_dockerfile_runs_the_readme_commands_on_an_official_image() -> None:
    instructions = dockerfile_instructions()
    assert instructions[0][0] == "FROM"
    assert re.fullmatch(r"python:3\.1[1-9][\w.-]*", instructions[0][1])
    installs = [arg for op, arg in instructions if op == "RUN" and "pip install" in arg]
    assert len(installs) == 1
    assert any(line.startswith(installs[0]) for line in readme_commands()), installs[0]
    [cmd] = [json.loads(arg) for op, arg in instructions if op == "CMD"]
    assert any(line.split("#")[0].strip().endswith(" ".join(cmd))
               for line in readme_commands()), cmd
    user = [arg for op, arg in instructions if op == "USER"]
    assert user and user[-1] != "root"
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(a for op, a in instructions if op == "ENV")))
    settings_from(env)
    [volume] = [json.loads(arg) for op, arg in instructions if op == "VOLUME"]
    assert all(Path(env[k]).is_relative_to(volume[0])
               for k in ("MUNDA_DATABASE_PATH", "MUNDA_DATABASE_BACKUP_DIR"))
