"""Pictures: roster cards, campaign charts and battle cards, drawn as PNG bytes.

Pure drawing (no Discord, no database): models in, bytes out, plus a worker
that draws off the event loop and caches by revision. See docs/pictures.md.
"""

from bot.pictures.battle import battle_card, casualties_of
from bot.pictures.chart import campaign_chart
from bot.pictures.roster import roster_card
from bot.pictures.series import ChartPoint, GangSeries, Measure, chart_series
from bot.pictures.worker import PictureWorker, revision_key, roster_revision
from rules.models import WeaponProfile

__all__ = [
    "ChartPoint",
    "GangSeries",
    "Measure",
    "PictureWorker",
    "WeaponProfile",
    "battle_card",
    "campaign_chart",
    "casualties_of",
    "chart_series",
    "revision_key",
    "roster_card",
    "roster_revision",
]
