"""How the campaign week reads: dates typed by players, the Territory count, Triumph lines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.ui.cycles import limits_line, parse_when, race_lines, stamp, territory_count_line
from rules.campaign_types import Measure, Triumph, find_type
from rules.data import default_ruleset
from rules.errors import InvalidRequest
from rules.standings import Race

NOW = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)
DOMINION = find_type(default_ruleset().campaign_types, "Dominion")


def test_dates_as_players_write_them() -> None:
    assert parse_when("7d", NOW) == NOW + timedelta(days=7)
    assert parse_when("3 days", NOW) == NOW + timedelta(days=3)
    assert parse_when("2026-01-12", NOW) == datetime(2026, 1, 12, tzinfo=UTC)
    assert parse_when("2026-01-12 19:30", NOW) == datetime(2026, 1, 12, 19, 30, tzinfo=UTC)
    assert parse_when("2026-01-12T19:30+01:00", NOW) == datetime(2026, 1, 12, 18, 30,
                                                                 tzinfo=UTC)
    with pytest.raises(InvalidRequest, match="is not a date"):
        parse_when("next tuesday", NOW)
    with pytest.raises(InvalidRequest, match="ten years"):
        parse_when("2199-01-01", NOW)
    assert stamp(NOW) == f"<t:{int(NOW.timestamp())}:F>"
    assert stamp(None) == "when the Arbitrator ends it"


def test_cycle_dates_are_read_as_battle_times_are() -> None:
    """One reader of typed times: a cycle's date may be a pasted Discord timestamp, and is
    read in the campaign's time zone as /schedule's times are."""
    moment = datetime(2026, 1, 12, 18, 30, tzinfo=UTC)
    assert parse_when(f"<t:{int(moment.timestamp())}:F>", NOW) == moment
    assert parse_when("2026-01-12 19:30", NOW, "Europe/Paris") == moment
    assert parse_when("2026-01-01", NOW) == datetime(2026, 1, 1, tzinfo=UTC)  # past: allowed
    with pytest.raises(InvalidRequest, match="not a time zone"):
        parse_when("2026-01-12 19:30", NOW, "Mars/Olympus")


def test_the_territory_count_the_type_asks_for() -> None:
    line = territory_count_line(DOMINION, 3, 9)
    assert line is not None and "9 for 3 gangs; this campaign has 9 (as it should)" in line
    short = territory_count_line(DOMINION, 4, 9)
    assert short is not None and "12 for 4 gangs; this campaign has 9 (add or remove" in short
    law = find_type(default_ruleset().campaign_types, "Law and Misrule")
    assert territory_count_line(law, 4, 9) is None


def test_limits_in_words() -> None:
    assert limits_line(DOMINION) == ("Each gang makes 1 challenge a cycle, another once its "
                                     "battles are played.")
    free = DOMINION.model_copy(update={"challenges_per_cycle": None,
                                       "one_battle_per_cycle": True})
    assert "any number of challenges a cycle; a gang in a waiting" in limits_line(free)


def test_triumph_lines_say_who_leads_who_won_and_ties() -> None:
    names = {"a": "Ash", "b": "Bone"}
    dominator = Triumph(name="Dominator", measure=Measure.TERRITORIES)
    races = [
        Race(triumph=dominator, best=3, leaders=["a"], holders=["a"]),
        Race(triumph=Triumph(name="Muscle", measure=Measure.BATTLES), best=2,
             leaders=["a", "b"], holders=[]),
        Race(triumph=Triumph(name="Creditor", measure=Measure.WEALTH), best=900,
             leaders=["a", "b"], holders=["a", "b"]),
        Race(triumph=Triumph(name="Hit Man", measure=Measure.NOT_TRACKED)),
        Race(triumph=Triumph(name="Warmonger", measure=Measure.BATTLES), best=0),
    ]
    assert race_lines(races, names, final=False) == [
        "**Dominator** (territories): Ash leads with 3",
        "**Muscle** (battles): Ash, Bone tied (a tie wins it for no one) at 2",
        "**Creditor** (wealth): Ash, Bone lead with 900",
        "**Hit Man** (not tracked): awarded by the Arbitrator (the bot does not record it)",
        "**Warmonger** (battles): no one yet",
    ]
    final = race_lines(races, names, final=True)
    assert final[0] == "**Dominator** (territories): won by Ash (3)"
    assert final[1] == "**Muscle** (battles): Ash, Bone tied, awarded to no one at 2"
    assert final[2] == "**Creditor** (wealth): won by Ash, Bone (900)"
