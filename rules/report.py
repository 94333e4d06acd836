"""Update Roster F and the last step: Gang Rating (PB-6F) and the report (PB-7).

The Gang Rating is always computed from the roster (:attr:`rules.models.Gang.rating`),
so "recalculate only here" is kept by the sequence: it stores each gang's
rating when the sequence starts (``rating_before_update``) and anything
earlier in the sequence reads that. Decisions where the texts are silent:

- :func:`update_gang_rating` changes nothing in the world; it states each
  gang's rating before (the stored one, or the current one when none was
  stored) and after, for the roster and the Arbitrator.
- The report is campaign-only (PB-0): a skirmish battle is refused.
- "The Territory the victor gained" is the staked Territory when there is a
  winner; a draw gains none. Its name is taken from the world when known.
- Enemies taken Out of Action come from the battle record; a gang missing
  from it took none. Rating and Wealth are the final ones, read after the
  Update Roster step.
- The report is what the whole campaign reads, not the Arbitrator alone: it goes
  to the campaign's report channel. Besides the figures above it gives each
  gang's aftermath (rules/aftermath.py): its fighters Out of Action with their
  Lasting Injuries, its dead and captured, the XP it earned, its credits from
  rewards and income, and the Territories it won or lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from rules.aftermath import GangAftermath, Happening, aftermath
from rules.errors import InvalidRequest, NotEligible
from rules.models import Battle, Outcome
from rules.wording import count, possessive
from rules.world import RuleResult, Workspace, World


class GangRating(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str
    gang_name: str
    before: int
    after: int

    @property
    def change(self) -> int:
        return self.after - self.before


class RatingResult(RuleResult):
    ratings: list[GangRating]

    def rating(self, gang_id: str) -> GangRating:
        for line in self.ratings:
            if line.gang_id == gang_id:
                return line
        raise KeyError(gang_id)


class GangReportLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    gang_id: str
    gang_name: str
    outcome: Outcome
    enemies_out_of_action: int
    gang_rating: int
    wealth: int
    # Empty for a report composed without the battle's record (and in reports stored
    # before it was given).
    aftermath: GangAftermath = Field(default_factory=GangAftermath)

    @property
    def aftermath_lines(self) -> list[str]:
        """The aftermath in words, one line per kind of thing that happened."""
        done = self.aftermath
        lines = []
        if done.out_of_action:
            lines.append("Out of Action: " + ", ".join(f.text for f in done.out_of_action))
        if done.dead:
            lines.append("Dead: " + ", ".join(done.dead))
        if done.captured:
            lines.append("Captured: " + ", ".join(
                f"{c.name} (held by {c.held_by})" for c in done.captured))
        if done.xp_earned:
            lines.append("XP earned: " + ", ".join(f"{x.name} {x.xp}" for x in done.xp_earned))
        credits = [f"{amount} from {source}" for amount, source in (
            (done.reward_credits, "rewards"), (done.income_credits, "income")) if amount]
        if credits:
            lines.append("Credits: " + ", ".join(credits))
        if done.territories_won:
            lines.append("Territory won: " + ", ".join(done.territories_won))
        if done.territories_lost:
            lines.append("Territory lost: " + ", ".join(done.territories_lost))
        return lines


class BattleReport(RuleResult):
    battle_id: str
    scenario: str
    winner_id: str | None
    winner_name: str | None
    territory_id: str | None
    territory_name: str | None
    gangs: list[GangReportLine]

    @property
    def draw(self) -> bool:
        return self.winner_id is None

    @property
    def text(self) -> str:
        """The report as the Arbitrator reads it."""
        names = ", ".join(line.gang_name for line in self.gangs)
        outcome = "a draw" if self.winner_name is None else f"won by {self.winner_name}"
        lines = [f"{self.scenario or 'Battle'}: {names}; {outcome}."]
        if self.territory_name is not None:
            lines.append(f"Territory gained: {self.territory_name}.")
        for line in self.gangs:
            lines.append(
                f"{line.gang_name}: {count(line.enemies_out_of_action, 'enemy', 'enemies')} Out "
                f"of Action, Gang Rating {line.gang_rating}, Wealth {line.wealth}."
            )
            lines += [f"  {part}." for part in line.aftermath_lines]
        return "\n".join(lines)


def update_gang_rating(
    world: World, gang_ids: list[str], ratings_before: Mapping[str, int] | None = None
) -> RatingResult:
    """Recalculate each gang's Gang Rating (PB-6F) against the rating stored before."""
    if len(set(gang_ids)) != len(gang_ids):
        raise InvalidRequest("Name each gang once.")
    ws = Workspace(world)
    stored = ratings_before or {}
    ratings = []
    for gang_id in gang_ids:
        gang = ws.gang(gang_id)
        after = gang.rating
        before = stored.get(gang_id, after)
        ratings.append(GangRating(gang_id=gang_id, gang_name=gang.name, before=before, after=after))
        ws.note(f"{possessive(gang.name)} Gang Rating goes from {before} to {after}.")
    return ws.finish(RatingResult, clause="PB-6F", title="Update Gang Rating", ratings=ratings)


def battle_report(
    world: World, battle: Battle, happened: Sequence[Happening] = ()
) -> BattleReport:
    """Compose the report (PB-7); ``happened`` is the battle's record, for each gang's
    aftermath (without it the report gives the figures only)."""
    if not battle.campaign:
        raise NotEligible("A skirmish has no Arbitrator to report to; the report is skipped.")
    ws = Workspace(world)
    lines = []
    done = aftermath(world, battle, happened) if happened else {}
    for gang_id in battle.gang_ids:
        gang = ws.gang(gang_id)
        outcome: Outcome = "draw" if battle.draw else "win" if battle.winner == gang_id else "loss"
        lines.append(
            GangReportLine(
                gang_id=gang_id,
                gang_name=gang.name,
                outcome=outcome,
                enemies_out_of_action=battle.enemies_out_of_action.get(gang_id, 0),
                gang_rating=gang.rating,
                wealth=gang.wealth,
                aftermath=done.get(gang_id, GangAftermath()),
            )
        )
    winner_name = ws.gang(battle.winner).name if battle.winner is not None else None
    territory_id = battle.staked_territory if battle.winner is not None else None
    territory_name = None
    if territory_id is not None:
        known = ws.world.territories.get(territory_id)
        territory_name = known.name if known is not None else territory_id
    report_fields = {
        "battle_id": battle.id,
        "scenario": battle.scenario,
        "winner_id": battle.winner,
        "winner_name": winner_name,
        "territory_id": territory_id,
        "territory_name": territory_name,
        "gangs": lines,
    }
    ws.note("The battle report is posted for the whole campaign to read: in the campaign's "
            "report channel, or where the sequence began when it has none.")
    return ws.finish(BattleReport, clause="PB-7", title="Report Results", **report_fields)
