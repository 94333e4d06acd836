"""Property tests: random rosters and random Update Roster actions keep the invariants.

Each generated action goes through the rules functions. It is either legal
(a result with the new world) or refused (a RulesError that leaves the world
exactly as it was). Whatever happens: credits never go negative, Reputation
never drops below 1, no fighter carries more than three weapon slots, and the
same seed replays the same game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.advancements import GANGER_TABLE, buy_advancement
from rules.data import default_ruleset
from rules.dice import DiceRoll, Roller, SeededRoller
from rules.distribute import give_item, take_item
from rules.errors import RulesError
from rules.models import (
    PROFILE_STATS,
    Alignment,
    Battle,
    EquipmentKind,
    Fighter,
    FighterCategory,
    Gang,
    Item,
    Profile,
    stat_bounds,
)
from rules.rewards import GangReward, ReputationChange, receive_rewards
from rules.ruleset import FighterTemplate, HouseList, RuleSet
from rules.tradingpost import (
    MAX_WEAPON_SLOTS,
    RareOffer,
    buy_equipment,
    buy_rare_item,
    hire_fighter,
    purchase_vehicle,
    recruit_hanger_on,
    seek_rare_and_illegal,
    sell_item,
)
from rules.world import RuleResult, World

SEQUENCE_ID = "seq-1"
GANG_IDS = ("g0", "g1")


def property_ruleset() -> RuleSet:
    base = default_ruleset()
    hangers = HouseList(house="Hangers-on", fighters=[
        FighterTemplate(fighter_type="Rogue Doc", category=FighterCategory.HANGER_ON, cost=30),
    ])
    return base.model_copy(update={"houses": [*base.houses, hangers]})


RULESET = property_ruleset()
GOLIATH = RULESET.house("Goliath")
FIGHTER_TYPES = [t.fighter_type for t in GOLIATH.fighters]
ITEM_NAMES = sorted(
    {e.name for e in RULESET.trading_post}
    | {e.name for t in GOLIATH.fighters for e in t.equipment_list}
)
OPTIONS = [o.name for o in RULESET.advancements] + [GANGER_TABLE]
STATS = ["ws", "bs", "s", "t", "m", "i", "ld", "cl", "wil", "int", "w", "a"]
OPTION_STATS = {o.name: o.stats for o in RULESET.advancements}

# --------------------------------------------------------------------------- rosters

weapon = st.builds(
    lambda name, cost, two: (name, cost, two),
    st.sampled_from(["Autogun", "Stub gun", "Renderizer", "Boltgun", "Lasgun"]),
    st.integers(0, 80),
    st.booleans(),
)


@st.composite
def profiles(draw: st.DrawFn, absent: bool = True) -> Profile:
    """Any valid profile, some characteristics absent ("-") unless ``absent`` is False."""
    values: dict[str, int | None] = {}
    for stat in PROFILE_STATS:
        low, high = stat_bounds(stat)
        number = st.integers(low, high)
        values[stat] = draw(st.none() | number if absent else number)
    return Profile.model_validate(values)


@st.composite
def fighters(draw: st.DrawFn, gang_no: int, index: int, category: FighterCategory) -> Fighter:
    template = next((t for t in GOLIATH.fighters if t.category is category), None)
    gear: list[Item] = []
    slots = 0
    for n, (name, cost, two) in enumerate(draw(st.lists(weapon, max_size=3))):
        needed = 2 if two else 1
        if slots + needed <= MAX_WEAPON_SLOTS:
            slots += needed
            gear.append(Item(id=f"g{gang_no}f{index}w{n}", name=name, cost=cost,
                             kind=EquipmentKind.WEAPON, two_slots=two))
    return Fighter(
        id=f"g{gang_no}f{index}",
        name=f"Fighter {index}",
        category=category,
        fighter_type=template.fighter_type if template else "",
        cost=draw(st.integers(20, 150)),
        xp=draw(st.integers(0, 30)),
        # The Leader always has a profile; others may have none ("profile not set").
        profile=draw(profiles(absent=False)) if index == 0 else draw(st.none() | profiles()),
        gang_hierarchy=category in (FighterCategory.LEADER, FighterCategory.CHAMPION),
        equipment=gear,
    )


@st.composite
def gangs(draw: st.DrawFn, gang_no: int) -> Gang:
    categories = [FighterCategory.LEADER]
    categories += draw(st.lists(
        st.sampled_from([FighterCategory.CHAMPION, FighterCategory.GANGER,
                         FighterCategory.JUVE, FighterCategory.CREW,
                         FighterCategory.HANGER_ON]),
        max_size=5,
    ))
    roster = [draw(fighters(gang_no, i, c)) for i, c in enumerate(categories)]
    stash = [
        Item(id=f"g{gang_no}s{n}", name=name, cost=cost,
             kind=EquipmentKind.WEAPON if n % 2 == 0 else EquipmentKind.ARMOUR,
             boon_of_sequence=SEQUENCE_ID if boon else None)
        for n, (name, cost, boon) in enumerate(draw(st.lists(
            st.tuples(st.sampled_from(ITEM_NAMES), st.integers(0, 120), st.booleans()),
            max_size=4,
        )))
    ]
    return Gang(
        id=f"g{gang_no}",
        name=f"Gang {gang_no}",
        house="Goliath",
        owner=str(gang_no),
        alignment=draw(st.sampled_from(list(Alignment))),
        credits=draw(st.integers(0, 300)),
        reputation=draw(st.integers(1, 25)),
        fighters=roster,
        stash=stash,
    )


worlds = st.builds(lambda a, b: World.of([a, b]), gangs(0), gangs(1))

# --------------------------------------------------------------------------- actions

small = st.integers(0, 9)
actions = st.one_of(
    st.tuples(st.just("hire"), st.sampled_from(GANG_IDS), st.sampled_from(FIGHTER_TYPES)),
    st.tuples(st.just("recruit"), st.sampled_from(GANG_IDS)),
    st.tuples(st.just("vehicle"), st.sampled_from(GANG_IDS),
              st.sampled_from(["Outrider Quad", "Cargo-8 Ridgehauler"])),
    st.tuples(st.just("buy"), st.sampled_from(GANG_IDS), st.sampled_from(ITEM_NAMES),
              st.one_of(st.none(), small)),
    st.tuples(st.just("sell"), st.sampled_from(GANG_IDS), small),
    st.tuples(st.just("give"), st.sampled_from(GANG_IDS), small, small),
    st.tuples(st.just("take"), st.sampled_from(GANG_IDS), small, small),
    st.tuples(st.just("reward"), st.sampled_from(GANG_IDS), st.integers(0, 5),
              st.lists(st.integers(1, 5), max_size=2), st.lists(st.integers(1, 20), max_size=2)),
    st.tuples(st.just("advance"), st.sampled_from(GANG_IDS), small,
              st.sampled_from(OPTIONS), small),
    st.tuples(st.just("seek"), st.sampled_from(GANG_IDS), st.lists(small, max_size=3)),
    st.tuples(st.just("buy_rare"), st.sampled_from(GANG_IDS), st.sampled_from(ITEM_NAMES)),
)


@dataclass
class Game:
    """Applies actions one by one and keeps what the checks need."""

    world: World
    roller: Roller
    rolls: list[DiceRoll] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    offers: dict[str, RareOffer] = field(default_factory=dict)
    counter: int = 0

    def new_id(self) -> str:
        self.counter += 1
        return f"new{self.counter}"

    def apply(self, action: tuple[Any, ...]) -> None:
        before = self.world.model_copy(deep=True)
        try:
            result = self._call(action)
        except RulesError as refusal:
            assert self.world == before, f"{action} was refused but changed the world"
            self.outcomes.append(f"refused {type(refusal).__name__}")
            return
        if result is None:
            self.outcomes.append("skipped")
            return
        assert self.world == before, "a rules function mutated its input world"
        self.world = result.world
        self.rolls += result.rolls
        self.outcomes.append(result.clause)

    def _call(self, action: tuple[Any, ...]) -> RuleResult | None:
        kind, gang_id, *args = action
        gang = self.world.gang(gang_id)
        if kind == "hire":
            return hire_fighter(self.world, gang_id, RULESET, args[0], "Recruit", self.new_id())
        if kind == "recruit":
            return recruit_hanger_on(self.world, gang_id, RULESET, "Rogue Doc", "Doc",
                                     self.new_id())
        if kind == "vehicle":
            return purchase_vehicle(self.world, gang_id, RULESET, args[0], "Ride",
                                    self.new_id())
        if kind == "buy":
            name, who = args
            target = _pick(gang.fighters, who).id if who is not None else None
            return buy_equipment(self.world, gang_id, RULESET, name, self.new_id(), target)
        if kind == "sell":
            item = _pick(gang.stash, args[0])
            return sell_item(self.world, gang_id, item.id if item else "missing", self.roller,
                             SEQUENCE_ID)
        if kind == "give":
            item, fighter = _pick(gang.stash, args[0]), _pick(gang.fighters, args[1])
            return give_item(self.world, gang_id, item.id if item else "missing",
                             fighter.id if fighter else "missing", RULESET)
        if kind == "take":
            fighter = _pick(gang.fighters, args[0])
            item = _pick(fighter.equipment, args[1]) if fighter else None
            return take_item(self.world, gang_id, item.id if item else "missing",
                             fighter.id if fighter else "missing", RULESET)
        if kind == "reward":
            dice, gains, losses = args
            reward = GangReward(
                gang_id=gang_id, credit_dice=dice,
                reputation_gains=[ReputationChange(amount=n) for n in gains],
                reputation_losses=[ReputationChange(amount=n) for n in losses],
            )
            battle = Battle(id="b", gang_ids=list(GANG_IDS))
            return receive_rewards(self.world, battle, self.roller, [reward])
        if kind == "advance":
            who, option, choice = args
            fighter = _pick(gang.fighters, who)
            stat = _pick(OPTION_STATS.get(option) or STATS, choice)
            return buy_advancement(self.world, gang_id, fighter.id if fighter else "missing",
                                   option, RULESET, self.roller, stat, skill="Chosen",
                                   skill_set="Primary")
        if kind == "seek":
            traders = [f for n in args[0] if (f := _pick(gang.fighters, n)) is not None]
            if gang_id in self.offers:
                return None  # once per sequence: the sequence state refuses a second roll
            result = seek_rare_and_illegal(self.world, gang_id, traders, self.roller, RULESET)
            self.offers[gang_id] = result.offer
            return result
        if kind == "buy_rare":
            offer = self.offers.get(gang_id)
            if offer is None:
                return None
            return buy_rare_item(self.world, gang_id, args[0], offer, self.new_id())
        raise AssertionError(f"unknown action {kind}")


def _pick(items: list[Any], index: int) -> Any:
    return items[index % len(items)] if items else None


def check_invariants(world: World) -> None:
    for gang in world.gangs.values():
        assert gang.credits >= 0
        assert gang.reputation >= 1
        for fighter in gang.fighters:
            assert fighter.weapon_slots <= MAX_WEAPON_SLOTS, fighter.name
            assert fighter.xp >= 0


def play(world: World, plan: list[tuple[Any, ...]], seed: int) -> Game:
    game = Game(world=world, roller=SeededRoller(seed))
    for action in plan:
        game.apply(action)
        check_invariants(game.world)
    return game


PROPERTY_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.mark.rule("PB-6B.4")
@pytest.mark.rule("PB-6B.5")
@pytest.mark.rule("PB-6B.6")
@pytest.mark.rule("PB-6D")
@pytest.mark.rule("PB-6E")
@PROPERTY_SETTINGS
@given(world=worlds, plan=st.lists(actions, max_size=20), seed=st.integers(0, 2**32))
def test_update_roster_actions_keep_the_invariants(
    world: World, plan: list[tuple[Any, ...]], seed: int
) -> None:
    check_invariants(world)
    play(world, plan, seed)


@pytest.mark.rule("PB-6")
@PROPERTY_SETTINGS
@given(world=worlds, plan=st.lists(actions, max_size=20), seed=st.integers(0, 2**32))
def test_same_seed_same_game(world: World, plan: list[tuple[Any, ...]], seed: int) -> None:
    first = play(world, plan, seed)
    second = play(world, plan, seed)
    assert first.world == second.world
    assert first.rolls == second.rolls
    assert first.outcomes == second.outcomes


@pytest.mark.rule("PB-6B.6")
@PROPERTY_SETTINGS
@given(world=worlds, seed=st.integers(0, 2**32), modifier=st.integers(-10, 10))
def test_unlocked_items_follow_the_alignment_ladder(
    world: World, seed: int, modifier: int
) -> None:
    gang = world.gang("g0")
    result = seek_rare_and_illegal(world, "g0", [gang.fighters[0]], SeededRoller(seed), RULESET,
                                   special_modifier=modifier)
    level = result.availability
    illegal_cap = level if gang.alignment is Alignment.OUTLAW else level - 4
    expected = [
        e.name for e in RULESET.trading_post
        if e.availability.level is not None
        and e.availability.level <= (illegal_cap if e.availability.rarity.value == "Illegal"
                                     else level)
    ]
    assert result.unlocked_names == expected
