"""Scheduling a battle through the bot: a time proposed, answered with another and accepted
with the buttons; the Discord event made; each reminder posted once when the bot's clock
reaches it; a stranger's click refused; the event started by /prebattle; another
server's campaign never touched.

bob and dan are players, alice the Arbitrator, eve a member with no gang.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.storage import ScheduleStatus, Storage
from demo.arena import Arena
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    bot_ready,
    ensure_member,
    new_campaign_of_two,
    new_gang,
    slash,
)
from tests.e2e.calendar_helpers import (
    REMINDER,
    agreed,
    clock_of,
    clocked_arena,
    event_named,
    in_days,
    propose,
    reminded,
    reminders,
    typed,
)
from tests.e2e.postbattle_steps import campaign_of_two, run_through, start, submit

arena = clocked_arena

pytestmark = pytest.mark.usefixtures("players")

SPIRE = "Spire"


async def scheduled(arena: Arena, guild: str, campaign: str) -> list[tuple[str, str]]:
    storage = await Storage.open(arena.database_path)
    try:
        tx = storage.read(arena.fake.guild(guild).id)
        found = await tx.get_campaign_by_name(campaign)
        return [(b.status.value, str(b.starts_at)) for b in
                await tx.scheduled_battles(found.id)]
    finally:
        await storage.close()


async def test_a_battle_proposed_answered_and_accepted_is_an_event_and_reminded_once(
    arena: Arena,
) -> None:
    d = arena.driver
    await bot_ready(arena)
    ensure_member(arena, "eve")
    # Another server's campaign, with a battle proposed there: never touched below.
    await d.slash(SPIRE, "general", "bob", "campaign create", name="Spire Dates")
    await d.slash(SPIRE, "general", "bob", "gang create", name="Spire Hounds", house="Goliath",
                  alignment="Law Abiding", credits=1000)
    await d.slash(SPIRE, "general", "dave", "gang create", name="Spire Kin", house="Goliath",
                  alignment="Law Abiding", credits=1000)
    spire_proposal = await d.slash(SPIRE, "general", "bob", "schedule propose",
                                   gang="Spire Hounds", opponent="Spire Kin",
                                   when=typed(in_days(arena, 1.5)))
    assert "proposes a time for" in spire_proposal.text(), spire_proposal.text()
    spire_before = await scheduled(arena, SPIRE, "Spire Dates")

    await new_campaign_of_two(d, "Ash Dates", "Brass Hounds", "Mire Kin")
    first = in_days(arena, 2)
    proposal = await propose(arena, "bob", "Brass Hounds", "Mire Kin", first, "Ash Dates")
    assert proposal.message is not None
    assert f"<t:{int(first.timestamp())}:F>" in proposal.message.content

    # Only dan, the other gang's player, answers: not eve, not bob who proposed.
    for stranger in ("eve", "bob"):
        refused = await d.click(proposal.message, "Accept", stranger)
        assert refused.ephemeral and "Only the player of Mire Kin" in refused.text(), (
            refused.text())
    assert arena.fake.guild(GUILD).scheduled_events == {}

    # dan proposes an hour later instead; bob accepts that.
    opened = await d.click(proposal.message, "Propose another time", "dan")
    assert opened.modal is not None, opened.text()
    later = first + timedelta(hours=1)
    answered = await d.submit_modal(opened, {"when": typed(later)})
    assert not answered.ephemeral, answered.text()
    counter = answered.message
    assert counter is not None and "**Mire Kin** proposes" in counter.content
    stale = await d.click(proposal.message, "Accept", "dan")  # the old buttons are gone
    assert stale.ephemeral or not proposal.message.components
    accepted = await d.click(counter, "Accept", "bob")
    assert not accepted.ephemeral, accepted.text()
    assert "Agreed" in counter.content

    event = await event_named(arena, "Brass Hounds vs Mire Kin")
    assert len(arena.fake.guild(GUILD).scheduled_events) == 1
    assert event.name == "Brass Hounds vs Mire Kin" and event.location == "#general"
    assert event.entity_type == 3 and event.status == 1
    assert event.scheduled_start_time.startswith(later.isoformat()[:16])
    assert (await scheduled(arena, GUILD, "Ash Dates")) == [("agreed", str(later))]

    # The clock reaches a day before: one reminder, to both players, on time.
    clock = clock_of(arena)
    clock.move(later - timedelta(hours=24) - clock.now() + timedelta(minutes=1))
    day_before = await reminded(arena, 1)
    assert "<@" in day_before[0].content and "Posted late" not in day_before[0].content
    assert "**Brass Hounds** vs **Mire Kin**" in day_before[0].content
    clock.move(timedelta(hours=2))  # nothing else is due: no second post
    await d.slash(GUILD, CHANNEL, "bob", "schedule list", campaign="Ash Dates")
    assert len(reminders(arena)) == 1
    clock.move(later - timedelta(hours=1) - clock.now() + timedelta(minutes=1))
    assert len(await reminded(arena, 2)) == 2
    clock.move(timedelta(minutes=30))
    await d.slash(GUILD, CHANNEL, "bob", "schedule list", campaign="Ash Dates")
    assert len(reminders(arena)) == 2

    # The other server: its battle as it was, nothing posted there, no event made.
    assert await scheduled(arena, SPIRE, "Spire Dates") == spire_before
    assert not any(REMINDER in m.content for m in d.messages("general", guild=SPIRE))
    assert arena.fake.guild(SPIRE).scheduled_events == {}


async def test_prebattle_starts_the_event_and_calling_off_cancels_it(arena: Arena) -> None:
    d = arena.driver
    await bot_ready(arena)
    await new_campaign_of_two(d, "Dust Dates", "Tar Wardens", "Glass Jaws")
    await new_gang(d, "dan", "Dust Dates", "Rust Eels")
    await agreed(arena, "Dust Dates", "Tar Wardens", "Glass Jaws", in_days(arena, 3))
    await agreed(arena, "Dust Dates", "Tar Wardens", "Rust Eels", in_days(arena, 4))
    await event_named(arena, "Tar Wardens vs Rust Eels")
    await event_named(arena, "Tar Wardens vs Glass Jaws")
    started = await d.slash(GUILD, CHANNEL, "bob", "prebattle", gang1="Tar Wardens",
                            gang2="Glass Jaws", campaign="Dust Dates")
    assert not started.ephemeral, started.text()
    assert "The battle scheduled for" in started.text()
    await event_named(arena, "Tar Wardens vs Glass Jaws", status=2)  # active

    # eve is no player of it: refused; an Arbitrator calls it off.
    refused = await d.slash(GUILD, CHANNEL, "eve", "schedule cancel", gang="Tar Wardens",
                            opponent="Rust Eels", campaign="Dust Dates")
    assert refused.ephemeral and "Only a player of this battle" in refused.text()
    await slash(d, "alice", "schedule cancel", gang="Tar Wardens", opponent="Rust Eels",
                campaign="Dust Dates")
    await event_named(arena, "Tar Wardens vs Rust Eels", status=4)  # canceled
    states = sorted(status for status, _ in await scheduled(arena, GUILD, "Dust Dates"))
    assert states == [ScheduleStatus.CANCELLED.value, ScheduleStatus.STARTED.value]


async def test_settings_are_the_arbitrators_and_a_typed_time_is_read_in_their_zone(
    arena: Arena,
) -> None:
    d = arena.driver
    await bot_ready(arena)
    await new_campaign_of_two(d, "Zone Dates", "Pale Riders", "Soot Kings")
    refused = await d.slash(GUILD, CHANNEL, "bob", "schedule settings",
                            time_zone="Asia/Tokyo", campaign="Zone Dates")
    assert refused.ephemeral
    shown = await slash(d, "alice", "schedule settings", time_zone="Asia/Tokyo",
                        reminders="48h, 2h", event_hours=4, campaign="Zone Dates")
    assert "Asia/Tokyo" in shown and "48 h, 2 h" in shown and "4 h" in shown
    wrong = await d.slash(GUILD, CHANNEL, "alice", "schedule settings", time_zone="Mars/Base",
                          campaign="Zone Dates")
    assert wrong.ephemeral and "not a time zone" in wrong.text()
    when = in_days(arena, 5)
    tokyo = when + timedelta(hours=9)  # Tokyo keeps no summer time
    result = await d.slash(GUILD, CHANNEL, "bob", "schedule propose", gang="Pale Riders",
                           opponent="Soot Kings", when=tokyo.strftime("%Y-%m-%d %H:%M"),
                           campaign="Zone Dates")
    assert f"<t:{int(when.timestamp())}:F>" in result.text(), result.text()
    past = await d.slash(GUILD, CHANNEL, "bob", "schedule propose", gang="Pale Riders",
                         opponent="Soot Kings", when="2001-01-01 10:00", campaign="Zone Dates")
    assert past.ephemeral and "has passed" in past.text()


async def test_the_post_battle_sequence_ends_the_scheduled_battle_and_its_event(
    arena: Arena,
) -> None:
    await bot_ready(arena)
    camp = await campaign_of_two(arena, "Played Dates", "Ore Lords", "Cinder Dogs")
    await agreed(arena, camp, "Ore Lords", "Cinder Dogs", in_days(arena, 1), other="carol")
    await event_named(arena, "Ore Lords vs Cinder Dogs")
    started = await arena.driver.slash(GUILD, CHANNEL, "bob", "prebattle", gang1="Ore Lords",
                                       gang2="Cinder Dogs", campaign=camp)
    assert "The battle scheduled for" in started.text(), started.text()
    await event_named(arena, "Ore Lords vs Cinder Dogs", status=2)
    # The sequence records a battle of its own: it is the scheduled battle's end all the same.
    _, thread = await start(arena, "bob", camp, "Ore Lords", "Ore Lords", "Cinder Dogs")
    await submit(arena, thread, "Ore Lords", "bob")
    await submit(arena, thread, "Cinder Dogs", "carol")
    await run_through(arena, thread, ["bob", "carol"])
    await event_named(arena, "Ore Lords vs Cinder Dogs", status=3)  # completed
    assert [status for status, _ in await scheduled(arena, GUILD, camp)] == ["completed"]
