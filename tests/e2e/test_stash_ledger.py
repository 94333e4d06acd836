"""/stash and /ledger through the real bot process against the fake Discord."""

from __future__ import annotations

import re

import pytest
import pytest_asyncio

from demo.arena import Arena
from fakediscord import CommandInputError
from tests.e2e.helpers import new_gang, ok, refused, said, slash, stash


@pytest_asyncio.fixture(loop_scope="module", scope="module", autouse=True)
async def campaign(arena: Arena) -> str:
    await ok(arena, "alice", "campaign create", name="Ledger Wars")
    return "Ledger Wars"


def user_id(arena: Arena, name: str) -> int:
    return arena.fake.world.user(name).id


# --------------------------------------------------------------------------- stash


async def test_credits_in_and_out_and_overspending_is_refused(arena: Arena) -> None:
    gang = await new_gang(arena, "bob", "Coin Rats")
    text = await ok(arena, "bob", "stash add", gang=gang, credits=250)
    assert "credits 1000 → 1250" in text
    text = await ok(arena, "bob", "stash remove", gang=gang, credits=300)
    assert "credits 1250 → 950" in text

    message = await refused(arena, "bob", "stash remove", gang=gang, credits=5000)
    assert "950" in message and "5,000" in message
    for bad in (0, -20, 10_001, 10**15):
        message = await refused(arena, "bob", "stash add", gang=gang, credits=bad)
        assert "between 1 and 10,000" in message, message
    assert "between" in await refused(arena, "bob", "stash remove", gang=gang, credits=-5)
    assert "Give an item, credits, or both" in await refused(arena, "bob", "stash add",
                                                             gang=gang)
    assert "**950** credits" in await stash(arena, gang)


async def test_items_in_and_out(arena: Arena) -> None:
    gang = await new_gang(arena, "bob", "Junk Rats")
    text = await ok(arena, "bob", "stash add", gang=gang, item="lasgun", credits=20)
    assert "➕ Lasgun to the Stash" in text and "credits 1000 → 1020" in text
    assert "cost" in await refused(arena, "bob", "stash add", gang=gang, item="Lucky charm")
    await ok(arena, "bob", "stash add", gang=gang, item="Lucky charm", cost=10)
    await ok(arena, "bob", "stash add", gang=gang, item="Big gun", cost=80, kind="weapon",
             two_slots=True)
    assert "listed as weapon, not armour" in await refused(
        arena, "bob", "stash add", gang=gang, item="Lasgun", kind="armour")
    shown = await stash(arena, gang)
    assert "Lasgun · weapon · 15 credits" in shown
    assert "Lucky charm · wargear · 10 credits" in shown
    assert "Big gun · weapon (two weapon slots) · 80 credits" in shown

    assert "no item called" in await refused(arena, "bob", "stash remove", gang=gang,
                                             item="Nothing")
    text = await ok(arena, "bob", "stash remove", gang=gang, item="lucky charm")
    assert "➖ Lucky charm from the Stash" in text
    assert "Lucky charm" not in await stash(arena, gang)


async def test_stash_changes_need_the_owner_or_an_arbitrator(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Locked Rats")
    await ok(arena, "alice", "stash add", gang=gang, item="Autogun")
    before = await stash(arena, gang)
    assert "not your gang" in await refused(arena, "bob", "stash add", gang=gang, credits=5)
    assert "not your gang" in await refused(arena, "bob", "stash remove", gang=gang,
                                            credits=5)
    assert "not your gang" in await refused(arena, "bob", "stash remove", gang=gang,
                                            item="Autogun")
    assert await stash(arena, gang) == before
    await ok(arena, "carol", "stash add", gang=gang, credits=5)


async def test_hostile_item_name_is_stored_and_shown_escaped(arena: Arena) -> None:
    gang = await new_gang(arena, "bob", "Odd Rats")
    hostile = ("@everyone **bold** ||spoiler|| " + "_" * 100)[:100]
    result = await slash(arena, "bob", "stash add", gang=gang, item=hostile, cost=1)
    assert not result.ephemeral
    shown = await slash(arena, "bob", "stash show", gang=gang)
    text = said(shown)
    assert r"\*\*bold\*\*" in text and r"\|\|spoiler\|\|" in text
    assert "@everyone" not in text.replace("@\u200beveryone", "")
    assert shown.message is not None and shown.message.pinged_user_ids() == []


# --------------------------------------------------------------------------- ledger


async def test_ledger_shows_edits_with_before_after_who_and_when(arena: Arena) -> None:
    gang = await new_gang(arena, "alice", "Booked Rats")
    await ok(arena, "alice", "fighter add", gang=gang, name="Scribe",
             fighter_type="Goliath Bruiser",
             profile='M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+')
    await ok(arena, "alice", "fighter edit", fighter="Scribe", cost=60, bs=3)
    await ok(arena, "alice", "stash add", gang=gang, credits=15)

    result = await slash(arena, "bob", "ledger", gang=gang)  # anyone may read it
    assert not result.ephemeral
    text = said(result)
    assert "Scribe: cost 55 → 60" in text and "Scribe: bs 4 → 3" in text
    assert "Booked Rats: credits 1000 → 1015" in text
    assert f"<@{user_id(arena, 'alice')}>" in text
    assert re.search(r"<t:\d+:f>", text)
    # Newest first: the Stash credits, then the edit, then the fighter joining.
    assert text.index("credits 1000 → 1015") < text.index("cost 55 → 60")
    assert text.index("cost 55 → 60") < text.index("Scribe joins the roster")
    assert "Edit Scribe" in text
    # Mention text pings nobody: the bot sends with mentions off.
    assert all(m.pinged_user_ids() == [] for m in result.messages)

    text = await ok(arena, "bob", "ledger", gang=gang, limit=1)
    assert "credits 1000 → 1015" in text and "cost 55" not in text


async def test_ledger_refusals_and_limits(arena: Arena) -> None:
    assert "no battle" in await refused(arena, "bob", "ledger", battle="nope")
    assert "no gang called" in await refused(arena, "bob", "ledger", gang="Ghost Rats")
    # A typo gets the nearest gang's name.
    await new_gang(arena, "bob", "The Slag Lords")
    assert ("There is no gang called 'Slag Lord' in this campaign. Did you mean "
            "'The Slag Lords'?") in await refused(arena, "bob", "gang show", gang="Slag Lord")
    with pytest.raises(CommandInputError):
        await slash(arena, "bob", "ledger", limit=26)
    with pytest.raises(CommandInputError):
        await slash(arena, "bob", "ledger", limit=0)


async def test_a_long_ledger_is_paged_within_discord_limits(arena: Arena) -> None:
    name = ("L" * 60 + " **@everyone**" + "_" * 60)[:100]
    gang = await new_gang(arena, "alice", name)
    await ok(arena, "alice", "fighter add", gang=gang, name=name[:99] + "F",
             category="Ganger", cost=10)
    for credits in range(1, 13):
        await ok(arena, "alice", "stash add", gang=gang, item=f"{name[:90]} {credits}",
                 cost=credits, credits=credits)
    result = await slash(arena, "bob", "ledger", gang=gang, limit=25)
    assert not result.ephemeral and not result.errors
    embeds = [e for m in result.messages for e in m.embeds]
    assert len(embeds) >= 2  # more than one page
    for message in result.messages:
        assert len(message.embeds) <= 10
        total = sum(len(e.get("title", "")) + len(e.get("description", ""))
                    + len((e.get("footer") or {}).get("text", "")) for e in message.embeds)
        assert total <= 6000
    for embed in embeds:
        assert len(embed["description"]) <= 4096 and len(embed["title"]) <= 256
    assert "@everyone" not in said(result).replace("@\u200beveryone", "")
