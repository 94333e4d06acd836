"""Names as players type them, found on a roster: the one place commands look things up.

Names compare as storage compares them, on their key (rules/names.py: the
clean name, case-folded, look-alike letters folded).
A name that is not there is refused with a message naming what was looked
for and where.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Protocol, TypeVar

from bot.render import safe
from bot.storage import Campaign
from rules.errors import InvalidRequest, NotEligible, NotFound
from rules.models import Fighter, FighterStatus, Gang, Item, Vehicle
from rules.names import same_name


class NameReads(Protocol):
    """The reads a name lookup needs; a storage Transaction is one."""

    async def get_campaign_by_name(self, name: str) -> Campaign: ...
    async def get_default_campaign(self) -> Campaign: ...
    async def get_gang_by_name(self, campaign_id: str, name: str) -> Gang: ...
    async def find_fighter(self, campaign_id: str, name: str) -> tuple[Gang, Fighter]: ...
    async def list_gangs(self, campaign_id: str, *, owner: str | None = None) -> list[Gang]: ...


E = TypeVar("E", bound=StrEnum)


class HasId(Protocol):
    @property
    def id(self) -> str: ...


class HasName(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=HasName)


def first_named(things: Iterable[N], name: str) -> N | None:
    """The first of ``things`` called ``name`` (compared as storage compares names), if any."""
    return next((thing for thing in things if same_name(thing.name, name)), None)


def choice_named(choices: Iterable[E], text: str) -> E | None:
    """The choice (an enum's value) named by what was typed, if any."""
    return next((choice for choice in choices if same_name(choice.value, text)), None)


def pick_choice(choices: Iterable[E], text: str, refusal: Callable[[str], str]) -> E:
    """The choice named by ``text``; else InvalidRequest(``refusal`` of the choices' list)."""
    offered = list(choices)
    found = choice_named(offered, text)
    if found is None:
        raise InvalidRequest(refusal(", ".join(choice.value for choice in offered)))
    return found


def pick(things: Iterable[N], name: str, missing: str) -> N:
    """The one of ``things`` called ``name``; ``missing`` is the refusal when none is."""
    found = first_named(things, name)
    if found is None:
        raise NotFound(missing)
    return found


def pick_fighter(gang: Gang, name: str) -> Fighter:
    return pick(gang.fighters, name, f"{gang.name} has no fighter called '{name}'.")


def pick_item(items: Iterable[Item], name: str, where: str) -> Item:
    return pick(items, name, f"{where} holds no item called '{name}'.")


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


async def vehicle_in(
    source: NameReads, campaign: HasId, name: str, gang_name: str | None
) -> tuple[Gang, Vehicle]:
    """A vehicle by name (on the roster or in the Stash), in the named gang or any gang."""
    gangs = ([await source.get_gang_by_name(campaign.id, gang_name)] if gang_name
             else await source.list_gangs(campaign.id))
    for gang in gangs:
        for vehicle in [*gang.vehicles, *gang.stash_vehicles]:
            if same_name(vehicle.name, name):
                return gang, vehicle
    where = gangs[0].name if gang_name and gangs else "this campaign"
    raise NotFound(f"There is no vehicle called '{name}' in {where}.")


async def captive_in(
    source: NameReads, campaign: HasId, name: str
) -> tuple[Gang, Fighter, Gang]:
    """A captive by name: its gang, the captive and the gang holding it."""
    owner, captive = await source.find_fighter(campaign.id, name)
    if captive.status is not FighterStatus.CAPTURED or captive.captured_by is None:
        raise NotEligible(f"{safe(captive.name)} of {safe(owner.name)} is not held captive.")
    gangs = {g.id: g for g in await source.list_gangs(campaign.id)}
    captor = gangs.get(captive.captured_by)
    if captor is None:
        raise NotEligible(f"The gang holding {safe(captive.name)} no longer exists; ask an "
                          "Arbitrator to set its status.")
    return owner, captive, captor
