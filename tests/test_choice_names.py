"""A choice typed by name (an action, a deferrable sub-step): found whatever the case,
else refused with the list of what may be chosen (bot/lookup.pick_choice)."""

from __future__ import annotations

import pytest

from bot.lookup import pick_choice
from bot.runs import action_kind
from cogs.roster import substep_named
from rules.actions import ActionKind
from rules.errors import InvalidRequest
from rules.sequence import SubStep


def test_a_choice_is_found_by_its_name_in_any_case() -> None:
    assert pick_choice(ActionKind, "  medical ESCORT ", str) is ActionKind.MEDICAL_ESCORT
    assert action_kind("trade") is ActionKind.TRADE
    assert substep_named("e. purchase advancements") is SubStep.ADVANCEMENTS


def test_an_unknown_name_is_refused_with_the_choices() -> None:
    with pytest.raises(InvalidRequest) as refused:
        pick_choice([SubStep.TRADING_POST, SubStep.ADVANCEMENTS], "Gang Rating",
                    lambda known: f"choose {known}")
    assert str(refused.value) == f"choose {SubStep.TRADING_POST}, {SubStep.ADVANCEMENTS}"


def test_the_commands_refusals_name_what_may_be_chosen() -> None:
    with pytest.raises(InvalidRequest, match="'Nap' is not a post-battle action: choose Trade"):
        action_kind("Nap")
    with pytest.raises(InvalidRequest) as refused:
        substep_named("Gang Rating")
    assert str(refused.value) == (
        "Only these sub-steps can be finished later: "
        f"{SubStep.TRADING_POST}, {SubStep.DISTRIBUTE_EQUIPMENT}, {SubStep.ADVANCEMENTS}."
    )
