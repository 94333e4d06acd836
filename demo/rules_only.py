"""The offline rules demo: one scripted battle through the rules engine, printed as text.

Two gangs from the default rule set's House Lists fight one battle; the
pre-battle sequence is rolled, the battle's outcome is scripted, and the whole
post-battle sequence is driven through :class:`rules.sequence.PostBattleSequence`
exactly as the bot would: ``require`` before each rules call, every gang
confirms, then ``advance``. Every die comes from one :class:`SeededRoller`, so
a seed always prints the same game.

The script is chosen so that the main path is legal with any seed. The
Critical Injury and the Captured result are reported as rolled during the
battle (as they are at the table), so the Medical Escort and the escape roll
always happen; what the dice decide (who succumbs, the live Lasting Injuries,
whether the captive escapes, what the Doc charges...) follows from the seed.
One refusal is part of the script on purpose: the captor tries to sell its
captive before the owner has had its rescue chance, and the player sees why not.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec, TextIO, TypeVar

from bot.render import result_lines, safe
from rules.actions import (
    Actor,
    medical_escort_cost,
    medical_escort_treat,
    sell_to_guilders,
    trade,
)
from rules.advancements import buy_advancement, choose_advancement_stat, roll_ganger_advancement
from rules.boons import BoonClaim, claim_boons
from rules.cleanhouse import clean_house
from rules.data import default_ruleset
from rules.dice import SeededRoller
from rules.distribute import give_item
from rules.errors import RulesError
from rules.income import collect_income
from rules.models import (
    Alignment,
    Battle,
    CampaignSettings,
    EquipmentKind,
    Fighter,
    FighterEndState,
    FighterStatus,
    Gang,
    Item,
    Territory,
    Vehicle,
    VehicleEndState,
)
from rules.prebattle import PreBattleResult, prebattle
from rules.report import BattleReport
from rules.rewards import GangReward, ReputationChange, receive_rewards
from rules.ruleset import RuleSet
from rules.sequence import PostBattleSequence, Step, SubStep
from rules.territory import assign_territory
from rules.tradingpost import (
    buy_equipment,
    buy_rare_item,
    hire_fighter,
    sell_item,
)
from rules.world import RuleResult, World
from rules.wrapup import wrap_up

GOLIATH = "goliath"
ESCHER = "escher"
BATTLE_ID = "demo-battle"
SEQUENCE_ID = "demo-sequence"

# Ids of the fighters the script names again after the battle.
TYRANT, FORGE_BOSS, HARN, VOSK, PIP = "g-tyrant", "g-boss", "g-harn", "g-vosk", "g-pip"
MATRIARCH, KESSA, ZELL, MIRA, TANSY = "e-matriarch", "e-kessa", "e-zell", "e-mira", "e-tansy"
WOLFQUAD = "e-wolfquad"

# Territory ids of the rule set's example Territories.
SETTLEMENT, COLLAPSED_DOME, OLD_RUINS = "settlement", "collapsed-dome", "old-ruins"

R = TypeVar("R", bound=RuleResult)
P = ParamSpec("P")


@dataclass(frozen=True)
class DemoRun:
    """Everything one demo game produced: the printed lines and the results behind them."""

    seed: int
    lines: list[str]
    headings: list[str]  # the stage headings, in the order printed
    results: list[RuleResult]  # every result the rules returned, in order
    refusals: list[str]  # the messages of the actions the rules refused
    prebattle: PreBattleResult
    sequence: PostBattleSequence
    report: BattleReport

    @property
    def world(self) -> World:
        """The world after the whole post-battle sequence."""
        return self.report.world

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def run_rules_demo(seed: int = 7, out: TextIO = sys.stdout) -> int:
    """Play the demo with ``seed`` and print it to ``out``; returns an exit status."""
    out.write(play_rules_demo(seed).text)
    return 0


def play_rules_demo(seed: int = 7) -> DemoRun:
    """Play the scripted game with ``seed`` and return what it printed and produced."""
    return _Demo(seed).play()


# --------------------------------------------------------------------------- the gangs


def _item(item_id: str, name: str, ruleset: RuleSet, fighter_type: str, house: str) -> Item:
    """An item at the price of the fighter's own Equipment List, else the Trading Post's,
    as a roster would hold it."""
    template = next(t for t in ruleset.house(house).fighters if t.fighter_type == fighter_type)
    entry = next((e for e in template.equipment_list if e.name == name), None)
    return Item(id=item_id, **(entry or ruleset.trading_post_item(name)).model_dump())


def _fighter(
    ruleset: RuleSet,
    house: str,
    fighter_id: str,
    name: str,
    fighter_type: str,
    gear: list[str],
    **fields: object,
) -> Fighter:
    """A fighter hired from the House List at founding cost and with its profile, with gear
    from its own list."""
    template = next(t for t in ruleset.house(house).fighters if t.fighter_type == fighter_type)
    equipment = [
        _item(f"{fighter_id}-{n}", item, ruleset, fighter_type, house)
        for n, item in enumerate(gear, start=1)
    ]
    return Fighter.model_validate(
        {
            "id": fighter_id,
            "name": name,
            "category": template.category,
            "fighter_type": template.fighter_type,
            "cost": template.cost,
            "gang_hierarchy": template.gang_hierarchy,
            "special_rules": list(template.special_rules),
            "equipment": equipment,
            "profile": template.profile,
            **fields,
        }
    )


def _goliath(ruleset: RuleSet) -> Gang:
    house = "Goliath"
    fighters = [
        _fighter(ruleset, house, TYRANT, "Krull Ironhand", "Goliath Forge Tyrant",
                 ["'Renderizer' Serrated Axe", "Furnace plates"], xp=7),
        _fighter(ruleset, house, FORGE_BOSS, "Dreg Slagjaw", "Goliath Forge Boss",
                 ["Boltgun", "Furnace plates"], xp=3),
        # In Recovery since the last battle: it sits this one out and recovers
        # at the end of the Wrap-up (PB-1.5), in time to roll an advancement.
        _fighter(ruleset, house, HARN, "Harn", "Goliath Bruiser", ["Shotgun"], xp=6,
                 status=FighterStatus.IN_RECOVERY),
        _fighter(ruleset, house, VOSK, "Vosk", "Goliath Bruiser", ["Fighting Knife", "Axe"]),
        _fighter(ruleset, house, "g-gorrak", "Gorrak", "Goliath Bruiser", ["Shotgun"]),
        _fighter(ruleset, house, PIP, "Pip", "Goliath Bully", ["Fighting Knife"]),
    ]
    stash = [
        Item(id="g-stash-stubber", name="Heavy stubber", cost=130, kind=EquipmentKind.WEAPON,
             two_slots=True),
    ]
    return Gang(
        id=GOLIATH, name="The Slag Lords", house=house, owner="demo-player-1",
        alignment=Alignment.LAW_ABIDING, credits=120, reputation=7, battles_fought=4,
        fighters=fighters, stash=stash,
    )


def _escher(ruleset: RuleSet) -> Gang:
    house = "Escher"
    fighters = [
        _fighter(ruleset, house, MATRIARCH, "Sable Nightshade", "Gang Queen",
                 ["Needle pistol", "Mesh Armour"], xp=4),
        _fighter(ruleset, house, "e-lyra", "Lyra Venom", "Gang Matriarch", ["Plasma gun"]),
        _fighter(ruleset, house, KESSA, "Kessa Thorn", "Gang Matriarch", ["Lasgun", "Laspistol"]),
        _fighter(ruleset, house, MIRA, "Mira", "Sister", ["Lasgun"]),
        _fighter(ruleset, house, ZELL, "Zell", "Sister", ["Laspistol", "Fighting Knife"]),
        _fighter(ruleset, house, TANSY, "Tansy", "Little Sister", ["Laspistol"]),
        # A Helion's own list has no pistol: the Trading Post's Laspistol.
        _fighter(ruleset, house, "e-rook", "Rook", "Helion", ["Laspistol"]),
    ]
    # The Escher lists ship no vehicle: the Wolfquad is written onto the roster by hand.
    wolfquad = Vehicle(id=WOLFQUAD, name="Wolfquad", vehicle_type="Wolfquad", cost=70,
                       crew_id="e-rook")
    return Gang(
        id=ESCHER, name="The Venom Court", house=house, owner="demo-player-2",
        alignment=Alignment.OUTLAW, credits=200, reputation=6, battles_fought=4,
        fighters=fighters, vehicles=[wolfquad],
    )


def _territories(ruleset: RuleSet) -> list[Territory]:
    held = {SETTLEMENT: GOLIATH, COLLAPSED_DOME: ESCHER, OLD_RUINS: ESCHER}
    # Copies: the rule set is shared and read-only, and a controller is campaign state.
    return [
        territory.model_copy(update={"controller": held[territory.id]})
        for territory in ruleset.territories
        if territory.id in held
    ]


def founding_world(ruleset: RuleSet) -> World:
    """The two gangs and their Territories before the battle."""
    return World.of([_goliath(ruleset), _escher(ruleset)], _territories(ruleset))


def scripted_battle(scenario: str, battlefield: str) -> Battle:
    """The Slag Lords beat the Venom Court, who bottle out and flee, and take the Dome."""
    return Battle(
        id=BATTLE_ID,
        gang_ids=[GOLIATH, ESCHER],
        scenario=scenario,
        battlefield=battlefield,
        winner=GOLIATH,
        staked_territory=COLLAPSED_DOME,
        fighters=[
            FighterEndState(gang_id=GOLIATH, fighter_id=VOSK, prone_seriously_injured=True),
            FighterEndState(gang_id=GOLIATH, fighter_id=PIP, out_of_action=True),
            FighterEndState(gang_id=ESCHER, fighter_id=TANSY, fled_prone_seriously_injured=True),
            FighterEndState(gang_id=ESCHER, fighter_id=MIRA, out_of_action=True),
            FighterEndState(gang_id=ESCHER, fighter_id=KESSA, out_of_action=True,
                            injuries_rolled=["Critical Injury"]),
            FighterEndState(gang_id=ESCHER, fighter_id=ZELL, out_of_action=True,
                            injuries_rolled=["Captured"]),
        ],
        vehicles=[VehicleEndState(gang_id=ESCHER, vehicle_id=WOLFQUAD, wrecked=True)],
        gangs_with_models_left=[GOLIATH],
        bottled_out=[ESCHER],
        enemies_out_of_action={GOLIATH: 4, ESCHER: 1},
    )


# --------------------------------------------------------------------------- the script


class _Demo:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.roller = SeededRoller(seed)
        self.ruleset = default_ruleset()
        self.world = founding_world(self.ruleset)
        self.lines: list[str] = []
        self.headings: list[str] = []
        self.results: list[RuleResult] = []
        self.refusals: list[str] = []

    # ----------------------------------------------------------------- printing

    def heading(self, text: str) -> None:
        self.headings.append(text)
        if self.lines:
            self.lines.append("")
        self.lines += [text, "=" * len(text)]

    def say(self, text: str) -> None:
        """A line of the script: what a player chooses or declares."""
        self.lines.append(f"> {safe(text, 300, plain=True)}")

    def show(self, result: R) -> R:
        """Print a result and carry its world forward."""
        self.world = result.world
        self.results.append(result)
        self.lines.append(f"[{result.clause}] {safe(result.title, 120, plain=True)}")
        self.lines += [f"    {line}" for line in result_lines(result, plain=True)]
        return result

    def attempt(self, action: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R | None:
        """Run a rules call; a refusal is printed as the player would read it."""
        try:
            return self.show(action(*args, **kwargs))
        except RulesError as error:
            self.refusals.append(error.message)
            self.lines.append(f"    Refused: {safe(error.message, 300, plain=True)}")
            return None

    def gang_name(self, gang_id: str) -> str:
        return self.world.gang(gang_id).name

    def fighter(self, gang_id: str, fighter_id: str) -> Fighter | None:
        """The fighter if it is still on the roster (Clean House deletes the dead)."""
        gang = self.world.gang(gang_id)
        return next((f for f in gang.fighters if f.id == fighter_id), None)

    # ----------------------------------------------------------------- the sequence

    def stage(self, seq: PostBattleSequence, step: Step, substep: SubStep | None = None) -> None:
        seq.require(step, substep)
        number = list(Step).index(step) + 1
        self.heading(f"{number}. {seq.label}")

    def confirm_all(self, seq: PostBattleSequence) -> None:
        for gang_id in seq.gang_ids:
            seq.confirm(gang_id)
        names = " and ".join(self.gang_name(g) for g in seq.gang_ids)
        done = seq.label
        after = seq.advance()
        self.lines.append(f"{names} confirm {done}; next: {after}.")

    def actor(
        self, seq: PostBattleSequence, battle: Battle, gang_id: str, fighter_id: str
    ) -> Actor:
        return Actor(battle=battle, gang_id=gang_id, fighter_id=fighter_id,
                     already_acted=seq.already_acted(gang_id))

    # ----------------------------------------------------------------- play

    def play(self) -> DemoRun:
        self.lines.append(f"Munda Arbitrator rules demo (seed {self.seed}, rule set "
                          f"{self.ruleset.name})")
        self.rosters("Before the battle")
        pre = self.pre_battle()
        battle = scripted_battle(pre.scenario.name, pre.battlefield.battlefield)
        self.narrate_battle(battle)
        in_recovery = [f.id for g in self.world.gangs.values() for f in g.fighters
                       if f.status is FighterStatus.IN_RECOVERY]
        seq = PostBattleSequence.start(SEQUENCE_ID, battle, self.world)
        self.wrap_up_step(seq, battle, in_recovery)
        self.territory_step(seq, battle)
        self.rewards_step(seq, battle)
        self.income_step(seq, battle)
        self.actions_step(seq, battle)
        self.clean_house_step(seq, battle)
        self.trading_post_step(seq)
        self.boons_step(seq)
        self.distribute_step(seq)
        self.advancements_step(seq)
        self.gang_rating_step(seq)
        report = self.report_step(seq, battle)
        self.rosters("After the post-battle sequence")
        return DemoRun(
            seed=self.seed, lines=self.lines, headings=self.headings, results=self.results,
            refusals=self.refusals, prebattle=pre, sequence=seq, report=report,
        )

    def rosters(self, when: str) -> None:
        self.heading(when)
        for gang in self.world.gangs.values():
            self.lines.append(
                f"{gang.name} ({gang.house}, {gang.alignment.value}): Gang Rating "
                f"{gang.rating}, {gang.credits} credits, Reputation {gang.reputation}, "
                f"Wealth {gang.wealth}"
            )
            for fighter in gang.fighters:
                gear = ", ".join(i.name for i in fighter.equipment) or "no gear"
                status = "" if fighter.status is FighterStatus.ACTIVE else (
                    f" [{fighter.status.value}]"
                )
                self.lines.append(
                    f"    {fighter.name}, {fighter.fighter_type} ({fighter.total_cost}): "
                    f"{gear}{status}"
                )
            for vehicle in gang.vehicles + gang.stash_vehicles:
                self.lines.append(f"    {vehicle.name}, vehicle ({vehicle.total_cost})")
            if gang.stash:
                self.lines.append(f"    Stash: {', '.join(i.name for i in gang.stash)}")
        for territory in self.world.territories.values():
            holder = self.gang_name(territory.controller) if territory.controller else "no one"
            self.lines.append(f"Territory {territory.name} (income {territory.income}): {holder}")

    def pre_battle(self) -> PreBattleResult:
        self.heading("Pre-battle sequence")
        settings = CampaignSettings(name="Demo campaign")
        return self.show(prebattle(self.world, [GOLIATH, ESCHER], self.ruleset, settings,
                                   self.roller))

    def narrate_battle(self, battle: Battle) -> None:
        self.heading("The battle")
        goliath, escher = self.gang_name(GOLIATH), self.gang_name(ESCHER)
        for text in (
            f"{battle.scenario} on a {battle.battlefield} battlefield, for the "
            f"{self.world.territory(COLLAPSED_DOME).name}.",
            f"{goliath} win; {escher} bottle out and flee, leaving their Wolfquad wrecked.",
            "Vosk ends the battle Prone and Seriously Injured; Pip is taken Out of Action.",
            "Tansy flees Prone and Seriously Injured; Mira is taken Out of Action.",
            "Kessa Thorn goes Out of Action with a Critical Injury, rolled at the table.",
            "Zell goes Out of Action and rolls Captured at the table.",
        ):
            self.say(text)

    def wrap_up_step(self, seq: PostBattleSequence, battle: Battle, in_recovery: list[str]) -> None:
        self.stage(seq, Step.WRAP_UP)
        self.show(wrap_up(self.world, battle, self.ruleset, self.roller,
                          in_recovery_before=in_recovery))
        self.confirm_all(seq)

    def territory_step(self, seq: PostBattleSequence, battle: Battle) -> None:
        self.stage(seq, Step.ASSIGN_TERRITORY)
        self.show(assign_territory(self.world, battle))
        self.confirm_all(seq)

    def rewards_step(self, seq: PostBattleSequence, battle: Battle) -> None:
        self.stage(seq, Step.RECEIVE_REWARDS)
        self.say("The scenario pays the winner 2D6x10 credits and Reputation; "
                 "the loser gains 1 for fighting and loses 2 for bottling out.")
        rewards = [
            GangReward(gang_id=GOLIATH, credit_dice=2,
                       reputation_gains=[ReputationChange(amount=2, reason="won the battle")]),
            GangReward(gang_id=ESCHER,
                       reputation_gains=[ReputationChange(amount=1, reason="took part")],
                       reputation_losses=[ReputationChange(amount=2, reason="bottled out")]),
        ]
        self.show(receive_rewards(self.world, battle, self.roller, rewards))
        self.confirm_all(seq)

    def income_step(self, seq: PostBattleSequence, battle: Battle) -> None:
        self.stage(seq, Step.COLLECT_INCOME)
        self.show(collect_income(self.world, battle, self.roller, ruleset=self.ruleset))
        self.confirm_all(seq)

    def actions_step(self, seq: PostBattleSequence, battle: Battle) -> None:
        self.stage(seq, Step.POST_BATTLE_ACTIONS)
        captives = self.world.captives_held_by(GOLIATH)
        # Once is enough to show the player why not; the owner's rescue chance comes first.
        for _, captive in captives[:1]:
            self.say(f"Dreg Slagjaw tries to sell {captive.name} to the Guilders at once.")
            sold = self.attempt(sell_to_guilders, self.world,
                                self.actor(seq, battle, GOLIATH, FORGE_BOSS), captive.id)
            if sold is not None:
                seq.record_action_result(sold)
        for fighter_id in (TYRANT, FORGE_BOSS):
            if fighter_id in seq.already_acted(GOLIATH):
                continue
            made = self.attempt(trade, self.world,
                                self.actor(seq, battle, GOLIATH, fighter_id))
            if made is not None:
                seq.record_action_result(made)
        self.medical_escort(seq, battle)
        self.confirm_all(seq)

    def medical_escort(self, seq: PostBattleSequence, battle: Battle) -> None:
        patient = self.fighter(ESCHER, KESSA)
        if patient is None or not patient.critical_injury:
            self.say("Nobody of the Venom Court needs the Doc.")
            return
        # The cost is rolled before the gang decides, as at the table (PB-5.5).
        quote = self.attempt(medical_escort_cost, self.world,
                             self.actor(seq, battle, ESCHER, MATRIARCH), KESSA, self.roller)
        if quote is None:
            return
        pay = quote.affordable
        self.say(f"The Venom Court {'pays' if pay else 'cannot pay'} the Doc {quote.cost}.")
        treated = self.attempt(medical_escort_treat, self.world,
                               self.actor(seq, battle, ESCHER, MATRIARCH), KESSA, self.roller,
                               self.ruleset, cost=quote.cost, pay=pay)
        if treated is not None:
            seq.record_action_result(treated)

    def clean_house_step(self, seq: PostBattleSequence, battle: Battle) -> None:
        self.stage(seq, Step.UPDATE_ROSTER, SubStep.CLEAN_HOUSE)
        for gang_id in seq.gang_ids:
            self.show(clean_house(self.world, battle, gang_id))
        self.confirm_all(seq)

    def trading_post_step(self, seq: PostBattleSequence) -> None:
        self.stage(seq, Step.UPDATE_ROSTER, SubStep.TRADING_POST)
        self.say("The Slag Lords sell the old Heavy stubber from their Stash.")
        self.attempt(sell_item, self.world, GOLIATH, "g-stash-stubber", self.roller, seq.id)
        self.say("They buy Mesh armour at the Trading Post for the Stash.")
        self.attempt(buy_equipment, self.world, GOLIATH, self.ruleset, "Mesh armour",
                     "g-bought-mesh")
        seek = self.attempt(seq.seek_rare_and_illegal, self.world, GOLIATH, self.roller,
                            self.ruleset)
        if seek is not None:
            # Something the Forge Boss can carry: a vehicle Upgrade would wait in the Stash.
            affordable = [e for e in seek.offer.unlocked
                          if e.cost <= self.world.gang(GOLIATH).credits
                          and e.kind is not EquipmentKind.VEHICLE_UPGRADE]
            if affordable:
                choice = min(affordable, key=lambda e: (e.cost, e.name))
                self.say(f"From what the roll unlocked they buy {choice.name}.")
                self.attempt(buy_rare_item, self.world, GOLIATH, choice.name, seek,
                             "g-bought-rare")
            else:
                self.say("Nothing the roll unlocked is within their means.")
        held = [f.name for _, f in self.world.captives_held_by(GOLIATH)]
        gap = f" to fill the gap {' and '.join(held)} left" if held else ""
        self.say(f"The Venom Court hires a Little Sister{gap}.")
        hired = self.attempt(hire_fighter, self.world, ESCHER, self.ruleset, "Little Sister",
                             "Wren", "e-wren")
        if hired is not None:
            self.attempt(buy_equipment, self.world, ESCHER, self.ruleset, "Laspistol",
                         "e-wren-laspistol", fighter_id="e-wren")
        self.confirm_all(seq)

    def boons_step(self, seq: PostBattleSequence) -> None:
        self.stage(seq, Step.UPDATE_ROSTER, SubStep.TERRITORY_BOONS)
        # The Settlement's Boon is data: the bot adds the Reputation and rolls the recruit.
        self.say("The Slag Lords claim the Settlement: +1 Reputation and its recruit roll.")
        claim = BoonClaim(territory_id=SETTLEMENT, recruit_id="g-boon", recruit_name="Cinder")
        claimed = self.attempt(claim_boons, self.world, GOLIATH, seq.id, [claim], self.ruleset,
                               seq.claimed_boons(GOLIATH), roller=self.roller)
        if claimed is not None:
            seq.record_boons(claimed)
        self.say("The Venom Court's Old Ruins grant no Boon.")
        self.confirm_all(seq)

    def distribute_step(self, seq: PostBattleSequence) -> None:
        self.stage(seq, Step.UPDATE_ROSTER, SubStep.DISTRIBUTE_EQUIPMENT)
        stash = {item.id for item in self.world.gang(GOLIATH).stash}
        if "g-bought-mesh" in stash:
            self.attempt(give_item, self.world, GOLIATH, "g-bought-mesh", HARN, self.ruleset)
        if "g-bought-rare" in stash:
            self.attempt(give_item, self.world, GOLIATH, "g-bought-rare", FORGE_BOSS,
                         self.ruleset)
        for item in list(self.world.gang(ESCHER).stash):
            self.say(f"The Venom Court keeps {item.name} in the Stash.")
        self.confirm_all(seq)

    def advancements_step(self, seq: PostBattleSequence) -> None:
        self.stage(seq, Step.UPDATE_ROSTER, SubStep.ADVANCEMENTS)
        self.attempt(buy_advancement, self.world, GOLIATH, TYRANT,
                     "+1 Weapon Skill or Ballistic Skill", self.ruleset, self.roller, "ws",
                     skirmish=seq.skirmish)
        rolled = self.attempt(roll_ganger_advancement, self.world, GOLIATH, HARN, self.ruleset,
                              self.roller, skill_set="Brawn", skirmish=seq.skirmish)
        if rolled is not None and rolled.pending_stats:
            stat = rolled.pending_stats[0]
            self.say(f"Harn's player chooses {stat.upper()}.")
            self.attempt(choose_advancement_stat, self.world, GOLIATH, HARN, stat, self.ruleset)
        self.confirm_all(seq)

    def gang_rating_step(self, seq: PostBattleSequence) -> None:
        self.stage(seq, Step.UPDATE_ROSTER, SubStep.GANG_RATING)
        self.show(seq.update_gang_rating(self.world))
        self.confirm_all(seq)

    def report_step(self, seq: PostBattleSequence, battle: Battle) -> BattleReport:
        self.stage(seq, Step.REPORT_RESULTS)
        report = self.show(seq.report(self.world, battle))
        self.lines += [f"    {safe(line, 300, plain=True)}" for line in report.text.splitlines()]
        self.confirm_all(seq)
        return report
