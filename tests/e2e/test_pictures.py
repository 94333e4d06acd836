"""Pictures through the real bot process: the roster card on /gang show, /campaign chart.

The attachments are read back from the fake Discord as the players' client
would get them, and decoded with Pillow.
"""

from __future__ import annotations

import io

from PIL import Image

from bot.pictures.canvas import A4_HEIGHT, A4_WIDTH
from bot.pictures.chart import CHART_HEIGHT, CHART_WIDTH
from bot.pictures.roster import RosterOptions, WeaponLine, paginate, roster_blocks, roster_card
from bot.storage import Campaign, Storage
from demo.arena import Arena
from fakediscord.entities import Attachment
from fakediscord.result import InteractionResult
from rules.battle_record import record_battle_fought
from rules.models import Battle, Gang
from tests.e2e.helpers import U, database, new_gang, ok, refused, slash
from tests.pictures.helpers import big_gang, reward

CAMPAIGN = "Picture Hive"


def pictures(result: InteractionResult) -> list[list[Attachment]]:
    """The attachments of each message the bot answered with."""
    return [message.attachments for message in result.messages]


def decoded(attachment: Attachment) -> Image.Image:
    assert attachment.filename.endswith(".png"), attachment.filename
    image = Image.open(io.BytesIO(attachment.data))
    image.load()
    assert image.format == "PNG"
    return image


async def card(arena: Arena, gang: str, **options: object) -> list[Attachment]:
    """/gang show's answer, checked public; its attachments, every message's in order."""
    shown = await slash(arena, "carol", "gang show", gang=gang, **options)
    assert not shown.ephemeral, shown.content
    assert shown.embeds, "the roster embed is still there"
    return [a for batch in pictures(shown) for a in batch]


async def guild_campaign(storage: Storage, arena: Arena) -> tuple[int, Campaign]:
    guild_id = arena.fake.world.guild(U).id
    return guild_id, await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)


async def test_gang_show_attaches_a_card_that_follows_the_roster(arena: Arena) -> None:
    await ok(arena, "carol", "campaign create", name=CAMPAIGN)
    await new_gang(arena, "alice", "Card Sharps")
    await ok(arena, "alice", "fighter add", gang="Card Sharps", name="Krull",
             fighter_type="Goliath Forge Tyrant")

    first = await card(arena, "Card Sharps")
    assert [a.filename for a in first] == ["roster-card-sharps.png"]
    assert decoded(first[0]).size == (A4_WIDTH, A4_HEIGHT)
    # Nothing changed: the same picture (drawn once, then from the cache).
    again = await card(arena, "card sharps")
    assert again[0].data == first[0].data

    await ok(arena, "alice", "fighter add", gang="Card Sharps", name="Vosk",
             fighter_type="Goliath Bruiser")
    changed = await card(arena, "Card Sharps")
    assert len(changed) == 1
    assert changed[0].data != first[0].data

    # Asked not to: the embed alone.
    assert await card(arena, "Card Sharps", card=False) == []


async def test_a_card_of_many_pages_comes_ten_pages_to_a_message(arena: Arena) -> None:
    async with database(arena) as storage:
        guild_id, campaign = await guild_campaign(storage, arena)
        gang = big_gang(200).model_copy(update={"name": "The Endless Horde"})
        stored = await storage.write(guild_id).create_gang(campaign.id, gang, actor="seed")
    expected = len(roster_card(stored))
    assert expected > 10
    shown = await slash(arena, "bob", "gang show", gang="The Endless Horde")
    assert not shown.ephemeral, shown.content
    # The pages after the tenth come in follow-ups, after the command's first answer.
    await arena.fake.world.notifier.wait_for(
        lambda: sum(map(len, pictures(shown))) >= expected, timeout=20.0,
        what=f"{expected} pages of the roster card",
    )
    batches = [batch for batch in pictures(shown) if batch]
    pages = [a for batch in batches for a in batch]
    assert [len(batch) for batch in batches] == [10, expected - 10]
    assert [a.filename for a in pages] == [
        f"roster-the-endless-horde-{n}.png" for n in range(1, expected + 1)
    ]
    assert {decoded(a).size for a in pages} == {(A4_WIDTH, A4_HEIGHT)}
    assert all(not m.ephemeral for m in shown.messages)


async def _fight(storage: Storage, guild_id: int, campaign: Campaign, battle: Battle,
                 rewards: dict[str, tuple[int, int]]) -> None:
    """A battle as the post-battle sequence stores it: Wrap-up, then rewards."""
    await storage.write(guild_id).create_battle(campaign.id, battle)
    async with storage.transaction(guild_id) as tx:
        world = await tx.load_world(campaign.id, battle.gang_ids)
        await tx.apply(campaign.id, record_battle_fought(world, battle), actor="seed",
                       battle_id=battle.id, step="1")
        for gang_id, (credits, reputation) in rewards.items():
            world = await tx.load_world(campaign.id, battle.gang_ids)
            await tx.apply(campaign.id, reward(world, gang_id, credits, reputation),
                           actor="seed", battle_id=battle.id, step="3")


async def chart(arena: Arena, **options: object) -> tuple[str, bytes]:
    shown = await slash(arena, "bob", "campaign chart", campaign=CAMPAIGN, **options)
    assert not shown.ephemeral, shown.content
    [[picture]] = pictures(shown)
    assert decoded(picture).size == (CHART_WIDTH, CHART_HEIGHT)
    return shown.content, picture.data


async def test_campaign_chart_draws_the_gangs_over_the_battles(arena: Arena) -> None:
    content, empty = await chart(arena)
    assert "no battles fought yet" in content

    await new_gang(arena, "bob", "Chart Toppers")
    async with database(arena) as storage:
        guild_id, campaign = await guild_campaign(storage, arena)
        gangs: dict[str, Gang] = {g.name: g for g in await storage.read(guild_id).list_gangs(
                                                                             campaign.id)}
        sharps, toppers = gangs["Card Sharps"].id, gangs["Chart Toppers"].id
        await _fight(storage, guild_id, campaign,
                     Battle(id="pic-b1", gang_ids=[sharps, toppers], winner=sharps),
                     {sharps: (60, 2), toppers: (10, 0)})
        await _fight(storage, guild_id, campaign,
                     Battle(id="pic-b2", gang_ids=[toppers, sharps], winner=toppers),
                     {toppers: (80, 1)})

    content, rating = await chart(arena)
    assert "**Picture Hive**: Gang Rating from the start to battle 2, 2 gangs." in content
    assert rating != empty
    content, wealth = await chart(arena, measure="Wealth")
    assert "Wealth" in content
    assert wealth != rating
    content, credits = await chart(arena, measure="Credits", gang="chart toppers")
    assert "**Chart Toppers**: Credits from the start to battle 2, 1 gang." in content
    assert credits not in (rating, wealth)

    # A new battle moves the chart on.
    async with database(arena) as storage:
        guild_id, campaign = await guild_campaign(storage, arena)
        await _fight(storage, guild_id, campaign,
                     Battle(id="pic-b3", gang_ids=[sharps, toppers], winner=None), {})
    content, later = await chart(arena)
    assert "to battle 3" in content
    assert later != rating


async def test_chart_refusals_are_private(arena: Arena) -> None:
    refusal = await refused(arena, "bob", "campaign chart", campaign=CAMPAIGN, gang="Nobody")
    assert "Nobody" in refusal
    refusal = await refused(arena, "bob", "campaign chart", campaign="No Such Hive")
    assert "No Such Hive" in refusal


async def test_the_campaigns_setting_decides_when_the_player_does_not(arena: Arena) -> None:
    settings = await ok(arena, "carol", "campaign settings", campaign=CAMPAIGN,
                        roster_cards=False)
    assert "Roster cards" in settings and "off" in settings
    assert await card(arena, "Card Sharps") == []
    asked = await card(arena, "Card Sharps", card=True)
    assert [a.filename for a in asked] == ["roster-card-sharps.png"]
    # A player who is no Arbitrator cannot change it; nothing changes.
    refusal = await refused(arena, "bob", "campaign settings", campaign=CAMPAIGN,
                            roster_cards=True)
    assert "Arbitrator" in refusal
    assert await card(arena, "Card Sharps") == []
    await ok(arena, "carol", "campaign settings", campaign=CAMPAIGN, roster_cards=True)
    assert [a.filename for a in await card(arena, "Card Sharps")] == ["roster-card-sharps.png"]


async def test_the_bots_setting_is_where_a_new_campaign_starts(arena: Arena) -> None:
    await arena.restart_bot(env={"MUNDA_PICTURES_ROSTER_CARD": "false"})
    try:
        # A campaign made before keeps its own setting.
        assert [a.filename for a in await card(arena, "Card Sharps")] == [
            "roster-card-sharps.png"]
        await ok(arena, "carol", "campaign create", name="Quiet Hive")
        await ok(arena, "carol", "gang create", name="Hushed", house="Goliath",
                 alignment="Law Abiding", campaign="Quiet Hive")
        assert await card(arena, "Hushed", campaign="Quiet Hive") == []
        asked = await card(arena, "Hushed", campaign="Quiet Hive", card=True)
        assert [a.filename for a in asked] == ["roster-hushed.png"]
    finally:
        await arena.restart_bot()


async def test_a_weapon_of_the_shipped_content_is_drawn_with_every_profile_line(
        arena: Arena) -> None:
    real = "Forge Hive"
    await ok(arena, "carol", "campaign create", name=real, ruleset="necromunda-2023")
    await ok(arena, "alice", "gang create", name="Forge Lords", house="Goliath",
             alignment="Law Abiding", credits=1000, campaign=real)
    await ok(arena, "alice", "fighter add", gang="Forge Lords", name="Krull",
             fighter_type="Goliath Forge Tyrant", campaign=real)
    await ok(arena, "alice", "fighter equip", fighter="Krull", item="Combat shotgun",
             campaign=real)
    shown = await slash(arena, "alice", "gang show", gang="Forge Lords", campaign=real)
    [page] = [a for batch in pictures(shown) for a in batch]
    async with database(arena) as storage:
        guild_id = arena.fake.world.guild(U).id
        campaign = await storage.read(guild_id).get_campaign_by_name(real)
        [stored] = [g for g in await storage.read(guild_id).list_gangs(campaign.id)
                    if g.name == "Forge Lords"]
    [krull] = stored.fighters
    [shotgun] = krull.equipment
    assert len(shotgun.profiles) == 5  # salvo, shredder, firestorm, gas, shatter
    # The card posted is the one drawn from the stored gang: its layout is the card's.
    owner = arena.fake.world.user("alice").display_name
    assert page.data == roster_card(stored, owner_name=owner)[0]
    [placed] = [p for p in paginate(roster_blocks(stored, RosterOptions(owner_name=owner)))[0]
                if p.block.title == "Krull"]
    rows = [part for part, _ in placed.block.parts(placed.x, placed.y)
            if isinstance(part, WeaponLine)]
    assert [row.row.profile for row in rows] == shotgun.profiles
