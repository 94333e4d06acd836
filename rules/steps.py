"""The steps of the post-battle sequence, the sub-steps of Update Roster and the steps of
Downtime, by name.

A module of their own so that what reads a battle's record by step (the report,
rules/aftermath.py) need not import the sequence itself; rules/sequence.py
re-exports them.
"""

from __future__ import annotations

from enum import StrEnum


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
