"""Every field of every model survives a real SQLite round trip through the storage layer.

Hypothesis builds whole campaigns: gangs with fighters, vehicles, items and
Stash, territories, a battle with end states, the campaign's settings and its
own Trading Post. Each is written through :class:`bot.storage.Storage` to a
real SQLite file (a server of its own per example) and read back, by every
way the bot reads it; one gang is then replaced by another to exercise the
roster writer's updates.

Each model's strategy must name every one of its fields (``every_field``), so
a field added to a model later without a strategy fails here at once, and a
field that storage forgets to write or to read back fails as soon as
Hypothesis gives it a value other than its default.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from bot.storage import Storage, TradingPostEntry
from bot.storage.codec import name_key
from rules import models
from rules.models import (
    Advancement,
    Alignment,
    Availability,
    Battle,
    BoonKind,
    CampaignSettings,
    EquipmentKind,
    Fighter,
    FighterCategory,
    FighterEndState,
    FighterStatus,
    Gang,
    Item,
    Profile,
    Rarity,
    RecruitOutcome,
    ScenarioDie,
    Territory,
    TerritoryBoon,
    Vehicle,
    VehicleEndState,
    VehicleStatus,
    WeaponProfile,
)
from rules.world import World

M = TypeVar("M", bound=BaseModel)

ACTOR = "333333333333333333"
SETTINGS = settings(
    max_examples=30, deadline=None, derandomize=True,
    # A failure names the field that differs (check()); shrinking the campaign that
    # showed it takes minutes of database round trips and adds little.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    # The database fixture is shared by the examples on purpose: one file, a server each.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
)

# --------------------------------------------------------------------------- strategies

# Fields each strategy gives, by model: checked against the models' own fields.
COVERED: dict[type[BaseModel], frozenset[str]] = {}


def every_field(
    model: type[M], *given_later: str, **strategies: st.SearchStrategy[Any]
) -> Callable[..., st.SearchStrategy[M]]:
    """A builder of ``model`` with a strategy for each field, remembered for the check.

    ``given_later`` names the fields whose values depend on the rest of the
    campaign (ids, names, contents): the builder takes them as keyword arguments.
    """
    COVERED[model] = frozenset(strategies) | frozenset(given_later)

    def build(**values: Any) -> st.SearchStrategy[M]:
        assert set(values) == set(given_later), f"{model.__name__} takes {given_later}"
        return st.builds(model, **strategies, **{k: st.just(v) for k, v in values.items()})

    return build


def persisted_models() -> list[type[BaseModel]]:
    """Every model of rules.models (the base excepted), and the Trading Post entry."""
    found = [
        value for value in vars(models).values()
        if inspect.isclass(value) and issubclass(value, models.Model)
        and value is not models.Model and value.__module__ == models.__name__
    ]
    return [*found, TradingPostEntry]


def uncovered_fields() -> dict[str, list[str]]:
    """Fields of a model no strategy gives (a subclass's strategy counts for its base)."""
    missing: dict[str, list[str]] = {}
    for model in persisted_models():
        given_by = [fields for built, fields in COVERED.items() if issubclass(built, model)]
        if not any(fields >= set(model.model_fields) for fields in given_by):
            gaps = set(model.model_fields) - (given_by[0] if given_by else frozenset())
            missing[model.__name__] = sorted(gaps)
    return missing


def texts(min_size: int = 0, max_size: int = 30) -> st.SearchStrategy[str]:
    """Any text that can be stored as text: everything but lone surrogates."""
    return st.text(st.characters(exclude_categories=["Cs"]), min_size=min_size,
                   max_size=max_size)


def plain_name(text: str) -> str:
    """Names as the bot keeps them: normalised, no spaces at the ends or doubled."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


name_text = (
    st.text(st.characters(categories=["L", "N", "P", "Zs"]), min_size=1, max_size=30)
    .map(plain_name)
    .filter(lambda name: 0 < len(name) <= 100 and plain_name(name) == name)
)
maybe_text = st.none() | texts(1, 40)
text_lists = st.lists(texts(), max_size=3)
credits = st.integers(0, 1_000_000)
counts = st.integers(0, 100_000)


def bounded_int(model: type[BaseModel], field: str) -> st.SearchStrategy[int]:
    """Integers within the bounds the model declares for ``field``."""
    low, high = 0, 1_000_000
    for meta in model.model_fields[field].metadata:
        low = getattr(meta, "ge", low)
        high = getattr(meta, "le", high)
    return st.integers(low, high)


def unique_ids(count: int) -> st.SearchStrategy[list[str]]:
    return st.lists(texts(1, 64), min_size=count, max_size=count, unique=True)


def unique_names(count: int) -> st.SearchStrategy[list[str]]:
    return st.lists(name_text, min_size=count, max_size=count, unique_by=name_key)


availabilities = st.one_of(
    every_field(Availability, rarity=st.sampled_from([Rarity.COMMON, Rarity.EXCLUSIVE]),
                level=st.none())(),
    every_field(Availability, rarity=st.sampled_from([Rarity.RARE, Rarity.ILLEGAL]),
                level=st.integers(0, 99))(),
)
short_texts = texts(max_size=12)
weapon_profiles = every_field(
    WeaponProfile, name=texts(max_size=60), short_range=short_texts, long_range=short_texts,
    short_accuracy=short_texts, long_accuracy=short_texts, strength=short_texts,
    ap=short_texts, damage=short_texts, ammo=short_texts,
    traits=st.lists(texts(1, 60), max_size=3),
)()
_equipment_fields: dict[str, st.SearchStrategy[Any]] = {
    "name": name_text, "cost": credits, "kind": st.sampled_from(EquipmentKind),
    "availability": availabilities, "two_slots": st.booleans(), "grants_mounted": st.booleans(),
    "profiles": st.lists(weapon_profiles, max_size=2),
    # Only the shipped catalogue's entries have them (an Equipment List's Trading Post tick,
    # the data's source); an owned item or a campaign's own Trading Post line never does.
    "trading_post": st.just(False), "source": st.just(""),
}
trading_post_entries = every_field(TradingPostEntry, **_equipment_fields,
                                   category=texts(max_size=100))()
# A characteristic may be absent ("-"), and a whole profile not set (None). Built from a
# dictionary: st.builds would apply the fields' bounds to None as well.
_profile_fields = {field: st.none() | bounded_int(Profile, field)
                   for field in Profile.model_fields}
every_field(Profile, **_profile_fields)
profiles = st.none() | st.fixed_dictionaries(_profile_fields).map(lambda v: Profile(**v))
notes = texts(max_size=200)
advancements = every_field(Advancement, name=name_text, xp_cost=counts, credits=credits,
                           stat=st.none() | st.sampled_from(models.PROFILE_STATS) | texts())()
an_item = every_field(Item, "id", **_equipment_fields, boon_of_sequence=maybe_text)
a_fighter = every_field(
    Fighter, "id", "name", "equipment",
    category=st.sampled_from(FighterCategory), fighter_type=texts(max_size=100), cost=credits,
    profile=profiles, xp=counts, kills=counts, advancements=st.lists(advancements, max_size=2),
    skills=text_lists, special_rules=text_lists, status=st.sampled_from(FighterStatus),
    captured_by=maybe_text, rescue_chance_given=st.booleans(), lasting_injuries=text_lists,
    gang_hierarchy=st.booleans(), critical_injury=st.booleans(), escorted_to_doc=st.booleans(),
    notes=notes,
)
a_vehicle = every_field(
    Vehicle, "id", "name", "upgrades", "equipment", "crew_id",
    vehicle_type=texts(max_size=100), cost=credits, lasting_damage=text_lists,
    status=st.sampled_from(VehicleStatus),
)
a_gang = every_field(
    Gang, "id", "name", "stash", "stash_vehicles", "fighters", "vehicles",
    house=name_text, owner=texts(1, 64), alignment=st.sampled_from(Alignment),
    credits=credits, reputation=bounded_int(Gang, "reputation"), battles_fought=counts,
    notes=notes,
)
a_fighter_end_state = every_field(
    FighterEndState, "gang_id", "fighter_id",
    prone_seriously_injured=st.booleans(), fled_prone_seriously_injured=st.booleans(),
    out_of_action=st.booleans(), webbed=st.booleans(), injuries_rolled=text_lists,
    critical_injury=st.booleans(), xp=bounded_int(FighterEndState, "xp"),
    kills=bounded_int(FighterEndState, "kills"),
)
a_vehicle_end_state = every_field(
    VehicleEndState, "gang_id", "vehicle_id", wrecked=st.booleans(), abandoned=st.booleans(),
    wrecked_results=bounded_int(VehicleEndState, "wrecked_results"),
    lasting_damage_rolled=text_lists,
)
a_battle = every_field(
    Battle, "gang_ids", "winner", "fighters", "vehicles", "gangs_with_models_left",
    "bottled_out", "enemies_out_of_action",
    id=texts(1, 64), scenario=texts(max_size=100), battlefield=texts(max_size=100),
    staked_territory=maybe_text, campaign=st.booleans(), rescue_mission=st.booleans(),
)
a_recruit_outcome = every_field(
    RecruitOutcome, face=bounded_int(RecruitOutcome, "face"),
    count=bounded_int(RecruitOutcome, "count"), category=st.sampled_from(FighterCategory),
)
a_boon = every_field(
    TerritoryBoon, kind=st.sampled_from(BoonKind), amount=bounded_int(TerritoryBoon, "amount"),
    expression=st.none() | texts(1, 32), recruits=st.lists(a_recruit_outcome(), max_size=2),
    fighter_type=maybe_text, only_for=st.none() | st.sampled_from(Alignment),
    text=texts(max_size=300),
)
a_territory = every_field(
    Territory, "id", "controller",
    name=name_text, income=texts(max_size=32), boons=text_lists, can_be_staked=st.booleans(),
    income_only_for=st.none() | st.sampled_from(Alignment),
    income_max_dice=st.none() | bounded_int(Territory, "income_max_dice"),
    income_double_injures=st.booleans(), boon_effects=st.lists(a_boon(), max_size=2),
)
campaign_settings = every_field(
    CampaignSettings, name=name_text, scenario_die=st.sampled_from(ScenarioDie),
    ruleset=texts(max_size=64), skirmish=st.booleans(), roster_cards=st.none() | st.booleans(),
)()


@st.composite
def gangs(draw: st.DrawFn, gang_id: str, name: str, fighters: list[tuple[str, str]],
          vehicles: list[tuple[str, str]]) -> Gang:
    """A gang with the given fighters and vehicles (id, name); the vehicles are split
    between the roster and the Stash. Item ids are unique within the gang."""
    holders = len(fighters) + 2 * len(vehicles) + 1
    sizes = draw(st.lists(st.integers(0, 2), min_size=holders, max_size=holders))
    item_ids = iter(draw(unique_ids(sum(sizes))))
    gear = [[draw(an_item(id=next(item_ids))) for _ in range(size)] for size in sizes]
    roster = [
        draw(a_fighter(id=fighter_id, name=fighter_name, equipment=gear[index]))
        for index, (fighter_id, fighter_name) in enumerate(fighters)
    ]
    crews = st.none() | st.sampled_from([*(f.id for f in roster), "elsewhere"])
    cars = [
        draw(a_vehicle(id=vehicle_id, name=vehicle_name,
                       upgrades=gear[len(fighters) + 2 * index],
                       equipment=gear[len(fighters) + 2 * index + 1], crew_id=draw(crews)))
        for index, (vehicle_id, vehicle_name) in enumerate(vehicles)
    ]
    in_stash = draw(st.integers(0, len(cars)))
    return draw(a_gang(id=gang_id, name=name, stash=gear[-1], stash_vehicles=cars[:in_stash],
                       fighters=roster, vehicles=cars[in_stash:]))


@st.composite
def battles(draw: st.DrawFn, roster: list[Gang]) -> Battle:
    fought = draw(st.lists(st.sampled_from(roster), min_size=2, max_size=min(4, len(roster)),
                           unique_by=lambda g: g.id))
    gang_ids = [g.id for g in fought]
    in_it = st.sampled_from(gang_ids)
    some_gangs = st.lists(in_it, unique=True)
    return draw(a_battle(
        gang_ids=gang_ids,
        winner=draw(st.none() | in_it),
        fighters=[draw(a_fighter_end_state(gang_id=g.id, fighter_id=f.id))
                  for g in fought for f in g.fighters],
        vehicles=[draw(a_vehicle_end_state(gang_id=g.id, vehicle_id=v.id))
                  for g in fought for v in g.vehicles],
        gangs_with_models_left=draw(some_gangs),
        bottled_out=draw(some_gangs),
        enemies_out_of_action=draw(st.dictionaries(in_it, counts)),
    ))


class CampaignData(BaseModel):
    """What one example stores: the campaign and everything in it."""

    settings: CampaignSettings
    trading_post: list[TradingPostEntry] | None
    gangs: list[Gang]
    # Stored over the first gang (same id), to exercise updates of a stored roster.
    replacement: Gang
    territories: list[Territory]
    battle: Battle


@st.composite
def campaigns(draw: st.DrawFn) -> CampaignData:
    gang_count = draw(st.integers(2, 3))
    # One spare gang (the replacement) is drawn like the others so that its fighter and
    # vehicle ids and names are unique in the campaign too.
    per_gang = [draw(st.tuples(st.integers(0, 3), st.integers(0, 2)))
                for _ in range(gang_count + 1)]
    fighter_total = sum(f for f, _ in per_gang)
    vehicle_total = sum(v for _, v in per_gang)
    gang_ids = draw(unique_ids(gang_count + 1))
    gang_names = draw(unique_names(gang_count + 1))
    fighter_ids = iter(draw(unique_ids(fighter_total)))
    fighter_names = iter(draw(unique_names(fighter_total)))
    vehicle_ids = iter(draw(unique_ids(vehicle_total)))
    vehicle_names = iter(draw(unique_names(vehicle_total)))
    roster = [
        draw(gangs(
            gang_ids[n], gang_names[n],
            [(next(fighter_ids), next(fighter_names)) for _ in range(fighters)],
            [(next(vehicle_ids), next(vehicle_names)) for _ in range(vehicles)],
        ))
        for n, (fighters, vehicles) in enumerate(per_gang)
    ]
    stored, spare = roster[:-1], roster[-1]
    # The replacement keeps the first gang's id and takes over some of its fighters'
    # and vehicles' ids, so that stored rows are updated as well as deleted and added.
    first = stored[0]
    replacement = spare.model_copy(update={"id": first.id})
    for mine, theirs in zip(replacement.fighters, first.fighters, strict=False):
        mine.id = theirs.id
    all_vehicles = [*replacement.stash_vehicles, *replacement.vehicles]
    for mine_v, theirs_v in zip(all_vehicles, [*first.stash_vehicles, *first.vehicles],
                                strict=False):
        mine_v.id = theirs_v.id
    controllers = st.none() | st.sampled_from([g.id for g in stored])
    territories = [
        draw(a_territory(id=territory_id, controller=draw(controllers)))
        for territory_id in draw(unique_ids(draw(st.integers(0, 3))))
    ]
    return CampaignData(
        settings=draw(campaign_settings),
        trading_post=draw(st.none() | st.lists(trading_post_entries, max_size=3)),
        gangs=stored, replacement=replacement, territories=territories,
        battle=draw(battles(stored)),
    )


# --------------------------------------------------------------------------- the round trip


def differences(wrote: Any, read: Any, path: str) -> list[str]:
    """Where ``read`` differs from ``wrote``, field by field (a failure names the field)."""
    if isinstance(wrote, BaseModel) and isinstance(read, BaseModel):
        return differences(wrote.model_dump(), read.model_dump(), path)
    if isinstance(wrote, dict) and isinstance(read, dict):
        found: list[str] = []
        for key in sorted(wrote.keys() | read.keys(), key=str):
            if key not in read or key not in wrote:
                side = "read back" if key in read else "written"
                found.append(f"{path}[{key!r}]: only in what was {side}")
            else:
                found += differences(wrote[key], read[key], f"{path}.{key}")
        return found
    if isinstance(wrote, list) and isinstance(read, list) and len(wrote) == len(read):
        return [line for index, (w, r) in enumerate(zip(wrote, read, strict=True))
                for line in differences(w, r, f"{path}[{index}]")]
    return [] if wrote == read else [f"{path}: wrote {wrote!r}, read back {read!r}"]


def check(read: Any, wrote: Any, what: str) -> None:
    found = differences(wrote, read, what)
    assert not found, "\n".join(found[:20])
    assert read == wrote, what


def table_territory(territory: Territory) -> dict[str, Any]:
    return territory.model_dump()


async def store_and_read_back(storage: Storage, guild: int, data: CampaignData) -> None:
    campaign = await storage.write(guild).create_campaign(
        data.settings, arbitrator_user_ids=[1, 2**62], arbitrator_role_id=3,
        report_channel_id=4,
    )
    await storage.write(guild).set_trading_post(campaign.id, data.trading_post, actor=ACTOR,
                                   note="test")
    read = await storage.read(guild).get_campaign(campaign.id)
    check(read.settings, data.settings, "campaign settings")
    check(read.trading_post, data.trading_post, "trading post")
    check([read.arbitrator_user_ids, read.arbitrator_role_id, read.report_channel_id],
          [[1, 2**62], 3, 4], "campaign Arbitrators and channel")

    for gang in data.gangs:
        check(await storage.write(guild).create_gang(campaign.id, gang, actor=ACTOR), gang,
              "created gang")
        check(await storage.read(guild).get_gang(campaign.id, gang.id), gang, "gang")
    for territory in data.territories:
        await storage.write(guild).add_territory(campaign.id, territory, actor=ACTOR)
        loaded = await storage.read(guild).get_territory(campaign.id, territory.id)
        check(table_territory(loaded), table_territory(territory), "territory")
    await storage.write(guild).create_battle(campaign.id, data.battle)
    check(await storage.read(guild).get_battle(campaign.id, data.battle.id), data.battle, "battle")

    # The same gangs through every other reader.
    check(await storage.read(guild).list_gangs(campaign.id), data.gangs, "listed gangs")
    world = await storage.read(guild).load_world(campaign.id, [g.id for g in data.gangs])
    check(list(world.gangs.values()), data.gangs, "world gangs")
    check(sorted(map(table_territory, world.territories.values()), key=str),
          sorted(map(table_territory, data.territories), key=str), "world territories")
    for gang in data.gangs:
        for fighter in gang.fighters:
            found_gang, found = await storage.read(guild).find_fighter(campaign.id, fighter.name)
            check([found_gang, found], [gang, fighter], "found fighter")

    # A stored roster replaced by another: rows updated, deleted and added.
    replacement = data.replacement
    check(await storage.write(guild).update_gang(campaign.id, replacement, actor=ACTOR),
          replacement, "updated gang")
    check(await storage.read(guild).get_gang(campaign.id, replacement.id), replacement,
          "gang after update")
    check(await storage.read(guild).list_gangs(campaign.id), [replacement, *data.gangs[1:]],
          "listed gangs after update")

    # A sequence's state is JSON: the whole world, alignment restriction included.
    state = World.of([replacement, *data.gangs[1:]], data.territories)
    await storage.write(guild).save_sequence(campaign.id, "post:x", state, battle_id=data.battle.id)
    check(await storage.read(guild).load_sequence(campaign.id, "post:x", World), state,
          "sequence state")


@dataclass
class Database:
    """One SQLite file for the whole run; each example is a campaign on a server of its own."""

    loop: asyncio.AbstractEventLoop
    storage: Storage
    guilds: Iterator[int]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    loop = asyncio.new_event_loop()
    path = tmp_path_factory.mktemp("round-trip") / "campaigns.sqlite3"
    storage = loop.run_until_complete(Storage.open(path))
    try:
        yield Database(loop, storage, itertools.count(1))
    finally:
        loop.run_until_complete(storage.close())
        loop.close()


@SETTINGS
@given(data=campaigns())
def test_every_field_of_every_model_survives_storage(
    database: Database, data: CampaignData
) -> None:
    assert uncovered_fields() == {}
    database.loop.run_until_complete(
        store_and_read_back(database.storage, next(database.guilds), data))
