"""What the battle report can carry: the battle card and a small Gang Rating chart, read
from a real campaign in the report's own transaction."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PIL import ImageChops

from bot.pictures import Measure, PictureWorker, battle_card, campaign_chart, casualties_of
from bot.pictures.battle import CARD_WIDTH
from bot.pictures.chart import CHART_HEIGHT, CHART_WIDTH
from bot.pictures.worker import REPORTS_AT_ONCE
from bot.storage import Campaign, Storage
from bot.ui.pictures import battle_report_pictures
from bot.ui.report_pictures import ReportRecipe, report_files
from rules.battle_record import record_battle_fought
from rules.models import Battle, FighterEndState
from rules.report import BattleReport, battle_report
from tests.pictures.helpers import decode
from tests.storage.conftest import ACTOR, GUILD_A, campaign, full_gang

__all__ = ["campaign"]  # a fixture


@pytest.fixture
async def worker() -> AsyncIterator[PictureWorker]:
    pictures = PictureWorker()
    yield pictures
    pictures.close()


async def test_the_report_gets_its_card_and_a_small_chart_with_the_battle_in_it(
    storage: Storage, campaign: Campaign, worker: PictureWorker
) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Ash Wolves", "a", id="ash"),
                              actor=ACTOR)
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang("Венки 鬼", "w", id="web"),
                              actor=ACTOR)
    battle = await storage.write(GUILD_A).create_battle(campaign.id, Battle(
        id="b1", gang_ids=["ash", "web"], scenario="Sneak Attack", winner="ash",
        enemies_out_of_action={"ash": 1},
        fighters=[FighterEndState(gang_id="web", fighter_id="w-boss", out_of_action=True)],
    ))
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, battle.gang_ids)
        await tx.apply(campaign.id, record_battle_fought(world, battle), actor=ACTOR,
                       battle_id=battle.id, step="1")
        world = await tx.load_world(campaign.id, battle.gang_ids)
        report = battle_report(world, battle)
        drawn = await battle_report_pictures(tx, worker, campaign.id, battle, report)

    card = decode(drawn.card)
    assert card.width == CARD_WIDTH
    # The casualties are named from the stored gangs when the caller gives none.
    named = battle_card(report, casualties_of(battle, world.gangs))
    assert drawn.card == named
    assert casualties_of(battle, world.gangs)["web"] == ["w Boss (Out of Action)"]

    chart = decode(drawn.chart)
    assert chart.size == (CHART_WIDTH // 2, CHART_HEIGHT // 2)
    nothing = decode(campaign_chart([], Measure.RATING, scale=0.5))
    assert ImageChops.difference(chart.convert("RGB"), nothing.convert("RGB")).getbbox()

    files = drawn.files(battle.id)
    assert [f.filename for f in files] == ["battle-b1.png", "battle-b1-chart.png"]


async def _fought(storage: Storage, campaign: Campaign, battle: Battle) -> BattleReport:
    """``battle`` stored and its Wrap-up applied; its report as the run makes it."""
    await storage.write(GUILD_A).create_battle(campaign.id, battle)
    async with storage.transaction(GUILD_A) as tx:
        world = await tx.load_world(campaign.id, battle.gang_ids)
        await tx.apply(campaign.id, record_battle_fought(world, battle), actor=ACTOR,
                       battle_id=battle.id, step="1")
        return battle_report(await tx.load_world(campaign.id, battle.gang_ids), battle)


async def test_the_outbox_draws_the_reports_pictures_from_its_rows_recipe(
    storage: Storage, campaign: Campaign, worker: PictureWorker,
    caplog: pytest.LogCaptureFixture,
) -> None:
    for name, prefix, gang_id in (("Ash Wolves", "a", "ash"), ("Web", "w", "web")):
        await storage.write(GUILD_A).create_gang(campaign.id, full_gang(name, prefix, id=gang_id),
                                  actor=ACTOR)
    battle = Battle(id="b1", gang_ids=["ash", "web"], scenario="Sneak Attack", winner="ash",
                    fighters=[FighterEndState(gang_id="web", fighter_id="w-boss",
                                              out_of_action=True)])
    report = await _fought(storage, campaign, battle)
    gangs = {g.id: g for g in await storage.read(GUILD_A).list_gangs(campaign.id)}
    recipe = ReportRecipe.of(campaign.id, battle, report, gangs)
    link = {"kind": "pb", "campaign": campaign.id, "pictures": recipe.model_dump(mode="json")}
    entry = await storage.write(GUILD_A).owe_message("report", 10, {"content": "report"}, link=link)
    assert len(json.dumps(entry.link)) < 2000  # what to draw, not the drawing

    card, chart = await report_files(storage, worker, entry)
    assert (card.filename, chart.filename) == ("battle-b1.png", "battle-b1-chart.png")
    assert card.data == battle_card(report, {"ash": [], "web": ["w Boss (Out of Action)"]})
    assert decode(chart.data).size == (CHART_WIDTH // 2, CHART_HEIGHT // 2)

    # A later battle is not in this report's chart: drawn again, the same pictures.
    await _fought(storage, campaign, Battle(id="b2", gang_ids=["ash", "web"], winner="web"))
    assert [f.data for f in await report_files(storage, worker, entry)] == [card.data,
                                                                           chart.data]

    # The chart cannot be read (the campaign is gone): the card still goes, the rest logged.
    gone = entry.model_copy(update={"link": {**link, "pictures": {
        **link["pictures"], "campaign": "no-such-campaign"}}})
    with caplog.at_level(logging.ERROR, logger="bot.ui.report_pictures"):
        assert [f.filename for f in await report_files(storage, worker, gone)] == [
            "battle-b1.png"]
    assert "the chart of report could not be drawn" in caplog.text


class _Watched(PictureWorker):
    """A real worker that notes how many battle cards are asked for at the same time."""

    def __init__(self) -> None:
        super().__init__()
        self.asking = 0
        self.most = 0

    async def battle_card(self, *args: Any, **kwargs: Any) -> bytes:
        self.asking += 1
        self.most = max(self.most, self.asking)
        try:
            return await super().battle_card(*args, **kwargs)
        finally:
            self.asking -= 1


async def test_reports_ending_together_are_prepared_a_few_at_a_time(
    storage: Storage, campaign: Campaign
) -> None:
    # The child draws one picture at a time; reports waiting their turn would hold
    # their campaign's ledger and pictures in memory meanwhile.
    for name, prefix, gang_id in (("Ash Wolves", "a", "ash"), ("Web", "w", "web")):
        await storage.write(GUILD_A).create_gang(campaign.id, full_gang(name, prefix, id=gang_id),
                                  actor=ACTOR)
    battle = Battle(id="b1", gang_ids=["ash", "web"], winner="ash")
    report = await _fought(storage, campaign, battle)
    gangs = {g.id: g for g in await storage.read(GUILD_A).list_gangs(campaign.id)}
    recipe = ReportRecipe.of(campaign.id, battle, report, gangs)
    link = {"kind": "pb", "campaign": campaign.id, "pictures": recipe.model_dump(mode="json")}
    entries = [await storage.write(GUILD_A).owe_message(f"report-{n}", 10, {"content": "report"},
                                         link=link) for n in range(6)]
    worker = _Watched()
    try:
        drawn = await asyncio.gather(*(report_files(storage, worker, e) for e in entries))
    finally:
        worker.close()
    assert all(len(files) == 2 for files in drawn)
    assert worker.most == REPORTS_AT_ONCE
