"""Render channels as plain text, the way a person reading Discord would describe them.

The output is deterministic (no timestamps or ids) so it can be compared in tests
and pasted into bug reports.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from fakediscord.common import JsonObj
from fakediscord.entities import Channel, Message
from fakediscord.world import World

if TYPE_CHECKING:
    from fakediscord.interactions import Interactions

_SELECT_KINDS = {
    3: "select",
    5: "user select",
    6: "role select",
    7: "mentionable select",
    8: "channel select",
}


def _emoji(comp: JsonObj) -> str:
    emoji = comp.get("emoji") or {}
    return f"{emoji.get('name')} " if emoji.get("name") else ""


def render_button(comp: JsonObj) -> str:
    text = _emoji(comp) + (comp.get("label") or "")
    extras: list[str] = []
    if comp.get("disabled"):
        extras.append("disabled")
    if comp.get("style") == 5:
        extras.append(f"link {comp.get('url')}")
    return f"[{text.strip()}{' (' + ', '.join(extras) + ')' if extras else ''}]"


def render_select(comp: JsonObj) -> str:
    kind = _SELECT_KINDS.get(comp.get("type", 3), "select")
    head = f"<{kind}"
    if comp.get("placeholder"):
        head += f" {comp['placeholder']!r}"
    options = comp.get("options") or []
    if options:
        labels = [f"{o.get('label')}{'*' if o.get('default') else ''}" for o in options]
        head += ": " + " | ".join(labels)
    lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
    if (lo, hi) != (1, 1):
        head += f" (choose {lo}-{hi})"
    if comp.get("disabled"):
        head += " (disabled)"
    return head + ">"


def render_components(components: list[JsonObj], indent: str) -> list[str]:
    lines: list[str] = []
    for comp in components:
        kind = comp.get("type")
        if kind == 1:
            children = comp.get("components") or []
            buttons = [render_button(c) for c in children if c.get("type") == 2]
            if buttons:
                lines.append(indent + " ".join(buttons))
            lines += [indent + render_select(c) for c in children if c.get("type") != 2]
        elif kind == 2:
            lines.append(indent + render_button(comp))
        elif kind in _SELECT_KINDS:
            lines.append(indent + render_select(comp))
        elif kind == 10:
            lines += [indent + line for line in (comp.get("content") or "").splitlines()]
        elif kind == 9:
            lines += render_components(comp.get("components") or [], indent)
            accessory = comp.get("accessory")
            if accessory:
                lines += render_components([accessory], indent + "  ")
        elif kind == 17:
            lines.append(indent + "+--")
            lines += render_components(comp.get("components") or [], indent + "| ")
            lines.append(indent + "+--")
        elif kind == 14:
            lines.append(indent + "----")
        else:
            lines.append(indent + f"<component type {kind}>")
    return lines


def render_embed(embed: JsonObj, indent: str) -> list[str]:
    bar = indent + "| "
    lines: list[str] = []
    author = (embed.get("author") or {}).get("name")
    if author:
        lines.append(bar + author)
    if embed.get("title"):
        lines.append(bar + f"**{embed['title']}**")
    lines += [bar + line for line in (embed.get("description") or "").splitlines()]
    for fld in embed.get("fields") or []:
        value_lines = str(fld.get("value") or "").splitlines() or [""]
        lines.append(bar + f"{fld.get('name')}: {value_lines[0]}")
        # A multi-line value stays inside its embed's bar, indented under its name.
        lines += [bar + "    " + line for line in value_lines[1:]]
    footer = (embed.get("footer") or {}).get("text")
    if footer:
        lines.append(bar + f"-- {footer}")
    return lines


def _author(world: World, message: Message) -> str:
    guild = world.guilds.get(message.guild_id) if message.guild_id else None
    member = guild.members.get(message.author.id) if guild else None
    name = member.display_name if member else message.author.display_name
    return f"{name} (bot)" if message.author.bot else name


def render_message(
    world: World,
    message: Message,
    interactions: Interactions | None = None,
    indent: str = "",
    announced: set[int] | None = None,
) -> list[str]:
    """Lines for one message, preceded by what triggered it unless ``announced`` has it."""
    lines: list[str] = []
    meta = message.interaction
    seen = announced if announced is not None else set()
    if meta is not None and interactions is not None and meta.interaction_id not in seen:
        seen.add(meta.interaction_id)
        record = interactions.by_id.get(meta.interaction_id)
        if record is not None and meta.command_name:
            lines.append(f"{indent}> {meta.user.display_name} used {record.label}")
        elif record is not None:
            lines.append(f"{indent}> {record.label}")
    marks: list[str] = []
    if message.ephemeral:
        to = message.ephemeral_to.display_name if message.ephemeral_to else "?"
        marks.append(f"ephemeral, only {to} sees this")
    if message.loading:
        marks.append("thinking...")
    if message.edits:
        marks.append("edited")
    head = f"{indent}{_author(world, message)}"
    if marks:
        head += f" [{'; '.join(marks)}]"
    content_lines = message.content.splitlines() or [""]
    lines.append(f"{head}: {content_lines[0]}".rstrip())
    body = indent + "    "
    lines += [body + line for line in content_lines[1:]]
    for embed in message.embeds:
        lines += render_embed(embed, body)
    for attachment in message.attachments:
        lines.append(body + f"(attachment {attachment.filename}, {len(attachment.data)} bytes)")
    lines += render_components(message.components, body)
    for emoji, users in message.reactions.items():
        lines.append(body + f"({emoji} x{len(users)})")
    return lines


_MENTION = re.compile(r"<(@!?|@&|#)(\d+)>")


def readable_mentions(world: World, text: str) -> str:
    """``<@id>``, ``<@&id>`` and ``<#id>`` as a reader sees them: @Alice, @Arbitrator, #general."""

    def name(match: re.Match[str]) -> str:
        kind, ident = match.group(1), int(match.group(2))
        if kind == "#":
            channel = world.channels.get(ident)
            return f"#{channel.name}" if channel else match.group(0)
        if kind == "@&":
            for guild in world.guilds.values():
                role = guild.roles.get(ident)
                if role is not None:
                    return f"@{role.name}"
            return match.group(0)
        user = world.users.get(ident)
        return f"@{user.display_name}" if user else match.group(0)

    return _MENTION.sub(name, text)


def render_channel(
    world: World,
    channel: Channel,
    interactions: Interactions | None = None,
    *,
    include_ephemeral: bool = True,
    include_threads: bool = True,
    indent: str = "",
    announced: set[int] | None = None,
) -> str:
    announced = set() if announced is None else announced
    title = f"thread {channel.name!r}" if channel.is_thread else f"#{channel.name}"
    guild = world.guilds.get(channel.guild_id) if channel.guild_id else None
    lines = [f"{indent}== {title}" + (f" ({guild.name}) ==" if guild else " ==")]
    shown_threads: set[int] = set()
    for message in channel.messages:
        if message.ephemeral and not include_ephemeral:
            continue
        lines += render_message(world, message, interactions, indent, announced)
        if include_threads and message.thread is not None:
            shown_threads.add(message.thread.id)
            lines.append(
                render_channel(
                    world,
                    message.thread,
                    interactions,
                    include_ephemeral=include_ephemeral,
                    indent=indent + "    ",
                    announced=announced,
                )
            )
    if include_threads:
        for thread in world.channels.values():
            if (
                thread.parent_id == channel.id
                and thread.is_thread
                and thread.id not in shown_threads
            ):
                lines.append(
                    render_channel(
                        world,
                        thread,
                        interactions,
                        include_ephemeral=include_ephemeral,
                        indent=indent + "    ",
                    )
                )
    return readable_mentions(world, "\n".join(lines))
