"""A server's campaign list holds its own campaigns only, while other servers have theirs."""

from __future__ import annotations

from bot.storage import Storage
from rules.models import CampaignSettings

from .conftest import GUILD_A, GUILD_B

GUILD_C = 444_444_444_444_444_444


async def test_each_server_lists_only_its_own_campaigns(storage: Storage) -> None:
    # Created interleaved, with a name two servers share, so neither order nor names
    # could make another server's campaigns look like this one's.
    made: dict[int, list[str]] = {GUILD_A: [], GUILD_B: []}
    for guild, name in [(GUILD_A, "Ash Wastes"), (GUILD_B, "Sump Deeps"),
                        (GUILD_A, "Dust Falls"), (GUILD_B, "Ash Wastes"),
                        (GUILD_B, "Hive Spire")]:
        made[guild].append((await storage.write(guild).create_campaign(
            CampaignSettings(name=name))).id)

    for guild, ids in made.items():
        listed = await storage.read(guild).list_campaigns()
        assert [c.id for c in listed] == ids
        assert {c.guild_id for c in listed} == {guild}
        async with storage.read_only(guild) as tx:
            assert [c.id for c in await tx.list_campaigns()] == ids
    assert [c.name for c in await storage.read(GUILD_A).list_campaigns(
        )] == ["Ash Wastes", "Dust Falls"]
    assert await storage.read(GUILD_C).list_campaigns() == []

    # Deleting one server's campaign leaves the other's list as it was.
    await storage.write(GUILD_B).delete_campaign(made[GUILD_B][0])
    assert [c.id for c in await storage.read(GUILD_B).list_campaigns()] == made[GUILD_B][1:]
    assert [c.id for c in await storage.read(GUILD_A).list_campaigns()] == made[GUILD_A]


async def test_deleting_a_default_hands_it_to_the_same_servers_next_campaign(
    storage: Storage,
) -> None:
    # Server A's campaigns are the oldest in the file, so a choice made among every
    # server's campaigns would land on one of A's, leaving B without a default.
    a_first = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Ash Wastes"))
    a_second = await storage.write(GUILD_A).create_campaign(CampaignSettings(name="Dust Falls"))
    b_first = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Sump Deeps"))
    b_second = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Hive Spire"))
    b_third = await storage.write(GUILD_B).create_campaign(CampaignSettings(name="Ash Wastes"))
    assert (await storage.read(GUILD_B).get_default_campaign()).id == b_first.id

    await storage.write(GUILD_B).delete_campaign(b_first.id)

    defaults = [c.id for c in await storage.read(GUILD_B).list_campaigns() if c.is_default]
    assert defaults == [b_second.id]
    assert (await storage.read(GUILD_B).get_default_campaign()).id == b_second.id
    assert not (await storage.read(GUILD_B).get_campaign(b_third.id)).is_default
    # Server A keeps its own default, and only that one.
    defaults = [c.id for c in await storage.read(GUILD_A).list_campaigns() if c.is_default]
    assert defaults == [a_first.id]
    assert not (await storage.read(GUILD_A).get_campaign(a_second.id)).is_default
