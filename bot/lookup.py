"""Names as players type them, found on a roster: the one place commands look things up.

Names compare as storage compares them: case-folded, whitespace collapsed.
A name that is not there is refused with a message naming what was looked
for and where.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from bot.storage import Campaign
from rules.errors import NotFound
from rules.models import Fighter, Gang, Item


class NameReads(Protocol):
    """The reads a name lookup needs; a storage Transaction is one."""

    async def get_campaign_by_name(self, name: str) -> Campaign: ...
    async def get_default_campaign(self) -> Campaign: ...
    async def get_gang_by_name(self, campaign_id: str, name: str) -> Gang: ...
    async def find_fighter(self, campaign_id: str, name: str) -> tuple[Gang, Fighter]: ...


class HasId(Protocol):
    @property
    def id(self) -> str: ...


def same_name(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def pick_fighter(gang: Gang, name: str) -> Fighter:
    for fighter in gang.fighters:
        if same_name(fighter.name, name):
            return fighter
    raise NotFound(f"{gang.name} has no fighter called '{name}'.")


def pick_item(items: Iterable[Item], name: str, where: str) -> Item:
    for item in items:
        if same_name(item.name, name):
            return item
    raise NotFound(f"{where} holds no item called '{name}'.")


async def campaign_named(source: NameReads, name: str | None) -> Campaign:
    """The named campaign of the server, or its default one when no name is given."""
    if name and name.strip():
        return await source.get_campaign_by_name(name)
    return await source.get_default_campaign()


async def fighter_in(
    source: NameReads, campaign: HasId, fighter_name: str, gang_name: str | None
) -> tuple[Gang, Fighter]:
    """A fighter by name, in the named gang or anywhere in the campaign (names are unique)."""
    if gang_name:
        gang = await source.get_gang_by_name(campaign.id, gang_name)
        return gang, pick_fighter(gang, fighter_name)
    return await source.find_fighter(campaign.id, fighter_name)
