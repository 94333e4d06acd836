"""Listing a server's campaigns validates their imported Trading Posts off the event loop,
once for each stored text.

Every /campaign import lists the server's campaigns (who may import, is the name
free); so do autocomplete and the battle commands. A campaign whose Trading Post
was imported at the bounds (2000 items) costs about 30 ms to validate; on the
loop's thread, a server with several of them held every import up for 100-200 ms
(docs/importing.md, "Off the event loop"). Validated again at every listing,
they were also freed again on the loop: 2-4 ms for each.

Which thread ran what is read with a profile hook on the loop's thread
(``sys.setprofile`` is per thread): no clock is involved.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from bot.storage import Campaign, Storage, TradingPostEntry, campaigns
from rules.limits import MAX_TRADING_POST_ITEMS
from rules.models import Availability, EquipmentKind, Rarity
from tests.storage.conftest import ACTOR, GUILD_A, campaign

__all__ = ["campaign"]  # a fixture; db_path and storage come from tests/conftest.py

WATCHED = {
    campaigns.trading_post_from_text.__code__: "trading_post_from_text",
    # Runs on the loop whatever the size: seen, it shows the hook was live there.
    campaigns.list_all.__code__: "list_all",
}


@contextmanager
def called_on_this_thread() -> Iterator[set[str]]:
    seen: set[str] = set()

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event == "call" and frame.f_code in WATCHED:
            seen.add(WATCHED[frame.f_code])

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)


def trading_post_at_the_bounds() -> list[TradingPostEntry]:
    return [
        TradingPostEntry(
            name=f"Item {n:04d}", cost=10 + n % 90, kind=EquipmentKind.WEAPON,
            availability=Availability(rarity=Rarity.RARE, level=7 + n % 5),
            category="Basic Weapons",
        )
        for n in range(MAX_TRADING_POST_ITEMS)
    ]


async def test_campaigns_with_large_trading_posts_are_listed_off_the_loop(
    storage: Storage, campaign: Campaign
) -> None:
    entries = trading_post_at_the_bounds()
    await storage.write(GUILD_A).set_trading_post(campaign.id, entries, actor=ACTOR, note="bench")
    with called_on_this_thread() as on_loop:
        listed = await storage.read(GUILD_A).list_campaigns()
    assert on_loop == {"list_all"}
    assert [c.trading_post for c in listed if c.id == campaign.id] == [entries]


async def test_a_stored_trading_post_is_validated_once_for_every_listing(
    storage: Storage, campaign: Campaign
) -> None:
    entries = trading_post_at_the_bounds()
    await storage.write(GUILD_A).set_trading_post(campaign.id, entries, actor=ACTOR, note="bench")
    first, again = [
        next(c.trading_post for c in await storage.read(GUILD_A).list_campaigns()
             if c.id == campaign.id)
        for _ in range(2)
    ]
    assert first == again == entries
    assert first is not again
    assert all(a is b for a, b in zip(first, again, strict=True))
    replaced = entries[:10]
    await storage.write(GUILD_A).set_trading_post(campaign.id, replaced, actor=ACTOR, note="bench")
    assert [c.trading_post for c in await storage.read(GUILD_A).list_campaigns()
            if c.id == campaign.id] == [replaced]
