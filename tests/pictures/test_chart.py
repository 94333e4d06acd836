"""The campaign chart's series, replayed from a real ledger, and the chart drawn from them."""

from __future__ import annotations

from PIL import ImageChops

from bot.pictures import ChartPoint, GangSeries, Measure, campaign_chart, chart_series
from bot.pictures.chart import CHART_HEIGHT, CHART_WIDTH
from bot.storage import Campaign, Storage
from rules.battle_record import record_battle_fought
from rules.models import Battle, EquipmentKind, Gang
from rules.world import RuleResult, Workspace, World
from tests import factories as f
from tests.pictures.helpers import decode
from tests.storage.conftest import ACTOR, GUILD_A, campaign, full_gang

__all__ = ["campaign"]  # a fixture, imported for the tests below


def _reward(world: World, gang_id: str, credits: int, reputation: int) -> RuleResult:
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    gang.credits += credits
    gang.reputation += reputation
    return ws.finish(RuleResult, clause="PB-3", title="Rewards")


def _hire(world: World, gang_id: str, name: str, cost: int) -> RuleResult:
    ws = Workspace(world)
    recruit = f.fighter(name, cost=cost, equipment=[f.item("Lasgun", 15)])
    ws.gang(gang_id).fighters.append(recruit)
    ws.gang(gang_id).credits -= cost + 15
    return ws.finish(RuleResult, clause="PB-6B", title="Hire")


def _stash_van(world: World, gang_id: str) -> RuleResult:
    """A vehicle moves from the roster to the Stash, losing an upgrade on the way."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    van = gang.vehicles.pop(0)
    van.upgrades.clear()
    gang.stash_vehicles.append(van)
    return ws.finish(RuleResult, clause="PB-6A", title="Van to Stash")


def _point(battle: int, gang: Gang) -> ChartPoint:
    return ChartPoint(battle=battle, rating=gang.rating, wealth=gang.wealth,
                      reputation=gang.reputation, credits=gang.credits)


async def _fight(storage: Storage, campaign: Campaign, battle: Battle, steps) -> None:
    await storage.create_battle(GUILD_A, campaign.id, battle)
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, battle.gang_ids)
        await tx.apply(campaign.id, record_battle_fought(world, battle), actor=ACTOR,
                       battle_id=battle.id, step="1")
    for step in steps:
        async with storage.transaction(GUILD_A) as tx:
            world = await tx.load_world(campaign.id, battle.gang_ids)
            await tx.apply(campaign.id, step(world), actor=ACTOR, battle_id=battle.id, step="3")


async def _gang(storage: Storage, campaign: Campaign, gang_id: str) -> Gang:
    return await storage.get_gang(GUILD_A, campaign.id, gang_id)


async def test_series_follow_the_rosters_battle_by_battle(storage: Storage, campaign: Campaign):
    ash = await storage.create_gang(GUILD_A, campaign.id, full_gang("Ash Wolves", "a", id="ash"),
                                    actor=ACTOR)
    web = await storage.create_gang(GUILD_A, campaign.id, full_gang("Венки 鬼", "w", id="web"),
                                    actor=ACTOR)
    expected: dict[str, list[ChartPoint]] = {"ash": [_point(0, ash)], "web": [_point(0, web)]}

    await _fight(storage, campaign, Battle(id="b1", gang_ids=["ash", "web"], winner="ash"), [
        lambda w: _reward(w, "ash", 40, 2),
        lambda w: _hire(w, "ash", "Recruit", 50),
        lambda w: _reward(w, "web", 10, 0),
        lambda w: _stash_van(w, "web"),
    ])
    expected["ash"].append(_point(1, await _gang(storage, campaign, "ash")))
    expected["web"].append(_point(1, await _gang(storage, campaign, "web")))

    # Between battles: an edit outside any battle shows at the next battle's points.
    boss = (await _gang(storage, campaign, "web")).fighters[0]
    boss.equipment.append(f.item("Flak armour", 10, EquipmentKind.ARMOUR))
    await storage.update_fighter(GUILD_A, campaign.id, "web", boss, actor=ACTOR)

    await _fight(storage, campaign, Battle(id="b2", gang_ids=["web", "ash"], winner="web"), [
        lambda w: _hire(w, "web", "Mistake", 60),
    ])
    # Undone within the battle: the undo's own change events put the values back.
    await storage.undo_last_action(GUILD_A, campaign.id, actor=ACTOR, battle_id="b2")
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, ["web"])
        await tx.apply(campaign.id, _reward(world, "web", 25, 1), actor=ACTOR, battle_id="b2")
    expected["ash"].append(_point(2, await _gang(storage, campaign, "ash")))
    expected["web"].append(_point(2, await _gang(storage, campaign, "web")))

    # A gang founded later starts at the battle before its first.
    late = await storage.create_gang(GUILD_A, campaign.id, full_gang("Late Comers", "l", id="late"),
                                     actor=ACTOR)
    expected["late"] = [_point(2, late)]
    await storage.rename_gang(GUILD_A, campaign.id, "ash", "Ash Kings", actor=ACTOR)
    await _fight(storage, campaign, Battle(id="b3", gang_ids=["late", "ash"], winner=None), [
        lambda w: _reward(w, "late", 5, 0),
    ])
    expected["ash"].append(_point(3, await _gang(storage, campaign, "ash")))
    expected["late"].append(_point(3, await _gang(storage, campaign, "late")))

    events = await storage.recent_events(GUILD_A, campaign.id, limit=100_000)
    series = {line.gang_id: line for line in chart_series(events)}
    assert set(series) == {"ash", "web", "late"}
    for gang_id, points in expected.items():
        assert series[gang_id].points == points, gang_id
    assert series["ash"].gang_name == "Ash Kings"
    assert series["web"].values(Measure.CREDITS) == [(p.battle, p.credits)
                                                     for p in expected["web"]]
    # The ledger's order, not the list's: newest-first and oldest-first give the same.
    assert chart_series(list(reversed(events))) == chart_series(events)

    chart = decode(campaign_chart(list(series.values()), Measure.RATING))
    assert chart.size == (CHART_WIDTH, CHART_HEIGHT)
    wealth = decode(campaign_chart(list(series.values()), Measure.WEALTH))
    assert ImageChops.difference(chart.convert("RGB"), wealth.convert("RGB")).getbbox()


async def test_a_campaign_without_battles_has_no_lines(storage: Storage, campaign: Campaign):
    await storage.create_gang(GUILD_A, campaign.id, f.gang("Ash Wolves"), actor=ACTOR)
    events = await storage.recent_events(GUILD_A, campaign.id, limit=100_000)
    assert chart_series(events) == []
    assert decode(campaign_chart([], Measure.RATING)).size == (CHART_WIDTH, CHART_HEIGHT)


def test_the_chart_changes_with_the_values_and_draws_any_name() -> None:
    def line(name: str, last: int) -> GangSeries:
        points = [ChartPoint(battle=b, rating=v, wealth=v, reputation=1, credits=0)
                  for b, v in [(0, 1000), (1, 1100), (2, last)]]
        return GangSeries(gang_id=name, gang_name=name, points=points)

    one = decode(campaign_chart([line("鬼龍団 💀", 1200)], Measure.RATING)).convert("RGB")
    two = decode(campaign_chart([line("鬼龍団 💀", 900)], Measure.RATING)).convert("RGB")
    assert ImageChops.difference(one, two).getbbox() is not None
