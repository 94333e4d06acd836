"""The channels in time order, as a person watching them in Discord saw them happen.

:func:`fakediscord.transcript.render_channel` shows each message in its final
state. A :class:`Timeline` listens to the world instead and keeps, in order,
each command used and button clicked, each message as it was first posted,
and each later edit as an edit at the moment it happened, showing only the
lines that changed. It is opt-in (the demo and the interactive prompt start
one before the bot connects): a fake Discord without one keeps no history.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from fakediscord.entities import Channel, Message
from fakediscord.interactions import InteractionRecord
from fakediscord.transcript import readable_mentions, render_message
from fakediscord.world import World

# What a person sees as an interaction: a slash command, a click or select, a form sent.
_SHOWN_INTERACTIONS = frozenset({2, 3, 5})
_TITLE_MAX = 60


@dataclass(frozen=True)
class Entry:
    channel: Channel
    lines: list[str]


class Timeline:
    """Everything shown in the world's channels from now on, in the order it happened."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.entries: list[Entry] = []
        # Each message's lines as last shown: an edit shows what changed from them.
        self._shown: dict[int, list[str]] = {}
        world.listeners.append(self._heard)

    def _heard(self, event: str, subject: object) -> None:
        if isinstance(subject, InteractionRecord):
            if subject.type in _SHOWN_INTERACTIONS:
                self._interaction(subject)
        elif isinstance(subject, Message) and event in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
            self._message(subject)

    def _interaction(self, record: InteractionRecord) -> None:
        who = record.user.display_name
        line = f"> {who} used {record.label}" if record.command_name else f"> {record.label}"
        self.entries.append(Entry(record.channel, [line]))

    def _message(self, message: Message) -> None:
        if message.loading:
            return  # "thinking...": shown once it says something
        lines = render_message(self.world, message)
        earlier = self._shown.get(message.id)
        self._shown[message.id] = lines
        if earlier is None:
            self.entries.append(Entry(message.channel, lines))
            return
        changed = [line for line in difflib.ndiff(_unmarked(earlier), _unmarked(lines))
                   if line.startswith(("+ ", "- "))]
        if changed:
            author = lines[0].split(" [", 1)[0].split(":", 1)[0]
            self.entries.append(Entry(message.channel, [
                f"{author} edited {message_title(message)}:",
                *(f"    {line}" for line in self._unrepeated(message.channel, changed)),
            ]))

    def _unrepeated(self, channel: Channel, changed: list[str]) -> list[str]:
        """The changed lines, with a run of added lines the channel's previous entry
        already showed (an action's notice, then the step that lists it) said once."""
        before = next((e for e in reversed(self.entries) if e.channel is channel), None)
        if before is None:
            return changed
        # The head line carries the author before the text ("Bot: text").
        shown = {_bare(line) for line in [before.lines[0].split(": ", 1)[-1], *before.lines]}
        added = [line for line in changed if line.startswith("+ ")]
        if len(added) < 2 or not all(_bare(line[2:]) in shown for line in added):
            return changed
        kept = [line for line in changed if not line.startswith("+ ")]
        return [*kept, f"+ (the {len(added)} lines of the message above)"]

    def render(self, channel: Channel) -> str:
        """The channel and its threads, in time order; a thread's part indented under its
        name each time the story moves into it."""
        lines: list[str] = []
        where: Channel | None = None
        for entry in self.entries:
            place = entry.channel
            if place.id != channel.id and place.parent_id != channel.id:
                continue
            indent = "    " if place.id != channel.id else ""
            if place is not where and place.id != channel.id:
                lines.append(f"{indent}== in thread {place.name!r} ==")
            elif place is not where and where is not None:
                lines.append(f"== back in #{channel.name} ==")
            where = place
            lines += [indent + line for line in entry.lines]
        return readable_mentions(self.world, "\n".join(lines))


    def render_from(self, start: int) -> str:
        """Every channel's entries from the ``start``-th on, each run of them under the
        name of its channel or thread."""
        lines: list[str] = []
        where: Channel | None = None
        for entry in self.entries[start:]:
            if entry.channel is not where:
                place = entry.channel
                lines.append(f"== thread {place.name!r} ==" if place.is_thread
                             else f"== #{place.name} ==")
                where = place
            lines += entry.lines
        return readable_mentions(self.world, "\n".join(lines))


def _bare(line: str) -> str:
    """A line without its indent, embed bar or bold marks: the text a reader sees."""
    return line.strip().removeprefix("| ").strip().replace("**", "")


def _unmarked(lines: list[str]) -> list[str]:
    """The lines without the "edited" mark of their head (an edit is shown as one)."""
    head = lines[0].replace(" [edited]", "").replace("; edited]", "]")
    return [head, *lines[1:]]


def message_title(message: Message) -> str:
    """How a reader names a message: its first embed's title, else its first words."""
    for embed in message.embeds:
        if embed.get("title"):
            return repr(str(embed["title"])[:_TITLE_MAX])
    first = (message.content.splitlines() or [""])[0]
    return repr(first[:_TITLE_MAX]) if first else "its message"
