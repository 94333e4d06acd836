"""A whole Dominion campaign through the real bot, the fake Discord and a moved clock.

Three gangs; carol, the Arbitrator, starts the campaign (Occupation, Downtime and
Takeover a cycle each, to keep it short). In Occupation the challenge order is drawn
openly; a challenge for an occupied Territory while unclaimed ones remain is refused,
one is declined (the challenger claims its stake), one accepted: it is a scheduled
battle whose time the two players agree (a Discord event is made) and whose
/prebattle stakes its Territory; the battle is played through /postbattle. The clock
moved past the cycle's end, the TIMER ends it: the standings are posted, Downtime opens
a thread for every gang, whose steps their owners confirm. In Takeover a challenge for a
held Territory is played by naming the gangs to /postbattle (the stake comes from the
scheduled battle); at the campaign's end the Triumphs are posted with their holders.
A player who is not the defender cannot accept; another server's campaign is never
touched.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from bot.storage import ScheduleStatus
from demo.arena import Arena
from fakediscord import Message
from fakediscord.entities import Channel
from rules.cycles import ChallengeStatus
from tests.e2e.battle_helpers import GUILD, bot_ready, until
from tests.e2e.calendar_helpers import (
    calendar_of,
    clock_of,
    clocked_arena,
    event_named,
    in_days,
    propose,
)
from tests.e2e.helpers import database, ok, refused, slash
from tests.e2e.postbattle_steps import gang, in_thread, run_through, submit, titled

arena = clocked_arena

pytestmark = pytest.mark.usefixtures("players")

HIVE, SPIRE = "Dominion Hive", "Spire"
GANGS = {"bob": "Ash Wolves", "dan": "Bone Saws", "eve": "Cinder Kin"}
OWNER = {name: user for user, name in GANGS.items()}
POSTS = "campaign"


async def order(arena: Arena) -> list[str]:
    _, calendar = await calendar_of(arena, HIVE)
    current = calendar.current
    assert current is not None
    ids = {await gang_id(arena, name): name for name in GANGS.values()}
    return [ids[g] for g in current.order]


async def gang_id(arena: Arena, name: str) -> str:
    guild_id = arena.fake.world.guild(GUILD).id
    async with database(arena) as storage:
        campaign = await storage.read(guild_id).get_campaign_by_name(HIVE)
        return (await storage.read(guild_id).get_gang_by_name(campaign.id, name)).id


async def holders(arena: Arena) -> dict[str, str | None]:
    """Each Territory's name and the name of the gang holding it."""
    guild_id = arena.fake.world.guild(GUILD).id
    async with database(arena) as storage:
        campaign = await storage.read(guild_id).get_campaign_by_name(HIVE)
        held = await storage.read(guild_id).list_territories(campaign.id)
        gangs = await storage.read(guild_id).gangs_without_rosters(campaign.id, None)
    return {t.name: gangs[t.controller].name if t.controller else None for t in held}


def posts(arena: Arena) -> list[Message]:
    return arena.driver.messages(POSTS, guild=GUILD, include_ephemeral=False)


def count_posts(arena: Arena, text: str) -> int:
    return sum(text in f"{m.content}\n{m.embed_text()}" for m in posts(arena))


async def posted(arena: Arena, text: str, timeout: float = 15.0) -> Message:
    def seen() -> Message | None:
        return next((m for m in reversed(posts(arena))
                     if text in f"{m.content}\n{m.embed_text()}"), None)

    return await until(seen, f"a post saying {text!r}", timeout=timeout)


async def past_the_end(arena: Arena) -> datetime:
    """Move the bot's clock a minute past the open cycle's end; that end."""
    _, calendar = await calendar_of(arena, HIVE)
    current = calendar.current
    assert current is not None and current.ends_at is not None
    clock = clock_of(arena)
    clock.move(current.ends_at - clock.now() + timedelta(minutes=1))
    return current.ends_at


def downtime_threads(arena: Arena) -> dict[str, Channel]:
    return {t.name.removeprefix("Downtime: "): t
            for t in arena.driver.threads(POSTS, guild=GUILD) if t.name.startswith("Downtime")}


async def confirm_every_step(arena: Arena, thread: Channel, owner: str) -> None:
    """The owner confirms each open Downtime step until the gang's Downtime is over."""
    def open_step() -> Message | None:
        for message in reversed(arena.driver.messages(thread, guild=GUILD,
                                                      include_ephemeral=False)):
            if any(str(c.get("custom_id", "")).startswith("munda:dt:confirm:")
                   for c in message.iter_components()):
                return message
            if any("Downtime over" in str(e.get("title")) for e in message.embeds):
                return message
        return None

    for _ in range(8):
        message = await until(open_step, f"a Downtime step in {thread.name}")
        if any("Downtime over" in str(e.get("title")) for e in message.embeds):
            return
        clicked = await arena.driver.click(message, "Confirm", owner)
        assert not clicked.ephemeral, clicked.text()
        await until(lambda m=message: None if open_step() is m else True,
                    "the next Downtime step")
    raise AssertionError(f"{thread.name}: the Downtime never ended")


async def played(arena: Arena, winner: str, loser: str, **started_with: str) -> None:
    """The winner's player starts the post-battle sequence (of a recorded ``battle``, or
    of the named gangs); both report, both confirm every step."""
    d = arena.driver
    before = {t.id for t in d.threads("general", guild=GUILD)}
    result = await d.slash(GUILD, "general", OWNER[winner], "postbattle start", winner=winner,
                           campaign=HIVE, **started_with)
    assert not result.ephemeral, result.text()
    thread = await until(lambda: next((t for t in d.threads("general", guild=GUILD)
                                       if t.id not in before), None), "the battle's thread")
    for name in (winner, loser):
        await until(lambda n=name: titled(in_thread(arena, thread), f"End of battle: {n}")
                    or None, f"the report panel of {name}")
        await submit(arena, thread, name, OWNER[name])
    await run_through(arena, thread, [OWNER[winner], OWNER[loser]])


async def test_the_other_server_starts_its_own_campaign(arena: Arena) -> None:
    await bot_ready(arena)
    await ok(arena, "dave", "campaign create", name="Spire Wars", guild=SPIRE)
    started = await slash(arena, "dave", "campaign cycle start", ends="60d", guild=SPIRE)
    assert not started.ephemeral, started.content


async def test_a_whole_dominion(arena: Arena) -> None:
    d = arena.driver
    await ok(arena, "carol", "campaign create", name=HIVE, report_channel=POSTS)
    for user, name in GANGS.items():
        await gang(arena, user, name, HIVE)
    for territory in ("Old Ruins", "Wastes", "Toll Crossing", "Sludge Sea"):
        await ok(arena, "carol", "campaign territory add", name=territory)
    await ok(arena, "carol", "campaign territory assign", territory="Toll Crossing",
             gang="Cinder Kin")

    # The Arbitrator starts the Dominion; its phases a cycle each.
    await ok(arena, "carol", "campaign cycle start", campaign_type="Dominion")
    for phase in ("Occupation", "Takeover"):
        await ok(arena, "carol", "campaign cycle phase", phase=phase, cycles=1)
    drawn = (await posted(arena, "cycle 1 of 7 · Occupation (1 of 3)")).embed_text()
    assert "Challenge order (drawn with dice)" in drawn and drawn.count("🎲") >= 3
    first, second, third = await order(arena)

    # Occupation: unclaimed Territories first; a declined challenge gives its stake.
    held = await refused(arena, OWNER[first], "challenge new", gang=first,
                         opponent=second if first != "Cinder Kin" else third,
                         territory="Toll Crossing")
    assert "only unclaimed Territories may be challenged for while any remain" in held
    await slash(arena, OWNER[first], "challenge new", gang=first, opponent=second,
                territory="Old Ruins")
    declined = await posted(arena, f"#1 {first} challenges {second} for Old Ruins")
    await d.click(declined, "Decline", OWNER[second])
    await until(lambda: f"{first} claims Old Ruins" in (declined.content or "") or None,
                "the declined challenge's claim")

    # An accepted challenge: the third player is not the defender and cannot accept.
    await slash(arena, OWNER[second], "challenge new", gang=second, opponent=third,
                territory="Wastes")
    challenge = await posted(arena, f"#2 {second} challenges {third} for Wastes")
    stranger = await d.click(challenge, "Accept", OWNER[first])
    assert stranger.ephemeral and f"Only {third}'s player" in stranger.text()
    accepted = await d.click(challenge, "Accept", OWNER[third])
    assert not accepted.ephemeral and "/schedule propose" in (challenge.content or "")
    await ok(arena, "carol", "campaign cycle limits", one_battle=True)
    busy = await refused(arena, OWNER[third], "challenge new", gang=third, opponent=first,
                         territory="Sludge Sea")
    assert f"{third} is already fighting this cycle" in busy
    await ok(arena, OWNER[third], "challenge pass", gang=third)

    # The accepted challenge is a scheduled battle: a time proposed and accepted.
    waiting = await ok(arena, OWNER[third], "schedule list", campaign=HIVE)
    assert f"**{second}** vs **{third}** for Wastes: no time yet, open" in waiting
    proposal = await propose(arena, OWNER[second], second, third, in_days(arena, 2), HIVE)
    assert proposal.message is not None
    await d.click(proposal.message, "Accept", OWNER[third])
    await event_named(arena, f"{second} vs {third}")

    # Played: /prebattle knows the Territory at stake, /postbattle plays it out.
    pre = await slash(arena, OWNER[second], "prebattle", gang1=second, gang2=third,
                      campaign=HIVE)
    shown = "\n".join(m.embed_text() for m in pre.messages)
    assert "Territory at stake" in shown and "Wastes" in shown, shown
    battle = re.search(r"Battle recorded \(([^)]+)\)", shown)
    assert battle is not None, shown
    await played(arena, second, third, battle=battle.group(1))
    assert (await holders(arena))["Wastes"] == second

    # The clock past the cycle's end: its timer ends it, Downtime opens by itself.
    await past_the_end(arena)
    standings = await posted(arena, "standings at the end of cycle 1")
    assert "Posted late" not in standings.content
    assert "Dominator" in standings.embed_text()
    await posted(arena, "Downtime (1 of 1)")
    threads = await until(lambda: downtime_threads(arena) if len(downtime_threads(arena)) == 3
                          else None, "a Downtime thread for every gang")
    for name, thread in threads.items():
        await confirm_every_step(arena, thread, OWNER[name])
    _, calendar = await calendar_of(arena, HIVE)
    assert calendar.challenge(2).status is ChallengeStatus.PLAYED

    # Takeover, then the campaign's end: the Triumphs with their holders.
    await past_the_end(arena)
    await posted(arena, "Takeover (1 of 1)")
    # Takeover: a Territory the defender holds; its battle started by naming the gangs.
    challenger = (await order(arena))[0]
    territory, defender = next((t, h) for t, h in (await holders(arena)).items()
                               if h is not None and h != challenger)
    await slash(arena, OWNER[challenger], "challenge new", gang=challenger, opponent=defender,
                territory=territory)
    takeover = await posted(arena, f"challenges {defender} for {territory}")
    await d.click(takeover, "Accept", OWNER[defender])
    await played(arena, challenger, defender, gang1=challenger, gang2=defender)
    assert (await holders(arena))[territory] == challenger
    await past_the_end(arena)
    final = (await posted(arena, "the campaign is over")).embed_text()
    assert "**Triumphs**" in final and "**Dominator** (territories): won by" in final
    assert "Warmonger" in final
    assert count_posts(arena, "standings at the end of cycle 1") == 1
    _, calendar = await calendar_of(arena, HIVE)
    assert calendar.finished_at is not None
    guild_id = arena.fake.world.guild(GUILD).id
    async with database(arena) as storage:
        campaign = await storage.read(guild_id).get_campaign_by_name(HIVE)
        left = await storage.read(guild_id).list_timers(f"cycle-end:{campaign.id}:")
        scheduled = await storage.read(guild_id).scheduled_battles(campaign.id)
    assert left == []  # nothing more is due
    assert [s.status for s in scheduled] == [ScheduleStatus.COMPLETED] * 2


async def test_the_other_server_is_never_touched(arena: Arena) -> None:
    _, spire = await calendar_of(arena, "Spire Wars", SPIRE)
    assert len(spire.cycles) == 1 and spire.current is not None  # its own week, still open
    assert spire.challenges == []
    assert arena.fake.guild(SPIRE).scheduled_events == {}
