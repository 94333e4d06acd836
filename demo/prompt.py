"""``munda-arbitrator try``: use the bot by hand, offline, one command at a time.

It starts the fake Discord (its demo world: the server "Underhive" with
#general and #campaign, and the people alice, bob, carol and dave) and the
real bot against it with a fresh database in a temporary folder, then reads
lines from standard input:

- ``/gang create name:Ash Wolves house:Goliath alignment:Outlaw`` uses a slash
  command, as the current person, in the current channel;
- ``as bob`` changes who is typing (alice to begin with);
- ``in thread`` moves to the newest thread, ``in general`` (or any channel
  name) back to a channel;
- ``3`` (or ``click 3``) presses the button numbered 3 in the list shown after
  each step;
- ``help`` says this again; ``quit`` (or the end of the input) stops.

After each line it prints what appeared in the channels since, in time order,
as the demo prints it (fakediscord/timeline.py), then the buttons one may press.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from demo.arena import TOKEN, Arena, open_arena
from fakediscord import FakeDiscord
from fakediscord.entities import Channel, Message
from fakediscord.errors import FakeDiscordError
from fakediscord.timeline import Timeline, message_title

GUILD = "Underhive"
PEOPLE = ("alice", "bob", "carol", "dave")
USAGE = """\
Type a slash command as you would in Discord, e.g.
  /campaign create name:Dust Falls
  /gang create name:Ash Wolves house:Goliath alignment:Outlaw credits:300
Other lines: "as bob" (who types: alice, bob, carol, dave), "in thread" (the newest
thread) or "in general" (a channel), a button's number (or "click 3"), "help", "quit"."""
# ``name:value`` options: a value runs to the next `` word:`` or the end of the line.
_OPTION = re.compile(r"(?:^|\s)([a-z_0-9]+):")
SETTLE_SECONDS = 0.5
SETTLE_LONGEST = 10.0


@dataclass
class Seat:
    """Who is typing, where, and the buttons last listed."""

    user: str = "alice"
    channel: str | Channel = "general"
    buttons: list[tuple[Message, dict[str, Any]]] = field(default_factory=list)
    shown: int = 0  # timeline entries printed so far


def run_prompt(lines: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    with tempfile.TemporaryDirectory(prefix="munda-try-") as folder:
        return asyncio.run(_serve(Path(folder), lines, out))


async def _serve(workdir: Path, lines: TextIO, out: TextIO) -> int:
    fake = FakeDiscord.demo(token=TOKEN)
    timeline = Timeline(fake.world)
    out.write("Starting the fake Discord and the bot (a few seconds)...\n")
    out.flush()
    async with open_arena(workdir, fake=fake, log_level="WARNING") as arena:
        seat = Seat()
        out.write(f"Ready. You are {seat.user} in #general of {GUILD}.\n{USAGE}\n")
        loop = asyncio.get_running_loop()
        while True:
            out.write(f"{seat.user}> ")
            out.flush()
            line = await loop.run_in_executor(None, lines.readline)
            if not lines.isatty():
                out.write(line if line.endswith("\n") else line + "\n")  # as if typed
            if not line or line.strip() in ("quit", "exit"):
                return 0
            said = await _act(arena, seat, line.strip())
            if said:
                out.write(said + "\n")
            await _settled(timeline)
            out.write(_news(arena, timeline, seat))
            out.flush()


async def _settled(timeline: Timeline) -> None:
    """Wait until the bot has been quiet for a moment: what a line set off (follow-ups,
    a step's message from the outbox) is shown with it, even on a busy machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLE_LONGEST
    seen = -1
    while len(timeline.entries) != seen and loop.time() < deadline:
        seen = len(timeline.entries)
        await asyncio.sleep(SETTLE_SECONDS)


async def _act(arena: Arena, seat: Seat, line: str) -> str:
    """Do what the line asks; a message for the person when it cannot."""
    if not line:
        return ""
    if line == "help":
        return USAGE
    words = line.split()
    if words[0] == "as" and len(words) == 2:
        if words[1] not in PEOPLE:
            return f"Nobody called {words[1]!r} here: {', '.join(PEOPLE)}."
        seat.user = words[1]
        return f"You are {seat.user} now."
    if words[0] == "in" and len(words) >= 2:
        return _move(arena, seat, " ".join(words[1:]).lstrip("#"))
    if words[-1].isdigit() and (len(words) == 1 or words[0] == "click"):
        return await _click(arena, seat, int(words[-1]))
    if line.startswith("/"):
        return await _slash(arena, seat, line[1:])
    return f"Not understood: {line!r}. Type help."


def _move(arena: Arena, seat: Seat, where: str) -> str:
    driver = arena.driver
    if where == "thread":
        threads = [t for name in ("general", "campaign")
                   for t in driver.threads(name, guild=GUILD)]
        if not threads:
            return "There is no thread yet."
        seat.channel = max(threads, key=lambda t: t.id)
        return f"You are in the thread {seat.channel.name!r} now."
    try:
        seat.channel = driver.channel(where, guild=GUILD).name
    except FakeDiscordError:
        return f"No channel {where!r} in {GUILD}."
    return f"You are in #{where} now."


async def _slash(arena: Arena, seat: Seat, text: str) -> str:
    found = list(_OPTION.finditer(text))
    command = (text[: found[0].start()] if found else text).strip()
    options: dict[str, Any] = {}
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        options[match.group(1)] = text[match.end():end].strip()
    try:
        try:
            await arena.driver.slash(GUILD, seat.channel, seat.user, command,
                                     **{k: _typed(v) for k, v in options.items()})
        except FakeDiscordError:
            # A name that looks like a number or a yes/no is still a name.
            await arena.driver.slash(GUILD, seat.channel, seat.user, command, **options)
    except FakeDiscordError as error:
        return f"Discord refuses that: {error}"
    return ""


def _typed(value: str) -> Any:
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    return value


async def _click(arena: Arena, seat: Seat, number: int) -> str:
    if not 1 <= number <= len(seat.buttons):
        return f"There is no button {number}."
    message, button = seat.buttons[number - 1]
    try:
        await arena.driver.click(message, str(button["custom_id"]), seat.user)
    except FakeDiscordError as error:
        return f"Discord refuses that: {error}"
    return ""


def _news(arena: Arena, timeline: Timeline, seat: Seat) -> str:
    """What appeared since the last line, then the buttons to press now."""
    text = timeline.render_from(seat.shown)
    seat.shown = len(timeline.entries)
    seat.buttons = _pressable(arena, seat)
    listed = "\n".join(f"  {n}. [{b.get('label') or b['custom_id']}] on "
                       f"{message_title(m)}" for n, (m, b) in enumerate(seat.buttons, start=1))
    return (text + "\n" if text else "") + (f"Buttons:\n{listed}\n" if listed else "")


def _pressable(arena: Arena, seat: Seat) -> list[tuple[Message, dict[str, Any]]]:
    """The enabled buttons of the last few messages the person can see where they are."""
    messages = arena.driver.messages(seat.channel, guild=GUILD)
    mine = [m for m in messages if not m.ephemeral or (
        m.ephemeral_to is not None and m.ephemeral_to.username == seat.user)]
    return [(m, b) for m in mine[-6:] for b in m.buttons
            if b.get("custom_id") and not b.get("disabled")]
