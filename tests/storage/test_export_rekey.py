"""An imported campaign is untrusted input: fresh ids, no authority from Discord ids,
post-battle runs as history only, no dice seeds in exports, ledger rows marked imported."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.battle.state import GangReport, Phase, PostBattleRun, StageRecord
from bot.importing.history import as_history
from bot.storage import Campaign, CampaignDocument, Storage, new_id
from bot.storage.exporting import ImportGrant, PreparedImport, prepare_import
from rules.errors import InvalidRequest
from rules.models import Battle, CampaignSettings, Gang
from rules.sequence import PostBattleSequence, Step
from tests import factories as f

from .conftest import ACTOR, GUILD_A, GUILD_B, full_gang, post_battle_step

CHANNEL, THREAD, MESSAGE, ROLE, OTHER_USER = 5001, 5002, 5003, 5004, 444444444444444444


async def campaign_with_a_live_run(storage: Storage) -> tuple[Campaign, PostBattleRun]:
    """Two gangs (one holds the other's fighter captive), a Territory, a battle with its
    ledger, and that battle's post-battle run in progress in a thread."""
    campaign = await storage.write(GUILD_A).create_campaign(
        CampaignSettings(name="Export Me"),
        arbitrator_user_ids=[OTHER_USER], arbitrator_role_id=ROLE, report_channel_id=CHANNEL,
    )
    wolves = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(owner=ACTOR),
                                       actor=ACTOR)
    kin = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Iron Kin", "b", owner=str(OTHER_USER)), actor=ACTOR
    )
    captive = kin.fighter("b-ganger")
    captive.capture(wolves.id)
    await storage.write(GUILD_A).update_fighter(campaign.id, kin.id, captive, actor=ACTOR)
    await storage.write(GUILD_A).add_territory(
        campaign.id, f.territory("Sump", id="t-sump", controller=wolves.id),
        actor=ACTOR,
    )
    battle = await storage.write(GUILD_A).create_battle(campaign.id, Battle(
        id="b-1", gang_ids=[wolves.id, kin.id], winner=wolves.id, staked_territory="t-sump",
        enemies_out_of_action={wolves.id: 2},
    ))
    world = await storage.read(GUILD_A).load_world(campaign.id, [wolves.id, kin.id])
    result = post_battle_step(world, wolves.id, "a-ganger", faces=[6, 5])
    await storage.write(GUILD_A).apply(campaign.id, result, actor=ACTOR, battle_id=battle.id)
    sequence = PostBattleSequence.start("seq1", battle, world)
    run = PostBattleRun(
        campaign_id=campaign.id, battle_id=battle.id, sequence=sequence, started_by=OTHER_USER,
        channel_id=CHANNEL, thread_id=THREAD, phase=Phase.SEQUENCE,
        reports={g: GangReport(gang_id=g, message_id=MESSAGE, submitted=True)
                 for g in battle.gang_ids},
        stages=[StageRecord(number=1, step=Step.WRAP_UP, message_ids=[MESSAGE],
                            opened_with=sequence)],
        in_recovery_before=["a-ganger"],
    )
    await storage.write(GUILD_A).save_sequence(campaign.id, run.key, run, battle_id=battle.id)
    return campaign, run


def strings_in(value: Any) -> set[str]:
    """Every string and key of a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    if isinstance(value, dict):
        found = set(value)
        for item in value.values():
            found |= strings_in(item)
        return found
    return set()


def ids_of(document: CampaignDocument) -> set[str]:
    """The ids of everything a document holds (and of the campaign)."""
    ids = {document.campaign.id}
    for gang in document.gangs:
        ids.add(gang.id)
        for fighter in gang.fighters:
            ids |= {fighter.id, *(i.id for i in fighter.equipment)}
        for vehicle in (*gang.vehicles, *gang.stash_vehicles):
            ids |= {vehicle.id, *(i.id for i in (*vehicle.upgrades, *vehicle.equipment))}
        ids |= {i.id for i in gang.stash}
    ids |= {t.id for t in document.territories} | {b.id for b in document.battles}
    ids |= {str(s.state["sequence"]["id"]) for s in document.sequences}
    return ids


async def import_here(storage: Storage, document: CampaignDocument, *, name: str = "Copy",
                      grant: ImportGrant | None = None, guild: int = GUILD_A) -> Campaign:
    prepared = prepare_import(document, history=as_history)
    return await storage.write(guild).import_campaign(prepared, actor="99", name=name, grant=grant)


def by_name(gangs: list[Gang]) -> dict[str, Gang]:
    return {g.name: g for g in gangs}


async def test_every_id_is_fresh_and_every_reference_points_at_its_new_id(
    storage: Storage,
) -> None:
    original, _run = await campaign_with_a_live_run(storage)
    before = await storage.read(GUILD_A).export_campaign(original.id)
    copy = await import_here(storage, before)
    after = await storage.read(GUILD_A).export_campaign(copy.id)

    old_ids = ids_of(before)
    assert len(old_ids) == 26
    new_ids = ids_of(after)
    # No id of the file survives anywhere in the copy, not even inside the run's state,
    # a change's path or the before/after of a ledger change.
    assert not old_ids & strings_in(after.model_dump(mode="json", exclude={"ledger"}))
    for event in after.ledger:
        assert not old_ids & strings_in(event.model_dump(mode="json", exclude={"text"}))
    assert len(new_ids) == len(old_ids)

    gangs = by_name(after.gangs)
    wolves, kin = gangs["Ash Wolves"], gangs["Iron Kin"]
    assert kin.fighter(next(f.id for f in kin.fighters if f.name == "b Ganger")).captured_by \
        == wolves.id
    van = wolves.vehicles[0]
    assert van.crew_id == next(f.id for f in wolves.fighters if f.name == "a Ganger")
    [sump] = after.territories
    assert sump.controller == wolves.id
    [battle] = after.battles
    assert battle.gang_ids == [wolves.id, kin.id] and battle.winner == wolves.id
    assert battle.staked_territory == sump.id
    assert battle.enemies_out_of_action == {wolves.id: 2}
    # The Boon's item names the run's sequence by its new id, as the run does.
    [sequence] = after.sequences
    assert sequence.key == f"postbattle:{battle.id}" and sequence.battle_id == battle.id
    run = PostBattleRun.model_validate({**sequence.state, "seeds": [1] * 12})
    assert run.campaign_id == copy.id and run.battle_id == battle.id
    assert run.sequence.gang_ids == [wolves.id, kin.id]
    assert set(run.reports) == {wolves.id, kin.id}
    assert run.in_recovery_before == [next(f.id for f in wolves.fighters if f.name == "a Ganger")]
    assert wolves.stash[0].boon_of_sequence == run.sequence.id
    assert run.sequence.id not in old_ids
    # Ledger changes name the new ids of what they changed.
    names = {f.name: f.id for g in after.gangs for f in g.fighters} | {
        g.name: g.id for g in after.gangs} | {sump.name: sump.id}
    for event in after.ledger:
        if event.kind == "change" and event.subject_name in names:
            assert event.subject_id == names[event.subject_name], event
        if event.battle_id is not None:
            assert event.battle_id == battle.id

    # The original is exactly as it was.
    again = await storage.read(GUILD_A).export_campaign(original.id)
    assert again.model_dump(exclude={"exported_at"}) == before.model_dump(exclude={"exported_at"})


async def test_a_run_in_progress_comes_as_cancelled_history_without_discord_ids(
    storage: Storage,
) -> None:
    original, live = await campaign_with_a_live_run(storage)
    copy = await import_here(storage, await storage.read(GUILD_A).export_campaign(original.id))
    [record] = await storage.read(GUILD_A).list_sequences(copy.id)
    run = await storage.read(GUILD_A).load_sequence(copy.id, record.key, PostBattleRun)
    assert run is not None
    assert run.phase is Phase.CANCELLED and not run.in_progress
    assert (run.channel_id, run.thread_id, run.report_channel_id) == (0, None, None)
    assert all(r.message_id is None for r in run.reports.values())
    assert all(s.message_ids == [] for s in run.stages)
    assert set(run.seeds).isdisjoint(live.seeds)
    # The original run is still live, untouched.
    kept = await storage.read(GUILD_A).load_sequence(original.id, live.key, PostBattleRun)
    assert kept == live


async def test_the_dice_seeds_are_never_exported(storage: Storage) -> None:
    original, live = await campaign_with_a_live_run(storage)
    document = await storage.read(GUILD_A).export_campaign(original.id)
    [sequence] = document.sequences
    assert "seeds" not in sequence.state
    text = document.model_dump_json()
    assert not [seed for seed in live.seeds if str(seed) in text]


async def test_only_what_the_grant_vouches_for_is_kept(storage: Storage) -> None:
    original, _run = await campaign_with_a_live_run(storage)
    document = await storage.read(GUILD_A).export_campaign(original.id)

    nothing = await storage.write(GUILD_B).import_campaign(document, actor="99")
    assert nothing.arbitrator_user_ids == [99]
    assert (nothing.arbitrator_role_id, nothing.report_channel_id) == (None, None)
    assert {g.owner for g in await storage.read(GUILD_B).list_gangs(nothing.id)} == {"99"}
    # Without a history function no sequence comes along at all.
    assert await storage.read(GUILD_B).list_sequences(nothing.id) == []

    grant = ImportGrant(owner="99", arbitrator_user_ids=(99,), arbitrator_role_id=ROLE,
                        report_channel_id=CHANNEL, owners=frozenset({ACTOR}))
    vouched = await import_here(storage, document, grant=grant)
    assert vouched.arbitrator_user_ids == [99]
    assert (vouched.arbitrator_role_id, vouched.report_channel_id) == (ROLE, CHANNEL)
    owners = {g.name: g.owner for g in await storage.read(GUILD_A).list_gangs(vouched.id)}
    assert owners == {"Ash Wolves": ACTOR, "Iron Kin": "99"}


async def test_imported_ledger_rows_are_marked_with_their_source_whatever_the_file_says(
    storage: Storage,
) -> None:
    original, _run = await campaign_with_a_live_run(storage)
    data = (await storage.read(GUILD_A).export_campaign(original.id)).model_dump(mode="json")
    # A forged row: a roll "made" by a real user, claiming to be from here.
    data["ledger"].append({
        "id": 1, "kind": "roll", "at": "2030-01-01T00:00:00Z", "actor": str(OTHER_USER),
        "clause": "PB-1", "expression": "2D6", "faces": [6, 6], "total": 12,
        "purpose": "forged", "imported_from": None,
    })
    copy = await storage.write(GUILD_B).import_campaign(data, actor="99", name="Copy")
    events = await storage.read(GUILD_B).recent_events(copy.id, limit=1000)
    note, *history = events
    assert not note.imported and "Imported campaign 'Export Me'" in str(note.text)
    assert history and all(e.imported_from == "Export Me" for e in history)
    assert all(e.imported_at is not None and e.action_id is None for e in history)
    forged = next(e for e in history if e.purpose == "forged")
    assert forged.imported and forged.actor == str(OTHER_USER)
    # What is done here afterwards is not imported.
    gang = (await storage.read(GUILD_B).list_gangs(copy.id))[0]
    await storage.write(GUILD_B).update_gang(copy.id, gang.model_copy(update={"credits": 1}),
                              actor="99")
    newest = (await storage.read(GUILD_B).recent_events(copy.id, limit=1))[0]
    assert not newest.imported and newest.imported_at is None


@pytest.mark.parametrize("damage", ["gang ids", "fighter ids", "gang names", "battle ids"])
async def test_a_file_that_repeats_an_id_or_a_name_is_refused(damage: str) -> None:
    one, two = full_gang(), full_gang("Iron Kin", "b")
    battles = [Battle(id="b1", gang_ids=[one.id, two.id])]
    if damage == "gang ids":
        two = two.model_copy(update={"id": one.id})
    elif damage == "fighter ids":
        two.fighters[0].id = one.fighters[0].id
    elif damage == "gang names":
        two = two.model_copy(update={"name": " ASH  wolves"})
    else:
        battles.append(battles[0])
    document = CampaignDocument.model_validate({
        "exported_at": "2030-01-01T00:00:00Z", "guild_id": 1,
        "campaign": {"id": new_id(), "settings": {"name": "Dupes"},
                     "created_at": "2030-01-01T00:00:00Z"},
        "gangs": [one.model_dump(), two.model_dump()],
        "battles": [b.model_dump() for b in battles],
    })
    with pytest.raises(InvalidRequest, match=f"its {damage} repeat"):
        prepare_import(document)


def test_a_prepared_import_can_be_made_in_a_thread_and_is_plain_data() -> None:
    document = CampaignDocument.model_validate({
        "exported_at": "2030-01-01T00:00:00Z", "guild_id": 1,
        "campaign": {"id": "c", "settings": {"name": "Plain"},
                     "created_at": "2030-01-01T00:00:00Z"},
        "gangs": [full_gang().model_dump()],
    })
    prepared = prepare_import(json.loads(document.model_dump_json()))
    assert isinstance(prepared, PreparedImport) and prepared.source_name == "Plain"
    assert prepared.document.campaign.id != "c"
    assert prepared.document.gangs[0].id != full_gang().id
