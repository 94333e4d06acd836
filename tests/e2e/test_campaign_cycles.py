"""A campaign's week through the real bot: cycles, challenge order, challenges, standings.

Three gangs of the Dominion: the Arbitrator (carol) starts the campaign, the bot
posts cycle 1 with its challenge order drawn with dice; challenges are refused
out of turn and for a held Territory during Occupation, one is declined (the
challenger claims its stake), one accepted; a player who is not the defender
cannot answer; the cycle ends (the accepted challenge whose battle was not
played lapses, the standings are posted, cycle 2 opens by Gang Rating); an undo
takes the last change back; the other server's campaign is never touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal

import pytest

from bot import failpoints
from demo.arena import Arena
from fakediscord import Message
from rules.cycles import ChallengeStatus
from tests.e2e.battle_helpers import until
from tests.e2e.calendar_helpers import calendar_of
from tests.e2e.helpers import database, ok, refused, slash

U, S = "Underhive", "Spire"
HIVE = "Cycle Hive"
GANGS = {"bob": "Ash Wolves", "dan": "Bone Saws", "eve": "Cinder Kin"}
OWNER = {gang: user for user, gang in GANGS.items()}


async def names_in_order(arena: Arena) -> list[str]:
    campaign, calendar = await calendar_of(arena, HIVE)
    guild = arena.fake.world.guild(U).id
    async with database(arena) as storage:
        gangs = await storage.read(guild).gangs_without_rosters(campaign.id, None)
    current = calendar.current
    assert current is not None
    return [gangs[g].name for g in current.order]


async def holder_of(arena: Arena, territory: str) -> str | None:
    campaign, _ = await calendar_of(arena, HIVE)
    guild = arena.fake.world.guild(U).id
    async with database(arena) as storage:
        held = await storage.read(guild).list_territories(campaign.id)
        gangs = await storage.read(guild).gangs_without_rosters(campaign.id, None)
    found = next(t for t in held if t.name == territory)
    return gangs[found.controller].name if found.controller else None


def posts(arena: Arena) -> list[Message]:
    return arena.driver.messages("campaign", guild=U, include_ephemeral=False)


async def posted(arena: Arena, text: str) -> Message:
    def seen() -> Message | None:
        return next((m for m in reversed(posts(arena))
                     if text in f"{m.content}\n{m.embed_text()}"), None)

    return await until(seen, f"a post saying {text!r}", timeout=10.0)


# The bot ready, and dan and eve members of the Underhive (tests/e2e/conftest.py).
pytestmark = pytest.mark.usefixtures("players")


async def test_the_other_server_has_its_own_campaign(arena: Arena) -> None:
    await ok(arena, "dave", "campaign create", name="Spire Wars", guild=S)
    result = await slash(arena, "dave", "campaign cycle start", guild=S)
    assert not result.ephemeral, result.content


async def test_a_cycle_starts_with_its_challenge_order_drawn(arena: Arena) -> None:
    await ok(arena, "carol", "campaign create", name=HIVE, report_channel="campaign")
    for user, gang in GANGS.items():
        await ok(arena, user, "gang create", name=gang, house="Goliath",
                 alignment="Law Abiding")
    for territory in ("Old Ruins", "Wastes", "Toll Crossing", "Sludge Sea"):
        await ok(arena, "carol", "campaign territory add", name=territory)
    await ok(arena, "carol", "campaign territory assign", territory="Toll Crossing",
             gang="Cinder Kin")
    assert "Only an Arbitrator" in await refused(arena, "bob", "campaign cycle start")
    said = await ok(arena, "carol", "campaign cycle start", campaign_type="Dominion")
    assert "cycle 1 has begun" in said
    post = await posted(arena, "cycle 1 of 7 · Occupation (1 of 3)")
    text = post.embed_text()
    assert "Challenge order (drawn with dice)" in text
    assert text.count("🎲 challenge order") >= 3  # every gang's die, shown
    assert "<t:" in text  # dates as Discord timestamps
    assert "3 Territories per player, 9 for 3 gangs; this campaign has 4" in text
    order = await names_in_order(arena)
    assert sorted(order) == sorted(GANGS.values())
    assert f"1. {order[0]}" in text
    again = await refused(arena, "carol", "campaign cycle start")
    assert "started its cycles already" in again


async def test_challenges_in_order_refused_declined_and_accepted(arena: Arena) -> None:
    first, second, third = await names_in_order(arena)
    shown = await ok(arena, "eve", "campaign cycle show")
    assert "Campaign type **Dominion**: Occupation 3 cycles, Downtime 1 cycle" in shown
    assert "Cycle 1 · Occupation: <t:" in shown and f"Next to challenge: **{first}**" in shown
    out_of_turn = await refused(arena, OWNER[second], "challenge new", gang=second,
                                opponent=first, territory="Old Ruins")
    assert f"Out of turn: {first} challenges next" in out_of_turn
    held = await refused(arena, OWNER[first], "challenge new", gang=first,
                         opponent="Cinder Kin" if first != "Cinder Kin" else second,
                         territory="Toll Crossing")
    assert "only unclaimed Territories may be challenged for while any remain" in held
    await ok_private(arena, OWNER[first], "challenge new", gang=first, opponent=second,
                     territory="Old Ruins")
    challenge = await posted(arena, f"#1 {first} challenges {second} for Old Ruins")
    # The third player is not the defender: the click is refused and changes nothing.
    stranger = await arena.driver.click(challenge, "Accept", OWNER[third])
    assert stranger.ephemeral and f"Only {second}'s player" in stranger.content
    _, calendar = await calendar_of(arena, HIVE)
    assert calendar.challenge(1).status is ChallengeStatus.OPEN
    declined = await arena.driver.click(challenge, "Decline", OWNER[second])
    assert not declined.ephemeral
    assert f"{first} claims Old Ruins" in (challenge.content or "")
    assert not challenge.components  # answered: no buttons left
    assert await holder_of(arena, "Old Ruins") == first
    await ok_private(arena, OWNER[second], "challenge new", gang=second, opponent=third,
                     territory="Wastes")
    accept = await posted(arena, f"#2 {second} challenges {third} for Wastes")
    answered = await arena.driver.click(accept, "Accept", OWNER[third])
    assert not answered.ephemeral and "the battle is on" in (accept.content or "")
    # With the Arbitrator's one battle a cycle, a gang in a waiting challenge is not
    # challenged again, and cannot challenge either.
    assert "Only an Arbitrator" in await refused(arena, "bob", "campaign cycle limits",
                                                 one_battle=True)
    limited = await ok(arena, "carol", "campaign cycle limits", one_battle=True)
    assert "cannot be challenged again this cycle" in limited
    busy = await refused(arena, OWNER[third], "challenge new", gang=third, opponent=first,
                         territory="Sludge Sea")
    assert f"{third} is already fighting this cycle" in busy
    passed = await ok(arena, OWNER[third], "challenge pass", gang=third)
    assert "Every gang has had its turn" in passed
    listed = await ok(arena, "bob", "challenge list")
    assert f"#1 {first} challenges {second} for Old Ruins: declined" in listed
    assert f"#2 {second} challenges {third} for Wastes: accepted" in listed
    _, calendar = await calendar_of(arena, HIVE)
    assert [c.status for c in calendar.challenges] == [
        ChallengeStatus.DECLINED, ChallengeStatus.ACCEPTED]


async def test_the_cycle_ends_standings_posted_and_the_next_opens(arena: Arena) -> None:
    assert "Only an Arbitrator" in await refused(arena, "bob", "campaign cycle end")
    ended = await ok(arena, "carol", "campaign cycle end")
    assert "cycle 1 has ended. Cycle 2 has begun" in ended
    standings = await posted(arena, "standings at the end of cycle 1")
    assert "The race for each Triumph" in standings.embed_text()
    assert "Dominator" in standings.embed_text()
    # With the campaign's Gang Rating chart, drawn as the outbox sends it.
    assert [a.filename for a in standings.attachments] == ["cycle-hive-cycle-1.png"]
    assert standings.attachments[0].data.startswith(b"\x89PNG")
    cycle_two = await posted(arena, "cycle 2 of 7 · Occupation (2 of 3)")
    assert "lowest Gang Rating first" in cycle_two.embed_text()
    _, calendar = await calendar_of(arena, HIVE)
    # The accepted challenge's battle was never recorded: it lapsed with the cycle.
    assert calendar.challenge(2).status is ChallengeStatus.LAPSED
    shown = await ok(arena, "bob", "campaign standings")
    assert "Dominator" in shown and "Ash Wolves" in shown and "Rating" in shown


async def test_an_arbitrator_undoes_the_last_change(arena: Arena) -> None:
    assert "Only an Arbitrator" in await refused(arena, "bob", "campaign cycle undo")
    ledger = await ok(arena, "bob", "ledger", limit=25)
    assert "Cycle 2 begins: Occupation" in ledger and "Challenge #1 declined" in ledger
    assert "claims Old Ruins" in ledger  # the declined stake, as the ledger keeps it
    undone = await ok(arena, "carol", "campaign cycle undo")
    assert "Cycle 2 begins" in undone
    assert "Undo: Cycle 2 begins" in await ok(arena, "bob", "ledger", limit=5)
    _, calendar = await calendar_of(arena, HIVE)
    current = calendar.current
    assert current is not None and current.number == 1
    assert calendar.challenge(2).status is ChallengeStatus.ACCEPTED


def count_posts(arena: Arena, text: str) -> int:
    return sum(text in f"{m.content}\n{m.embed_text()}" for m in posts(arena))


async def test_killed_after_a_cycle_end_is_stored_posts_it_once(arena: Arena) -> None:
    ended, opened = "standings at the end of cycle 1", "cycle 2 of 7"
    before = (count_posts(arena, ended), count_posts(arena, opened))
    await arena.stop_bot()
    await arena.start_bot({failpoints.ENV_VAR: failpoints.AFTER_CYCLE_STORED})
    asked = asyncio.create_task(slash(arena, "carol", "campaign cycle end"))
    process = arena.process
    assert process is not None
    assert await asyncio.wait_for(process.wait(), 20.0) == -signal.SIGKILL
    assert f"failpoint {failpoints.AFTER_CYCLE_STORED}" in arena.log_tail(5)
    arena.process = None
    asked.cancel()
    with contextlib.suppress(BaseException):
        await asked
    _, calendar = await calendar_of(arena, HIVE)  # stored whole before the kill...
    current = calendar.current
    assert current is not None and current.number == 2
    assert (count_posts(arena, ended), count_posts(arena, opened)) == before  # ...not posted
    await arena.start_bot()
    await until(lambda: count_posts(arena, opened) > before[1] or None,
                "cycle 2's post after the restart", timeout=20.0)
    await asyncio.sleep(1.0)  # the outbox has had its chance to post anything twice
    assert (count_posts(arena, ended), count_posts(arena, opened)) == (
        before[0] + 1, before[1] + 1)
    _, again = await calendar_of(arena, HIVE)
    assert again == calendar  # nothing decided again: the same order, the same dates


async def test_through_downtime_to_the_triumphs(arena: Arena) -> None:
    for phase, cycles in (("Occupation", 2), ("Takeover", 1)):
        await ok(arena, "carol", "campaign cycle phase", phase=phase, cycles=cycles)
    refused_phase = await refused(arena, "carol", "campaign cycle phase", phase="Occupation",
                                  cycles=1)
    assert "have begun already" in refused_phase
    assert "Cycle 3 has begun" in await ok(arena, "carol", "campaign cycle end")
    downtime = await posted(arena, "cycle 3 of 4 · Downtime (1 of 1)")
    assert "allows no challenges" in downtime.embed_text()
    first = GANGS["bob"]
    no_challenge = await refused(arena, "bob", "challenge new", gang=first,
                                 opponent=GANGS["dan"], territory="Sludge Sea")
    assert "The Downtime phase allows no challenges" in no_challenge
    await ok(arena, "carol", "campaign cycle end")
    await posted(arena, "cycle 4 of 4 · Takeover (1 of 1)")
    over = await ok(arena, "carol", "campaign cycle end")
    assert "The campaign is over: the Triumphs are posted" in over
    final = (await posted(arena, "the campaign is over")).embed_text()
    assert "**Triumphs**" in final and "**Dominator** (territories): won by" in final
    last = await posted(arena, "the campaign is over")
    assert [a.filename for a in last.attachments] == ["cycle-hive-final.png"]
    assert "Powerbroker" in final
    assert "final standings" in await ok(arena, "bob", "campaign standings")
    assert "The campaign is over" in await refused(arena, "carol", "campaign cycle end")


async def test_the_other_server_is_never_touched(arena: Arena) -> None:
    nothing = await slash(arena, "dave", "challenge list", guild=S, campaign=HIVE)
    assert nothing.ephemeral
    guild = arena.fake.world.guild(S).id
    async with database(arena) as storage:
        spire = await storage.read(guild).get_campaign_by_name("Spire Wars")
        found = await storage.read(guild).get_calendar(spire.id)
    assert found is not None
    calendar = found[0]
    assert len(calendar.cycles) == 1 and calendar.challenges == []


async def ok_private(arena: Arena, user: str, command: str, **options: object) -> str:
    """A command whose success is told to the asker alone (its post is in the channel)."""
    result = await slash(arena, user, command, **options)
    assert "made" in result.content, result.content
    return result.content


async def test_a_challenge_whose_gang_left_cannot_be_answered(arena: Arena) -> None:
    lapse = "Lapse Hive"
    await ok(arena, "carol", "campaign create", name=lapse, report_channel="campaign")
    leaving = {"dan": "Gone Wolves", "eve": "Staying Kin"}
    for user, gang in leaving.items():
        await ok(arena, user, "gang create", name=gang, house="Goliath",
                 alignment="Law Abiding", campaign=lapse)
    await ok(arena, "carol", "campaign territory add", name="Far Ruins", campaign=lapse)
    await ok(arena, "carol", "campaign cycle start", campaign_type="Dominion", campaign=lapse)
    campaign, calendar = await calendar_of(arena, lapse)
    guild = arena.fake.world.guild(U).id
    async with database(arena) as storage:
        gangs = await storage.read(guild).gangs_without_rosters(campaign.id, None)
    assert calendar.current is not None
    first, second = (gangs[g].name for g in calendar.current.order)
    owner = {gang: user for user, gang in leaving.items()}
    await ok_private(arena, owner[first], "challenge new", gang=first, opponent=second,
                     territory="Far Ruins", campaign=lapse)
    challenge = await posted(arena, f"#1 {first} challenges {second} for Far Ruins")
    asked = await slash(arena, owner[first], "gang delete", gang=first, campaign=lapse)
    deleted = await arena.driver.click(asked, "Confirm", owner[first])
    assert "has been deleted" in deleted.content, deleted.content
    late = await arena.driver.click(challenge, "Accept", owner[second])
    assert late.ephemeral and "has left the campaign" in late.content, late.content
    _, after = await calendar_of(arena, lapse)
    assert after.challenge(1).status is ChallengeStatus.OPEN
