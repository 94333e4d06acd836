"""The campaign's calendar: stored whole, guarded by its revision, rewound by an undo."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.storage import Campaign, Storage
from bot.storage.errors import StaleSequence
from rules.campaign_types import find_type
from rules.challenge_order import Entrant
from rules.challenges import answer, declined_claim, make_challenge
from rules.cycles import new_calendar, open_next
from rules.data import default_ruleset
from rules.dice import ScriptedRoller
from rules.errors import NotFound
from rules.models import CampaignSettings
from rules.world import RuleResult, World
from tests import factories as f
from tests.storage.conftest import ACTOR, GUILD_A, GUILD_B

NOW = datetime(2026, 1, 5, 19, 0, tzinfo=UTC)


async def test_a_calendar_round_trips_and_an_undo_rewinds_it(
    storage: Storage, campaign: Campaign
) -> None:
    calendar = new_calendar(find_type(default_ruleset().campaign_types, "Dominion"), 42)
    assert await storage.read(GUILD_A).get_calendar(campaign.id) is None
    async with storage.transaction(GUILD_A) as tx:
        await tx.save_calendar(campaign.id, calendar, revision=0)
    opened, _, drawn = open_next(calendar, [Entrant("a", "Ash", 5), Entrant("b", "Bo", 5)],
                                 NOW, ScriptedRoller([6, 1]))
    async with storage.transaction(GUILD_A) as tx:
        await tx.apply(campaign.id, RuleResult(clause="CAMPAIGN-CYCLE", title="Cycle 1 begins",
                                               rolls=drawn.rolls, world=World()), actor=ACTOR)
        await tx.save_calendar(campaign.id, opened, revision=1)
    found = await storage.read(GUILD_A).get_calendar(campaign.id)
    assert found is not None and found[0] == opened and found[0].cycles[0].starts_at == NOW
    with pytest.raises(StaleSequence):
        async with storage.transaction(GUILD_A) as tx:
            await tx.save_calendar(campaign.id, calendar, revision=1)
    async with storage.transaction(GUILD_A) as tx:
        undone = await tx.undo_last_action(campaign.id, actor=ACTOR)
    assert undone.title == "Cycle 1 begins"
    back = await storage.read(GUILD_A).get_calendar(campaign.id)
    assert back is not None and back[0] == calendar


async def test_another_server_never_reaches_the_calendar(
    storage: Storage, campaign: Campaign
) -> None:
    calendar = new_calendar(find_type(default_ruleset().campaign_types, "Dominion"), 42)
    async with storage.transaction(GUILD_A) as tx:
        await tx.save_calendar(campaign.id, calendar, revision=0)
    with pytest.raises(NotFound):
        await storage.read(GUILD_B).get_calendar(campaign.id)
    other = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Spire"))
    assert await storage.read(GUILD_B).get_calendar(other.id) is None


async def test_undoing_a_decline_gives_the_territory_back_with_the_calendar(
    storage: Storage, campaign: Campaign
) -> None:
    ash = await storage.write(GUILD_A).create_gang(
        campaign.id, f.gang("Ash", id="a", fighters=[f.fighter("Ash Boss")]), actor=ACTOR)
    bone = await storage.write(GUILD_A).create_gang(
        campaign.id, f.gang("Bone", id="b", fighters=[f.fighter("Bone Boss")]), actor=ACTOR)
    ruins = await storage.write(GUILD_A).add_territory(campaign.id, f.territory("Ruins"),
                                                       actor=ACTOR)
    dominion = find_type(default_ruleset().campaign_types, "Dominion")
    names = {"a": "Ash", "b": "Bone"}
    calendar, _, _ = open_next(new_calendar(dominion, 42), [Entrant("a", "Ash", 1),
                               Entrant("b", "Bone", 2)], NOW, ScriptedRoller([6, 1]))
    calendar, made = make_challenge(calendar, ash, bone, ruins, [ruins], names, NOW)
    async with storage.transaction(GUILD_A) as tx:
        await tx.save_calendar(campaign.id, calendar, revision=0)
    declined, answered = answer(calendar, made.number, False, NOW, 0)
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, ["a", "b"])
        await tx.apply(campaign.id, declined_claim(world, answered), actor=ACTOR)
        await tx.save_calendar(campaign.id, declined, revision=1)
    held = await storage.read(GUILD_A).list_territories(campaign.id)
    assert [t.controller for t in held] == ["a"]
    async with storage.transaction(GUILD_A) as tx:
        await tx.undo_last_action(campaign.id, actor=ACTOR)
    held = await storage.read(GUILD_A).list_territories(campaign.id)
    assert [t.controller for t in held] == [None]
    back = await storage.read(GUILD_A).get_calendar(campaign.id)
    assert back is not None and back[0] == calendar
