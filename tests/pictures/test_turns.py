"""Servers take turns for the drawers: each waits behind its own drawings only."""

from __future__ import annotations

import asyncio

from bot.pictures.turns import Turns


async def test_a_drawing_asked_for_outside_any_server_gets_its_turn() -> None:
    turns = Turns(1)
    async with asyncio.timeout(1):
        async with turns.turn(None):
            pass
        async with turns.turn(None):
            pass


async def test_a_server_with_many_drawings_waiting_does_not_keep_another_waiting() -> None:
    turns = Turns(1)
    order: list[str] = []
    release = asyncio.Event()

    async def draw(server: str, name: str, *, hold: bool = False) -> None:
        async with turns.turn(server):
            order.append(name)
            if hold:
                await release.wait()

    first = asyncio.create_task(draw("busy", "busy 1", hold=True))
    await asyncio.sleep(0)
    queued = [asyncio.create_task(draw("busy", f"busy {n}")) for n in (2, 3, 4)]
    await asyncio.sleep(0)
    other = asyncio.create_task(draw("quiet", "quiet 1"))
    await asyncio.sleep(0)
    release.set()
    async with asyncio.timeout(1):
        await asyncio.gather(first, *queued, other)
    # The quiet server's one drawing goes next, not after the busy server's queue.
    assert order == ["busy 1", "quiet 1", "busy 2", "busy 3", "busy 4"]


async def test_one_server_holds_one_drawer_however_many_are_free() -> None:
    turns = Turns(2)
    holding = 0
    most = 0

    async def draw() -> None:
        nonlocal holding, most
        async with turns.turn("one"):
            holding += 1
            most = max(most, holding)
            await asyncio.sleep(0.01)
            holding -= 1

    async with asyncio.timeout(2):
        await asyncio.gather(*(draw() for _ in range(4)))
    assert most == 1
