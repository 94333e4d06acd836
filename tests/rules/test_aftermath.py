"""The battle report's aftermath: what the battle did to each gang, read from its record."""

from __future__ import annotations

import pytest

from rules.aftermath import Happening, aftermath
from rules.injuries import injury_of_note, injury_rolled_note
from rules.models import Battle, FighterEndState
from rules.report import battle_report
from rules.world import Change, World
from tests import factories as f


def change(subject: str, subject_id: str, name: str, gang_id: str | None, path: str,
           before: object, after: object, step: str) -> Happening:
    return Happening(step=step, change=Change(
        subject=subject, subject_id=subject_id, subject_name=name, gang_id=gang_id,
        path=path, before=before, after=after))


def fought() -> tuple[World, Battle, list[Happening]]:
    krag = f.fighter("Krag", id="krag")
    taken = f.fighter("Vexa", id="vexa")
    taken.capture("ash")
    ash = f.gang("Ash Wolves", id="ash", fighters=[krag])
    # Rotgut died and Clean House cleared him: only the record still knows his name.
    web = f.gang("Web Court", id="web", fighters=[taken, f.fighter("Mira", id="mira")])
    world = f.world(ash, web, territories=[f.territory("Old Ruins", id="ruins",
                                                      controller="ash")])
    battle = Battle(
        id="b1", gang_ids=["ash", "web"], scenario="Sneak Attack", winner="ash",
        staked_territory="ruins", enemies_out_of_action={"ash": 3},
        fighters=[
            FighterEndState(gang_id="web", fighter_id="vexa", out_of_action=True),
            FighterEndState(gang_id="web", fighter_id="rotgut", out_of_action=True),
            FighterEndState(gang_id="web", fighter_id="mira", out_of_action=True,
                            injuries_rolled=["Humiliated"]),
            FighterEndState(gang_id="ash", fighter_id="krag", xp=2, kills=3),
        ],
    )
    happened = [
        Happening(step="Wrap-up", note=injury_rolled_note("Vexa", 65, "Captured")),
        Happening(step="Wrap-up", note=injury_rolled_note("Rotgut", 66, "Memorable Death")),
        Happening(step="Wrap-up", note="Vexa rolls 2 to escape and stays a captive."),
        change("fighter", "rotgut", "Rotgut", "web", "status", "Active", "Dead", "Wrap-up"),
        change("fighter", "krag", "Krag", "ash", "xp", 1, 4, "Wrap-up"),
        change("territory", "ruins", "Old Ruins", None, "controller", "web", "ash",
               "Assign/Reassign Territory"),
        change("gang", "ash", "Ash Wolves", "ash", "credits", 100, 140, "Receive Rewards"),
        change("gang", "ash", "Ash Wolves", "ash", "credits", 140, 170, "Collect Income"),
        change("gang", "ash", "Ash Wolves", "ash", "credits", 170, 120,
               "Update Roster (B. Visit the Trading Post)"),
        change("fighter", "krag", "Krag", "ash", "xp", 4, 0,
               "Update Roster (E. Purchase Advancements)"),
    ]
    return world, battle, happened


def test_the_injury_note_reads_back_for_its_fighter_only() -> None:
    note = injury_rolled_note("Zell", 52, "Enfeebled")
    assert note == "Zell rolls 52: Enfeebled."
    assert injury_of_note("Zell", note) == "Enfeebled"
    assert injury_of_note("Zel", note) is None
    assert injury_of_note("Zell", "Zell rolls 2 on the Lasting Injury table.") is None


@pytest.mark.rule("PB-7")
def test_each_gang_gets_its_fallen_dead_captured_xp_credits_and_territories() -> None:
    world, battle, happened = fought()
    done = aftermath(world, battle, happened)
    web, ash = done["web"], done["ash"]
    assert [fate.text for fate in web.out_of_action] == [
        "Vexa (Captured)", "Rotgut (Memorable Death)", "Mira (Humiliated)"]
    assert web.dead == ["Rotgut"]
    assert [(c.name, c.held_by) for c in web.captured] == [("Vexa", "Ash Wolves")]
    assert web.territories_lost == ["Old Ruins"] and web.reward_credits == 0
    assert ash.out_of_action == [] and ash.dead == []
    assert [(x.name, x.xp) for x in ash.xp_earned] == [("Krag", 3)]
    assert (ash.reward_credits, ash.income_credits) == (40, 30)
    assert ash.territories_won == ["Old Ruins"]


@pytest.mark.rule("PB-7")
def test_the_report_gives_the_aftermath_in_words_and_never_an_id() -> None:
    world, battle, happened = fought()
    report = battle_report(world, battle, happened)
    assert report.text.splitlines()[2:] == [
        "Ash Wolves: 3 enemies Out of Action, Gang Rating 50, Wealth 150.",
        "  XP earned: Krag 3.",
        "  Credits: 40 from rewards, 30 from income.",
        "  Territory won: Old Ruins.",
        "Web Court: 0 enemies Out of Action, Gang Rating 50, Wealth 150.",
        "  Out of Action: Vexa (Captured), Rotgut (Memorable Death), Mira (Humiliated).",
        "  Dead: Rotgut.",
        "  Captured: Vexa (held by Ash Wolves).",
        "  Territory lost: Old Ruins.",
    ]
    assert "rotgut" not in report.text
    # Without the record the report gives the figures only.
    assert battle_report(world, battle).gangs[1].aftermath_lines == []
