"""One post-battle action deals with several captives: a comma list in ``target``.

Through the real bot and the fake Discord: the captor's fighter sells two of
three captives to the Guilders with one /action take; each is priced on its
own, the third stays held, and a list naming someone who is no captive is
refused with nothing changed. Bob and dan are plain players.
"""

from __future__ import annotations

import pytest

from demo.arena import Arena
from rules.models import Fighter, FighterCategory
from tests.e2e.battle_helpers import (
    CHANNEL,
    GUILD,
    at_post_battle_actions,
    battle_reported,
    credits_of,
    new_campaign,
    new_gang_with,
    slash,
)
from tests.e2e.helpers import database

pytestmark = pytest.mark.usefixtures("players")

CAMPAIGN = "Bulk Captives"


async def held(arena: Arena, captives: dict[str, int]) -> None:
    """Seed dan's fighters ``captives`` (name: cost), held by the Slavers with their
    rescue chance given, as earlier battles would have left them."""
    guild_id = arena.fake.world.guild(GUILD).id
    async with database(arena) as storage:
        campaign = await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)
        victims = await storage.read(guild_id).get_gang_by_name(campaign.id, "Victims")
        captor = await storage.read(guild_id).get_gang_by_name(campaign.id, "Slavers")
        for index, (name, cost) in enumerate(captives.items()):
            fighter = Fighter(id=f"bulk{index}", name=name, category=FighterCategory.GANGER,
                              fighter_type="Goliath Bully", cost=cost)
            fighter.capture(captor.id)
            fighter.rescue_chance_given = True
            await storage.write(guild_id).add_fighter(
                campaign.id, victims.id, fighter, actor="seed")


@pytest.mark.rule("PB-5.2")
async def test_one_action_sells_several_captives(arena: Arena) -> None:
    d = arena.driver
    await new_campaign(d, CAMPAIGN)
    await new_gang_with(d, "bob", CAMPAIGN, "Slavers", {"Slave Boss": "Goliath Forge Tyrant"})
    await new_gang_with(d, "dan", CAMPAIGN, "Victims", {"Victim Boss": "Goliath Forge Tyrant"},
                        alignment="Outlaw")
    await held(arena, {"Cap One": 30, "Cap Two": 50, "Cap Three": 40})
    thread = await battle_reported(arena, CAMPAIGN, "Slavers", "Victims")
    await at_post_battle_actions(d, thread, ["bob", "dan"])

    # The target option completes a comma list: what is typed stays, the rest is offered.
    offered = await d.autocomplete(GUILD, CHANNEL, "bob", "action take", focused="target",
                                   fighter="Slave Boss", action="Sell to the Guilders",
                                   target="Cap One, cap t", campaign=CAMPAIGN)
    assert sorted(c.value for c in offered) == ["Cap One, Cap Three", "Cap One, Cap Two"]

    credits = await credits_of(arena, "Slavers", CAMPAIGN)
    wrong = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Slave Boss",
                          action="Sell to the Guilders", target="Cap One, Nobody",
                          campaign=CAMPAIGN)
    assert wrong.ephemeral and "Nobody is not a captive" in wrong.text(), wrong.text()
    twice = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Slave Boss",
                          action="Sell to the Guilders", target="Cap One, cap one",
                          campaign=CAMPAIGN)
    assert twice.ephemeral and "named twice" in twice.text(), twice.text()
    assert await credits_of(arena, "Slavers", CAMPAIGN) == credits

    sold = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Slave Boss",
                         action="Sell to the Guilders", target="Cap One, Cap Two",
                         campaign=CAMPAIGN)
    assert "Something went wrong" not in sold.text()
    # Half of each one's cost, rounded up to 5 each: 15 and 25.
    assert await credits_of(arena, "Slavers", CAMPAIGN) == credits + 40
    listed = await slash(d, "dan", "captive list", campaign=CAMPAIGN)
    assert "Cap Three" in listed and "Cap One" not in listed and "Cap Two" not in listed
    # One action: the Slave Boss cannot act again.
    again = await d.slash(GUILD, CHANNEL, "bob", "action take", fighter="Slave Boss",
                          action="Sell to the Guilders", target="Cap Three", campaign=CAMPAIGN)
    assert again.ephemeral and "already made its post-battle action" in again.text()
