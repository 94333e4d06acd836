"""Rendering rules results as channel text: escaped, complete, paged."""

from __future__ import annotations

from bot.render import change_line, paginate, result_lines, roll_line, safe
from rules.dice import ScriptedRoller
from rules.models import Advancement, FighterStatus
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


def test_plain_lines_have_no_markdown_escapes_or_bold() -> None:
    gang = make.gang(name="**Ash_Wolves**", credits=100)
    ws = Workspace(make.world(gang))
    dice = ws.roll(ScriptedRoller([5]), "D6", "scrap for *Ash_Wolves*")
    ws.gang(gang.id).credits += 50
    ws.note("**Ash_Wolves** strip the wreck.")
    result = ws.finish(RuleResult, clause="PB-1.3", title="Scrap")
    plain = result_lines(result, plain=True)
    assert plain == [
        "**Ash_Wolves** strip the wreck.",
        "🎲 scrap for *Ash_Wolves*: D6 → [5] = 5",
        "**Ash_Wolves**: credits 100 → 150",
    ]
    assert roll_line(dice, plain=True) == plain[1]
    # The Discord default is unchanged: escaped names and a bold total.
    assert result_lines(result)[1] == "🎲 scrap for \\*Ash\\_Wolves\\*: D6 → [5] = **5**"


def test_plain_safe_drops_control_characters_but_keeps_the_limit() -> None:
    assert safe("Red\x1b[31m_Gang\n", plain=True) == "Red[31m_Gang"
    assert safe("@everyone", plain=True) == "@everyone"
    assert len(safe("x" * 500, plain=True)) == 100


def test_gang_ids_read_as_gang_names() -> None:
    owner = make.gang(name="Ash Wolves")
    captor = make.gang(name="Iron_Saints")
    ruins = make.territory(controller=owner.id)
    ws = Workspace(make.world(owner, captor, territories=[ruins]))
    ws.gang(owner.id).fighters[0].capture(captor.id)
    ws.world.territory(ruins.id).controller = captor.id
    result = ws.finish(RuleResult, clause="PB-2", title="x")
    lines = result_lines(result)
    assert "Boss: captured by — → Iron\\_Saints" in lines
    assert "Old Ruins: controller Ash Wolves → Iron\\_Saints" in lines
    # Without names (a gang outside the world) the id stands.
    change = next(c for c in result.changes if c.path == "controller")
    assert change_line(change, plain=True) == f"Old Ruins: controller {owner.id} → {captor.id}"


def test_records_in_a_list_read_by_name_and_unchanged_lines_are_dropped() -> None:
    gang = make.gang()
    ws = Workspace(make.world(gang))
    fighter = ws.gang(gang.id).fighters[0]
    fighter.advancements.append(Advancement(name="+1 Willpower or Intelligence", xp_cost=3,
                                            credits=5))
    first = ws.finish(RuleResult, clause="PB-6E", title="x")
    assert "Boss: advancements none → +1 Willpower or Intelligence" in result_lines(first)
    ws = Workspace(first.world)
    ws.gang(gang.id).fighters[0].advancements[0].stat = "wil"
    second = ws.finish(RuleResult, clause="PB-6E", title="x")
    assert [change_line(c) for c in second.changes] == [None]
