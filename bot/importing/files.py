"""The campaign and Trading Post importers' entry points: each file is read in the
import worker's child process (bot.importing.worker), off the event loop.

The readers themselves (:mod:`bot.importing.campaigndoc`,
:mod:`bot.importing.tradingpost`) are synchronous and know nothing of the worker;
the child runs them by way of :mod:`bot.importing.jobs`. ``/gang import`` has its
own flow (:mod:`bot.importing.gangflow`).
"""

from __future__ import annotations

from bot.importing.jobs import prepare_campaign, read_trading_post
from bot.importing.tradingpost import TradingPostParse
from bot.importing.worker import import_worker
from bot.storage.exporting import PreparedImport


async def prepare_campaign_file(data: bytes) -> PreparedImport:
    """``prepare_campaign`` (a campaign export made safe to store) in the import worker:
    a 10 MB file takes seconds."""
    return await import_worker.run(prepare_campaign, data)


async def read_trading_post_file(data: bytes, filename: str = "") -> TradingPostParse:
    """``read_trading_post`` (the whole file read and checked) in the import worker."""
    return await import_worker.run(read_trading_post, data, filename)
