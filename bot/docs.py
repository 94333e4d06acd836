"""Parts of docs/ written from the text the bot itself shows.

The player's card (docs/player.md) walks through the post-battle steps, and the
Downtime steps, with the very words each step's message shows under "What to
do", so the page and the bot cannot drift apart: ``python -m bot.docs player``
rewrites those two sections, ``--check`` only says whether it is out of date
(tests/docs runs the same comparison).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rules.downtime_sequence import DOWNTIME
from rules.stages import POST_BATTLE

PLAYER_PAGE = Path(__file__).parents[1] / "docs" / "player.md"
BEGIN = ("<!-- the steps below are written by `python -m bot.docs player`; "
         "edit the bot's text, not them -->")
END = "<!-- end of the written steps -->"
DOWNTIME_BEGIN = ("<!-- the Downtime steps below are written by `python -m bot.docs player`; "
                  "edit the bot's text, not them -->")
DOWNTIME_END = "<!-- end of the written Downtime steps -->"


def player_steps() -> str:
    """The post-battle steps in order, as a player meets them in the thread."""
    return _steps("", [
        (stage.label, stage.shows, (
            "**Your turn**: the bot works nothing out by itself here. Type the commands "
            "the message names, then press **Confirm**."
            if stage.interactive else
            "**The bot's turn**: it works the step out as it opens, openly in the thread. "
            "Check what it did, do what the message asks, then press **Confirm**."
        ) + (" Campaign battles only: a skirmish skips this step."
             if stage.campaign_only else ""))
        for stage in POST_BATTLE])


def downtime_steps() -> str:
    """The Downtime steps in order, as a gang's owner meets them in its thread."""
    return _steps("Downtime ", [
        (stage.label, stage.shows, (
            "**Your turn**: the bot has done its part as the step opened; use the "
            "commands the message names, then press **Confirm**."
            if stage.interactive else
            "**The bot's turn**: it works the step out as it opens, in the thread. "
            "Check what it did, then press **Confirm**."))
        for stage in DOWNTIME])


def _steps(numbering: str, steps: list[tuple[str, str, str]]) -> str:
    """Each step (label, what its message shows, whose turn it is) under its heading."""
    parts: list[str] = []
    for number, (label, shows, who) in enumerate(steps, start=1):
        quoted = "\n".join(f"> {line}" for line in shows.splitlines())
        parts.append(f"### {numbering}{number}. {label}\n\n{who}\n\n{quoted}\n")
    return "\n".join(parts)


def with_player_steps(page: str) -> str:
    """``page`` with its written sections replaced by the current steps."""
    page = _written(page, BEGIN, END, player_steps())
    return _written(page, DOWNTIME_BEGIN, DOWNTIME_END, downtime_steps())


def _written(page: str, begin_marker: str, end_marker: str, text: str) -> str:
    head, begin, rest = page.partition(begin_marker)
    _old, end, tail = rest.partition(end_marker)
    if not begin or not end:
        raise ValueError(f"{PLAYER_PAGE.name} lacks the markers of a written section")
    return f"{head}{begin_marker}\n\n{text}\n{end_marker}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.docs",
                                     description="Rewrite the parts of docs/ the bot's text makes.")
    parser.add_argument("page", choices=["player"])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if the page is out of date")
    args = parser.parse_args(argv)
    current = PLAYER_PAGE.read_text(encoding="utf-8")
    wanted = with_player_steps(current)
    if args.check:
        if wanted != current:
            print(f"{PLAYER_PAGE} is out of date: run python -m bot.docs player", file=sys.stderr)
            return 1
        return 0
    if wanted != current:
        PLAYER_PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
