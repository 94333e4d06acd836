"""A message's buttons and selects as Discord's JSON, without a discord.ui.View.

The bot draws a run's step and report panels on every click only to send their
components; their clicks are routed by custom_id (bot/ui/routes.py), never by a
view object. A ``discord.ui.View`` costs more than its JSON: its id is
``os.urandom`` (a system call that lets the database threads take the
interpreter lock, which the event loop then waits for), it makes a future, and
discord.py keeps every dispatchable view it is given in its view store, per
message, for ever. :class:`Components` lays items out in rows exactly as a View
does (``_ViewWeights``: an item's own row, else the first row with room) and
serialises them the same way, and tells discord.py, wherever a view is taken,
that there is nothing to keep.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any, cast

import discord

ROWS = 5
ROW_WIDTH = 5
ITEMS_MAX = 25


class Components:
    """Buttons and selects in rows, as ``View(timeout=None)`` with the same items sends them."""

    def __init__(self, *items: discord.ui.Item[Any]) -> None:
        self.children: list[discord.ui.Item[Any]] = []
        self._rows: list[int] = []
        self._weights = [0] * ROWS
        for item in items:
            self.add_item(item)

    def add_item(self, item: discord.ui.Item[Any]) -> Components:
        if len(self.children) >= ITEMS_MAX:
            raise ValueError("maximum number of children exceeded")
        row = item.row
        if row is None:
            row = next((index for index, weight in enumerate(self._weights)
                        if weight + item.width <= ROW_WIDTH), None)
            if row is None:
                raise ValueError("could not find open space for item")
        elif self._weights[row] + item.width > ROW_WIDTH:
            raise ValueError(f"item would not fit at row {row}")
        self._weights[row] += item.width
        self.children.append(item)
        self._rows.append(row)
        return self

    def to_components(self) -> list[dict[str, Any]]:
        placed = sorted(zip(self._rows, self.children, strict=True), key=lambda pair: pair[0])
        return [{"type": 1, "components": [item.to_component_dict() for _, item in group]}
                for _, group in groupby(placed, key=lambda pair: pair[0])]

    # What discord.py asks of a view it is given (bot/battle/publish.py, clicks.py):
    # nothing here is a view to keep and dispatch to.

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False

    def as_view(self) -> discord.ui.View:
        """This, where discord.py's signature says View: it only calls the methods above."""
        return cast(discord.ui.View, self)
