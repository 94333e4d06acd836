"""Drawing happens in the worker's own child process, and a roster revision is drawn once."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from bot.pictures import PictureWorker, roster_revision
from bot.pictures.worker import PictureDrawerStopped
from tests.pictures.helpers import big_gang, decode, draw_slowly_elsewhere, font_maps_read


async def test_drawing_runs_in_a_child_process_and_the_loop_keeps_ticking() -> None:
    worker = PictureWorker()
    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        drawer, pages = await worker.run(draw_slowly_elsewhere, 40)
    finally:
        stop.set()
        await task
        worker.close()
    assert drawer != os.getpid()
    assert ticks >= 5
    assert len(pages) >= 2
    decode(pages[0])


async def test_a_drawer_that_dies_fails_its_drawing_and_the_next_starts_afresh() -> None:
    worker = PictureWorker()
    try:
        first, _ = await worker.run(draw_slowly_elsewhere, 1)
        os.kill(first, signal.SIGKILL)
        with pytest.raises(PictureDrawerStopped):
            await worker.run(draw_slowly_elsewhere, 1)
        again, pages = await worker.run(draw_slowly_elsewhere, 1)
        assert again not in (first, os.getpid())
        decode(pages[0])
    finally:
        worker.close()


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
    worker = PictureWorker()
    try:
        assert await worker.run(font_maps_read) == 0  # a fresh child has read none
        await worker.warm_up()
        # DejaVu Sans, DejaVu Sans Bold and the CJK face; Last Resort needs no map.
        assert await worker.run(font_maps_read) == 3
    finally:
        worker.close()
