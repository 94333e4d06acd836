"""Drawing happens on the worker's own thread, and a roster revision is drawn once."""

from __future__ import annotations

import asyncio
import threading
import time

from bot.pictures import PictureWorker, roster_card, roster_revision
from tests.pictures.helpers import big_gang, decode


async def test_drawing_runs_off_the_event_loop_and_the_loop_keeps_ticking() -> None:
    worker = PictureWorker()
    gang = big_gang(40)
    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            await asyncio.sleep(0.005)
            ticks += 1

    threads: list[str] = []

    def draw() -> list[bytes]:
        threads.append(threading.current_thread().name)
        start = time.perf_counter()
        pages = roster_card(gang)
        # Hold the thread a little longer on a fast machine, so the ticks can be counted.
        while time.perf_counter() - start < 0.1:
            time.sleep(0.01)
        return pages

    task = asyncio.create_task(ticker())
    try:
        pages = await worker.run(draw)
    finally:
        stop.set()
        await task
        worker.close()
    assert threads and threads[0].startswith("pictures")
    assert threads[0] != threading.current_thread().name
    assert ticks >= 5
    assert len(pages) >= 2


async def test_a_roster_is_drawn_once_per_revision() -> None:
    worker = PictureWorker()
    gang = big_gang(5)
    try:
        first, again = await asyncio.gather(worker.roster_card(gang), worker.roster_card(gang))
        assert worker.drawn == 1
        assert first == again
        assert await worker.roster_card(gang.model_copy(deep=True)) == first
        assert worker.drawn == 1
        gang.fighters[0].xp += 1
        changed = await worker.roster_card(gang)
        assert worker.drawn == 2
        assert changed != first
        await worker.roster_card(gang, owner_name="Alice")
        assert worker.drawn == 3
        decode(changed[0])
    finally:
        worker.close()


def test_the_revision_key_follows_the_roster_and_what_the_card_shows() -> None:
    gang = big_gang(3)
    key = roster_revision(gang)
    assert roster_revision(gang.model_copy(deep=True)) == key
    assert roster_revision(gang, owner_name="Alice") != key
    assert roster_revision(gang, gang_names={"x": "The Venom Court"}) != key
    gang.fighters[1].equipment.pop()
    assert roster_revision(gang) != key


async def test_an_old_revision_leaves_the_cache_when_it_is_full() -> None:
    worker = PictureWorker(cache_entries=1)
    gang = big_gang(2)
    try:
        await worker.roster_card(gang)
        await worker.roster_card(gang, owner_name="Alice")
        await worker.roster_card(gang)
        assert worker.drawn == 3
    finally:
        worker.close()


async def test_warming_up_reads_every_font_map_before_a_card_is_asked_for() -> None:
    from bot.pictures import fonts

    fonts._coverage.cache_clear()
    worker = PictureWorker()
    try:
        await worker.warm_up()
    finally:
        worker.close()
    # DejaVu Sans, DejaVu Sans Bold and the CJK face; Last Resort needs no map.
    assert fonts._coverage.cache_info().currsize == 3
