"""The battle report's pictures, drawn when the outbox sends the report.

The report is owed in the transaction that ends the battle, and an outbox row
stores JSON only. So the row's link records *what* to attach, a
:class:`ReportRecipe` (``link["pictures"]``): the campaign, the battle, and
the figures the battle card shows, as the report's embed shows them. The
outbox asks :func:`report_files` for the files at each attempt: the card is
drawn from the recipe, the chart from the campaign's ledger cut after the
battle's last change, both on the picture worker's thread and cached there.
So a retry (or a restart, or a redirect to the fallback channel) sends the
same pictures, and the row's nonce keeps the message single whatever was
attached. A picture that cannot be drawn is left out and logged; the report
goes without it (bot/outbox.py).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from bot.importing.uploads import file_stem
from bot.outbox import OutgoingFile
from bot.pictures import Measure, PictureWorker, casualties_of, chart_series
from bot.storage import LedgerEvent, OutboxEntry, Storage, Transaction
from rules.models import Battle, Gang
from rules.report import BattleReport
from rules.world import World

log = logging.getLogger(__name__)

# The chart a battle report carries: half the size of /campaign chart's, laid out the same.
REPORT_CHART_SCALE = 0.5
# What of a BattleReport the card shows (the world it was computed in stays out of the row).
_CARD_FIELDS = frozenset({"clause", "title", "battle_id", "scenario", "winner_id",
                          "winner_name", "territory_id", "territory_name", "gangs"})


class ReportRecipe(BaseModel):
    """What a battle report's outbox row attaches: enough to draw the same pictures at
    any attempt, and small (a few hundred bytes per gang)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    campaign: str
    battle: str
    report: dict[str, Any]
    casualties: dict[str, list[str]]

    @classmethod
    def of(cls, campaign_id: str, battle: Battle, report: BattleReport,
           gangs: Mapping[str, Gang]) -> ReportRecipe:
        """The recipe of ``report``; ``gangs`` (id -> gang) name the casualties."""
        return cls(campaign=campaign_id, battle=battle.id,
                   report=report.model_dump(mode="json", include=set(_CARD_FIELDS)),
                   casualties=casualties_of(battle, gangs))

    def battle_report(self) -> BattleReport:
        return BattleReport.model_validate({**self.report, "world": World()})



class StandingsRecipe(BaseModel):
    """What a cycle's standings post attaches: the campaign's Gang Rating chart so far."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    KIND: ClassVar[str] = "standings"

    kind: Literal["standings"] = "standings"
    campaign: str
    # The file's name stem (the campaign's name and the cycle).
    stem: str

    def link(self) -> dict[str, Any]:
        """The outbox link of the post that carries it."""
        return {"pictures": self.model_dump(mode="json")}


async def _standings_files(storage: Storage, worker: PictureWorker, entry: OutboxEntry,
                           recipe: StandingsRecipe) -> list[OutgoingFile]:
    """The chart of every gang's Gang Rating over the campaign; none (logged) when it
    cannot be drawn: the standings go as text."""
    try:
        changes = await roster_changes(storage, entry.guild_id, recipe.campaign)
        series = await worker.run(chart_series, changes, guild=entry.guild_id)
        png = await worker.campaign_chart(series, Measure.RATING, guild=entry.guild_id)
    except Exception:
        log.exception("the chart of %s could not be drawn; the standings go without it",
                      entry.key)
        return []
    return [OutgoingFile(f"{file_stem(recipe.stem, 'standings')}.png", png)]


async def roster_changes(storage: Storage, guild_id: int, campaign_id: str) -> list[LedgerEvent]:
    """What a chart replays, read in the background: one statement, one round trip."""
    async def read(tx: Transaction) -> list[LedgerEvent]:
        return await tx.roster_changes(campaign_id)

    return await storage.read_whole(guild_id, read, background=True)


def report_file_names(battle_id: str) -> tuple[str, str]:
    """The card's and the chart's file names: ``battle-<id>.png``, ``battle-<id>-chart.png``."""
    stem = f"battle-{file_stem(battle_id, 'report')}"
    return f"{stem}.png", f"{stem}-chart.png"


def through_battle(changes: Sequence[LedgerEvent], battle_id: str) -> list[LedgerEvent]:
    """The changes up to the battle's last one: the campaign as this battle left it, so a
    report sent late (Discord down for an hour) does not chart what came after."""
    last = max((event.id for event in changes if event.battle_id == battle_id), default=None)
    if last is None:
        return list(changes)
    return [event for event in changes if event.id <= last]


async def draw_card(worker: PictureWorker, recipe: ReportRecipe,
                    guild: int | None = None) -> bytes:
    return await worker.battle_card(recipe.battle_report(), recipe.casualties, guild=guild)


async def draw_chart(worker: PictureWorker, recipe: ReportRecipe,
                     changes: Sequence[LedgerEvent], guild: int | None = None) -> bytes:
    """Every gang's Gang Rating over the campaign up to this battle, at half size."""
    series = await worker.run(chart_series, through_battle(changes, recipe.battle),
                              guild=guild)
    return await worker.campaign_chart(series, Measure.RATING, scale=REPORT_CHART_SCALE,
                                       guild=guild)


async def report_files(storage: Storage, worker: PictureWorker,
                       entry: OutboxEntry) -> list[OutgoingFile]:
    """The files of a battle report's row (the outbox's attachment maker): the card and
    the small chart, each left out (and logged) when it cannot be drawn."""
    async with worker.report_turns:
        return await _report_files(storage, worker, entry)


async def _report_files(storage: Storage, worker: PictureWorker,
                        entry: OutboxEntry) -> list[OutgoingFile]:
    pictures = (entry.link or {})["pictures"]
    if isinstance(pictures, dict) and pictures.get("kind") == StandingsRecipe.KIND:
        return await _standings_files(storage, worker, entry,
                                      StandingsRecipe.model_validate(pictures))
    recipe = ReportRecipe.model_validate(pictures)
    card_name, chart_name = report_file_names(recipe.battle)
    files: list[OutgoingFile] = []
    try:
        files.append(OutgoingFile(card_name, await draw_card(worker, recipe, entry.guild_id)))
    except Exception:
        log.exception("the battle card of %s could not be drawn; the report goes without it",
                      entry.key)
    try:
        changes = await roster_changes(storage, entry.guild_id, recipe.campaign)
        files.append(OutgoingFile(chart_name, await draw_chart(worker, recipe, changes,
                                                               entry.guild_id)))
    except Exception:
        log.exception("the chart of %s could not be drawn; the report goes without it",
                      entry.key)
    return files
