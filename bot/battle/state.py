"""The stored state of one battle's post-battle run (what survives a restart).

A :class:`PostBattleRun` wraps the rules' state machine
(:class:`rules.sequence.PostBattleSequence`) with what the bot needs to drive
it in a channel: where its messages are, what each player reported about the
end of the battle, what each stage showed, who confirmed it (and whether an
Arbitrator did so on a player's behalf), and the secret dice seeds.

It is stored as one JSON document with ``storage.write(guild).save_sequence(campaign,
run.key, run, battle_id=run.battle_id)`` in the same transaction as every
change it records, so an undo of an action rewinds it too.

Dice (docs/battle.md): every stage has a secret seed made when the run starts
and a counter of the actions stored in it. The roller of an action is
``SeededRoller(f"{seed}:{stage_index}:{counter}")`` and the counter only moves
when an action is stored, so a refused or crashed attempt replays the same
faces: asking again never re-rolls. The counter never goes back, not even when
an Arbitrator undoes a step: the redone step rolls dice nobody has seen, and
the undone rolls stay in the ledger and the thread, marked undone.

The seeds are secret (whoever knows one knows the step's next faces): they are
left out of the run's repr and str, and validation errors of these models do
not quote their input.
"""

from __future__ import annotations

import secrets
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from rules.copying import deep_copy
from rules.dice import SeededRoller
from rules.models import Battle, FighterEndState, VehicleEndState
from rules.sequence import (
    STAGES,
    AtStage,
    PostBattleSequence,
    Stage,
    Step,
    SubStep,
    stage_label,
)

RUN_KEY_PREFIX = "postbattle:"


def run_key(battle_id: str) -> str:
    return f"{RUN_KEY_PREFIX}{battle_id}"


class Phase(StrEnum):
    REPORTING = "reporting"  # players report their gangs' end states
    SEQUENCE = "sequence"  # the seven steps
    FINISHED = "finished"  # the last step is confirmed (deferred sub-steps may remain)
    CANCELLED = "cancelled"


class StageStatus(StrEnum):
    OPEN = "open"
    CONFIRMED = "confirmed"
    UNDONE = "undone"


class _Stored(BaseModel):
    # An error quoting its input could quote a run's secret seeds into a log.
    model_config = ConfigDict(extra="forbid", validate_assignment=True,
                              hide_input_in_errors=True)


class Confirmation(_Stored):
    user_id: int
    # An Arbitrator confirmed for the gang's player (recorded as such).
    on_behalf: bool = False


class StageRecord(_Stored, AtStage):
    """One stage's message: what it showed and who confirmed it."""

    number: int = Field(ge=1)  # position in the run; custom ids name it
    step: Step
    substep: SubStep | None = None
    status: StageStatus = StageStatus.OPEN
    # Rendered lines (automatic results, then actions taken in the stage), in order.
    lines: list[str] = Field(default_factory=list)
    # The posted pages of the stage message; empty until posted (re-posted at start-up).
    message_ids: list[int] = Field(default_factory=list)
    confirmations: dict[str, Confirmation] = Field(default_factory=dict)
    # The sequence as it was when the stage opened (after advance, before any result):
    # an undo of the next stage comes back here.
    opened_with: PostBattleSequence
    # The stage's action counter when it opened: where this opening's dice began. An
    # undo leaves the counter where the undone actions took it, so a redone stage
    # opens at a higher one and rolls fresh dice.
    counter_at_open: int = 0
    note: str = ""  # e.g. "Undone by ..."


class FighterReport(_Stored):
    """One fighter's end state as its player reported it (ids are the roster's)."""

    fighter_id: str
    prone_seriously_injured: bool = False
    fled_prone_seriously_injured: bool = False
    out_of_action: bool = False
    webbed: bool = False
    critical_injury: bool = False
    # 3-4 gang battles: which enemy gang took it Out of Action (captor if Captured).
    taken_by: str | None = None
    # Lasting Injury results already rolled at the table (Out of Action only), named as
    # in the injury table: one, or Multiple Injuries then its extras. Empty: the Wrap-up rolls.
    injuries_rolled: list[str] = Field(default_factory=list)
    # Experience earned in the battle and enemies it took Out of Action (Wrap-up adds them).
    xp: int = Field(default=0, ge=0, le=100)
    kills: int = Field(default=0, ge=0, le=100)


class GangReport(_Stored):
    """What one gang's player reports about the end of the battle."""

    gang_id: str
    fighters: dict[str, FighterReport] = Field(default_factory=dict)
    wrecked: list[str] = Field(default_factory=list)
    abandoned: list[str] = Field(default_factory=list)
    bottled_out: bool = False
    models_left: bool = True
    enemies_out_of_action: int = Field(default=0, ge=0, le=100)
    submitted: bool = False
    submitted_by: int | None = None
    message_id: int | None = None
    # What the report message shows now: a section and a page of its fighters.
    section: str = Field(default="psi", max_length=16)
    page: int = Field(default=0, ge=0)
    # The Out of Action fighter whose injuries rolled at the table the panel shows.
    injury_fighter: str | None = None
    # Wrecked vehicles: Wrecked results beyond the first, and Lasting Damage rolled at
    # the table (named as in the table), by vehicle id.
    wrecked_results: dict[str, int] = Field(default_factory=dict)
    damage_rolled: dict[str, list[str]] = Field(default_factory=dict)
    # The wrecked vehicle whose Lasting Damage rolled at the table the panel shows.
    damage_vehicle: str | None = None
    # The fighters (or vehicles) chosen in a section that gives them an amount (XP,
    # enemies taken Out of Action, Wrecked results): the amount select sets theirs.
    chosen: list[str] = Field(default_factory=list)

    def fighter(self, fighter_id: str) -> FighterReport:
        return self.fighters.setdefault(fighter_id, FighterReport(fighter_id=fighter_id))

    def marked(self, flag: str) -> list[str]:
        """Ids of the fighters whose ``flag`` (a FighterReport field) is set."""
        return [fid for fid, mark in self.fighters.items() if getattr(mark, flag)]

    def choose(
        self, section: str, shown: list[str], chosen: list[str], enemy_id: str | None = None
    ) -> None:
        """Apply a select: of the ids ``shown``, exactly ``chosen`` now have ``section``.

        Contradictions are resolved towards the latest choice (a fighter is
        either Out of Action or Seriously Injured, Webbed implies Out of
        Action, fleeing implies Seriously Injured), so the report can never
        hold what the Wrap-up would refuse.
        """
        picked = set(chosen)
        if section in ("wreck", "aband"):
            current = self.wrecked if section == "wreck" else self.abandoned
            kept = [v for v in current if v not in shown] + [v for v in shown if v in picked]
            if section == "wreck":
                self.wrecked = kept
                # A vehicle no longer Wrecked has no Wrecked results nor Lasting Damage.
                self.wrecked_results = {v: n for v, n in self.wrecked_results.items()
                                        if v in kept}
                self.damage_rolled = {v: d for v, d in self.damage_rolled.items() if v in kept}
            else:
                self.abandoned = kept
            return
        if section == "enemies":
            self.enemies_out_of_action = int(chosen[0]) if chosen else 0
            return
        for fid in shown:
            _set_flag(self.fighter(fid), section, fid in picked, enemy_id)
        self.fighters = {fid: m for fid, m in self.fighters.items() if any_mark(m)}

    def set_bottled_out(self, value: bool) -> None:
        self.bottled_out = value
        if not value:
            for mark in self.fighters.values():
                mark.fled_prone_seriously_injured = False


def _set_flag(mark: FighterReport, section: str, on: bool, enemy_id: str | None) -> None:
    if section == "psi":
        mark.prone_seriously_injured = on
        if on:
            mark.out_of_action = mark.webbed = False
            mark.taken_by = None
            mark.injuries_rolled = []  # only a fighter Out of Action has them
        else:
            mark.fled_prone_seriously_injured = False
    elif section == "fled":
        mark.fled_prone_seriously_injured = on
        if on:
            mark.prone_seriously_injured = True
    elif section == "ooa":
        mark.out_of_action = on
        if on:
            mark.prone_seriously_injured = mark.fled_prone_seriously_injured = False
        else:
            mark.webbed = False
            mark.taken_by = None
            mark.injuries_rolled = []  # only a fighter Out of Action has them
    elif section == "web":
        mark.webbed = on
        if on:
            mark.out_of_action = True
            mark.prone_seriously_injured = mark.fled_prone_seriously_injured = False
    elif section == "crit":
        mark.critical_injury = on
    elif section.startswith("by") and enemy_id is not None:
        if on:
            mark.taken_by = enemy_id
        elif mark.taken_by == enemy_id:
            mark.taken_by = None
    else:
        raise ValueError(f"unknown report section {section!r}")


def any_mark(mark: FighterReport) -> bool:
    """Whether the report says anything of this fighter (else it is dropped)."""
    return (
        mark.prone_seriously_injured or mark.fled_prone_seriously_injured or mark.out_of_action
        or mark.webbed or mark.critical_injury or mark.taken_by is not None
        or mark.xp > 0 or mark.kills > 0
    )


class EndStates(_Stored):
    """The parts of a Battle the players' reports fill in, plus who captured whom."""

    fighters: list[FighterEndState]
    vehicles: list[VehicleEndState]
    gangs_with_models_left: list[str]
    bottled_out: list[str]
    enemies_out_of_action: dict[str, int]
    captor_by_fighter: dict[str, str]

    def apply_to(self, battle: Battle) -> Battle:
        return Battle.model_validate({
            **battle.model_dump(),
            "fighters": [f.model_dump() for f in self.fighters],
            "vehicles": [v.model_dump() for v in self.vehicles],
            "gangs_with_models_left": self.gangs_with_models_left,
            "bottled_out": self.bottled_out,
            "enemies_out_of_action": self.enemies_out_of_action,
        })


def _new_seeds() -> list[int]:
    return [secrets.randbits(64) for _ in STAGES]


class PostBattleRun(_Stored):
    """One battle's post-battle run, as stored (key ``postbattle:<battle_id>``)."""

    campaign_id: str
    battle_id: str
    sequence: PostBattleSequence
    phase: Phase = Phase.REPORTING
    started_by: int
    # Where /postbattle start was used, and where the stage messages go (a thread or it).
    channel_id: int
    thread_id: int | None = None
    reports: dict[str, GangReport] = Field(default_factory=dict)
    # Fighters In Recovery when the run started (the Wrap-up clears them, PB-1.5).
    in_recovery_before: list[str] = Field(default_factory=list)
    stages: list[StageRecord] = Field(default_factory=list)
    # One secret seed per entry of rules.sequence.STAGES (never shown: not in repr or str),
    # and actions stored per stage.
    seeds: list[int] = Field(default_factory=_new_seeds, repr=False)
    counters: dict[str, int] = Field(default_factory=dict)
    report_message_id: int | None = None
    report_channel_id: int | None = None
    cancelled_by: int | None = None
    # Income dice chosen during Receive Rewards (Territory id -> dice), for Collect Income.
    income_dice: dict[str, int] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        return run_key(self.battle_id)

    @property
    def gang_ids(self) -> list[str]:
        return list(self.sequence.gang_ids)

    @property
    def in_progress(self) -> bool:
        return self.phase in (Phase.REPORTING, Phase.SEQUENCE)

    @property
    def target_channel_id(self) -> int:
        return self.thread_id or self.channel_id

    @property
    def current(self) -> StageRecord | None:
        """The open stage's record, while the sequence runs."""
        if self.phase is not Phase.SEQUENCE:
            return None
        # After an undo the reopened stage is not the last record: the undone one is.
        return next((r for r in reversed(self.stages) if r.status is StageStatus.OPEN), None)

    def stage_record(self, number: int) -> StageRecord | None:
        if 1 <= number <= len(self.stages):
            return self.stages[number - 1]
        return None

    def record_for(self, stage: Stage) -> StageRecord | None:
        """The latest record of ``stage`` that was not undone."""
        for record in reversed(self.stages):
            if record.stage == stage and record.status is not StageStatus.UNDONE:
                return record
        return None

    def end_states(self) -> EndStates:
        """The battle's end states as the players reported them."""
        fighters: list[FighterEndState] = []
        vehicles: list[VehicleEndState] = []
        captors: dict[str, str] = {}
        for gang_id in self.gang_ids:
            report = self.reports[gang_id]
            for fid, mark in report.fighters.items():
                if not any_mark(mark):
                    continue
                fighters.append(FighterEndState(
                    gang_id=gang_id, fighter_id=fid,
                    prone_seriously_injured=mark.prone_seriously_injured,
                    fled_prone_seriously_injured=mark.fled_prone_seriously_injured,
                    out_of_action=mark.out_of_action or mark.webbed,
                    webbed=mark.webbed,
                    critical_injury=mark.critical_injury,
                    injuries_rolled=list(mark.injuries_rolled),
                    xp=mark.xp, kills=mark.kills,
                ))
                if mark.taken_by is not None and mark.out_of_action:
                    captors[fid] = mark.taken_by
            vehicle_ids = list(dict.fromkeys([*report.wrecked, *report.abandoned]))
            vehicles += [
                VehicleEndState(
                    gang_id=gang_id, vehicle_id=vid, wrecked=vid in report.wrecked,
                    wrecked_results=report.wrecked_results.get(vid, 1),
                    lasting_damage_rolled=list(report.damage_rolled.get(vid, [])),
                    abandoned=vid in report.abandoned,
                )
                for vid in vehicle_ids
            ]
        return EndStates(
            fighters=fighters,
            vehicles=vehicles,
            gangs_with_models_left=[g for g in self.gang_ids if self.reports[g].models_left],
            bottled_out=[g for g in self.gang_ids if self.reports[g].bottled_out],
            enemies_out_of_action={
                g: self.reports[g].enemies_out_of_action for g in self.gang_ids
            },
            captor_by_fighter=captors,
        )

    def has_open_deferral(self, gang_id: str) -> bool:
        return bool(self.sequence.deferred.get(gang_id)) and (
            gang_id not in self.sequence.deferrals_closed
        )

    def active_for(self, gang_id: str) -> bool:
        """In progress, or finished with a deferred sub-step the gang has not closed."""
        if gang_id not in self.sequence.gang_ids:
            return False
        if self.in_progress:
            return True
        return self.phase is Phase.FINISHED and self.has_open_deferral(gang_id)

    # ----------------------------------------------------------------- dice

    def roller(self, stage: Stage) -> SeededRoller:
        """The roller of the next action stored in ``stage`` (see the module docstring)."""
        index = STAGES.index(stage)
        counter = self.counters.get(stage_label(*stage), 0)
        return SeededRoller(f"{self.seeds[index]}:{index}:{counter}")

    def count_action(self, stage: Stage) -> None:
        label = stage_label(*stage)
        self.counters[label] = self.counters.get(label, 0) + 1

    # ----------------------------------------------------------------- undo

    def take_back(self, record: StageRecord, who: str) -> StageRecord | None:
        """Mark the open stage ``record`` undone and reopen what came before it.

        The caller has undone the stage's actions in the ledger. Undoing the
        Wrap-up (or a stage with no confirmed one before it) reopens the
        reports and returns None; otherwise the last confirmed stage before it
        opens again with no confirmations and is returned. ``who`` (a mention)
        goes into the notes. The dice counters are left where the undone
        actions took them: when the stage opens again it rolls fresh dice,
        never the faces that were shown and taken back.
        """
        previous = next((r for r in reversed(self.stages)
                         if r.number < record.number and r.status is StageStatus.CONFIRMED),
                        None)
        record.status = StageStatus.UNDONE
        sequence = deep_copy(record.opened_with)
        taken_back = (f"Undone by {who}: its rolls and changes were taken back (the ledger "
                      "keeps them, marked undone)")
        if record.step is Step.WRAP_UP or previous is None:
            self.phase = Phase.REPORTING
            self.sequence = sequence
            for report in self.reports.values():
                report.submitted, report.submitted_by = False, None
            record.note = f"{taken_back}; the reports are open again."
            return None
        sequence.confirmations.pop(previous.label, None)
        self.sequence = sequence.model_copy(update={"step": previous.step,
                                                    "substep": previous.substep})
        previous.status = StageStatus.OPEN
        previous.confirmations = {}
        previous.note = f"Reopened by an undo ({who}): confirm it again."
        record.note = f"{taken_back}; {previous.label} is open again."
        return previous
