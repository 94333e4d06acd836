"""A paid Medical Escort carried through Clean House, where being taken to the Doc matters.

The real bot against the fake Discord: a losing gang (no models left on the
battlefield, so only the Doc can save a dead fighter's gear) pays the Doc for
a fighter with a Critical Injury, then the sequence goes on to Clean House.
The treatment die is secret-seeded, so the test follows whichever way it
fell: a fighter who died at the Doc has its gear (armour excepted) kept
"after the Doc"; one who survived stays on the roster with its gear, and
Clean House clears its trip to the Doc. Either way Clean House must have read
the flag back from the database, across the bot's reloads between steps.

Its own module: one bot process and database, read beside the live bot.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from demo.arena import Arena
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    all_text,
    at_post_battle_actions,
    confirm_until,
    new_campaign,
    new_gang_with,
    report,
    slash,
    thread_named,
    until,
)

pytestmark = pytest.mark.usefixtures("players")

CAMPAIGN = "Doc Runs"
CLEAN_HOUSE = "▶️ Update Roster (A. Clean House)"


def query(database: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows straight from the bot's file, read-only (WAL: safe beside the live bot)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10.0)
    try:
        return list(connection.execute(sql, args))
    finally:
        connection.close()


def patient_row(database: Path, name: str) -> tuple[str, int] | None:
    """(status, escorted_to_doc) of the fighter as stored; None once it is deleted."""
    rows = query(
        database,
        "SELECT f.status, f.escorted_to_doc FROM fighters f"
        " JOIN campaigns c ON c.pk = f.campaign_pk WHERE c.name = ? AND f.name = ?",
        CAMPAIGN, name)
    return (str(rows[0][0]), int(rows[0][1])) if rows else None


def clean_house_cleared_the_flag(database: Path, name: str) -> bool:
    """Whether Clean House's action recorded the fighter's trip to the Doc as cleared."""
    rows = query(
        database,
        "SELECT e.before, e.after FROM ledger_events e"
        " JOIN campaigns c ON c.pk = e.campaign_pk WHERE c.name = ? AND e.kind = 'change'"
        " AND e.clause = 'PB-6A.1' AND e.subject_name = ? AND e.path = 'escorted_to_doc'",
        CAMPAIGN, name)
    return rows == [("true", "false")]


@pytest.mark.rule("PB-5.5")
@pytest.mark.rule("PB-6A.1")
async def test_a_paid_escort_decides_the_patients_fate_in_clean_house(arena: Arena) -> None:
    d, database = arena.driver, arena.database_path
    await new_campaign(d, CAMPAIGN)
    await new_gang_with(d, "bob", CAMPAIGN, "Stitchers",
                        {"Varn": "Goliath Forge Tyrant", "Grist": "Goliath Forge Boss"})
    await new_gang_with(d, "dan", CAMPAIGN, "Bone Pickers", {"Mange": "Goliath Forge Tyrant"})
    for item in ("Autogun", "Furnace plates"):
        await slash(d, "bob", "fighter equip", fighter="Grist", item=item, campaign=CAMPAIGN)

    # The Stitchers lose: no models of theirs are left to gather a dead fighter's gear.
    start = await d.slash(GUILD, CHANNEL, "bob", "postbattle start", winner="Bone Pickers",
                          gang1="Stitchers", gang2="Bone Pickers", campaign=CAMPAIGN)
    assert not start.ephemeral, start.text()
    thread = await thread_named(d, "Stitchers vs Bone Pickers")
    await report(d, thread, "bob", "Stitchers", [("Critical Injury suffered", ["Grist"])])
    await report(d, thread, "dan", "Bone Pickers")
    await at_post_battle_actions(d, thread, ["bob", "dan"])

    asked = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Varn",
                          action="Medical Escort", target="Grist", campaign=CAMPAIGN)
    question = next(m for m in await asked.wait_followups(2) if "the Doc asks" in m.content)
    paid = await d.click(question, "Pay", "bob")
    assert "Something went wrong" not in paid.text()
    await until(lambda: "Bob paid" in question.content or None, "the decision to show")

    # Stored with its trip to the Doc, dead or alive.
    stored = patient_row(database, "Grist")
    assert stored is not None and stored[1] == 1, stored
    died_at_the_doc = stored[0] == "Dead"

    await confirm_until(d, thread, ["▶️ Post-battle Actions"], ["bob", "dan"])
    await until(lambda: CLEAN_HOUSE in all_text(d, thread) or None, CLEAN_HOUSE)
    stash = await slash(d, "bob", "stash show", gang="Stitchers", campaign=CAMPAIGN)
    roster = await slash(d, "bob", "gang show", gang="Stitchers", campaign=CAMPAIGN)
    if died_at_the_doc:
        # The Doc, not the battlefield, is why the gear is kept; the armour is lost anyway.
        await until(lambda: "Grist's gear is recovered after the Doc: Autogun go to the "
                    "Stash." in all_text(d, thread) or None, "Grist's gear kept after the Doc")
        assert "Lost with Grist: Furnace plates." in all_text(d, thread)
        assert patient_row(database, "Grist") is None
        assert "Autogun" in stash and "Furnace plates" not in stash
        assert "Grist" not in roster
    else:
        await until(lambda: "Stitchers has no dead to clear from its roster." in all_text(
            d, thread) or None, "Clean House for the Stitchers")
        assert patient_row(database, "Grist") == (stored[0], 0)
        # Clean House found the flag set (it was read back) and cleared it.
        assert clean_house_cleared_the_flag(database, "Grist")
        assert "Autogun" not in stash
        assert "Grist" in roster and "Autogun" in roster and "Furnace plates" in roster
