"""Rendering rules results as channel text: escaped, complete, paged."""

from __future__ import annotations

from bot.render import change_line, paginate, result_lines, roll_line, safe
from rules.dice import ScriptedRoller
from rules.models import FighterStatus
from rules.world import RuleResult, Workspace
from tests import factories as make


def test_names_cannot_ping_or_format() -> None:
    text = safe("**@everyone** <@123> _x_")
    assert "@everyone" not in text.replace("@\u200beveryone", "")
    assert "\\*\\*" in text
    assert len(safe("x" * 5000)) == 100


def test_result_lines_show_rolls_notes_and_changes() -> None:
    gang = make.gang(credits=100)
    target = gang.fighters[0]
    ws = Workspace(make.world(gang))
    dice = ws.roll(ScriptedRoller([2]), "D6", f"succumb roll for {target.name}")
    ws.gang(gang.id).fighter(target.id).set_status(FighterStatus.IN_RECOVERY)
    ws.gang(gang.id).stash.append(make.item("Frag grenades", 30))
    ws.note("Boss succumbs on a 2.")
    result = ws.finish(RuleResult, clause="PB-1.1", title="Succumbing")
    lines = result_lines(result)
    assert lines[0] == "Boss succumbs on a 2."
    assert lines[1] == roll_line(dice)
    assert "D6 → [2] = **2**" in lines[1]
    assert "Boss: status Active → In Recovery" in lines
    assert "➕ Frag grenades to the Stash" in lines


def test_bookkeeping_changes_are_quiet() -> None:
    gang = make.gang()
    ws = Workspace(make.world(gang))
    ws.gang(gang.id).fighters[0].escorted_to_doc = True
    result = ws.finish(RuleResult, clause="X", title="x")
    assert [change_line(c) for c in result.changes] == [None]


def test_paginate_keeps_lines_whole_and_pages_short() -> None:
    lines = [f"line {i} " + "x" * 50 for i in range(200)]
    pages = paginate(lines, limit=1000)
    assert all(len(page) <= 1000 for page in pages)
    assert "\n".join(pages).split("\n") == lines
    assert paginate([]) == [""]
    assert len(paginate(["y" * 5000], limit=100)[0]) == 100
