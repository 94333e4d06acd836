"""/postbattle start's in-memory index: it says a start passes only when storage would
say so now, and nothing once the server has been written to since it was read."""

from __future__ import annotations

from bot.battle import flow
from bot.battle.start_index import StartAsked, StartIndex
from bot.call import Actor
from bot.storage import Campaign, Storage
from rules.models import Battle, CampaignSettings
from tests import factories as f

GUILD = 444_444_444_444_444_444
OTHER = 555_555_555_555_555_555
ALICE, BOB, STRANGER, ARBITER = Actor(10), Actor(20), Actor(30), Actor(99)


async def _campaign(storage: Storage) -> Campaign:
    campaign = await storage.write(GUILD).create_campaign(CampaignSettings(name="Underhive"),
                                             arbitrator_user_ids=[99])
    for name, gang_id, owner in (("Ash Wolves", "g1", "10"), ("Iron Fangs", "g2", "20"),
                                 ("Sump Rats", "g3", "30"), ("Grey Lice", "g4", "10")):
        gang = f.gang(name, fighters=[], id=gang_id, owner=owner)
        await storage.write(GUILD).create_gang(campaign.id, gang, actor="1")
    return campaign


def _asked(*gangs: str, winner: str = "Ash Wolves", campaign: str | None = None,
           territory: str | None = None) -> StartAsked:
    return StartAsked(campaign, gangs, winner, territory, None)


async def test_it_says_a_start_passes_exactly_when_its_checks_would(storage: Storage) -> None:
    await _campaign(storage)
    index = StartIndex(storage)
    assert not index.passes(GUILD, ALICE, _asked("Ash Wolves", "Iron Fangs"))  # not read yet
    await index.read(GUILD)
    assert index.passes(GUILD, ALICE, _asked("Ash Wolves", "Iron Fangs"))
    assert index.passes(GUILD, BOB, _asked("ash wolves", "IRON FANGS", winner="draw"))
    assert index.passes(GUILD, ARBITER, _asked("Ash Wolves", "Iron Fangs",
                                               campaign="underhive"))
    assert not index.passes(GUILD, STRANGER, _asked("Ash Wolves", "Iron Fangs"))
    assert not index.passes(GUILD, ALICE, _asked("Ash Wolves", "Nobody"))
    assert not index.passes(GUILD, ALICE, _asked("Ash Wolves"))
    assert not index.passes(GUILD, ALICE, _asked("Ash Wolves", "Ash Wolves"))
    assert not index.passes(GUILD, ALICE, _asked("Ash Wolves", "Iron Fangs", winner="Sump Rats"))
    assert not index.passes(GUILD, ALICE, _asked("Ash Wolves", "Iron Fangs", campaign="Else"))
    assert not index.passes(GUILD, ALICE, _asked("Ash Wolves", "Iron Fangs",
                                                 territory="Nowhere"))
    assert not index.passes(OTHER, ALICE, _asked("Ash Wolves", "Iron Fangs"))
    await index.reads_done()


async def test_a_write_to_the_server_makes_it_stale_until_read_again(storage: Storage) -> None:
    campaign = await _campaign(storage)
    index = StartIndex(storage)
    await index.read(GUILD)
    assert index.passes(GUILD, BOB, _asked("Iron Fangs", "Sump Rats", winner="Iron Fangs"))
    # Bob's gang joins a run in progress: the start is refused now.
    battle = await storage.write(GUILD).create_battle(campaign.id, Battle(
        id="b1", gang_ids=["g2", "g3"], winner="g2", campaign=True))
    world = await storage.read(GUILD).load_world(campaign.id, ["g2", "g3"])
    run = flow.new_run(BOB, campaign, battle, world, skirmish=False, sequence_id="s1",
                       channel_id=5)
    async with storage.transaction(GUILD) as tx:
        await tx.save_sequence(campaign.id, run.key, run, battle_id=run.battle_id)
    assert not index.passes(GUILD, BOB, _asked("Iron Fangs", "Sump Rats", winner="Iron Fangs"))
    await index.read(GUILD)
    assert not index.passes(GUILD, BOB, _asked("Iron Fangs", "Sump Rats", winner="Iron Fangs"))
    assert index.passes(GUILD, ALICE, _asked("Ash Wolves", "Grey Lice"))  # not in that run
    await storage.read(GUILD).list_campaigns()  # a read changes nothing
    assert index.passes(GUILD, ALICE, _asked("Ash Wolves", "Grey Lice"))
    await index.reads_done()
