"""Domain models: campaign, gangs, fighters, vehicles, equipment, territories, battles.

These are the state the rules act on and the storage layer persists. They
know nothing of Discord or SQL. Ids are opaque strings chosen by whoever
creates the object (storage uses short random hex); the rules never invent
meaning for them.

Characteristics that are target numbers (WS, BS, I, Ld, Cl, Wil, Int: "4+")
are stored as that number, so making them *worse* raises the number; use
:meth:`Profile.worsen` and :meth:`Profile.improve` rather than adding by hand.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from rules.limits import (
    MAX_BOONS,
    MAX_CREDITS,
    MAX_DESCRIPTION,
    MAX_EFFECTS,
    MAX_RULE_TEXT,
    MAX_SHORT_LIST,
)
from rules.names import valid_name

# Every name is stored clean (rules.names): whatever brings one in (a command,
# an import, a rule data file, a stored row) gets the same form and refusals.
Name = Annotated[str, AfterValidator(valid_name)]
Credits = Annotated[int, Field(ge=0, le=MAX_CREDITS)]
# Texts of rule data (rules.limits): a skill, a special rule, a dice expression...
RuleText = Annotated[str, Field(max_length=MAX_RULE_TEXT)]
# ...and what players read at length: an injury result's description, a Boon.
Description = Annotated[str, Field(max_length=MAX_DESCRIPTION)]
# A gang's or fighter's notes, as a roster file or a player writes them.
NOTES_MAX = 4000


class Model(BaseModel):
    """Base for every domain model: strict about unknown fields, validates assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


# --------------------------------------------------------------------------- enums


class Alignment(StrEnum):
    LAW_ABIDING = "Law Abiding"
    OUTLAW = "Outlaw"


class FighterCategory(StrEnum):
    LEADER = "Leader"
    CHAMPION = "Champion"
    GANGER = "Ganger"
    JUVE = "Juve"
    PROSPECT = "Prospect"
    SPECIALIST = "Specialist"
    CREW = "Crew"
    BRUTE = "Brute"
    HANGER_ON = "Hanger-on"
    # A House List's beast (Phyrr Cat, Cyber-Mastiff): hired like a fighter, no Gang Fighter.
    EXOTIC_BEAST = "Exotic Beast"

    @property
    def has_gang_hierarchy(self) -> bool:
        """Leaders and Champions have Gang Hierarchy (X) and so make post-battle actions
        (PB-5.0), as the House Lists shipped in rules/data say; a fighter written onto a
        roster by hand gets it from its category."""
        return self in (FighterCategory.LEADER, FighterCategory.CHAMPION)


class FighterStatus(StrEnum):
    ACTIVE = "Active"
    IN_RECOVERY = "In Recovery"
    CONVALESCENT = "Convalescent"
    CAPTURED = "Captured"
    DEAD = "Dead"
    RETIRED = "Retired"


class EquipmentKind(StrEnum):
    WEAPON = "weapon"
    WARGEAR = "wargear"
    ARMOUR = "armour"
    VEHICLE_UPGRADE = "vehicle upgrade"


class Rarity(StrEnum):
    COMMON = "Common"
    RARE = "Rare"
    ILLEGAL = "Illegal"
    EXCLUSIVE = "Exclusive"


class VehicleStatus(StrEnum):
    ACTIVE = "Active"
    IN_REPAIR = "In Repair"
    IN_STASH = "In Stash"


# --------------------------------------------------------------------------- equipment

_AVAILABILITY = re.compile(
    r"^\s*(?:(common)|(exclusive)|(rare|illegal)\s*\(\s*(\d{1,2})\s*\)"
    r"|(rarity|legality)\s+(?:rating\s+)?(\d{1,2}))\s*$",
    re.IGNORECASE,
)


class Availability(Model):
    """Common, Rare (X), Illegal (X) or Exclusive; parsed from text with :meth:`parse`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rarity: Rarity
    level: int | None = Field(default=None, ge=0, le=99)

    @model_validator(mode="after")
    def _level_matches_rarity(self) -> Availability:
        needs_level = self.rarity in (Rarity.RARE, Rarity.ILLEGAL)
        if needs_level != (self.level is not None):
            wants = "needs" if needs_level else "takes no"
            raise ValueError(f"{self.rarity} availability {wants} level")
        return self

    @classmethod
    def parse(cls, text: str) -> Availability:
        """Read "Common", "Rare (8)", "Illegal (9)", "Exclusive" and the older
        "Rarity rating 8" / "Legality rating 9" (PB-6B.7)."""
        match = _AVAILABILITY.match(text)
        if match is None:
            raise ValueError(f"unknown availability {text!r}")
        common, exclusive, kind, level, old_kind, old_level = match.groups()
        if common:
            return cls(rarity=Rarity.COMMON)
        if exclusive:
            return cls(rarity=Rarity.EXCLUSIVE)
        if kind:
            return cls(rarity=Rarity(kind.capitalize()), level=int(level))
        rarity = Rarity.RARE if old_kind.lower() == "rarity" else Rarity.ILLEGAL
        return cls(rarity=rarity, level=int(old_level))

    def __str__(self) -> str:
        return self.rarity.value if self.level is None else f"{self.rarity.value} ({self.level})"


class WeaponProfile(Model):
    """One profile line of a weapon, as its rule data or roster file prints it.

    Values are the printed text ("8\"", "+1", "S+1", "-1", "D3", "4+", "-"), since
    weapon profiles mix numbers, dice and references to the fighter's own
    characteristics; "-" is a blank box, never a made-up figure.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Which profile of a weapon with several ("Frag", "Krak"); "" for a weapon with one.
    name: str = Field(default="", max_length=60)
    short_range: str = Field(default="-", max_length=12)
    long_range: str = Field(default="-", max_length=12)
    short_accuracy: str = Field(default="-", max_length=12)
    long_accuracy: str = Field(default="-", max_length=12)
    strength: str = Field(default="-", max_length=12)
    ap: str = Field(default="-", max_length=12)
    damage: str = Field(default="-", max_length=12)
    ammo: str = Field(default="-", max_length=12)
    traits: list[Annotated[str, Field(min_length=1, max_length=60)]] = Field(
        default_factory=list, max_length=20)

    @property
    def text(self) -> str:
        parts = [
            f"Rng {self.short_range}/{self.long_range}",
            f"Acc {self.short_accuracy}/{self.long_accuracy}",
            f"S {self.strength}", f"AP {self.ap}", f"D {self.damage}", f"Am {self.ammo}",
        ]
        if self.traits:
            parts.append(", ".join(self.traits))
        return " · ".join(parts)


class Equipment(Model):
    """A kind of item as a catalogue (Trading Post, Equipment List) offers it."""

    name: Name
    cost: Credits
    kind: EquipmentKind = EquipmentKind.WARGEAR
    availability: Availability = Availability(rarity=Rarity.COMMON)
    # The "*" of a weapon profile: it takes two of a fighter's three weapon slots.
    two_slots: bool = False
    grants_mounted: bool = False
    # A weapon's profile lines where the rule data or the roster file gives them.
    profiles: list[WeaponProfile] = Field(default_factory=list, max_length=8)
    # An Equipment List entry the list marks as open at the Trading Post too (its tick).
    trading_post: bool = False
    # Where a shipped entry's figures come from (a source file), for people checking them.
    source: str = Field(default="", max_length=200)

    @field_validator("availability", mode="before")
    @classmethod
    def _parse_availability(cls, value: object) -> object:
        return Availability.parse(value) if isinstance(value, str) else value

    @property
    def weapon_slots(self) -> int:
        if self.kind is not EquipmentKind.WEAPON:
            return 0
        return 2 if self.two_slots else 1


_CATALOGUE_ONLY = frozenset({"trading_post", "source"})


class Item(Equipment):
    """One item a gang owns: in its Stash, carried by a fighter or fitted to a vehicle.

    ``cost`` is what the item is worth on this model (its own Equipment List
    price where it has one, PB-6D).
    """

    id: str = Field(min_length=1, max_length=64)
    # Id of the post-battle sequence whose Territory Boon granted the item: it
    # cannot be sold during that same sequence (PB-6B.4).
    boon_of_sequence: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _not_a_catalogue_entry(cls, value: object) -> object:
        """An owned item is not an offer: the list's tick and the data's source stay with
        the catalogue entry it was bought from (and are not stored)."""
        if isinstance(value, dict) and ("trading_post" in value or "source" in value):
            return {k: v for k, v in value.items() if k not in _CATALOGUE_ONLY}
        return value


# --------------------------------------------------------------------------- fighters

PROFILE_STATS = ("m", "ws", "bs", "s", "t", "w", "i", "a", "ld", "cl", "wil", "int")
# Target-number characteristics ("4+"): a lower number is better.
TARGET_STATS = frozenset({"ws", "bs", "i", "ld", "cl", "wil", "int"})


class Profile(Model):
    """A fighter's twelve characteristics, as its roster gives them.

    Every characteristic must be given: there is no default, because a made-up
    figure is worse than none. ``None`` is a characteristic the fighter does not
    have, written "-" on a roster (a Psychic Familiar's BS); rules never invent
    one (:meth:`improve` and :meth:`worsen` leave it absent).
    """

    m: int | None = Field(ge=0, le=20)
    ws: int | None = Field(ge=1, le=12)
    bs: int | None = Field(ge=1, le=12)
    s: int | None = Field(ge=0, le=10)
    t: int | None = Field(ge=0, le=10)
    w: int | None = Field(ge=0, le=10)
    i: int | None = Field(ge=1, le=12)
    a: int | None = Field(ge=0, le=10)
    ld: int | None = Field(ge=1, le=12)
    cl: int | None = Field(ge=1, le=12)
    wil: int | None = Field(ge=1, le=12)
    int_: int | None = Field(ge=1, le=12, alias="int")

    model_config = ConfigDict(extra="forbid", validate_assignment=True, populate_by_name=True)

    def get(self, stat: str) -> int | None:
        value = getattr(self, _attr(stat))
        return None if value is None else int(value)

    def has(self, stat: str) -> bool:
        return self.get(stat) is not None

    def improve(self, stat: str, steps: int = 1) -> None:
        """Make ``stat`` better by ``steps`` (+1 S, or Ld 7+ -> 6+)."""
        self._shift(stat, steps)

    def worsen(self, stat: str, steps: int = 1) -> None:
        """Make ``stat`` worse by ``steps`` (-1 S, or Ld 7+ -> 8+)."""
        self._shift(stat, -steps)

    def _shift(self, stat: str, steps: int) -> None:
        key = stat.lower()
        if key not in PROFILE_STATS:
            raise ValueError(f"unknown characteristic {stat!r}")
        current = self.get(key)
        if current is None:
            return
        delta = -steps if key in TARGET_STATS else steps
        low, high = stat_bounds(key)
        setattr(self, _attr(key), max(low, min(high, current + delta)))


def stat_bounds(stat: str) -> tuple[int, int]:
    """The lowest and highest value a characteristic may take."""
    field = Profile.model_fields[_attr(stat)]
    low, high = 0, 20
    for meta in field.metadata:
        low = getattr(meta, "ge", low)
        high = getattr(meta, "le", high)
    return low, high


def _attr(stat: str) -> str:
    return "int_" if stat.lower() == "int" else stat.lower()


class Advancement(Model):
    """An advancement bought with XP; ``credits`` is what it adds to the fighter's cost."""

    name: Name
    xp_cost: int = Field(ge=0)
    credits: int = Field(ge=0)
    stat: str | None = None


class Fighter(Model):
    id: str = Field(min_length=1, max_length=64)
    name: Name
    category: FighterCategory
    fighter_type: str = Field(default="", max_length=100)
    # Credits value without equipment: hiring cost plus advancements.
    # Characteristic reductions never change it (REFERENCE: Definitions).
    cost: Credits
    # None: nobody has given the profile yet ("profile not set"), never a made-up one.
    profile: Profile | None = None
    xp: int = Field(default=0, ge=0)
    kills: int = Field(default=0, ge=0)
    advancements: list[Advancement] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    special_rules: list[str] = Field(default_factory=list)
    equipment: list[Item] = Field(default_factory=list)
    status: FighterStatus = FighterStatus.ACTIVE
    # Gang id of the captor while status is Captured (PB-1.2 "Captured by X").
    captured_by: str | None = None
    # The owner has had (and declined or failed) its chance of a Rescue Mission (PB-1.7).
    rescue_chance_given: bool = False
    lasting_injuries: list[str] = Field(default_factory=list)
    gang_hierarchy: bool = False
    # Suffered a Critical Injury in the last battle: it dies in Clean House
    # (PB-6A.1) unless a Medical Escort (PB-5.5) clears this first.
    critical_injury: bool = False
    # Was taken to the Doc this sequence; if it died anyway its gear is kept (PB-6A.1).
    escorted_to_doc: bool = False
    notes: str = Field(default="", max_length=NOTES_MAX)

    def capture(self, captor_gang_id: str) -> None:
        """Mark the fighter Captured by ``captor_gang_id`` (PB-1.2)."""
        self.captured_by = captor_gang_id
        self.status = FighterStatus.CAPTURED

    def set_status(self, status: FighterStatus) -> None:
        """Change status; leaving Captured forgets the captor and the rescue chance."""
        if status is FighterStatus.CAPTURED:
            raise ValueError("use capture() to record who holds the fighter")
        self.status = status
        self.captured_by = None
        self.rescue_chance_given = False

    @property
    def total_cost(self) -> int:
        """Cost with all equipment: what counts towards the Gang Rating."""
        return self.cost + sum(item.cost for item in self.equipment)

    @property
    def weapon_slots(self) -> int:
        return sum(item.weapon_slots for item in self.equipment)

    @property
    def on_roster(self) -> bool:
        """Still a member of the gang (dead and retired fighters are deleted in Clean House)."""
        return self.status not in (FighterStatus.DEAD, FighterStatus.RETIRED)

    @property
    def can_act(self) -> bool:
        """May make a post-battle action (PB-5.0): Gang Hierarchy and Active.

        The text bars In Recovery and Captured fighters; REFERENCE.md adds that
        Convalescence means no post-battle actions, and a fighter awaiting a
        Medical Escort is in no state to act either.
        """
        active = self.status is FighterStatus.ACTIVE and not self.critical_injury
        return self.gang_hierarchy and active


# --------------------------------------------------------------------------- vehicles


class Vehicle(Model):
    id: str = Field(min_length=1, max_length=64)
    name: Name
    vehicle_type: str = Field(default="", max_length=100)
    # Base cost of the vehicle itself, without Upgrades, wargear or weapons.
    cost: Credits
    upgrades: list[Item] = Field(default_factory=list)
    # Wargear and weapons fitted to the vehicle.
    equipment: list[Item] = Field(default_factory=list)
    lasting_damage: list[str] = Field(default_factory=list)
    crew_id: str | None = None
    status: VehicleStatus = VehicleStatus.ACTIVE

    @property
    def cost_with_upgrades(self) -> int:
        """The base for repair and scrap prices (PB-5.6, PB-6A.3)."""
        return self.cost + sum(item.cost for item in self.upgrades)

    @property
    def total_cost(self) -> int:
        return self.cost_with_upgrades + sum(item.cost for item in self.equipment)


# --------------------------------------------------------------------------- gangs


class Gang(Model):
    id: str = Field(min_length=1, max_length=64)
    name: Name
    house: Name
    # Opaque owner reference; the bot stores the Discord user id as a string.
    owner: str = Field(min_length=1, max_length=64)
    alignment: Alignment = Alignment.LAW_ABIDING
    credits: Credits = 0
    stash: list[Item] = Field(default_factory=list)
    # Vehicles without crew or scrapped wrecks waiting for a crew sit in the stash too.
    stash_vehicles: list[Vehicle] = Field(default_factory=list)
    reputation: int = Field(default=1, ge=1, le=1000)
    battles_fought: int = Field(default=0, ge=0)
    fighters: list[Fighter] = Field(default_factory=list)
    vehicles: list[Vehicle] = Field(default_factory=list)
    notes: str = Field(default="", max_length=NOTES_MAX)

    def fighter(self, fighter_id: str) -> Fighter:
        for fighter in self.fighters:
            if fighter.id == fighter_id:
                return fighter
        from rules.errors import NotFound

        raise NotFound(f"{self.name} has no fighter with id {fighter_id}.")

    def vehicle(self, vehicle_id: str) -> Vehicle:
        for vehicle in self.vehicles:
            if vehicle.id == vehicle_id:
                return vehicle
        from rules.errors import NotFound

        raise NotFound(f"{self.name} has no vehicle with id {vehicle_id}.")

    @property
    def rating(self) -> int:
        """Gang Rating: fighters and vehicles on the roster with their equipment.

        Captives held by another gang are excluded (REFERENCE: Definitions).
        """
        fighters = sum(
            f.total_cost
            for f in self.fighters
            if f.on_roster and f.status is not FighterStatus.CAPTURED
        )
        return fighters + sum(v.total_cost for v in self.vehicles)

    @property
    def stash_value(self) -> int:
        items = sum(item.cost for item in self.stash)
        return items + sum(v.total_cost for v in self.stash_vehicles)

    @property
    def wealth(self) -> int:
        """Gang Rating + Stash credits + the value of equipment in the Stash."""
        return self.rating + self.credits + self.stash_value


# --------------------------------------------------------------------------- territories


class BoonKind(StrEnum):
    """What a Territory Boon does, as the rule data set says it (PB-6C)."""

    REPUTATION = "reputation"  # +amount Reputation
    CREDITS = "credits"  # credits by a dice expression or flat number
    RECRUIT_ROLL = "recruit roll"  # roll dice; sixes (or another face) give a free recruit
    FREE_HANGER_ON = "free hanger-on"  # a Hanger-on or Brute of the rule set, at no cost
    # Not mechanised (a battle rule, a choice the table makes): the bot says what to do.
    MANUAL = "manual"


class RecruitOutcome(Model):
    """One line of a recruit roll: at least ``count`` dice showing ``face`` give a recruit."""

    face: int = Field(default=6, ge=1, le=6)
    count: int = Field(default=1, ge=1, le=6)
    category: FighterCategory


class TerritoryBoon(Model):
    """One Boon of a Territory, as data the bot applies (PB-6C)."""

    kind: BoonKind
    amount: int = Field(default=0, ge=0, le=20)  # Reputation gained
    expression: str | None = Field(default=None, max_length=32)  # credits, recruit dice
    recruits: list[RecruitOutcome] = Field(default_factory=list, max_length=MAX_SHORT_LIST)
    fighter_type: str | None = Field(default=None, max_length=100)  # free Hanger-on or Brute
    # Only a gang of this alignment gets the Boon ("Law Abiding: a free Rogue Doc").
    only_for: Alignment | None = None
    # What the players read; for a manual Boon, what they do themselves.
    text: str = Field(default="", max_length=300)


class Territory(Model):
    id: str = Field(min_length=1, max_length=64)
    name: Name
    # Dice expression or flat number from the data set: "D6x10", "D3x10", "0".
    income: str = Field(default="0", max_length=32)
    boons: list[Description] = Field(default_factory=list, max_length=MAX_BOONS)
    can_be_staked: bool = True
    # Only gangs of this alignment collect the income ("D6x10 (Outlaw)"); None: every gang.
    income_only_for: Alignment | None = None
    # The controller may roll up to this many dice of the income's kind instead
    # ("2D6x10 up to 6D6x10"); None: the income is rolled as written.
    income_max_dice: int | None = Field(default=None, ge=1, le=20)
    # Any double on the income roll: no income, and a random fighter of the gang
    # rolls a Lasting Injury (the Collapsed Dome).
    income_double_injures: bool = False
    # The Boons as data (PB-6C); ``boons`` stays the text players read.
    boon_effects: list[TerritoryBoon] = Field(default_factory=list, max_length=MAX_EFFECTS)
    # Gang id of the controller; None while unclaimed.
    controller: str | None = Field(default=None, max_length=64)


# --------------------------------------------------------------------------- campaign


class ScenarioDie(StrEnum):
    D6 = "D6"
    D4 = "D4"


# The shipped rule data set a new campaign plays with (rules/data/); a campaign keeps
# the one it stored, so changing this moves no existing campaign.
DEFAULT_RULESET = "necromunda-2023"


class CampaignSettings(Model):
    name: Name
    # PRE-4: D6 by default so every chart entry can come up; D4 as the text says.
    scenario_die: ScenarioDie = ScenarioDie.D6
    # Name of the rule data set (see rules.data); a campaign may load its own.
    ruleset: str = Field(default=DEFAULT_RULESET, max_length=64)
    # Skirmish play skips the campaign-only parts (PB-0).
    skirmish: bool = False
    # Whether /gang show attaches the roster card when the player does not say; None:
    # the bot's own default (a campaign stored before there was this setting).
    roster_cards: bool | None = None


# --------------------------------------------------------------------------- battles


class FighterEndState(Model):
    """How one fighter ended the battle, as its player reports it."""

    gang_id: str
    fighter_id: str
    prone_seriously_injured: bool = False
    # Fled the battlefield whilst Prone & SI because its gang bottled out.
    fled_prone_seriously_injured: bool = False
    out_of_action: bool = False
    # Went Out of Action while subject to the Webbed condition (PB-1.2: -2).
    webbed: bool = False
    # Lasting Injury already rolled during the battle (results named as in the table).
    injuries_rolled: list[str] = Field(default_factory=list)
    critical_injury: bool = False
    # Experience earned during the battle and enemies it took Out of Action,
    # applied in the Wrap-up (spent in PB-6E).
    xp: int = Field(default=0, ge=0, le=100)
    kills: int = Field(default=0, ge=0, le=100)


class VehicleEndState(Model):
    gang_id: str
    vehicle_id: str
    wrecked: bool = False
    # How many Wrecked results it suffered: one Lasting Damage roll each.
    wrecked_results: int = Field(default=1, ge=1, le=10)
    # Lasting Damage already rolled at the table (results named as in the table),
    # each standing for one of the Wrecked results; the Wrap-up rolls the rest.
    lasting_damage_rolled: list[str] = Field(default_factory=list)
    # Abandoned by fleeing crew: retrieved at the end of the Wrap-up (PB-1.4).
    abandoned: bool = False


class Battle(Model):
    id: str = Field(min_length=1, max_length=64)
    gang_ids: list[str] = Field(min_length=2, max_length=4)
    scenario: str = Field(default="", max_length=100)
    battlefield: str = Field(default="", max_length=100)
    # None means a draw.
    winner: str | None = None
    staked_territory: str | None = None
    campaign: bool = True
    rescue_mission: bool = False
    fighters: list[FighterEndState] = Field(default_factory=list)
    vehicles: list[VehicleEndState] = Field(default_factory=list)
    # Gangs with models on the battlefield at the start of the Wrap-up / end of battle.
    gangs_with_models_left: list[str] = Field(default_factory=list)
    bottled_out: list[str] = Field(default_factory=list)
    enemies_out_of_action: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _gangs_known(self) -> Battle:
        if len(set(self.gang_ids)) != len(self.gang_ids):
            raise ValueError("a gang cannot fight itself")
        known = set(self.gang_ids)
        named = (
            [self.winner] if self.winner else []
        ) + self.gangs_with_models_left + self.bottled_out + list(self.enemies_out_of_action)
        named += [f.gang_id for f in self.fighters] + [v.gang_id for v in self.vehicles]
        stray = [g for g in named if g not in known]
        if stray:
            raise ValueError(f"gangs {sorted(set(stray))} did not take part in this battle")
        return self

    @property
    def draw(self) -> bool:
        return self.winner is None

    def lost(self, gang_id: str) -> bool:
        return self.winner is not None and self.winner != gang_id

    def end_state(self, fighter_id: str) -> FighterEndState | None:
        for state in self.fighters:
            if state.fighter_id == fighter_id:
                return state
        return None


Outcome = Literal["win", "draw", "loss"]
