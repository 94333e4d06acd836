"""The hosting files checked against what can be checked without systemd or Docker running:
the systemd units (one bot; one process per shard, docs/deploying.md) parse and name real
settings, and the Dockerfile's commands are the README's own install and run commands
(docs/hosting.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
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


def escaped(instance: str) -> str:
    """The instance as ``systemd-escape`` writes it into a unit name (where it exists)."""
    program = shutil.which("systemd-escape")
    if program is not None:
        return subprocess.run([program, instance], capture_output=True, text=True,
                              check=True, timeout=60).stdout.strip()
    return "".join(c if c.isalnum() or c in ":_." else f"\\x{ord(c):02x}" for c in instance)


def specifier(value: str, instance_name: str) -> str:
    """What systemd puts in ``value`` for an instance: %i as written in the unit name,
    %I unescaped (\\xNN back to its character, - to /)."""
    unescaped = re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)),
                       instance_name.replace("-", "/"))
    return value.replace("%i", instance_name).replace("%I", unescaped)


# The shard template is checked as instances of it (systemd fills in %i and %I).
@pytest.mark.parametrize(("unit", "name"), [
    (UNIT, UNIT.name),
    (SHARD_UNIT, "munda-arbitrator@1.service"),
    (SHARD_UNIT, f"munda-arbitrator@{escaped('0,1')}.service"),
])
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
    [shard_ids] = [v for v in service["Environment"] if v.startswith("MUNDA_")]
    assert shard_ids == "MUNDA_DISCORD_SHARD_IDS=%I"
    # No file of its own: the campaigns are in PostgreSQL, shared by every instance.
    assert "StateDirectory" not in service
    assert [v for v in unit["Unit"]["After"] if "postgres" in v] == ["postgresql.service"]
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


@pytest.mark.parametrize("shards", ["0", "1", "0,1", "2,3,5"])
def test_a_shard_instance_named_with_systemd_escape_holds_those_shards(shards: str) -> None:
    """A comma cannot be in a unit name: the guide has systemd-escape write it, and the
    unit must read it back (%I), or the process is given '0\\x2c1' and stops with exit 2."""
    name = escaped(shards)
    assert re.fullmatch(r"[A-Za-z0-9:_.\\]+", name), name
    env = dict(v.split("=", 1)
               for v in unit_entries(SHARD_UNIT.read_text("utf-8"))["Service"]["Environment"])
    key = "MUNDA_DISCORD_SHARD_IDS"
    config = load_config(None, {key: specifier(env[key], name),
                                "MUNDA_DISCORD_SHARD_COUNT": "6"})
    assert config.discord.shards == ShardSet.of(6, [int(s) for s in shards.split(",")])
    guide = (ROOT / "docs" / "deploying.md").read_text("utf-8")
    assert '"munda-arbitrator@$(systemd-escape 0,1)"' in guide


def matplotlib_folder(unit: Path) -> tuple[str, Path]:
    """The unit's MPLCONFIGDIR, and the folder systemd makes writable for it."""
    service = unit_entries(unit.read_text("utf-8"))["Service"]
    env = dict(v.split("=", 1) for v in service["Environment"])
    if "StateDirectory" in service:
        root = Path("/var/lib") / service["StateDirectory"][0]
    else:
        root = Path("/var/cache") / service["CacheDirectory"][0]
    return env["MPLCONFIGDIR"], root


@pytest.mark.parametrize("unit", [UNIT, SHARD_UNIT])
def test_the_picture_process_keeps_its_font_cache_in_the_units_folder(
    tmp_path: Path, unit: Path,
) -> None:
    """Under the unit there is no home (ProtectHome, no home folder): matplotlib would
    warn and rebuild its font cache at every start without a folder of its own."""
    folder, writable = matplotlib_folder(unit)
    assert Path(folder).is_relative_to(writable), (folder, writable)
    if unit is not UNIT:
        return  # the same picture process: run it once
    here = tmp_path / Path(folder).relative_to("/")
    home = tmp_path / "no-home"
    home.mkdir(mode=0o500)
    script = ("import asyncio\nfrom bot.pictures import PictureWorker\n"
              "async def main():\n    worker = PictureWorker()\n"
              "    await worker.warm_up()\n    worker.close()\nasyncio.run(main())\n")
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_CONFIG_HOME": str(home / ".config"), "MPLCONFIGDIR": str(here)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Matplotlib" not in done.stderr, done.stderr
    assert list(here.glob("fontlist-*.json")), list(here.iterdir())


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


def guide_commands(heading: str) -> list[str]:
    """The sh lines of one section of docs/hosting.md, continuation lines joined."""
    guide = (ROOT / "docs" / "hosting.md").read_text("utf-8")
    section = guide.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section.replace("\\\n", " "), re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip() and not line.startswith("#")]


def test_the_guides_backup_and_restore_commands_find_the_units_database() -> None:
    """Run as written, each command reaches the database the unit runs on, not an
    empty one of its own (backup and restore refuse to create one)."""
    service = unit_entries(UNIT.read_text("utf-8"))["Service"]
    unit_env = dict(v.split("=", 1) for v in service["Environment"] if v.startswith("MUNDA_"))
    program, _run, *config = service["ExecStart"][0].split()
    lines = [line for line in guide_commands("As a systemd service")
             if re.search(r"munda-arbitrator (backup|restore)\b", line)]
    assert {re.search(r"(backup|restore)\b", line).group(1)  # type: ignore[union-attr]
            for line in lines} == {"backup", "restore"}
    for line in lines:
        words = line.split()
        assert words[:3] == ["sudo", "-u", service["User"][0]], line
        given = dict(w.split("=", 1) for w in words if re.fullmatch(r"MUNDA_\w+=\S+", w))
        assert given == unit_env, line
        assert program in words and " ".join(config) in line, line


def test_the_containers_commands_use_the_image_and_its_volume() -> None:
    instructions = dockerfile_instructions()
    [volume] = [json.loads(arg) for op, arg in instructions if op == "VOLUME"]
    [cmd] = [json.loads(arg) for op, arg in instructions if op == "CMD"]
    lines = guide_commands("In a container")
    runs = [line for line in lines if line.startswith("docker run")]
    mounts = {m for line in runs for m in re.findall(r"-v (\S+)", line)}
    assert mounts == {f"munda-data:{volume[0]}"}, mounts
    for verb in ("backup", "restore"):
        used = [line for line in lines if f"munda-arbitrator {verb}" in line]
        assert used and all(f"{cmd[0]} {verb}" in line for line in used), verb
