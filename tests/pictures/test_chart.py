"""The campaign chart's series, replayed from a real ledger, and the chart drawn from them."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from bot.pictures import ChartPoint, GangSeries, Measure, campaign_chart, canvas, chart_series
from bot.pictures.chart import CHART_HEIGHT, CHART_WIDTH, chart_figure
from bot.storage import Campaign, Storage
from rules.battle_record import record_battle_fought
from rules.errors import InvalidRequest, NotFound
from rules.models import Battle, EquipmentKind, Gang
from rules.world import RuleResult, Workspace, World
from tests import factories as f
from tests.pictures.helpers import decode, reward
from tests.storage.conftest import ACTOR, GUILD_A, campaign, full_gang

__all__ = ["campaign"]  # a fixture; db_path and storage come from tests/conftest.py


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
    await storage.write(GUILD_A).create_battle(campaign.id, battle)
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, battle.gang_ids)
        await tx.apply(campaign.id, record_battle_fought(world, battle), actor=ACTOR,
                       battle_id=battle.id, step="1")
    for step in steps:
        async with storage.transaction(GUILD_A) as tx:
            world = await tx.load_world(campaign.id, battle.gang_ids)
            await tx.apply(campaign.id, step(world), actor=ACTOR, battle_id=battle.id, step="3")


async def _gang(storage: Storage, campaign: Campaign, gang_id: str) -> Gang:
    return await storage.read(GUILD_A).get_gang(campaign.id, gang_id)


async def test_series_follow_the_rosters_battle_by_battle(storage: Storage, campaign: Campaign):
    ash = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Ash Wolves", "a", id="ash"),
                                    actor=ACTOR)
    web = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Венки 鬼", "w", id="web"),
                                    actor=ACTOR)
    expected: dict[str, list[ChartPoint]] = {"ash": [_point(0, ash)], "web": [_point(0, web)]}

    await _fight(storage, campaign, Battle(id="b1", gang_ids=["ash", "web"], winner="ash"), [
        lambda w: reward(w, "ash", 40, 2),
        lambda w: _hire(w, "ash", "Recruit", 50),
        lambda w: reward(w, "web", 10, 0),
        lambda w: _stash_van(w, "web"),
    ])
    expected["ash"].append(_point(1, await _gang(storage, campaign, "ash")))
    expected["web"].append(_point(1, await _gang(storage, campaign, "web")))

    # Between battles: an edit outside any battle shows at the next battle's points.
    boss = (await _gang(storage, campaign, "web")).fighters[0]
    boss.equipment.append(f.item("Flak armour", 10, EquipmentKind.ARMOUR))
    await storage.write(GUILD_A).update_fighter(campaign.id, "web", boss, actor=ACTOR)

    await _fight(storage, campaign, Battle(id="b2", gang_ids=["web", "ash"], winner="web"), [
        lambda w: _hire(w, "web", "Mistake", 60),
    ])
    # Undone within the battle: the undo's own change events put the values back.
    await storage.write(GUILD_A).undo_last_action(campaign.id, actor=ACTOR, battle_id="b2")
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, ["web"])
        await tx.apply(campaign.id, reward(world, "web", 25, 1), actor=ACTOR, battle_id="b2")
    expected["ash"].append(_point(2, await _gang(storage, campaign, "ash")))
    expected["web"].append(_point(2, await _gang(storage, campaign, "web")))

    # A gang founded later starts at the battle before its first.
    late = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Late Comers", "l", id="late"),
                                     actor=ACTOR)
    expected["late"] = [_point(2, late)]
    await storage.write(GUILD_A).rename_gang(campaign.id, "ash", "Ash Kings", actor=ACTOR)
    await _fight(storage, campaign, Battle(id="b3", gang_ids=["late", "ash"], winner=None), [
        lambda w: reward(w, "late", 5, 0),
    ])
    expected["ash"].append(_point(3, await _gang(storage, campaign, "ash")))
    expected["late"].append(_point(3, await _gang(storage, campaign, "late")))

    events = await storage.read(GUILD_A).recent_events(campaign.id, limit=100_000)
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

    # The Wealth chart plots each gang's Wealth at each battle, never another measure.
    assert any(p.wealth != p.rating for points in expected.values() for p in points)
    figure = chart_figure(list(series.values()), Measure.WEALTH)
    axes = figure.axes[0]
    assert axes.get_title(loc="left") == "Wealth over the campaign"
    assert axes.get_ylabel() == "Wealth"
    plotted = axes.get_lines()
    assert [t.get_text() for t in figure.legends[0].get_texts()] == [
        line.gang_name for line in series.values()]
    for drawn, line in zip(plotted, series.values(), strict=True):
        assert list(drawn.get_xdata()) == [p.battle for p in expected[line.gang_id]]
        assert list(drawn.get_ydata()) == [p.wealth for p in expected[line.gang_id]], \
            line.gang_name


async def test_a_campaign_without_battles_has_no_lines(storage: Storage, campaign: Campaign):
    await storage.write(GUILD_A).create_gang(campaign.id, f.gang("Ash Wolves"), actor=ACTOR)
    events = await storage.read(GUILD_A).recent_events(campaign.id, limit=100_000)
    assert chart_series(events) == []
    assert decode(campaign_chart([], Measure.RATING)).size == (CHART_WIDTH, CHART_HEIGHT)


def test_the_chart_is_drawn_in_the_cards_own_paper_ink_and_muted_colours() -> None:
    # The empty chart shows each at full strength: its paper, its labels, "No battles fought yet".
    drawn = {colour for _, colour in
             decode(campaign_chart([], Measure.RATING)).convert("RGB").getcolors(1 << 20)}
    assert {canvas.PAPER, canvas.INK, canvas.MUTED} <= drawn


def test_the_chart_changes_with_the_values_and_draws_any_name() -> None:
    def line(name: str, last: int) -> GangSeries:
        points = [ChartPoint(battle=b, rating=v, wealth=v, reputation=1, credits=0)
                  for b, v in [(0, 1000), (1, 1100), (2, last)]]
        return GangSeries(gang_id=name, gang_name=name, points=points)

    one = decode(campaign_chart([line("鬼龍団 💀", 1200)], Measure.RATING)).convert("RGB")
    two = decode(campaign_chart([line("鬼龍団 💀", 900)], Measure.RATING)).convert("RGB")
    assert ImageChops.difference(one, two).getbbox() is not None


def test_names_are_text_never_maths_and_every_name_is_in_the_legend() -> None:
    points = [ChartPoint(battle=b, rating=1000 + b, wealth=1, reputation=1, credits=0)
              for b in (0, 1)]
    for name in ("$\\frac{$", "$\\nosuchsymbol$", "$$"):
        # matplotlib would read these as maths and fail on them.
        line = GangSeries(gang_id="g", gang_name=name, points=points)
        assert decode(campaign_chart([line], Measure.RATING, title=f"{name}: Gang Rating"))
    # A label starting with "_" is one matplotlib leaves out of a legend by default.
    shown = GangSeries(gang_id="g", gang_name="Underhive Rats", points=points)
    hidden = shown.model_copy(update={"gang_name": "_Underhive Rats"})
    with_plain = decode(campaign_chart([shown], Measure.RATING)).convert("RGB")
    with_underscore = decode(campaign_chart([hidden], Measure.RATING)).convert("RGB")
    legend = ImageChops.difference(with_plain, with_underscore).getbbox()
    assert legend is not None
    # Only the legend under the axes differs: the underscore is drawn, not the line left out.
    assert legend[1] > CHART_HEIGHT * 3 // 4


def test_a_scaled_chart_is_the_same_chart_smaller() -> None:
    line = GangSeries(gang_id="g", gang_name="Ash Wolves", points=[
        ChartPoint(battle=b, rating=1000 + 50 * b, wealth=1, reputation=1, credits=0)
        for b in (0, 1, 2)])
    small = decode(campaign_chart([line], Measure.RATING, scale=0.5))
    assert small.size == (CHART_WIDTH // 2, CHART_HEIGHT // 2)


async def test_roster_changes_are_what_the_chart_replays(storage: Storage, campaign: Campaign):
    ash = await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Ash Wolves", "a", id="ash"),
                                    actor=ACTOR)
    await storage.write(GUILD_A).create_gang(
        campaign.id, full_gang("Web", "w", id="web"), actor=ACTOR)
    territory = await storage.write(GUILD_A).add_territory(campaign.id, f.territory("Old Ruins"),
                                            actor=ACTOR)
    await storage.write(GUILD_A).assign_territory(campaign.id, territory.id, "ash", actor=ACTOR)
    await _fight(storage, campaign, Battle(id="b1", gang_ids=["ash", "web"], winner="ash"), [
        lambda w: reward(w, "ash", 40, 2), lambda w: _hire(w, "web", "Recruit", 50),
    ])
    async with storage.transaction(GUILD_A) as tx:
        await tx.add_note(campaign.id, "A note, not a change", actor=ACTOR)

    changes = await storage.read(GUILD_A).roster_changes(campaign.id)
    everything = await storage.read(GUILD_A).recent_events(campaign.id, limit=100_000)
    assert [e.id for e in changes] == sorted(e.id for e in changes)
    assert {e.kind for e in changes} == {"change"}
    assert {e.subject for e in changes} <= {"gang", "fighter", "vehicle"}
    assert len(changes) < len([e for e in everything if e.kind == "change"])
    assert chart_series(changes) == chart_series(everything)
    assert chart_series(changes)[0].points[-1] == _point(1, await _gang(storage, campaign,
                                                                        ash.id))

    # Bounded: a ledger longer than the limit is refused, not cut (a cut replay would lie).
    with pytest.raises(InvalidRequest, match="too many to replay"):
        await storage.read(GUILD_A).roster_changes(campaign.id, limit=len(changes) - 1)
    assert len(await storage.read(GUILD_A).roster_changes(campaign.id, limit=len(changes))) == len(
        changes)


async def test_the_changes_a_chart_replays_are_read_in_one_statement(
    storage: Storage, campaign: Campaign, pg_trips: list[str]
) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Ash Wolves", "a", id="ash"),
                                             actor=ACTOR)
    for _ in range(2):  # the second time, as the first: no read needs a snapshot
        pg_trips.clear()
        changes = await storage.read(GUILD_A).roster_changes(campaign.id)
        assert len(pg_trips) == (1 if storage.driver == "postgresql" else 0), pg_trips
    assert changes and [e.id for e in changes] == sorted(e.id for e in changes)
    async with storage.transaction(GUILD_A) as tx:  # the campaign's key found first
        assert await tx.roster_changes(campaign.id) == changes
    with pytest.raises(NotFound, match="no campaign with id gone"):
        await storage.read(GUILD_A).roster_changes("gone")
