"""A Yaktribe gang in debt: negative credits are read as 0, and the preview says so."""

from __future__ import annotations

from typing import Any

import pytest

from bot.importing.plan import StagedGangImport
from bot.importing.preview import preview
from bot.importing.yaktribe import parse_yaktribe
from rules.ruleset import RuleSet
from tests.importing.conftest import id_maker, slag_kings

NEGATIVE = "Problem: the gang's credits: the file's value -50 is negative; read as 0."


def parse_with_credits(ruleset: RuleSet, credits: Any) -> Any:
    data = {**slag_kings(), "credits": credits}
    return parse_yaktribe(data, ruleset=ruleset, owner="42", make_id=id_maker())


@pytest.mark.parametrize("credits", ["-50", -50, -50.0, " -50 credits", "-50cr"])
def test_negative_credits_are_read_as_0_with_a_line(ruleset: RuleSet, credits: Any) -> None:
    parsed = parse_with_credits(ruleset, credits)
    assert parsed.gang.credits == 0
    lines = parsed.report.lines()
    assert lines.count(NEGATIVE) == 1
    # Only the credits are in question: the rest of the file reads as it does without them.
    plain = parse_with_credits(ruleset, 0)
    assert [line for line in lines if line != NEGATIVE] == plain.report.lines()
    assert parsed.gang.fighters == plain.gang.fighters


def test_only_a_negative_value_gets_the_line(ruleset: RuleSet) -> None:
    for credits, expected in [("0", 0), ("-0", 0), ("245", 245), (1_000_000, 1_000_000)]:
        parsed = parse_with_credits(ruleset, credits)
        assert parsed.gang.credits == expected
        assert not any("the gang's credits" in line for line in parsed.report.lines()), credits
    one_below = parse_with_credits(ruleset, -1)
    assert one_below.gang.credits == 0
    assert "Problem: the gang's credits: the file's value -1 is negative; read as 0." in (
        one_below.report.lines()
    )


def test_credits_beyond_the_bounds_are_unreadable_rather_than_negative(
    ruleset: RuleSet,
) -> None:
    parsed = parse_with_credits(ruleset, "-2000000")
    assert parsed.gang.credits == 0
    credit_lines = [line for line in parsed.report.lines() if "gang's credits" in line]
    assert credit_lines == [
        "Problem: the gang's credits: -2000000 is outside -1000000..1000000; read as 0."
    ]


def test_the_preview_shows_the_line_before_confirm(ruleset: RuleSet) -> None:
    parsed = parse_with_credits(ruleset, "-50")
    staged = StagedGangImport(campaign_id="c", gang=parsed.gang, source_label=parsed.source_label,
                              report=parsed.report, declared_rating=parsed.declared_rating)
    embeds = preview(staged, None, "Dust Falls").embeds
    assert "· 0 credits ·" in (embeds[0].description or "")
    problems = next(e for e in embeds if e.title == "What did not import as written")
    assert (problems.description or "").splitlines().count(NEGATIVE) == 1
