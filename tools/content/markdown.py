"""Reading the necrovox Markdown: headings, tables and cleaned cell text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_TOOLTIP = re.compile(r"<Tooltip[^>]*>(.*?)</Tooltip>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_WIKI = re.compile(r"\[\[([^\]|]*)(?:\|[^\]]*)?\]\]")
_SPACES = re.compile(r"\s+")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "″": '"'})


def clean(text: str) -> str:
    """A cell or heading as plain text: links, tags, emphasis and escapes gone."""
    text = _TOOLTIP.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _WIKI.sub(r"\1", text)
    text = _TAG.sub("", text)
    text = text.replace("&nbsp;", " ").replace("\\-", "-")
    text = text.replace("\\*", "*").replace("\\|", "|").replace("**", "").replace("__", "")
    text = text.translate(_QUOTES)
    return _SPACES.sub(" ", text).strip().strip("_").strip()


def split_row(line: str) -> list[str]:
    """The cells of one table line, split at unescaped bars."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", body)]


def _is_rule(cells: list[str]) -> bool:
    return all(re.fullmatch(r":?-+:?", cell.strip()) for cell in cells if cell.strip())


@dataclass
class Table:
    """A Markdown table: its header and rows, cells cleaned; ``line`` is where it starts."""

    line: int
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)


def tables(lines: list[str], start: int = 0, end: int | None = None) -> list[Table]:
    """Every table between ``start`` and ``end`` (line indexes)."""
    found: list[Table] = []
    stop = len(lines) if end is None else end
    index = start
    while index < stop:
        line = lines[index]
        if line.lstrip().startswith("|") and index + 1 < stop:
            following = split_row(lines[index + 1])
            if lines[index + 1].lstrip().startswith("|") and _is_rule(following):
                table = Table(index, [clean(c) for c in split_row(line)])
                index += 2
                while index < stop and lines[index].lstrip().startswith("|"):
                    table.rows.append([clean(c) for c in split_row(lines[index])])
                    index += 1
                found.append(table)
                continue
        index += 1
    return found


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str


def headings(lines: list[str]) -> list[Heading]:
    """Every ATX heading of the text, outside code blocks."""
    found: list[Heading] = []
    fenced = False
    for index, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match and not fenced:
            found.append(Heading(index, len(match.group(1)), clean(match.group(2))))
    return found


def section_end(all_headings: list[Heading], heading: Heading, total: int) -> int:
    """The line where the section under ``heading`` ends (the next heading of its level or
    above)."""
    for other in all_headings:
        if other.line > heading.line and other.level <= heading.level:
            return other.line
    return total


@dataclass(frozen=True)
class Section:
    """A heading's section: the heading, the line after its last, and where the heading
    before it stands (0 for the first)."""

    heading: Heading
    end: int
    previous: int


def sections(lines: list[str], level: int) -> Iterator[Section]:
    """Every section under a heading of ``level``, in the text's order."""
    marks = headings(lines)
    for index, heading in enumerate(marks):
        if heading.level == level:
            yield Section(heading, section_end(marks, heading, len(lines)),
                          marks[index - 1].line if index else 0)
