"""A message's buttons and selects sent as JSON without a discord.ui.View
(bot/ui/components.py): laid out and serialised as a View of the same items is, and
nothing discord.py would keep in its view store."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord.http import handle_message_parameters

from bot.battle import panel, views
from bot.battle.state import Confirmation
from bot.ui.components import Components
from tests.test_battle_flow import _reported
from tests.test_battle_state import _run, _world


def _as_view(components: Components) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in components.children:
        view.add_item(item)
    return view


def _panels() -> list[Components]:
    """Every part of the report panels of a long roster, on each page."""
    world = _world(fighters=60)
    run = _run(world)
    drawn = []
    for index in range(len(run.gang_ids)):
        report = run.reports[run.gang_ids[index]]
        for section, _label in panel.sections(panel.report_scope(run, world, index)):
            for page in (0, 1):
                report.section, report.page = section, page
                drawn.append(views.report_view(panel.report_scope(run, world, index)))
    return drawn


def _steps() -> list[Components]:
    run = _reported()
    record = run.stages[0]
    names = {g: g.upper() for g in run.gang_ids}
    drawn = [views.stage_view(run, record, names)]
    record.confirmations = {g: Confirmation(user_id=1) for g in run.gang_ids}  # all in
    drawn.append(views.stage_view(run, record, names))
    return drawn


@pytest.mark.parametrize("made", [*_panels(), *_steps()])
def test_components_are_the_json_a_view_of_the_same_items_sends(made: Components) -> None:
    sent = handle_message_parameters(view=made.as_view()).payload
    assert sent["components"] == _as_view(made).to_components()
    assert sent["components"] and "flags" not in sent
    assert not made.is_dispatchable()  # nothing for discord.py to keep


def test_items_without_a_row_take_the_first_row_with_room_as_in_a_view() -> None:
    buttons: list[discord.ui.Item[Any]] = [
        discord.ui.Button(label=str(n), custom_id=f"munda:b:{n}") for n in range(7)]
    chosen = discord.ui.Select(custom_id="munda:s", options=[discord.SelectOption(label="x")])
    made = Components(buttons[0], chosen, *buttons[1:])
    assert made.to_components() == _as_view(made).to_components()
    assert [len(row["components"]) for row in made.to_components()] == [5, 1, 2]
    with pytest.raises(ValueError):
        Components(*(discord.ui.Select(custom_id=f"munda:s{n}",
                                       options=[discord.SelectOption(label="x")])
                     for n in range(6)))
