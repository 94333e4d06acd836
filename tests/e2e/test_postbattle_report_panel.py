"""The report panel's numbers and vehicles: XP, enemies taken Out of Action by each
fighter, Wrecked results and Lasting Damage rolled at the table.

Through the real bot process and the fake Discord: each player fills the panel
of /postbattle with a few selects (choose fighters, then their amount), and the
Wrap-up applies what was reported: XP and kills on the fighters, one Lasting
Damage roll per Wrecked result not entered at the table. Bob and dan are plain
players; alice, who starts every campaign, is its Arbitrator.
"""

from __future__ import annotations

import re

import pytest

from demo.arena import Arena
from tests.e2e.battle_helpers import (
    KILLS_SECTION,
    NOT_ROLLED,
    WRECKED_RESULTS_SECTION,
    XP_SECTION,
    give_amount,
    mark,
    new_campaign_of_two,
    new_fighter,
    panel_shows,
    pick_damage,
    report,
    slash,
    start_battle,
    until,
    wrap_up_text,
)

pytestmark = pytest.mark.usefixtures("players")


def xp_of(card: str) -> tuple[int, int]:
    """(XP, kills) from a /fighter show card."""
    found = re.search(r"XP: (\d+) · (\d+) kills", card)
    assert found, card
    return int(found.group(1)), int(found.group(2))


@pytest.mark.rule("PB-1.5")
async def test_xp_and_kills_for_the_whole_gang_in_a_few_picks(arena: Arena) -> None:
    d = arena.driver
    campaign = "Panel Experience"
    await new_campaign_of_two(d, campaign, "Learners", "Teachers", dans_alignment="Outlaw")
    for name in ("Ax", "Bo", "Cy"):
        await new_fighter(d, "bob", campaign, "Learners", name, "Goliath Bully")
    await new_fighter(d, "dan", campaign, "Teachers", "Teach", "Goliath Bully")
    before = {n: xp_of(await slash(d, "bob", "fighter show", fighter=n, campaign=campaign))
              for n in ("Ax", "Bo", "Cy")}
    thread = await start_battle(arena, campaign, "Learners", "Teachers")

    # An amount with nobody chosen is refused privately and changes nothing.
    refused = await give_amount(d, thread, "bob", "Learners", XP_SECTION, 3)
    assert refused.ephemeral and "Choose the fighters" in refused.text(), refused.text()
    # Ax and Bo earned 2 XP each, Cy 1: two picks of fighters, two of amounts.
    picked = await give_amount(d, thread, "bob", "Learners", XP_SECTION, 2, ["Ax", "Bo"])
    assert not picked.ephemeral, picked.text()
    picked = await give_amount(d, thread, "bob", "Learners", XP_SECTION, 1, ["Cy"])
    assert not picked.ephemeral, picked.text()
    picked = await give_amount(d, thread, "bob", "Learners", KILLS_SECTION, 1, ["Ax"])
    assert not picked.ephemeral, picked.text()
    await until(lambda: panel_shows(d, thread, "Learners", "Ax: 2 XP, 1 Out of Action"),
                "the panel to show Ax's XP and kills")
    await report(d, thread, "bob", "Learners")
    await report(d, thread, "dan", "Teachers", [("Out of Action", ["Teach"])])
    text = await wrap_up_text(arena, thread)

    assert "Ax earned 2 XP and 1 Out of Action in the battle." in text, text
    assert "Bo earned 2 XP in the battle." in text
    assert "Cy earned 1 XP in the battle." in text
    after = {n: xp_of(await slash(d, "bob", "fighter show", fighter=n, campaign=campaign))
             for n in ("Ax", "Bo", "Cy")}
    assert before == {"Ax": (0, 0), "Bo": (0, 0), "Cy": (0, 0)}
    assert after == {"Ax": (2, 1), "Bo": (2, 0), "Cy": (1, 0)}


@pytest.mark.rule("PB-1.5")
async def test_wrecked_results_and_lasting_damage_rolled_at_the_table(arena: Arena) -> None:
    d = arena.driver
    campaign = "Panel Wrecks"
    await new_campaign_of_two(d, campaign, "Wheelers", "Walkers", dans_alignment="Outlaw")
    await new_fighter(d, "bob", campaign, "Wheelers", "Wheel Boss", "Goliath Forge Tyrant")
    await new_fighter(d, "bob", campaign, "Wheelers", "Driver", "Road Thug")
    await slash(d, "bob", "vehicle add", gang="Wheelers", name="Rumbler",
                vehicle_type="Mauler", crew="Driver", campaign=campaign)
    await new_fighter(d, "dan", campaign, "Walkers", "Walker", "Goliath Bully")
    thread = await start_battle(arena, campaign, "Walkers", "Wheelers")

    await mark(d, thread, "bob", "Wheelers", "Vehicles Wrecked", ["Rumbler"])
    picked = await give_amount(d, thread, "bob", "Wheelers", WRECKED_RESULTS_SECTION, 2,
                               ["Rumbler"])
    assert not picked.ephemeral, picked.text()
    picked = await pick_damage(d, thread, "bob", "Wheelers", "Rumbler", "Unreliable")
    assert not picked.ephemeral, picked.text()
    picked = await pick_damage(d, thread, "bob", "Wheelers", "Rumbler", "Loss of Power")
    assert not picked.ephemeral, picked.text()
    # Two Wrecked results, two entered: a third is refused and nothing changes.
    refused = await pick_damage(d, thread, "bob", "Wheelers", "Rumbler", "Handling Glitch")
    assert refused.ephemeral and "Raise its Wrecked results" in refused.text(), refused.text()
    # Fewer Wrecked results than the results entered is refused too.
    refused = await give_amount(d, thread, "bob", "Wheelers", WRECKED_RESULTS_SECTION, 1)
    assert refused.ephemeral and "Nothing was changed" in refused.text(), refused.text()
    # Start again: clear, then enter only one; the Wrap-up rolls the other.
    assert not (await pick_damage(d, thread, "bob", "Wheelers", "Rumbler", NOT_ROLLED)).ephemeral
    assert not (await pick_damage(d, thread, "bob", "Wheelers", "Rumbler",
                                  "Unreliable")).ephemeral
    await until(lambda: panel_shows(
        d, thread, "Wheelers", "Rumbler (2 Wrecked results) · rolled at the table: Unreliable"),
        "the panel to show the Rumbler's Wrecked results")
    await report(d, thread, "bob", "Wheelers")
    await report(d, thread, "dan", "Walkers")
    text = await wrap_up_text(arena, thread)

    assert "Rumbler suffered Unreliable (Lasting Damage rolled during the battle)." in text
    rolls = re.findall(r"Lasting Damage for Rumbler: D6", text)
    assert len(rolls) == 1, text  # one Wrecked result entered, the other rolled openly
    card = await slash(d, "bob", "gang show", gang="Wheelers", campaign=campaign)
    assert "Unreliable" in card, card
