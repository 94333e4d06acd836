"""docs/player.md says what the bot's step messages say, and the pages speak to people.

The player's card quotes, step by step, the "What to do" text of every
post-battle step's message; the page is checked against the text the bot
really shows, so changing one without the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.docs import PLAYER_PAGE, main, with_player_steps
from rules.sequence import STAGES, Step, stage_label
from rules.stages import declared

ROOT = Path(__file__).parents[2]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]


def visible(markdown: str) -> str:
    """The page as a reader sees it: without HTML comments, quote marks joined into lines."""
    text = re.sub(r"<!--.*?-->", "", markdown, flags=re.S)
    return re.sub(r"^> ?", "", text, flags=re.M)


def test_the_player_page_is_as_python_m_bot_docs_writes_it() -> None:
    page = PLAYER_PAGE.read_text(encoding="utf-8")
    assert with_player_steps(page) == page, "out of date: run python -m bot.docs player"
    assert main(["player", "--check"]) == 0


def test_every_step_is_on_the_player_page_in_order_with_the_bots_own_words() -> None:
    page = visible(PLAYER_PAGE.read_text(encoding="utf-8"))
    position = 0
    for stage in STAGES:
        if stage[0] is Step.FINISHED:
            continue
        heading = re.compile(rf"^### \d+\. {re.escape(stage_label(*stage))}$", re.M)
        found = heading.search(page, position)
        assert found, f"no heading for {stage_label(*stage)} after the previous step"
        position = found.end()
        assert declared(stage).shows in page[position:], stage_label(*stage)


def test_the_player_page_shows_no_python_names() -> None:
    page = visible(PLAYER_PAGE.read_text(encoding="utf-8"))
    python = re.compile(r"\b(?:rules|bot|cogs|tests)[./]\w|\w\.py\b|\w\(\)|\b[a-z]+_[a-z_]+\(")
    assert not python.findall(page)


def test_no_page_speaks_of_issues_or_targets() -> None:
    words = re.compile(r"\bissues?\b|\b(?:the|a|our|its) targets?\b(?! server| number)", re.I)
    found = [f"{path.name}: {m.group(0)}" for path in PAGES
             for m in words.finditer(path.read_text(encoding="utf-8"))]
    assert not found
