"""``munda-arbitrator run`` when Discord or the database cannot be reached, as a host sees it:
one log line per try and no traceback, the process kept running and trying, and a clean
exit on SIGTERM; a configuration error still ends it at once with exit code 2.

The unreachable services are ports on 127.0.0.1 that nothing listens on.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.startup import FIRST_PAUSE

TOKEN = "MTIz.fake.token"
TRIES = 3
# Start-up (imports) plus the pauses between the tries watched: 1 + 2 s.
WITHIN = 60.0


def closed_port() -> int:
    """A loopback port nothing listens on (taken from the system, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class Launched:
    def __init__(self, process: subprocess.Popen[bytes], log: Path) -> None:
        self.process = process
        self.log = log

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()

    def wait_for(self, pattern: str, count: int) -> list[str]:
        deadline = time.monotonic() + WITHIN
        while time.monotonic() < deadline:
            found = [line for line in self.lines() if re.search(pattern, line)]
            if len(found) >= count:
                return found
            assert self.process.poll() is None, "\n".join(self.lines())
            time.sleep(0.2)
        pytest.fail(f"fewer than {count} lines matching {pattern!r}:\n" + "\n".join(self.lines()))


Launch = Callable[[dict[str, str]], Launched]


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Launch]:
    started: list[Launched] = []

    def start(env: dict[str, str]) -> Launched:
        log = tmp_path / "bot.log"
        base = {k: v for k, v in os.environ.items() if not k.startswith("MUNDA_")}
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "bot", "run"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT,
                env={**base, "MUNDA_DISCORD_TOKEN": TOKEN,
                     "MUNDA_DATABASE_PATH": str(tmp_path / "munda.db"), **env})
        launched = Launched(process, log)
        started.append(launched)
        return launched

    yield start
    for launched in started:
        if launched.process.poll() is None:
            launched.process.kill()
            launched.process.wait(10)


def stopped_by_sigterm(launched: Launched) -> None:
    launched.process.send_signal(signal.SIGTERM)
    assert launched.process.wait(30) == 0, "\n".join(launched.lines())
    assert launched.lines()[-1].endswith("shutting down"), launched.lines()


def assert_one_line_per_try(lines: list[str], pattern: str) -> None:
    """Every line is a try's (or the shutdown's), numbered in order, pauses growing."""
    text = "\n".join(lines)
    assert "Traceback" not in text, text
    tries = [line for line in lines if re.search(pattern, line)]
    others = [line for line in lines if line not in tries and not line.endswith("shutting down")]
    assert not others, text
    numbers = [int(re.search(r"\(try (\d+)\)", line).group(1)) for line in tries]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(tries) + 1)), text
    pauses = [float(re.search(r"trying again in ([\d.]+) s", line).group(1))  # type: ignore[union-attr]
              for line in tries]
    assert pauses[:3] == [FIRST_PAUSE, 2 * FIRST_PAUSE, 4 * FIRST_PAUSE], text


def test_discord_out_of_reach_is_tried_again_until_a_signal(launch: Launch) -> None:
    api = f"http://127.0.0.1:{closed_port()}/api/v10"
    bot = launch({"MUNDA_DISCORD_API_BASE": api})

    bot.wait_for("could not reach Discord", TRIES)

    assert bot.process.poll() is None
    assert_one_line_per_try(
        [line for line in bot.lines() if "holding the database lock" not in line],
        rf"WARNING bot: could not reach Discord at {re.escape(api)}: Cannot connect to host "
        r"127\.0\.0\.1:\d+ .*; trying again in [\d.]+ s \(try \d+\)$")
    stopped_by_sigterm(bot)


def test_a_database_server_out_of_reach_is_tried_again_until_a_signal(launch: Launch) -> None:
    url = f"postgresql://munda:secret@127.0.0.1:{closed_port()}/munda"
    bot = launch({"MUNDA_DATABASE_URL": url,
                  # Never reached: the database comes first.
                  "MUNDA_DISCORD_API_BASE": f"http://127.0.0.1:{closed_port()}/api/v10"})

    bot.wait_for("could not reach the database", TRIES)

    assert bot.process.poll() is None
    lines = bot.lines()
    assert "secret" not in "\n".join(lines)
    assert_one_line_per_try(
        lines, r"WARNING bot: could not reach the database postgresql://munda:\*\*\*@127\.0\.0\.1"
        r":\d+/munda: .*; trying again in [\d.]+ s \(try \d+\)$")
    stopped_by_sigterm(bot)


def test_a_configuration_error_still_stops_at_once(launch: Launch) -> None:
    bot = launch({"MUNDA_DATABASE_URL": "mysql://somewhere/munda"})
    assert bot.process.wait(WITHIN) == 2
    [line] = bot.lines()
    assert line.startswith("munda-arbitrator: Config setting database.url"), line
