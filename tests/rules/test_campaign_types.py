"""Campaign types as shipped rule data: figures with their sources, counts an Arbitrator sets."""

from __future__ import annotations

import pytest

from rules.campaign_types import Measure, Stake, Ties, find_type, territories_for, with_cycles
from rules.errors import InvalidRequest, NotFound
from rules.ruledata import RuleData, apply_rule_data, preview_lines, rule_data_of
from rules.ruleset import RuleSet


def test_the_dominion_has_its_phases_cycles_and_triumphs(ruleset: RuleSet) -> None:
    dominion = find_type(ruleset.campaign_types, "dominion")
    assert [(p.name, p.cycles, p.stake, p.downtime) for p in dominion.phases] == [
        ("Occupation", 3, Stake.UNCLAIMED_FIRST, False),
        ("Downtime", 1, Stake.NO_CHALLENGES, True),
        ("Takeover", 3, Stake.DEFENDERS, False),
    ]
    assert dominion.total_cycles == 7
    assert [t.name for t in dominion.triumphs] == [
        "Dominator", "Slaughterer", "Creditor", "Warmonger", "Powerbroker"]
    assert territories_for(dominion, 3) == 9 and territories_for(dominion, 8) == 24
    assert dominion.challenges_per_cycle == 1 and dominion.cycle_days == 7
    assert dominion.ties is Ties.SHARED


def test_a_downtime_phase_says_what_the_bot_opens_it_with(ruleset: RuleSet) -> None:
    """The Dominion's step D gives 250 credits; Law and Misrule's Downtime links to it;
    neither source asks an Arbitrator to confirm each step."""
    for name in ("Dominion", "Law and Misrule"):
        [downtime] = [p for p in find_type(ruleset.campaign_types, name).phases if p.downtime]
        assert downtime.recruitment_credits == 250 and not downtime.arbitrator_confirms
        assert downtime.opens_downtime_by_itself
    occupation = find_type(ruleset.campaign_types, "Dominion").phases[0]
    assert not occupation.opens_downtime_by_itself
    unsourced = occupation.model_copy(update={"downtime": True})
    assert unsourced.recruitment_credits is None and not unsourced.opens_downtime_by_itself


def test_every_figure_names_its_source(ruleset: RuleSet) -> None:
    for campaign_type in ruleset.campaign_types:
        assert campaign_type.source.endswith(".md")
        for part in (*campaign_type.phases, *campaign_type.triumphs):
            assert part.source.endswith(".md"), part


def test_law_and_misrule_leaves_what_its_source_does_not_give_to_the_arbitrator(
    ruleset: RuleSet,
) -> None:
    law = find_type(ruleset.campaign_types, "Law and Misrule")
    assert [p.cycles for p in law.phases] == [None, None, None]
    assert law.territories_per_player is None and law.cycle_days is None
    assert law.ties is Ties.NO_ONE
    assert territories_for(law, 4) is None
    # One cycle a phase until the Arbitrator says otherwise.
    assert law.total_cycles == 3
    hit_man = next(t for t in law.triumphs if t.name == "Hit Man")
    assert hit_man.measure is Measure.NOT_TRACKED


def test_an_arbitrator_changes_the_count_of_a_phase(ruleset: RuleSet) -> None:
    dominion = find_type(ruleset.campaign_types, "Dominion")
    longer = with_cycles(dominion, "takeover", 4)
    assert longer.total_cycles == 8 and longer.phases[2].source == "Arbitrator"
    assert dominion.total_cycles == 7  # the rule data itself is left as it was
    with pytest.raises(InvalidRequest, match="1 to 52"):
        with_cycles(dominion, "Takeover", 0)
    with pytest.raises(NotFound, match=r"no phase called 'Takeovr'\. Did you mean 'Takeover'"):
        with_cycles(dominion, "Takeovr", 2)


def test_place_of_a_cycle(ruleset: RuleSet) -> None:
    dominion = find_type(ruleset.campaign_types, "Dominion")
    assert [dominion.place_of(n) for n in range(1, 8)] == [
        (0, 1), (0, 2), (0, 3), (1, 1), (2, 1), (2, 2), (2, 3)]
    with pytest.raises(InvalidRequest, match="7 cycles"):
        dominion.place_of(8)


def test_a_campaigns_rule_data_replaces_a_type_by_name(ruleset: RuleSet) -> None:
    own = RuleData.model_validate({"campaign_types": [{
        "name": "DOMINION", "phases": [{"name": "Brawl", "cycles": 2, "stake": "none"}]}]})
    merged = apply_rule_data(ruleset, own)
    replaced = find_type(merged.campaign_types, "Dominion")
    assert [p.name for p in replaced.phases] == ["Brawl"]
    assert len(merged.campaign_types) == len(ruleset.campaign_types)
    assert rule_data_of(merged).campaign_types == merged.campaign_types
    assert preview_lines(ruleset, own) == ["Replaces 1 campaign types: DOMINION."]


def test_a_type_names_each_phase_once() -> None:
    with pytest.raises(ValueError, match="given twice"):
        RuleData.model_validate({"campaign_types": [{"name": "Odd", "phases": [
            {"name": "A", "stake": "none"}, {"name": "a", "stake": "none"}]}]})
