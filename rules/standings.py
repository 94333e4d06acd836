"""Standings and the race for each Triumph of the campaign type.

Each gang's Territories, battles fought, wins, Gang Rating, Wealth,
Reputation and enemies taken Out of Action (the battles' records), and for
each Triumph who leads it. A tie is handled as the type says: shared by every
gang on the top value, or (Law and Misrule) awarded to no one. A Triumph the
bot cannot measure is listed for the Arbitrator to award.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import Field

from rules.campaign_types import CampaignType, Measure, Ties, Triumph
from rules.models import Battle, Gang, Model, Territory


class Standing(Model):
    gang_id: str
    name: str
    territories: int = Field(ge=0)
    battles: int = Field(ge=0)
    wins: int = Field(ge=0)
    rating: int = Field(ge=0)
    wealth: int = Field(ge=0)
    reputation: int
    enemies_out_of_action: int = Field(ge=0)

    def value(self, measure: Measure) -> int | None:
        return {
            Measure.TERRITORIES: self.territories,
            Measure.ENEMIES_OUT_OF_ACTION: self.enemies_out_of_action,
            Measure.WEALTH: self.wealth,
            Measure.BATTLES: self.battles,
            Measure.REPUTATION: self.reputation,
        }.get(measure)


class Race(Model):
    """One Triumph: the top value, the gangs on it, and who holds it by the tie rule."""

    triumph: Triumph
    best: int | None = None
    leaders: list[str] = Field(default_factory=list)
    holders: list[str] = Field(default_factory=list)

    @property
    def tied(self) -> bool:
        return len(self.leaders) > 1


def standings(
    gangs: Sequence[Gang], territories: Sequence[Territory], battles: Sequence[Battle]
) -> list[Standing]:
    """Every gang, most Territories first, then by Gang Rating."""
    held = Counter(t.controller for t in territories if t.controller)
    wins = Counter(b.winner for b in battles if b.campaign and b.winner)
    knocked: Counter[str] = Counter()
    for battle in battles:
        if battle.campaign:
            knocked.update(battle.enemies_out_of_action)
    rows = [Standing(
        gang_id=g.id, name=g.name, territories=held.get(g.id, 0), battles=g.battles_fought,
        wins=wins.get(g.id, 0), rating=g.rating, wealth=g.wealth, reputation=g.reputation,
        enemies_out_of_action=knocked.get(g.id, 0),
    ) for g in gangs]
    return sorted(rows, key=lambda r: (-r.territories, -r.rating, r.name.casefold()))


def races(campaign_type: CampaignType, rows: Sequence[Standing]) -> list[Race]:
    """The race for each Triumph; nobody leads a race whose best value is nothing."""
    found: list[Race] = []
    for triumph in campaign_type.triumphs:
        values = [(row, row.value(triumph.measure)) for row in rows]
        measured = [(row, v) for row, v in values if v is not None]
        best = max((v for _, v in measured), default=None)
        if best is None or best <= 0:
            found.append(Race(triumph=triumph, best=best))
            continue
        leaders = [row.gang_id for row, v in measured if v == best]
        holders = leaders if len(leaders) == 1 or campaign_type.ties is Ties.SHARED else []
        found.append(Race(triumph=triumph, best=best, leaders=leaders, holders=holders))
    return found
