"""The steps of the post-battle sequence, the sub-steps of Update Roster and the steps of
Downtime, by name; and who confirmed a step, which both sequences record alike.

A module of their own so that what reads a battle's record by step (the report,
rules/aftermath.py) need not import the sequence itself; rules/sequence.py
re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TypeVar

Who = TypeVar("Who", bound=str)


class Step(StrEnum):
    WRAP_UP = "Wrap-up"
    ASSIGN_TERRITORY = "Assign/Reassign Territory"
    RECEIVE_REWARDS = "Receive Rewards"
    COLLECT_INCOME = "Collect Income"
    POST_BATTLE_ACTIONS = "Post-battle Actions"
    UPDATE_ROSTER = "Update Roster"
    REPORT_RESULTS = "Report Results"
    FINISHED = "Finished"


class SubStep(StrEnum):
    CLEAN_HOUSE = "A. Clean House"
    TRADING_POST = "B. Visit the Trading Post"
    TERRITORY_BOONS = "C. Gain Boons from Territories"
    DISTRIBUTE_EQUIPMENT = "D. Distribute Equipment"
    ADVANCEMENTS = "E. Purchase Advancements"
    GANG_RATING = "F. Update Gang Rating"


class DowntimeStep(StrEnum):
    """The Downtime steps of a campaign (Dominion: "The Effects of Downtime", A to D)."""

    FIGHTERS_RECOVER = "A. Fighters Recover"
    CAPTIVES_RETURNED = "B. Captives are Returned"
    PROMOTIONS = "C. Experienced Juves and Prospects are Promoted"
    FRESH_RECRUITMENT = "D. Fresh Recruitment"
    FINISHED = "Downtime over"


def confirm_once(confirmations: dict[str, list[Who]], label: str, who: Who) -> None:
    """Count ``who`` among those who confirmed the step ``label``, once (pressing Confirm
    again changes nothing)."""
    confirmed = confirmations.setdefault(label, [])
    if who not in confirmed:
        confirmed.append(who)


def not_confirmed(
    confirmations: Mapping[str, list[Who]], label: str, expected: Sequence[Who]
) -> list[Who]:
    """Those of ``expected`` who have not confirmed the step ``label`` yet, in their order."""
    confirmed = confirmations.get(label, [])
    return [who for who in expected if who not in confirmed]
