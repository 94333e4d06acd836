"""The stored post-battle run, its report panels and its embeds, without Discord.

State: reports resolve contradictions the way the Wrap-up needs, end states
fill a Battle, the run round-trips through JSON, dice are replayable. Views:
long rosters are split into selects and pages. Render: every embed stays
inside Discord's limits whatever the rosters and lines. Storage: runs are
found for a gang, and start-up finds what it must draw again.
"""

from __future__ import annotations

import traceback
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest
from pydantic import BaseModel, ValidationError

from bot.battle import panel, render, views
from bot.battle.publish import resume_drawing
from bot.battle.state import (
    Confirmation,
    GangReport,
    Phase,
    PostBattleRun,
    StageRecord,
    StageStatus,
    run_key,
)
from bot.battle.store import active_run_in, find_active_run, runs_of
from bot.storage import Campaign, Storage, StorageError
from bot.ui.ledger import ledger_lines
from rules.models import Battle, CampaignSettings, FighterCategory, FighterStatus
from rules.sequence import PostBattleSequence, Step, SubStep
from rules.world import RuleResult, Workspace, World
from tests import factories as f

GUILD = 444_444_444_444_444_444


def _world(fighters: int = 3) -> World:
    crowd = [f.fighter(f"Rat {n}", FighterCategory.GANGER, id=f"r{n}") for n in range(fighters)]
    return f.world(
        f.gang("Ash Wolves", id="g1", owner="10"),
        f.gang("Iron Fangs", fighters=crowd, id="g2", owner="20",
               vehicles=[f.vehicle("Cargo-8", id="v1")]),
        f.gang("Sump Rats", id="g3", owner="30"),
    )


def _run(world: World, gangs: tuple[str, ...] = ("g1", "g2"), winner: str | None = "g1",
         skirmish: bool = False) -> PostBattleRun:
    battle = Battle(id="b1", gang_ids=list(gangs), winner=winner, campaign=not skirmish)
    sequence = PostBattleSequence.start("s1", battle, world, skirmish=skirmish)
    return PostBattleRun(
        campaign_id="c1", battle_id="b1", sequence=sequence, started_by=10, channel_id=99,
        reports={g: GangReport(gang_id=g) for g in gangs},
    )


# --------------------------------------------------------------------------- state


def test_report_choices_never_contradict_what_the_wrap_up_refuses() -> None:
    report = GangReport(gang_id="g2")
    report.choose("psi", ["r0", "r1"], ["r0", "r1"])
    report.choose("ooa", ["r1"], ["r1"])
    assert report.marked("prone_seriously_injured") == ["r0"]
    assert report.marked("out_of_action") == ["r1"]
    report.choose("web", ["r0"], ["r0"])  # Webbed implies Out of Action
    assert report.fighter("r0").out_of_action and not report.fighter("r0").prone_seriously_injured
    report.choose("ooa", ["r0", "r1"], ["r1"])  # no longer Out of Action: no longer Webbed
    assert not report.fighter("r0").webbed
    report.choose("psi", ["r0"], ["r0"])
    report.set_bottled_out(True)
    report.choose("fled", ["r0"], ["r0"])
    assert report.fighter("r0").fled_prone_seriously_injured
    report.set_bottled_out(False)
    assert not report.fighter("r0").fled_prone_seriously_injured
    report.choose("wreck", ["v1"], ["v1"])
    report.choose("enemies", [], ["3"])
    assert report.wrecked == ["v1"] and report.enemies_out_of_action == 3


def test_end_states_fill_the_battle_with_captors() -> None:
    world = _world()
    run = _run(world, ("g1", "g2", "g3"))
    g2 = run.reports["g2"]
    g2.choose("ooa", ["r0", "r1"], ["r0", "r1"])
    g2.choose("by1", ["r0"], ["r0"], enemy_id="g3")
    g2.choose("crit", ["r2"], ["r2"])
    g2.choose("aband", ["v1"], ["v1"])
    run.reports["g1"].enemies_out_of_action = 2
    run.reports["g3"].models_left = False
    ends = run.end_states()
    battle = ends.apply_to(Battle(id="b1", gang_ids=["g1", "g2", "g3"], winner="g1"))
    assert {s.fighter_id for s in battle.fighters} == {"r0", "r1", "r2"}
    assert battle.end_state("r2") is not None and battle.end_state("r2").critical_injury  # type: ignore[union-attr]
    assert ends.captor_by_fighter == {"r0": "g3"}
    assert battle.vehicles[0].abandoned and not battle.vehicles[0].wrecked
    assert battle.gangs_with_models_left == ["g1", "g2"]
    assert battle.enemies_out_of_action == {"g1": 2, "g2": 0, "g3": 0}


def test_run_round_trips_and_its_dice_replay_until_an_action_is_stored() -> None:
    run = _run(_world())
    stage = (Step.RECEIVE_REWARDS, None)

    def twenty_faces() -> list[int]:
        roller = run.roller(stage)
        return [roller.face(6) for _ in range(20)]

    faces = twenty_faces()
    assert twenty_faces() == faces  # a refused or crashed attempt replays the same faces
    again = PostBattleRun.model_validate_json(run.model_dump_json())
    assert again == run and again.key == run_key("b1")
    assert [again.roller(stage).face(6) for _ in range(1)] == faces[:1]  # after a restart too
    run.count_action(stage)
    assert twenty_faces() != faces  # the next stored action gets fresh dice
    assert run.counters == {"Receive Rewards": 1}
    assert len(run.seeds) == 13 and len(set(run.seeds)) > 1


def test_current_stage_after_an_undo_is_the_reopened_one() -> None:
    run = _run(_world())
    run.phase = Phase.SEQUENCE
    opened = run.sequence.model_copy(deep=True)
    run.stages = [
        StageRecord(number=1, step=Step.WRAP_UP, opened_with=opened),
        StageRecord(number=2, step=Step.ASSIGN_TERRITORY, opened_with=opened,
                    status=StageStatus.UNDONE),
    ]
    assert run.current is run.stages[0]
    run.stages[0].confirmations["g1"] = Confirmation(user_id=10)
    assert run.record_for((Step.ASSIGN_TERRITORY, None)) is None
    assert run.record_for((Step.WRAP_UP, None)) is run.stages[0]


def _seed_texts(run: PostBattleRun) -> list[str]:
    """Every way a seed could be printed: decimal, and hex as a debugger might."""
    return [text for seed in run.seeds for text in (str(seed), f"{seed:x}")]


def test_the_seeds_never_show_in_repr_str_or_validation_errors() -> None:
    run = _run(_world())
    shown = [repr(run), str(run), f"{run!r}", repr([run])]
    for text in _seed_texts(run):
        assert all(text not in each for each in shown)
    assert "counters" in repr(run)  # the rest of the run still reads in a log
    # A document that cannot be read says what is wrong without quoting what it holds.
    with pytest.raises(ValidationError) as refused:
        PostBattleRun.model_validate({"seeds": run.seeds})
    assert "campaign_id" in str(refused.value)
    for text in _seed_texts(run):
        assert text not in str(refused.value)


def _faces(run: PostBattleRun, stage: tuple[Step, SubStep | None]) -> list[int]:
    roller = run.roller(stage)
    return [roller.face(6) for _ in range(20)]


def test_an_undone_wrap_up_rolls_fresh_dice_when_it_is_redone() -> None:
    run = _run(_world())
    wrap_up = (Step.WRAP_UP, None)
    run.phase = Phase.SEQUENCE
    first = StageRecord(number=1, step=Step.WRAP_UP, opened_with=run.sequence.model_copy(
        deep=True))
    run.stages.append(first)
    shown = _faces(run, wrap_up)
    assert _faces(run, wrap_up) == shown  # a crashed or refused attempt: the same faces
    run.count_action(wrap_up)  # the Wrap-up and the battle record were stored
    run.count_action(wrap_up)
    run.reports["g1"].submitted = True

    assert run.take_back(first, "<@7>") is None
    assert run.phase is Phase.REPORTING and run.current is None
    assert first.status is StageStatus.UNDONE and first.note.startswith("Undone by <@7>")
    assert not run.reports["g1"].submitted
    # The redone Wrap-up opens where the undone one stopped: dice nobody has seen.
    assert run.counters == {"Wrap-up": 2}
    redone = _faces(run, wrap_up)
    assert redone != shown
    assert _faces(run, wrap_up) == redone  # and a retry of the redo replays them


def test_undoing_a_later_step_reopens_the_one_before_and_moves_its_dice_on() -> None:
    run = _run(_world())
    income = (Step.COLLECT_INCOME, None)
    run.phase = Phase.SEQUENCE
    run.sequence = run.sequence.model_copy(update={"step": Step.RECEIVE_REWARDS})
    rewards = StageRecord(number=1, step=Step.RECEIVE_REWARDS,
                          opened_with=run.sequence.model_copy(deep=True),
                          status=StageStatus.CONFIRMED,
                          confirmations={"g1": Confirmation(user_id=10)})
    run.sequence.confirmations[rewards.label] = ["g1", "g2"]
    opened = run.sequence.model_copy(update={"step": Step.COLLECT_INCOME}, deep=True)
    collect = StageRecord(number=2, step=Step.COLLECT_INCOME, opened_with=opened)
    run.stages += [rewards, collect]
    run.sequence = opened.model_copy(deep=True)
    shown = _faces(run, income)
    run.count_action(income)

    assert run.take_back(collect, "<@7>") is rewards
    assert run.current is rewards and rewards.confirmations == {}
    assert run.sequence.step is Step.RECEIVE_REWARDS
    assert rewards.label not in run.sequence.confirmations
    assert "Reopened by an undo (<@7>)" in rewards.note
    assert collect.status is StageStatus.UNDONE and "Receive Rewards is open again" in collect.note
    assert _faces(run, income) != shown


def test_active_for_counts_deferrals_until_they_close() -> None:
    run = _run(_world())
    assert run.active_for("g1") and not run.active_for("g3")
    run.phase = Phase.FINISHED
    assert not run.active_for("g1")
    run.sequence.deferred["g1"] = [SubStep.TRADING_POST]
    assert run.active_for("g1") and not run.active_for("g2")
    run.sequence.close_deferred_at_prebattle("g1")
    assert not run.active_for("g1")
    run.phase = Phase.CANCELLED
    assert not run.in_progress


# --------------------------------------------------------------------------- views


def test_long_rosters_split_into_selects_and_pages() -> None:
    world = _world(fighters=60)
    run = _run(world)
    scope = panel.report_scope(run, world, 1)
    assert panel.page_count(scope, "ooa") == 2
    first = panel.slot_items(scope, "ooa", 0, 0)
    second = panel.slot_items(scope, "ooa", 0, 1)
    third = panel.slot_items(scope, "ooa", 1, 0)
    assert len(first) == 25 and len(second) == 25 and len(third) == 10
    assert panel.slot_items(scope, "ooa", 1, 1) == []
    view = views.report_view(scope)
    rows = [item for item in view.children]
    assert sum(getattr(i, "custom_id", "").startswith("munda:pb:pick:") for i in rows) == 2
    assert sum(getattr(i, "custom_id", "").startswith("munda:pb:page:") for i in rows) == 2
    assert len(view.children) <= 25


def test_in_recovery_and_captive_fighters_are_not_offered() -> None:
    world = _world()
    world.gangs["g2"].fighters[0].status = FighterStatus.IN_RECOVERY
    world.gangs["g2"].fighters[1].capture("g1")
    run = _run(world)
    run.in_recovery_before = ["r0"]
    scope = panel.report_scope(run, world, 1)
    assert [value for value, _, _ in panel.section_items(scope, "psi")] == ["r2"]


def test_sections_follow_the_battle() -> None:
    world = _world()
    two = panel.report_scope(_run(world), world, 1)
    assert [v for v, _ in panel.sections(two)] == [
        "psi", "ooa", "web", "crit", "xp", "kills", "wreck", "aband", "enemies"]
    two.report.wrecked = [two.vehicles[0].id]
    assert [v for v, _ in panel.sections(two)][6:9] == ["wreck", "wres", "dmg"]
    three = _run(world, ("g1", "g2", "g3"))
    three.reports["g2"].set_bottled_out(True)
    scope = panel.report_scope(three, world, 1)
    values = [v for v, _ in panel.sections(scope)]
    assert "fled" in values and values[-2:] == ["by0", "by1"]
    assert panel.enemy_of(scope, "by1") == "g3"


# --------------------------------------------------------------------------- render


def _within_limits(embed: discord.Embed) -> None:
    assert len(embed) <= 6000
    assert len(embed.title or "") <= 256 and len(embed.description or "") <= 4096
    assert len(embed.fields) <= 25
    assert all(len(field.value or "") <= 1024 for field in embed.fields)


def test_stage_pages_stay_within_discords_limits() -> None:
    run = _run(_world())
    run.phase = Phase.SEQUENCE
    record = StageRecord(number=1, step=Step.WRAP_UP, opened_with=run.sequence,
                         lines=[f"🎲 roll {n}: " + "x" * 150 for n in range(200)])
    run.stages = [record]
    pages = render.stage_pages(run, record, {"g1": "A" * 100, "g2": "@everyone"})
    assert len(pages) > 5
    for page in pages:
        _within_limits(page)
    text = "\n".join(p.description or "" for p in pages)
    assert text.count("🎲") == 200  # nothing lost between pages
    assert [p.footer.text for p in pages] == [
        f"Post-battle sequence · step 1 · page {n} of {len(pages)}"
        for n in range(1, len(pages) + 1)
    ]


def test_report_panel_and_report_stay_within_limits_with_huge_rosters() -> None:
    fighters = [f.fighter("N" * 100, FighterCategory.GANGER, id=f"x{n}") for n in range(300)]
    world = f.world(f.gang("G" * 100, fighters=fighters, id="g1"), f.gang("B", id="g2"))
    run = _run(world)
    report = run.reports["g1"]
    report.choose("ooa", [fi.id for fi in fighters], [fi.id for fi in fighters])
    embed = render.report_embed(run, "g1", "10", panel.gang_names(world), fighters, [])
    _within_limits(embed)
    assert "more" in next(fl.value for fl in embed.fields if fl.name == "Out of Action")


def test_fit_lines_says_how_many_are_left_out() -> None:
    lines = [f"line {n} " + "y" * 50 for n in range(100)]
    value = render.fit_lines(lines, 200)
    assert len(value) <= 200 and value.endswith("more")
    assert render.fit_lines([]) == "—"


# --------------------------------------------------------------------------- storage


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Storage]:
    storage = await Storage.open(tmp_path / "runs.sqlite3")
    try:
        yield storage
    finally:
        await storage.close()


async def _stored(storage: Storage) -> tuple[Campaign, PostBattleRun]:
    campaign = await storage.write(GUILD).create_campaign(CampaignSettings(name="Runs"))
    world = _world()
    for gang in world.gangs.values():
        # Fighter names are unique in a campaign.
        for fighter in gang.fighters:
            fighter.name = f"{gang.name} {fighter.name}"
        await storage.write(GUILD).create_gang(campaign.id, gang, actor="1")
    run = _run(world)
    await storage.write(GUILD).create_battle(campaign.id, Battle(id="b1", gang_ids=["g1", "g2"]))
    await storage.write(GUILD).save_sequence(campaign.id, run.key, run, battle_id="b1")
    return campaign, run


async def test_runs_are_found_for_their_gangs(store: Storage) -> None:
    campaign, run = await _stored(store)
    assert (await find_active_run(store, GUILD, campaign.id, "g2")) == run
    assert await find_active_run(store, GUILD, campaign.id, "g3") is None
    async with store.transaction(GUILD) as tx:
        assert [r.battle_id for r in await runs_of(tx, campaign.id)] == ["b1"]
        assert await active_run_in(tx, campaign.id, "g1") == run


async def test_start_up_draws_what_is_missing_and_rolls_nothing(store: Storage) -> None:
    campaign, run = await _stored(store)
    async with store.transaction(GUILD) as tx:
        scene = await resume_drawing(tx, GUILD, campaign, run)
        assert scene is not None and scene.reports and scene.only_missing
        owed = [entry.key for entry in await tx.outbox_entries(pending_only=True)]
        assert owed == [f"pb:{run.sequence.id}:panel:{gang_id}" for gang_id in run.gang_ids]
        run.phase = Phase.FINISHED
        scene = await resume_drawing(tx, GUILD, campaign, run)
        assert scene is not None
        owed = [entry.key for entry in await tx.outbox_entries(pending_only=True)]
        assert owed[-1] == f"pb:{run.sequence.id}:report"
        run.report_message_id = 5
        assert await resume_drawing(tx, GUILD, campaign, run) is None
    assert await store.read(GUILD).list_actions(campaign.id, battle_id="b1") == []  # nothing rolled


class _OnlySeeds(BaseModel):
    """What a damaged or foreign document might hold: the seeds and little else."""

    seeds: list[int]


class _NeedsMore(BaseModel):
    seeds: list[int]
    battle_id: str


async def test_a_stored_run_that_cannot_be_read_is_refused_without_quoting_it(
    store: Storage,
) -> None:
    campaign, run = await _stored(store)
    await store.write(GUILD).save_sequence(campaign.id, run.key, _OnlySeeds(seeds=run.seeds))
    for model in (PostBattleRun, _NeedsMore):  # the run's own model, and any model at all
        with pytest.raises(StorageError) as refused:
            await store.read(GUILD).load_sequence(campaign.id, run.key, model)
        error = refused.value
        assert "battle_id: Field required" in str(error)
        told = "\n".join([str(error), str(error.__cause__), str(error.__context__),
                          *traceback.format_exception(error)])
        for text in _seed_texts(run):
            assert text not in told


async def test_undone_rolls_stay_in_the_ledger_marked_undone(store: Storage) -> None:
    campaign, run = await _stored(store)
    wrap_up = (Step.WRAP_UP, None)
    world = await store.read(GUILD).load_world(campaign.id, run.gang_ids)

    def rolled(title: str) -> RuleResult:
        ws = Workspace(world)
        ws.roll(run.roller(wrap_up), "D66", "Lasting Injury for Rat 1")
        return ws.finish(RuleResult, clause="PB-1.1", title=title)

    undone = await store.write(GUILD).apply(campaign.id, rolled("Wrap-up"), actor="7",
                               battle_id="b1", step="Wrap-up")
    undone_roller = run.roller(wrap_up)
    undone_stream = [undone_roller.face(6) for _ in range(40)]
    await store.write(GUILD).undo_last_action(campaign.id, actor="8", battle_id="b1")
    run.count_action(wrap_up)
    # One D66 can match by chance (1 in 36); forty faces of the redo's stream cannot.
    redo_roller = run.roller(wrap_up)
    assert [redo_roller.face(6) for _ in range(40)] != undone_stream
    kept = await store.write(GUILD).apply(campaign.id, rolled("Wrap-up"), actor="7",
                             battle_id="b1", step="Wrap-up")

    events = await store.read(GUILD).battle_events(campaign.id, "b1")
    by_action = {(e.action_id, e.kind): e for e in events}
    assert by_action[(undone.id, "roll")].undone  # still there, marked
    assert not by_action[(kept.id, "roll")].undone
    assert [e.undone for e in events if e.kind == "undo"] == [False]
    lines = ledger_lines(await store.read(GUILD).recent_events(campaign.id, battle_id="b1"))
    headers = [line for line in lines if line.startswith("**")]
    assert [("↩️ undone" in h, f"#{undone.id} " in h) for h in headers] == [
        (False, False), (False, False), (True, True)]  # newest first: redo, undo, undone
