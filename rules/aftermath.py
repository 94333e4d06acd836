"""What a battle did to each gang, for the battle report (PB-7) the whole campaign reads.

The report is composed when the sequence ends, long after the Wrap-up rolled its
injuries, so it reads what the sequence recorded: the battle's :class:`Happening` s
(its changes and notes, in order, each with the step that made it; the bot reads
them from the ledger, leaving out what was undone). Decisions where the texts are
silent:

- A fighter is listed Out of Action when its player reported it so, or when it
  rolled a Lasting Injury in the Wrap-up (a fighter that fled Prone & Seriously
  Injured and succumbed). Its results are those rolled at the table, then those
  the bot rolled, as the table names them.
- A fighter is named as the roster names it; one cleared from the roster since
  (a death, in Clean House) by the name the ledger recorded with its changes.
- Dead: every fighter of the gang whose status became Dead during the sequence.
  Captured: a fighter of the gang held by another gang when the report is made
  (one that escaped, or was rescued or released before the end, is not).
- XP earned: each fighter's XP gains during the sequence (what it spent on
  Advancements is not taken off). Credits: the change of the gang's credits in
  Receive Rewards and in Collect Income.
- Territories: every change of a Territory's controller during the sequence,
  as won by the new controller and lost by the old one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from rules.injuries import injury_of_note
from rules.models import Battle, FighterStatus
from rules.steps import Step
from rules.world import Change, World


class Happening(BaseModel):
    """One recorded event of the battle: a change or a note, and the step that made it."""

    model_config = ConfigDict(frozen=True)

    step: str = ""
    note: str | None = None
    change: Change | None = None


class FighterFate(BaseModel):
    """A fighter that went Out of Action, and the Lasting Injury results it suffered."""

    model_config = ConfigDict(frozen=True)

    name: str
    results: list[str] = Field(default_factory=list)

    @property
    def text(self) -> str:
        return f"{self.name} ({', '.join(self.results) or 'no Lasting Injury'})"


class Captive(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    held_by: str  # the captor's name


class XpEarned(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    xp: int


class GangAftermath(BaseModel):
    """What the battle did to one gang (empty lists and zeros when nothing happened)."""

    model_config = ConfigDict(frozen=True)

    out_of_action: list[FighterFate] = Field(default_factory=list)
    dead: list[str] = Field(default_factory=list)
    captured: list[Captive] = Field(default_factory=list)
    xp_earned: list[XpEarned] = Field(default_factory=list)
    reward_credits: int = 0
    income_credits: int = 0
    territories_won: list[str] = Field(default_factory=list)
    territories_lost: list[str] = Field(default_factory=list)


def aftermath(
    world: World, battle: Battle, happened: Sequence[Happening]
) -> dict[str, GangAftermath]:
    """Gang id -> what the battle did to it, read from ``happened`` and the world now."""
    changes = [(h.step, h.change) for h in happened if h.change is not None]
    recorded_names = {c.subject_id: c.subject_name for _, c in changes if c.subject == "fighter"}
    return {
        gang_id: _of_gang(world, battle, gang_id, happened, changes, recorded_names)
        for gang_id in battle.gang_ids
    }


def _of_gang(
    world: World, battle: Battle, gang_id: str, happened: Sequence[Happening],
    changes: list[tuple[str, Change]], recorded_names: dict[str, str],
) -> GangAftermath:
    gang = world.gangs.get(gang_id)
    on_roster = {f.id: f for f in gang.fighters} if gang is not None else {}

    def name(fighter_id: str) -> str:
        if fighter_id in on_roster:
            return on_roster[fighter_id].name
        return recorded_names.get(fighter_id, "a fighter no longer on the roster")

    ours = [(step, c) for step, c in changes if c.gang_id == gang_id]
    wrap_up_notes = [h.note for h in happened if h.note and h.step == Step.WRAP_UP.value]
    fates = []
    for state in battle.fighters:
        if state.gang_id != gang_id:
            continue
        rolled = [result for note in wrap_up_notes
                  if (result := injury_of_note(name(state.fighter_id), note)) is not None]
        if state.out_of_action or rolled:
            fates.append(FighterFate(name=name(state.fighter_id),
                                     results=[*state.injuries_rolled, *rolled]))
    dead = _unique(name(c.subject_id) for _, c in ours
                   if c.subject == "fighter" and c.path == "status"
                   and c.after == FighterStatus.DEAD.value)
    out_of_action = {s.fighter_id for s in battle.fighters if s.gang_id == gang_id}
    captured = [
        Captive(name=f.name, held_by=_gang_name(world, f.captured_by))
        for f in on_roster.values()
        if f.id in out_of_action and f.status is FighterStatus.CAPTURED
        and f.captured_by is not None and f.captured_by != gang_id
    ]
    return GangAftermath(
        out_of_action=fates, dead=dead, captured=captured,
        xp_earned=_xp(ours, name), reward_credits=_credits(ours, Step.RECEIVE_REWARDS),
        income_credits=_credits(ours, Step.COLLECT_INCOME),
        territories_won=_unique(c.subject_name for _, c in changes
                                if _territory(c) and c.after == gang_id),
        territories_lost=_unique(c.subject_name for _, c in changes
                                 if _territory(c) and c.before == gang_id),
    )


def _xp(ours: list[tuple[str, Change]], name: Callable[[str], str]) -> list[XpEarned]:
    gained: dict[str, int] = {}
    for _, c in ours:
        if c.subject == "fighter" and c.path == "xp" and _number(c.after) > _number(c.before):
            gained[c.subject_id] = gained.get(c.subject_id, 0) + (
                _number(c.after) - _number(c.before))
    return [XpEarned(name=name(fighter_id), xp=xp) for fighter_id, xp in gained.items()]


def _credits(ours: list[tuple[str, Change]], step: Step) -> int:
    return sum(_number(c.after) - _number(c.before) for at, c in ours
               if at == step.value and c.subject == "gang" and c.path == "credits")


def _territory(change: Change) -> bool:
    return change.subject == "territory" and change.path == "controller"


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _gang_name(world: World, gang_id: str | None) -> str:
    gang = world.gangs.get(gang_id or "")
    return gang.name if gang is not None else "another gang"


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))
