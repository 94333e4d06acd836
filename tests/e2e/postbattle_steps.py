"""Steps the /postbattle end-to-end tests share, played through an Arena as players would.

A campaign with gangs of generic fighters, a battle started and its thread, the
report panels' picks and Submit, the stage messages' Confirm; and the polling
that waits for what the bot posts after it answers. (tests/e2e/battle_helpers.py
holds the steps of the tests that play House List fighters through the Driver.)
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from demo.arena import Arena
from fakediscord import InteractionResult
from fakediscord.entities import Message
from tests.e2e.helpers import ok

G, CH = "Underhive", "general"



async def campaign(arena: Arena, name: str) -> str:
    ARENA[:] = [arena]
    await ok(arena, "alice", "campaign create", name=name, report_channel="campaign")
    return name


async def gang(arena: Arena, owner: str, name: str, camp: str, fighters: int = 3,
               credits: int = 100) -> str:
    await ok(arena, owner, "gang create", name=name, house="Goliath",
             alignment="Law Abiding", credits=credits, campaign=camp)
    categories = ["Leader", "Champion"] + ["Ganger"] * max(0, fighters - 2)
    for number, category in enumerate(categories[:fighters], start=1):
        await ok(arena, owner, "fighter add", gang=name, name=f"{name} {number}",
                 category=category, cost=50 + 10 * number, campaign=camp)
    return name


async def campaign_of_two(arena: Arena, name: str, bobs: str, carols: str) -> str:
    """A new campaign with a gang of bob's and one of carol's, each of three fighters."""
    camp = await campaign(arena, name)
    await gang(arena, "bob", bobs, camp)
    await gang(arena, "carol", carols, camp)
    return camp


async def eventually(check: Any, what: str, timeout: float = 10.0) -> Any:
    """Poll ``check()`` until it returns something truthy (the bot works after answering)."""
    for _ in range(int(timeout / 0.05)):
        found = check()
        if found:
            return found
        await asyncio.sleep(0.05)
    tail = ARENA[0].log_tail(80) if ARENA else ""
    raise AssertionError(f"timed out waiting for {what}\n{tail}")


# The arena of the running test, so a timeout can show the bot's log.
ARENA: list[Arena] = []


async def thread_of(arena: Arena, title_part: str) -> Any:
    threads = await eventually(
        lambda: [t for t in arena.driver.threads(CH, guild=G) if title_part in t.name],
        f"a thread named like {title_part!r}")
    return threads[-1]


def in_thread(arena: Arena, thread: Any) -> list[Message]:
    return [m for m in arena.driver.messages(thread, guild=G, include_ephemeral=False)]


def titled(messages: list[Message], part: str) -> list[Message]:
    return [m for m in messages if m.embeds and part in (m.embeds[0].get("title") or "")]


def report_panel(arena: Arena, thread: Any, gang_name: str) -> Message:
    found = titled(in_thread(arena, thread), f"End of battle: {gang_name}")
    assert found, f"no report panel for {gang_name}"
    return found[-1]


def open_stage(arena: Arena, thread: Any) -> Message | None:
    """The stage message that still has a Confirm button."""
    for message in reversed(in_thread(arena, thread)):
        if any((c.get("custom_id") or "").startswith("munda:pb:confirm:")
               for c in message.buttons):
            return message
    return None


async def start(arena: Arena, user: str, camp: str, winner: str, *gangs: str,
                **options: Any) -> tuple[InteractionResult, Any]:
    named = {f"gang{i}": g for i, g in enumerate(gangs, start=1)}
    result = await arena.driver.slash(G, CH, user, "postbattle start", winner=winner,
                                      campaign=camp, **named, **options)
    assert not result.ephemeral, result.content
    thread = await thread_of(arena, " vs ".join(gangs)[:60])
    for g in gangs:
        await eventually(lambda g=g: titled(in_thread(arena, thread), f"End of battle: {g}"),
                         f"the report panel of {g}")
    return result, thread


async def territory_battle(arena: Arena, camp: str, winner: str, bobs: str, carols: str,
                           territory: str, income: str, held_by: str | None = None) -> Any:
    """A battle of bob's and carol's gangs over a new territory (``held_by`` controls it),
    both reports submitted; its thread."""
    await ok(arena, "alice", "campaign territory add", name=territory, income=income,
             campaign=camp)
    if held_by is not None:
        await ok(arena, "alice", "campaign territory assign", territory=territory,
                 gang=held_by, campaign=camp)
    _, thread = await start(arena, "bob", camp, winner, bobs, carols, territory=territory)
    await submit(arena, thread, bobs, "bob")
    await submit(arena, thread, carols, "carol")
    return thread


async def pick(arena: Arena, thread: Any, gang_name: str, user: str, section: str,
               values: list[str]) -> None:
    """Choose ``values`` in one section of a gang's report panel."""
    panel = report_panel(arena, thread, gang_name)
    changed = await arena.driver.select(panel, "Report which part?", [section], user)
    await changed.wait_for_update()
    panel = report_panel(arena, thread, gang_name)
    select = next(s for s in panel.selects
                  if (s.get("custom_id") or "").startswith("munda:pb:pick:")
                  and s["custom_id"].endswith(":0"))
    chosen = await arena.driver.select(panel, select["custom_id"], values, user)
    await chosen.wait_for_update()


async def submit(arena: Arena, thread: Any, gang_name: str, user: str) -> str:
    result = await arena.driver.click(report_panel(arena, thread, gang_name), "Submit", user)
    await result.wait_followups(1)
    return result.followups[-1].content


async def confirm(arena: Arena, thread: Any, user: str) -> str:
    stage = open_stage(arena, thread)
    assert stage is not None, "no step is open"
    result = await arena.driver.click(stage, "Confirm", user)
    if result.ephemeral:
        return result.content
    await result.wait_followups(1)
    return result.followups[-1].content


def stage_text(arena: Arena, thread: Any, label: str) -> str:
    found = titled(in_thread(arena, thread), label)
    assert found, f"no message for {label}"
    return found[-1].embed_text()


async def gang_show(arena: Arena, name: str, camp: str) -> str:
    return await ok(arena, "alice", "gang show", gang=name, campaign=camp)


def figure(text: str, label: str) -> int:
    match = re.search(rf"{label}\W*(\d+)", text)
    assert match, f"no {label} in {text!r}"
    return int(match.group(1))


STEPS = [
    "Wrap-up", "Assign/Reassign Territory", "Receive Rewards", "Collect Income",
    "Post-battle Actions", "A. Clean House", "B. Visit the Trading Post",
    "C. Gain Boons from Territories", "D. Distribute Equipment", "E. Purchase Advancements",
    "F. Update Gang Rating", "Report Results",
]


async def run_through(arena: Arena, thread: Any, players: list[str]) -> list[str]:
    """Every player confirms every step until none is open; returns the step titles seen."""
    seen: list[str] = []
    while (stage := open_stage(arena, thread)) is not None:
        seen.append(stage.embeds[0]["title"])
        for player in players:
            await confirm(arena, thread, player)
        assert len(seen) < 20, seen
    return seen


async def reports_in(arena: Arena, channel: str) -> list[Message]:
    return titled(arena.driver.messages(channel, guild=G), "Battle report")
