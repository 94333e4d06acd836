"""Lasting Injuries rolled at the table, entered in the report panel of /postbattle.

Through the real bot process and the fake Discord: a player reports a fighter
Out of Action, picks the result it rolled during the battle in the panel's
*Lasting Injuries rolled at the table* section, and the Wrap-up applies it
without rolling again (rules.wrapup: "applied as reported"). Bob and dan are
plain players; alice, who starts every campaign, is its Arbitrator.
"""

from __future__ import annotations

import re

import pytest

from bot.battle import panel, views
from bot.battle.state import GangReport, PostBattleRun
from demo.arena import Arena
from fakediscord.entities import Channel
from rules.data import default_ruleset
from rules.errors import InvalidRequest
from rules.models import Battle, FighterCategory, Gang
from rules.sequence import PostBattleSequence
from rules.world import World
from tests import factories as f
from tests.e2e.battle_helpers import (
    NOT_ROLLED,
    all_text,
    custom_id,
    injury_phrase,
    mark,
    new_campaign_of_two,
    new_fighter,
    panel_of,
    panel_shows,
    pick_injury,
    report,
    slash,
    start_battle,
    wrap_up_text,
)

pytestmark = pytest.mark.usefixtures("players")


async def two_gangs(arena: Arena, campaign: str, winner: str, loser: str,
                    losers: list[str]) -> None:
    """``winner`` (bob's, one leader) and ``loser`` (dan's, the fighters named)."""
    d = arena.driver
    await new_campaign_of_two(d, campaign, winner, loser, dans_alignment="Outlaw")
    await new_fighter(d, "bob", campaign, winner, f"{winner} Boss", "Goliath Forge Tyrant")
    for name in losers:
        await new_fighter(d, "dan", campaign, loser, name, "Goliath Bully")


@pytest.mark.rule("PB-1.2")
async def test_captured_at_the_table_gets_the_escape_roll(arena: Arena) -> None:
    d = arena.driver
    await two_gangs(arena, "Table Captures", "Gaolers", "Stragglers", ["Mort", "Dregg"])
    thread = await start_battle(arena, "Table Captures", "Gaolers", "Stragglers")
    await report(d, thread, "bob", "Gaolers")
    await report(d, thread, "dan", "Stragglers", [("Out of Action", ["Mort", "Dregg"])],
                 injuries={"Mort": ["Captured"]})
    text = await wrap_up_text(arena, thread)

    assert "Mort's Lasting Injuries were rolled during the battle: Captured." in text
    assert "Lasting Injury for Mort: Captured, as rolled during the battle" in text
    # Not rolled again by the bot; Dregg, left unset, is.
    assert not re.search(r"Lasting Injury for Mort: D66", text)
    assert re.search(r"Lasting Injury for Dregg: D66 → \[\d, \d\]", text)
    # The escape roll (PB-1.2): the Stragglers lost, -2; either outcome is shown.
    escape = re.search(r"escape roll for Mort: D6 → \[(\d)\]", text)
    assert escape, text[-3000:]
    natural = int(escape.group(1))
    score = f"Mort rolls {natural} (-2 lost) = {natural - 2} and "
    if natural == 6:  # -2 leaves only a natural 6
        assert score + "escapes into Convalescence." in text
    else:
        assert score + "is Captured by Gaolers." in text
        listed = await slash(d, "dan", "captive list", campaign="Table Captures")
        assert "**Mort** of Stragglers, held by **Gaolers**" in listed


def ballistic_skill(card: str) -> int:
    """BS (the target number) from a /fighter show card's profile table."""
    lines = [line.strip(" |") for line in card.splitlines()]
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["M", "WS", "BS"])
    values = dict(zip(lines[header].split(), lines[header + 1].split(), strict=True))
    return int(values["BS"].rstrip("+"))


@pytest.mark.rule("PB-1.1")
async def test_eye_injury_at_the_table_costs_bs_without_a_roll(arena: Arena) -> None:
    d = arena.driver
    await two_gangs(arena, "Table Eyes", "Sharpshots", "Squinters", ["Squint"])
    before = await slash(d, "dan", "fighter show", fighter="Squint", campaign="Table Eyes")
    bs = ballistic_skill(before)
    thread = await start_battle(arena, "Table Eyes", "Sharpshots", "Squinters")
    await report(d, thread, "bob", "Sharpshots")
    await report(d, thread, "dan", "Squinters", [("Out of Action", ["Squint"])],
                 injuries={"Squint": ["Eye Injury"]})
    await wrap_up_text(arena, thread)

    after = await slash(d, "dan", "fighter show", fighter="Squint", campaign="Table Eyes")
    assert ballistic_skill(after) == bs + 1  # -1 Ballistic Skill: one more to hit
    assert "Eye Injury" in after
    # The Wrap-up is the gang's newest action, so it is on the ledger's first page (later
    # pages come as follow-ups). The only D66 of Squint's there is the result as reported
    # (Eye Injury is 44 on the table), not a roll: a roll would read "Lasting Injury for
    # Squint: D66 → [...]", as Dregg's does in the test above.
    ledger = await slash(d, "dan", "ledger", gang="Squinters", limit=15, campaign="Table Eyes")
    assert re.search(r"\*\*#\d+ Wrap-up\*\* \(PB-1\.1\)", ledger), ledger
    squint = [line for line in ledger.splitlines() if "Lasting Injury for Squint" in line]
    assert len(squint) == 1, ledger
    assert "Eye Injury, as rolled during the battle: D66 → [4, 4] = **44**" in squint[0]
    assert f"Squint: bs {bs} → {bs + 1}" in ledger, ledger


@pytest.mark.rule("PB-1.1")
async def test_impossible_results_are_refused_in_the_panel(arena: Arena) -> None:
    d = arena.driver
    await two_gangs(arena, "Table Refusals", "Butchers", "Patchwork", ["Patch"])
    thread = await start_battle(arena, "Table Refusals", "Butchers", "Patchwork")
    await report(d, thread, "bob", "Butchers")
    await mark(d, thread, "dan", "Patchwork", "Out of Action", ["Patch"])

    # A pick replaces the result, until Multiple Injuries: then each pick adds an extra one.
    for result in ["Hobbled", "Multiple Injuries", "Hobbled"]:
        picked = await pick_injury(d, thread, "dan", "Patchwork", "Patch", result)
        assert not picked.ephemeral, picked.text()
    assert shown(arena, thread, ["Multiple Injuries", "Hobbled"])

    # Multiple Injuries re-rolls Captured: refused at once, nothing stored.
    refused = await pick_injury(d, thread, "dan", "Patchwork", "Patch", "Captured")
    assert refused.ephemeral
    assert "re-rolls Captured" in refused.content
    assert "Nothing was changed" in refused.content
    for result in ["Eye Injury", "Eye Injury"]:  # the same extra result twice is possible
        picked = await pick_injury(d, thread, "dan", "Patchwork", "Patch", result)
        assert not picked.ephemeral, picked.text()
    assert shown(arena, thread, ["Multiple Injuries", "Hobbled", "Eye Injury", "Eye Injury"])
    # D3 extra results at most.
    fourth = await pick_injury(d, thread, "dan", "Patchwork", "Patch", "Spinal Injury")
    assert fourth.ephemeral and "at most 3 more result(s)" in fourth.content

    # Only a player of the gang (or an Arbitrator) may enter them.
    stranger = await pick_injury(d, thread, "bob", "Patchwork", "Patch", "Out Cold")
    assert stranger.ephemeral and "Only Patchwork's player" in stranger.content

    # Start again: Multiple Injuries alone is incomplete and Submit says so.
    await pick_injury(d, thread, "dan", "Patchwork", "Patch", NOT_ROLLED)
    assert shown(arena, thread, [])
    await pick_injury(d, thread, "dan", "Patchwork", "Patch", "Multiple Injuries")
    assert shown(arena, thread, ["Multiple Injuries"])
    panel = await panel_of(d, thread, "Patchwork")
    submitted = await d.click(panel, custom_id(panel, "munda:pb:submit:"), "dan")
    followups = await submitted.wait_followups(1)
    assert "gives at least 1 more result(s)" in followups[-1].content
    assert "**Battle recorded**" not in all_text(d, thread)

    # What is stored is what the panel showed: the Wrap-up applies exactly that.
    await pick_injury(d, thread, "dan", "Patchwork", "Patch", "Humiliated")
    await report(d, thread, "dan", "Patchwork")
    text = await wrap_up_text(arena, thread)
    assert ("Patch's Lasting Injuries were rolled during the battle: Multiple Injuries, "
            "Humiliated.") in text
    assert "Captured" not in text and "escape roll" not in text


def shown(arena: Arena, thread: Channel, results: list[str]) -> bool:
    """Whether the Patchwork panel, as last drawn, lists exactly these results for Patch."""
    panel = panel_shows(arena.driver, thread, "Patchwork", "")
    assert panel is not None
    line = next((line for line in panel.embed_text().splitlines() if "Patch" in line
                 and "Patchwork" not in line), "")
    assert line.startswith("Patch"), panel.embed_text()  # the Out of Action line
    return line.endswith(injury_phrase(results)) if results else "rolled" not in line


# --------------------------------------------------------------------------- the panel itself


def lost_to_rivals(loser: Gang) -> tuple[World, PostBattleRun]:
    """A battle "Rivals" (g1) won against ``loser`` (g2): its world, and its run, reports empty."""
    world = f.world(f.gang("Rivals", id="g1", owner="10"), loser)
    battle = Battle(id="b1", gang_ids=["g1", "g2"], winner="g1")
    return world, PostBattleRun(
        campaign_id="c1", battle_id="b1", started_by=10, channel_id=99,
        sequence=PostBattleSequence.start("s1", battle, world, skirmish=False),
        reports={g: GangReport(gang_id=g) for g in ("g1", "g2")},
    )


async def test_the_result_select_is_the_fighters_table() -> None:
    """A Crew fighter gets the crew table, a ganger the fighters' one; Discord's limits hold."""
    crew = f.fighter("Driver", FighterCategory.CREW, id="c1")
    ganger = f.fighter("Ganger", FighterCategory.GANGER, id="x1")
    world, run = lost_to_rivals(f.gang("Riders", fighters=[crew, ganger], id="g2", owner="20"))
    report_ = run.reports["g2"]
    report_.choose("ooa", ["c1", "x1"], ["c1", "x1"])
    report_.section = panel.INJURIES
    ruleset = default_ruleset()
    scope = panel.report_scope(run, world, 1, ruleset)

    def results_for(fighter_id: str) -> list[str]:
        report_.injury_fighter = fighter_id
        view = views.report_view(scope)
        assert len(view.children) <= 25
        select = next(i for i in view.children if _is(i, "munda:pb:inj:"))
        assert select.custom_id.endswith(f":{fighter_id}") and len(select.custom_id) <= 100
        return [o.label for o in select.options]

    crew_results = results_for("c1")
    assert crew_results[0].startswith("Not rolled")
    assert crew_results[1:] == [e.name for e in ruleset.crew_injuries.entries]
    assert "Captured" not in crew_results and "Convalescence" in crew_results
    ganger_results = results_for("x1")
    assert "Captured" in ganger_results and "Multiple Injuries" in ganger_results

    # The crew table has no Captured: entering it is refused, and nothing changes.
    with pytest.raises(InvalidRequest, match="not a result of Crew Lasting Injuries"):
        panel.enter_injury(scope, "c1", ["Captured"])
    assert report_.fighters["c1"].injuries_rolled == []
    assert panel.enter_injury(scope, "c1", ["Eye Injury"])
    ends = run.end_states()
    assert [s.injuries_rolled for s in ends.fighters if s.fighter_id == "c1"] == [["Eye Injury"]]
    # No longer Out of Action: what was rolled at the table goes with it.
    report_.choose("ooa", ["c1"], [])
    assert "c1" not in report_.fighters or report_.fighters["c1"].injuries_rolled == []


async def test_many_fighters_out_of_action_are_paged() -> None:
    """30 fighters Out of Action: 25 in the fighter select, the rest on a second page."""
    crowd = [f.fighter(f"Rat {n}", FighterCategory.GANGER, id=f"r{n}") for n in range(30)]
    world, run = lost_to_rivals(f.gang("Swarm", fighters=crowd, id="g2", owner="20"))
    swarm = run.reports["g2"]
    ids = [fighter.id for fighter in crowd]
    swarm.choose("ooa", ids[:25], ids[:25])
    swarm.choose("ooa", ids[25:], ids[25:])
    swarm.section, swarm.page = panel.INJURIES, 1
    scope = panel.report_scope(run, world, 1)
    assert panel.page_count(scope, panel.INJURIES) == 2
    view = views.report_view(scope)
    fighters = next(i for i in view.children if _is(i, "munda:pb:injf:"))
    assert [o.value for o in fighters.options] == ids[25:]
    assert sum(_is(i, "munda:pb:page:") for i in view.children) == 2
    rows = view.to_components()  # what Discord gets: at most 5 rows, a select alone in its row
    assert len(rows) <= 5
    for row in rows:
        kinds = [c["type"] for c in row["components"]]
        assert len(kinds) <= 5 and (3 not in kinds or kinds == [3])


def _is(item: object, prefix: str) -> bool:
    """Whether a drawn component is the route ``prefix`` names."""
    return str(getattr(item, "custom_id", "")).startswith(prefix)
