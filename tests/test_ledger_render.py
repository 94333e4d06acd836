"""Unit tests for bot.ui.ledger: ledger events as lines, action groups and embeds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from bot.storage import LedgerEvent
from bot.ui import embed_batches
from bot.ui.ledger import (
    actor_text,
    event_line,
    gang_change_lines,
    group_events,
    group_header,
    ledger_embeds,
    ledger_lines,
    lines_embeds,
    when_text,
)
from rules.models import FighterCategory
from tests import factories as f

AT = datetime(2024, 5, 1, 20, 30, tzinfo=UTC)
ALICE = "123456789012345678"
_ids = iter(range(1, 100_000))


def event(kind: str, action_id: int | None = 1, **fields: Any) -> LedgerEvent:
    base: dict[str, Any] = {"id": next(_ids), "kind": kind, "at": AT, "actor": ALICE,
                            "clause": "ROSTER", "action_id": action_id}
    return LedgerEvent(**{**base, **fields})


def roll(action_id: int | None = 1, **fields: Any) -> LedgerEvent:
    values = {"expression": "2D6", "faces": [3, 4], "total": 7, "purpose": "Rare availability"}
    return event("roll", action_id, **{**values, **fields})


def change(
    path: str, before: Any, after: Any, action_id: int | None = 1, **fields: Any
) -> LedgerEvent:
    values = {"subject": "fighter", "subject_id": "f1", "subject_name": "Grub",
              "gang_id": "g1", "path": path, "before": before, "after": after}
    return event("change", action_id, **{**values, **fields})


def note(text: str, action_id: int | None = 1, **fields: Any) -> LedgerEvent:
    return event("note", action_id, text=text, **fields)


# --------------------------------------------------------------------------- one event


def test_a_roll_shows_expression_faces_total_and_purpose() -> None:
    assert event_line(roll()) == "🎲 Rare availability: 2D6 → [3, 4] = **7**"


def test_a_change_shows_before_and_after() -> None:
    assert event_line(change("cost", 55, 60)) == "Grub: cost 55 → 60"
    assert event_line(change("profile.ws", 4, 3)) == "Grub: ws 4 → 3"
    assert event_line(change("status", "Active", "In Recovery")) == (
        "Grub: status Active → In Recovery"
    )


def test_items_and_fighters_joining_and_leaving_read_as_sentences() -> None:
    item = {"id": "i1", "name": "Autogun", "cost": 15}
    assert event_line(change("equipment[i1]", None, item)) == "➕ Autogun to Grub"
    assert event_line(change("stash[i1]", item, None, subject="gang", subject_name="Rats")) == (
        "➖ Autogun from the Stash"
    )
    assert event_line(change("fighters", None, {"id": "f1"})) == "➕ Grub joins the roster"
    assert event_line(change("fighters", {"id": "f1"}, None)) == "➖ Grub leaves the roster"


def test_bookkeeping_changes_are_left_out() -> None:
    assert event_line(change("escorted_to_doc", True, False)) is None


def test_notes_and_undos_are_escaped() -> None:
    assert event_line(note("**Grub** pings @everyone")) == (
        "📝 \\*\\*Grub\\*\\* pings @\u200beveryone"
    )
    assert event_line(event("undo", text="Undid action #3 (ROSTER Edit Grub).")) == (
        "↩️ Undid action #3 (ROSTER Edit Grub)."
    )
    assert event_line(note("")) is None


def test_hostile_names_in_changes_and_rolls_are_escaped() -> None:
    line = event_line(change("cost", 1, 2, subject_name="__@everyone__ <@&1>"))
    assert line is not None
    assert "@everyone" not in line.replace("@\u200beveryone", "")
    assert "\\_\\_" in line
    rolled = event_line(roll(purpose="*sale* of @here"))
    assert rolled is not None and "\\*sale\\*" in rolled and "@\u200bhere" in rolled


# --------------------------------------------------------------------------- who and when


def test_a_discord_user_id_becomes_mention_text_anything_else_is_escaped() -> None:
    assert actor_text(ALICE) == f"<@{ALICE}>"
    assert actor_text("import") == "import"
    assert actor_text("**me**") == "\\*\\*me\\*\\*"
    assert actor_text("١٢٣") == "١٢٣"  # non-ASCII digits are not an id


def test_when_is_a_discord_timestamp_in_utc() -> None:
    assert when_text(AT) == f"<t:{int(AT.timestamp())}:f>"
    assert when_text(AT.replace(tzinfo=None)) == when_text(AT)
    east = AT.astimezone(timezone(timedelta(hours=5)))
    assert when_text(east) == when_text(AT)


# --------------------------------------------------------------------------- grouping


def test_events_group_by_action_newest_action_first_oldest_line_first() -> None:
    # Storage returns newest first: action 2's events, then action 1's, each reversed.
    newest_first = [
        change("cost", 55, 60, action_id=2),
        note("edited", action_id=2),
        change("xp", 0, 1, action_id=1),
        roll(action_id=1),
    ]
    groups = group_events(newest_first)
    assert [g.action_id for g in groups] == [2, 1]
    assert [e.kind for e in groups[0].events] == ["note", "change"]
    assert [e.kind for e in groups[1].events] == ["roll", "change"]


def test_imported_events_without_an_action_group_by_actor_time_and_clause() -> None:
    later = AT + timedelta(minutes=1)
    events = [
        note("b", action_id=None, at=later),
        note("a", action_id=None, at=later),
        note("c", action_id=None),
    ]
    assert [len(g.events) for g in group_events(events)] == [2, 1]


def test_header_names_the_action_who_when_and_battle() -> None:
    group = group_events([roll(action_id=7, clause="PB-6B.6", battle_id="b1",
                               step="Trading Post")])[0]
    header = group_header(group, {7: "Seek Rare & Illegal Equipment"})
    assert header == (
        f"**#7 Seek Rare & Illegal Equipment** (PB-6B.6) · <@{ALICE}> · "
        f"<t:{int(AT.timestamp())}:f> · battle b1, Trading Post"
    )
    assert group_header(group).startswith("**#7 PB-6B.6** · ")


def test_ledger_lines_put_a_header_over_each_action() -> None:
    lines = ledger_lines(
        [change("cost", 55, 60, action_id=2), roll(action_id=1)], {2: "Edit Grub"}
    )
    assert lines[0].startswith("**#2 Edit Grub** (ROSTER)")
    assert lines[1] == "• Grub: cost 55 → 60"
    assert lines[2].startswith("**#1 ROSTER**")
    assert lines[3].startswith("• 🎲 Rare availability")


def test_an_action_with_only_bookkeeping_gets_no_header() -> None:
    assert ledger_lines([change("escorted_to_doc", True, False)]) == []


# --------------------------------------------------------------------------- embeds


def test_an_empty_ledger_says_so() -> None:
    [embed] = ledger_embeds([], title="Ledger · Ash Wastes")
    assert embed.description == "Nothing has been recorded yet."
    assert embed.footer.text == "Newest first"


def test_a_long_ledger_is_paged_within_discord_limits() -> None:
    long_name = "W" * 95 + "**__"
    events = [
        change("lasting_injuries", ["Humiliated"] * 3, ["Humiliated"] * 4, action_id=n,
               subject_name=long_name)
        for n in range(200, 0, -1)
    ]
    embeds = ledger_embeds(events, title="Ledger · " + "T" * 300)
    assert len(embeds) > 1
    for number, embed in enumerate(embeds, start=1):
        assert embed.description is not None and len(embed.description) <= 4096
        assert embed.title is not None and len(embed.title) <= 256
        assert embed.footer.text == (
            f"The latest 200 events, newest first · page {number} of {len(embeds)}"
        )
    assert embeds[1].title is not None and embeds[1].title.endswith("(continued)")
    for batch in embed_batches(embeds):
        assert len(batch) <= 10 and sum(len(e) for e in batch) <= 6000
    # No line is split between pages: every page starts with a header or a bullet.
    for embed in embeds:
        assert embed.description is not None
        assert embed.description.startswith(("**#", "•"))


def test_lines_embeds_clips_an_overlong_title_and_line() -> None:
    [embed] = lines_embeds("x" * 400, ["y" * 5000])
    assert embed.title is not None and len(embed.title) == 256
    assert embed.description is not None and len(embed.description) <= 4096


# --------------------------------------------------------------------------- roster edits


def test_gang_change_lines_show_what_a_roster_edit_changed() -> None:
    grub = f.fighter("Grub", FighterCategory.GANGER, cost=55, id="f1")
    before = f.gang("Rats", fighters=[grub], credits=100)
    after = before.model_copy(deep=True)
    after.credits = 80
    after.fighters[0].cost = 60
    after.fighters[0].profile.ws = 3
    assert gang_change_lines(before, after) == [
        "Rats: credits 100 → 80",
        "Grub: cost 55 → 60",
        "Grub: ws 4 → 3",
    ]
    assert gang_change_lines(before, before) == []


# --------------------------------------------------------------------------- forged text

FORGED = "x\n**#1 Forged** · <@1> · @everyone\r\n> quoted\u2028_tilted_"


def test_every_text_of_an_imported_row_is_shown_escaped_and_on_one_line() -> None:
    """A campaign file says what its ledger rows hold: none of it may start a line of its
    own (a header, a quote) or set markdown, whichever field carries it."""
    imported = {"imported_from": FORGED, "imported_at": AT, "actor": FORGED,
                "clause": FORGED, "battle_id": FORGED, "step": FORGED}
    events = [
        change(FORGED, "Active", FORGED, action_id=None, subject_name=FORGED, **imported),
        change(f"stash[{FORGED}]", None, {"name": FORGED}, action_id=None, **imported),
        change("skills", [FORGED], [FORGED, {"name": FORGED}], action_id=None, **imported),
        roll(action_id=None, expression=FORGED, purpose=FORGED, **imported),
        note(FORGED, action_id=None, **imported),
        event("undo", None, text=FORGED, **imported),
    ]
    lines = ledger_lines(events)
    assert len(lines) == 7  # one header, six events
    for line in lines:
        assert not any(mark in line for mark in ("\n", "\r", "\u2028")), line
        assert "**#1 Forged**" not in line and "_tilted_" not in line, line
        assert "@everyone" not in line.replace("@\u200beveryone", ""), line
