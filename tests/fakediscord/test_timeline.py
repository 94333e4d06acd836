"""The channels in time order: each message as first posted, each edit when it happened."""

from __future__ import annotations

from fakediscord import FakeDiscord
from fakediscord.entities import Channel
from fakediscord.store import edit_message, post_message
from fakediscord.timeline import Timeline
from fakediscord.transcript import render_channel
from fakediscord.world import World


def underhive() -> tuple[World, Timeline, Channel]:
    """The demo's world, a timeline of it from now on, and its #general."""
    world = FakeDiscord.demo(token="t").world
    return world, Timeline(world), world.channel("general", "Underhive")


def test_an_edit_is_shown_when_it_happens_and_only_what_changed() -> None:
    world, timeline, general = underhive()
    step = post_message(world, general, world.bot, {"embeds": [
        {"title": "Wrap-up", "description": "Zell rolls 52: Enfeebled.\nConfirmed: nobody"}]})
    post_message(world, general, world.user("alice"), {"content": "Looks right to me."})
    edit_message(world, step, {"embeds": [
        {"title": "Wrap-up", "description": "Zell rolls 52: Enfeebled.\nConfirmed: Alice"}]})
    text = timeline.render(general)
    assert text.splitlines() == [
        "Munda Arbitrator (bot):",
        "    | **Wrap-up**",
        "    | Zell rolls 52: Enfeebled.",
        "    | Confirmed: nobody",
        "Alice: Looks right to me.",
        "Munda Arbitrator (bot) edited 'Wrap-up':",
        "    -     | Confirmed: nobody",
        "    +     | Confirmed: Alice",
    ]
    # The final-state rendering shows the step once, as it ended, before Alice spoke.
    final = render_channel(world, general)
    assert final.index("Confirmed: Alice") < final.index("Looks right to me.")
    assert text.count("Zell rolls 52") == 1


def test_a_step_that_lists_the_notice_just_posted_says_so_once() -> None:
    world, timeline, general = underhive()
    step = post_message(world, general, world.bot, {"embeds": [
        {"title": "Receive Rewards", "description": "Nothing done yet."}]})
    post_message(world, general, world.bot, {
        "content": "**Receive Rewards** (by Alice)\nThe Slag Lords adds 30 credits."})
    edit_message(world, step, {"embeds": [{"title": "Receive Rewards", "description":
                                           "**Receive Rewards** (by Alice)\n"
                                           "The Slag Lords adds 30 credits."}]})
    text = timeline.render(general)
    assert text.count("The Slag Lords adds 30 credits.") == 1
    assert text.splitlines()[-3:] == [
        "Munda Arbitrator (bot) edited 'Receive Rewards':",
        "    -     | Nothing done yet.",
        "    + (the 2 lines of the message above)",
    ]
