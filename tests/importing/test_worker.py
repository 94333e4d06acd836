"""Files are read in the import worker's child process: the bot's event loop only waits.

What is measured (how long the loop is held up) is in bench/import_loop_bench.py;
these tests check the mechanism: the work happens in another process, a child that
dies is a clear refusal and is replaced, nothing is left running after shutdown,
and full collections are deferred while an import's objects are alive.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest

from bot.importing import gangflow
from bot.importing.campaigndoc import release_campaign
from bot.importing.files import prepare_campaign_file, read_trading_post_file
from bot.importing.worker import (
    DEFERRED_THRESHOLD,
    WORKER_DIED,
    ImportWorker,
    full_collections,
    import_worker,
)
from bot.storage import Campaign
from rules.errors import InvalidRequest
from rules.models import CampaignSettings
from tests import factories as f
from tests.importing.conftest import fixture_bytes

CAMPAIGN = Campaign(
    id="c1", guild_id=1, settings=CampaignSettings(name="Scrap Hollow"),
    created_at=datetime.now(UTC),
)


def campaign_file(gangs: int) -> bytes:
    return json.dumps({
        "format": "munda-arbitrator/campaign", "version": 1,
        "exported_at": "2030-01-01T00:00:00Z", "guild_id": 1,
        "campaign": {"id": "c1", "settings": {"name": "Scrap Hollow"},
                     "created_at": "2030-01-01T00:00:00Z"},
        "gangs": [f.gang(f"Gang {n}", id=f"g{n}", fighters=[]).model_dump(mode="json")
                  for n in range(gangs)],
        "ledger": [{"id": n, "kind": "note", "at": "2030-01-01T00:00:00Z", "actor": "1",
                    "clause": "PB-1", "text": f"note {n}"} for n in range(1200)],
    }).encode()


def test_every_importer_reads_its_file_in_the_child_process() -> None:
    async def scenario() -> None:
        child = await import_worker.warm_up()
        assert child != os.getpid()
        before = import_worker.answered
        gang = await gangflow.read(fixture_bytes("yaktribe_slag_kings.json"), CAMPAIGN,
                                   owner="42")
        post = await read_trading_post_file(fixture_bytes("trading_post.csv"), "post.csv")
        prepared = await prepare_campaign_file(campaign_file(3))
        assert import_worker.answered == before + 3
        assert gang.gang.name == "The Slag Kings" and len(post.entries) > 3
        assert [g.name for g in prepared.document.gangs] == ["Gang 0", "Gang 1", "Gang 2"]
        # Refusals come back from the child as they were raised there.
        with pytest.raises(InvalidRequest, match="not valid JSON"):
            await gangflow.read(b"{not json", CAMPAIGN, owner="42")
        assert await import_worker.warm_up() == child

    asyncio.run(scenario())


def test_a_child_that_dies_is_a_clear_refusal_and_the_next_import_gets_a_new_one() -> None:
    worker = ImportWorker(grace_seconds=0)

    async def scenario() -> None:
        child = await worker.warm_up()
        os.kill(child, signal.SIGKILL)
        with pytest.raises(InvalidRequest) as refused:
            await worker.run(json.loads, "[1, 2]")
        assert refused.value.message == WORKER_DIED
        assert await worker.run(json.loads, "[1, 2]") == [1, 2]
        assert await worker.warm_up() != child

    try:
        asyncio.run(scenario())
    finally:
        worker.shutdown()


def test_shutdown_leaves_no_child_and_a_later_import_starts_one() -> None:
    worker = ImportWorker(grace_seconds=0)
    child = asyncio.run(worker.warm_up())
    worker.shutdown()
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
    again = asyncio.run(worker.warm_up())
    worker.shutdown()
    assert again != child


def test_full_collections_wait_while_a_file_is_read_and_resume_after() -> None:
    import_worker.shutdown()  # ends the grace of the other tests' imports
    worker = ImportWorker(grace_seconds=0)
    usual = gc.get_threshold()

    async def scenario() -> None:
        reading = asyncio.create_task(worker.run(json.loads, "[1]"))
        await asyncio.sleep(0)
        assert full_collections.deferred
        assert gc.get_threshold() == (usual[0], usual[1], DEFERRED_THRESHOLD)
        await reading
        await asyncio.sleep(0)
        assert not full_collections.deferred
        assert gc.get_threshold() == usual

    try:
        asyncio.run(scenario())
    finally:
        worker.shutdown()


def test_an_imported_document_is_released_piece_by_piece_once_stored() -> None:
    async def scenario() -> None:
        prepared = await prepare_campaign_file(campaign_file(5))
        await release_campaign(prepared)
        assert prepared.document.gangs == [] and prepared.document.ledger == []

    asyncio.run(scenario())


CHILD_OF_A_BOT = """
import asyncio, sys
from bot.importing.worker import import_worker
print(asyncio.run(import_worker.warm_up()), flush=True)
sys.stdin.read()
"""


def test_the_child_leaves_when_the_bot_is_killed() -> None:
    """A SIGKILLed bot cannot stop its child: the child notices and exits by itself."""
    bot = subprocess.Popen(
        [sys.executable, "-c", CHILD_OF_A_BOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert bot.stdout is not None
        child = int(bot.stdout.readline())
        os.kill(child, 0)
    finally:
        bot.kill()
        bot.wait()
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # A zombie (state Z) has exited; init reaps it.
            return stat.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False
