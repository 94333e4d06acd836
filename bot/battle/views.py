"""The buttons and selects of a post-battle run, drawn as routed components.

Every component is ``munda:pb:<kind>:<campaign>:<battle>:...``, one
:class:`~bot.ui.routes.Route` each, declared here and registered with its handler
in :mod:`bot.battle.clicks` (``@route(views.CONFIRM)``). The custom ids are the
ones posted by earlier releases, so buttons posted then still work:
``munda:pb:confirm:<campaign>:<battle>:<step_no>``, ``munda:pb:really:undo|cancel:...``,
``munda:pb:pick:...:<gang>:<part>:<slot>``
and so on (tests/test_custom_ids.py lists them). The routes are declared here,
with the drawing, so that drawing needs no handler and handlers can draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.battle.panel import (
    AMOUNTS,
    DAMAGE,
    INJURIES,
    NOT_ROLLED,
    PER_SELECT,
    PLACEHOLDER_MAX,
    SELECTS_PER_PAGE,
    ReportScope,
    amount_label,
    amount_placeholder,
    current_page,
    current_section,
    damage_placeholder,
    damage_target,
    faces,
    injuries_text,
    injury_placeholder,
    injury_results,
    injury_target,
    out_of_action,
    page_count,
    sections,
    slot_items,
)
from bot.battle.state import PostBattleRun, StageRecord
from bot.ui.components import Components
from bot.ui.routes import Choice, Id, Int, Param, PostedView, Route, button, option
from rules.injuries import injury_table_for

_RUN = (Id("campaign"), Id("battle"))
_GANG = Param("gang", "[0-3]", int)
_STAGE = Int("stage", 4)

SECTION = Route("pb:sec", (*_RUN, _GANG))
PICK = Route("pb:pick", (*_RUN, _GANG, Param("section", "[a-z0-9]{1,8}"),
                         Param("slot", "[01]", int)))
INJURY_FIGHTER = Route("pb:injf", (*_RUN, _GANG))
INJURY = Route("pb:inj", (*_RUN, _GANG, Id("fighter")))
AMOUNT = Route("pb:amt", (*_RUN, _GANG, Choice("section", *AMOUNTS)))
DAMAGE_RESULT = Route("pb:dmg", (*_RUN, _GANG, Id("vehicle")))
TOGGLE = Route("pb:tog", (*_RUN, _GANG, Choice("what", "bottled", "left")))
PAGE = Route("pb:page", (*_RUN, _GANG, Choice("direction", "prev", "next")))
SUBMIT = Route("pb:submit", (*_RUN, _GANG))
CONFIRM = Route("pb:confirm", (*_RUN, _STAGE))
BEHALF = Route("pb:behalf", (*_RUN, _STAGE))
UNDO = Route("pb:undo", (*_RUN, _STAGE))
CANCEL = Route("pb:cancel", (*_RUN, _STAGE))
# The "yes" to "really undo / cancel?" (its route keeps the name old messages carry).
YES_UNDO_OR_CANCEL = Route("pb:really", (Choice("kind", "undo", "cancel"), *_RUN, _STAGE))

ROUTES = (SECTION, PICK, INJURY_FIGHTER, INJURY, AMOUNT, DAMAGE_RESULT, TOGGLE, PAGE, SUBMIT,
         CONFIRM, BEHALF, UNDO, CANCEL, YES_UNDO_OR_CANCEL)

_PLACEHOLDERS = {
    "psi": "Fighters Prone & Seriously Injured at the end",
    "fled": "Fighters that fled whilst Prone & Seriously Injured",
    "ooa": "Fighters Out of Action",
    "web": "Fighters Out of Action while Webbed",
    "crit": "Fighters that suffered a Critical Injury",
    "wreck": "Vehicles Wrecked",
    "aband": "Vehicles abandoned by fleeing crew",
    "enemies": "How many enemies this gang took Out of Action",
    "xp": "Fighters that earned XP (choose, then their XP below)",
    "kills": "Fighters that took enemies Out of Action (choose, then how many)",
    "wres": "Wrecked vehicles (choose, then their Wrecked results below)",
    "dmg": "Wrecked vehicle whose Lasting Damage was rolled at the table",
    "by": "Fighters this enemy took Out of Action",
}


# --------------------------------------------------------------------------- components


def section_select(run: PostBattleRun, index: int, options: Sequence[tuple[str, str]] = (),
                   current: str = "psi") -> discord.ui.Select[Any]:
    return discord.ui.Select(
        custom_id=SECTION.custom_id(run.campaign_id, run.battle_id, index),
        placeholder="Report which part?",
        options=[option(v, label, default=v == current) for v, label in options], row=0,
    )


def pick_select(campaign_id: str, battle_id: str, index: int, section: str, slot: int,
                items: Sequence[tuple[str, str, bool]] = (),
                single: bool = False) -> discord.ui.Select[Any]:
    options = [option(v, label, default=chosen) for v, label, chosen in items]
    empty = not options
    if empty:
        options = [discord.SelectOption(label="nobody to choose", value="-")]
    return discord.ui.Select(
        custom_id=PICK.custom_id(campaign_id, battle_id, index, section, slot),
        placeholder=_PLACEHOLDERS.get(section[:2] if section.startswith("by") else section,
                                      "Choose"),
        min_values=0 if not single else 1,
        max_values=1 if single or empty else len(options),
        options=options, disabled=empty, row=1 + slot,
    )


def injury_fighter_select(campaign_id: str, battle_id: str, index: int,
                          fighters: Sequence[tuple[str, str, str, bool]] = ()
                          ) -> discord.ui.Select[Any]:
    """Which Out of Action fighter's injuries rolled at the table the panel shows."""
    options = [option(fid, name, default=chosen, description=results)
               for fid, name, results, chosen in fighters]
    return discord.ui.Select(
        custom_id=INJURY_FIGHTER.custom_id(campaign_id, battle_id, index),
        placeholder="Fighter Out of Action whose injury was rolled at the table",
        options=options or [discord.SelectOption(label="nobody Out of Action",
                                                  value=NOT_ROLLED)],
        disabled=not fighters, row=1,
    )


def injury_select(campaign_id: str, battle_id: str, index: int, fighter_id: str,
                  results: Sequence[tuple[str, str, str]] = (),
                  placeholder: str = "Result rolled at the table") -> discord.ui.Select[Any]:
    """The Lasting Injury result rolled at the table for one fighter (named in the id).

    No option is marked chosen: a pick of the same result again must still reach
    the bot (a second Eye Injury among Multiple Injuries' extras). The
    placeholder and the report say what is entered.
    """
    return _rolled_select(INJURY.custom_id(campaign_id, battle_id, index, fighter_id),
                          "fighter", results, placeholder)


def amount_select(campaign_id: str, battle_id: str, index: int, section: str,
                  placeholder: str) -> discord.ui.Select[Any]:
    """The amount given to every fighter (or vehicle) chosen in the select above it.

    No option is marked chosen: the chosen fighters may have different amounts,
    and a pick of the amount one of them has must still reach the bot."""
    return discord.ui.Select(
        custom_id=AMOUNT.custom_id(campaign_id, battle_id, index, section),
        placeholder=placeholder[:PLACEHOLDER_MAX],
        options=[option(str(n), amount_label(section, n)) for n in AMOUNTS[section]], row=2,
    )


def damage_select(campaign_id: str, battle_id: str, index: int, vehicle_id: str,
                  results: Sequence[tuple[str, str, str]] = (),
                  placeholder: str = "Lasting Damage rolled at the table"
                  ) -> discord.ui.Select[Any]:
    """The Lasting Damage result rolled at the table for one Wrecked vehicle."""
    return _rolled_select(DAMAGE_RESULT.custom_id(campaign_id, battle_id, index, vehicle_id),
                          "vehicle", results, placeholder)


def _rolled_select(custom_id: str, whose: str, results: Sequence[tuple[str, str, str]],
                   placeholder: str) -> discord.ui.Select[Any]:
    """A table's results (value, label, faces) after "not rolled at the table"."""
    options = [option(NOT_ROLLED, "Not rolled at the table (the bot rolls it)",
                      description=f"Clears what was entered for this {whose}")]
    options += [option(value, label, description=face) for value, label, face in results]
    return discord.ui.Select(custom_id=custom_id, placeholder=placeholder[:PLACEHOLDER_MAX],
                             options=options, row=2)


def toggle_button(campaign_id: str, battle_id: str, index: int, what: str,
                  label: str = "Toggle") -> discord.ui.Button[Any]:
    return button(TOGGLE, campaign_id, battle_id, index, what, label=label,
                  style=discord.ButtonStyle.secondary, row=3)


def page_button(campaign_id: str, battle_id: str, index: int, direction: str,
                disabled: bool = False, label: str = "Page") -> discord.ui.Button[Any]:
    return button(PAGE, campaign_id, battle_id, index, direction, label=label,
                  style=discord.ButtonStyle.secondary, row=3, disabled=disabled)


def submit_button(campaign_id: str, battle_id: str, index: int,
                  resubmit: bool = False) -> discord.ui.Button[Any]:
    return button(SUBMIT, campaign_id, battle_id, index,
                  label="Submit again" if resubmit else "Submit",
                  style=discord.ButtonStyle.success, row=4)


def confirm_button(campaign_id: str, battle_id: str, stage_no: int) -> discord.ui.Button[Any]:
    return button(CONFIRM, campaign_id, battle_id, stage_no, label="Confirm",
                  style=discord.ButtonStyle.success, row=0, emoji="✅")


def behalf_select(campaign_id: str, battle_id: str, stage_no: int,
                  gangs: Sequence[tuple[str, str]] = ()) -> discord.ui.Select[Any]:
    return discord.ui.Select(
        custom_id=BEHALF.custom_id(campaign_id, battle_id, stage_no),
        placeholder="Arbitrator: confirm on a player's behalf",
        options=[option(g, name) for g, name in gangs], row=1,
    )


def undo_button(campaign_id: str, battle_id: str, stage_no: int) -> discord.ui.Button[Any]:
    return button(UNDO, campaign_id, battle_id, stage_no, label="Undo",
                  style=discord.ButtonStyle.secondary, row=0, emoji="↩️")


def cancel_button(campaign_id: str, battle_id: str, stage_no: int,
                  row: int = 0) -> discord.ui.Button[Any]:
    return button(CANCEL, campaign_id, battle_id, stage_no, label="Cancel sequence",
                  style=discord.ButtonStyle.danger, row=row)


def yes_button(kind: str, campaign_id: str, battle_id: str,
                  stage_no: int) -> discord.ui.Button[Any]:
    """The second click an Arbitrator gives before an undo or a cancel."""
    label = "Yes, undo" if kind == "undo" else "Yes, cancel the sequence"
    return button(YES_UNDO_OR_CANCEL, kind, campaign_id, battle_id, stage_no, label=label,
                  style=discord.ButtonStyle.danger)


# --------------------------------------------------------------------------- views


def report_view(scope: ReportScope, arbitrated: bool = True) -> Components:
    """The report panel of one gang: section, its selects, toggles, Submit."""
    items: list[discord.ui.Item[Any]] = []
    run, index = scope.run, scope.gang_index
    c, b = run.campaign_id, run.battle_id
    section = current_section(scope)
    page = current_page(scope, section)
    items.append(section_select(run, index, sections(scope), section))
    if section == INJURIES:
        items += _injury_selects(scope, page)
    elif section in AMOUNTS or section == DAMAGE:
        first = slot_items(scope, section, page, 0)
        items.append(pick_select(c, b, index, section, 0, first, single=section == DAMAGE))
        if section in AMOUNTS:
            items.append(amount_select(c, b, index, section, amount_placeholder(scope, section)))
        elif (vehicle := damage_target(scope)) is not None:
            table = scope.ruleset.lasting_damage
            items.append(damage_select(
                c, b, index, vehicle.id,
                [(e.name, e.name, faces(table, e)) for e in injury_results(table)],
                damage_placeholder(scope, vehicle)))
    else:
        for slot in range(SELECTS_PER_PAGE):
            chosen = slot_items(scope, section, page, slot)
            if not chosen and slot > 0:
                break
            items.append(pick_select(c, b, index, section, slot, chosen,
                                     single=section == "enemies"))
    pages = page_count(scope, section)
    if pages > 1:
        items.append(page_button(c, b, index, "prev", disabled=page == 0,
                                  label=f"◀ Page {page}"))
        items.append(page_button(c, b, index, "next", disabled=page >= pages - 1,
                                  label=f"Page {page + 2} ▶"))
    report = scope.report
    items.append(toggle_button(c, b, index, "bottled",
                                f"Bottled out: {'yes' if report.bottled_out else 'no'}"))
    items.append(toggle_button(c, b, index, "left",
                                f"Models left: {'yes' if report.models_left else 'no'}"))
    items.append(submit_button(c, b, index, resubmit=report.submitted))
    if arbitrated:
        items.append(cancel_button(c, b, 0, row=4))
    return Components(*items)


def _injury_selects(scope: ReportScope, page: int) -> list[discord.ui.Item[Any]]:
    """The fighter select (one page of the Out of Action fighters) and its result select."""
    run, index = scope.run, scope.gang_index
    target = injury_target(scope)
    marks = scope.report.fighters
    fighters = out_of_action(scope)[page * PER_SELECT:(page + 1) * PER_SELECT]
    selects: list[discord.ui.Item[Any]] = [injury_fighter_select(
        run.campaign_id, run.battle_id, index, [
        (f.id, f.name, injuries_text(marks[f.id].injuries_rolled) or "not rolled at the table",
         target is not None and f.id == target.id)
        for f in fighters
    ])]
    if target is None:
        return selects
    table = injury_table_for(target, scope.ruleset)
    selects.append(injury_select(
        run.campaign_id, run.battle_id, index, target.id,
        [(e.name, e.name, faces(table, e)) for e in injury_results(table)],
        injury_placeholder(target, table, marks[target.id].injuries_rolled),
    ))
    return selects


def stage_view(run: PostBattleRun, record: StageRecord, names: dict[str, str]) -> Components:
    """Confirm for players; Undo, Cancel and Confirm-for-a-player for Arbitrators."""
    c, b, number = run.campaign_id, run.battle_id, record.number
    items: list[discord.ui.Item[Any]] = [
        confirm_button(c, b, number), undo_button(c, b, number), cancel_button(c, b, number)]
    awaited = [g for g in run.gang_ids if g not in record.confirmations]
    if awaited:
        items.append(behalf_select(c, b, number, [(g, names.get(g, g)) for g in awaited]))
    return Components(*items)


def yes_view(kind: str, campaign_id: str, battle_id: str, stage_no: int) -> discord.ui.View:
    view = PostedView()
    view.add_item(yes_button(kind, campaign_id, battle_id, stage_no))
    return view
