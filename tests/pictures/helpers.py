"""Gangs for the picture tests, and decoding what the pictures module returns."""

from __future__ import annotations

import io
import os
import time

from PIL import Image

from bot.pictures import roster_card
from rules.errors import RulesError
from rules.models import EquipmentKind, Fighter, FighterCategory, FighterStatus, Gang, Rarity
from rules.ruleset import RuleSet
from rules.world import RuleResult, Workspace, World
from tests import factories as f

NAMES = ["Krag Ironhide", "Жук Кровавый", "Ωμέγα Λύκος", "鬼龍 the Silent", "💀 Skullface",
         "한글 Hanwool", "Vexa Slagborn"]


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image


def big_gang(fighters: int = 40) -> Gang:
    """A gang of ``fighters`` fighters with equipment, skills, injuries, a vehicle, a Stash."""
    roster: list[Fighter] = []
    for index in range(fighters):
        category = (FighterCategory.LEADER if index == 0 else
                    FighterCategory.CHAMPION if index < 3 else FighterCategory.GANGER)
        fighter = f.fighter(
            f"{NAMES[index % len(NAMES)]} {index + 1}", category, cost=50 + index % 5 * 15,
            fighter_type="Bruiser", xp=index % 13, kills=index % 4,
            skills=["Nerves of Steel", "Iron Jaw"] if index % 3 == 0 else [],
            lasting_injuries=["Head Wound"] if index % 7 == 3 else [],
            equipment=[f.item("Autogun", 15), f.item("Stub gun", 5),
                       f.item("Flak armour", 10, EquipmentKind.ARMOUR)][: 1 + index % 3],
        )
        if index % 9 == 4:
            fighter.set_status(FighterStatus.IN_RECOVERY)
        roster.append(fighter)
    van = f.vehicle("Rust Bucket", vehicle_type="Ridgehauler", crew_id=roster[-1].id,
                    upgrades=[f.item("Ram", 20, EquipmentKind.VEHICLE_UPGRADE)])
    return f.gang("The Slag Lords", fighters=roster, vehicles=[van], credits=235,
                  reputation=12, stash=[f.item("Stimm-slug stash", 30, EquipmentKind.WARGEAR)])


def without_profile(fighter: Fighter) -> Fighter:
    """The fighter as a roster will hold it once a profile may be "not set"."""
    return Fighter.model_construct(**{**dict(fighter), "profile": None})


def reward(world: World, gang_id: str, credits: int, reputation: int) -> RuleResult:
    """A post-battle reward as the rules store it: credits and Reputation gained."""
    ws = Workspace(world)
    gang = ws.gang(gang_id)
    gang.credits += credits
    gang.reputation += reputation
    return ws.finish(RuleResult, clause="PB-3", title="Rewards")


def draw_slowly_elsewhere(fighters: int) -> tuple[int, list[bytes]]:
    """In the picture worker's child: this process's id and a card, drawn in at least 0.1 s
    (held on a fast machine, so the bot's loop has time to tick meanwhile)."""
    start = time.perf_counter()
    pages = roster_card(big_gang(fighters))
    while time.perf_counter() - start < 0.1:
        time.sleep(0.01)
    return os.getpid(), pages


def font_maps_read() -> int:
    """In the picture worker's child: how many font faces have had their maps read."""
    from bot.pictures import fonts

    return fonts._coverage.cache_info().currsize


def _text(stem: str, length: int) -> str:
    """``stem`` padded with words to ``length`` characters (spaces to break at, as a real
    text has)."""
    words = f"{stem} " + " ".join(f"{NAMES[i % len(NAMES)].split()[-1]}{i}" for i in range(60))
    return words[:length].rstrip() or stem[:length]


def worst_gang() -> Gang:
    """The largest roster the import limits let in (``rules.limits``): every list of
    every fighter at its bound, every text at its length, the gang's items shared out among
    the fighters, each weapon with its profiles and traits at their bounds."""
    from rules.limits import FIGHTER_LISTS, MAX_FIGHTERS, MAX_GANG_ITEMS, MAX_TEXT
    from rules.models import Advancement, Equipment, Item, WeaponProfile
    from rules.names import MAX_LENGTH

    traits_bound = WeaponProfile.model_fields["traits"].metadata[0].max_length
    trait_length = 60
    profiles_bound = Equipment.model_fields["profiles"].metadata[0].max_length
    profile = WeaponProfile(name=_text("Frag", 60), short_range='8"', long_range='24"',
                            traits=[_text(f"Trait {t}", trait_length) for t in range(traits_bound)])
    bound = {field: limit for field, (limit, _) in FIGHTER_LISTS.items()}
    items_each = min(bound["equipment"], MAX_GANG_ITEMS // MAX_FIGHTERS)

    def at_bound(stem: str, field: str) -> list[str]:
        return [_text(f"{stem} {n}", MAX_TEXT) for n in range(bound[field])]

    roster = []
    for index in range(MAX_FIGHTERS):
        roster.append(Fighter(
            id=f"f{index}", name=_text(f"{NAMES[index % len(NAMES)]} {index}", MAX_LENGTH),
            category=FighterCategory.LEADER if index == 0 else FighterCategory.GANGER,
            fighter_type=_text("Forge Tyrant", MAX_LENGTH), cost=100,
            skills=at_bound("Skill", "skills"), special_rules=at_bound("Rule", "special_rules"),
            lasting_injuries=at_bound("Injury", "lasting_injuries"),
            advancements=[Advancement(name=_text(f"Advance {a}", MAX_LENGTH), xp_cost=5,
                                      credits=5) for a in range(bound["advancements"])],
            equipment=[Item(id=f"i{index}-{n}", name=_text(f"Gun {n}", MAX_LENGTH), cost=10,
                            kind=EquipmentKind.WEAPON, profiles=[profile] * profiles_bound)
                       for n in range(items_each)],
        ))
    return Gang(id="worst", name=_text("The Longest Gang", MAX_LENGTH), house="Goliath",
                owner="1", fighters=roster)


def house_gang(content: RuleSet, house: str) -> Gang:
    """A gang of ``house`` made as a player makes one from the shipped content: every
    fighter type of its House List hired (as many as the list's make-up allows), each with
    the first two Common weapons and the first Common wargear of its own Equipment List."""
    from rules.tradingpost import buy_equipment, hire_fighter

    w = f.world(f.gang(id="g", name=f"House {house} sample", house=house, credits=100_000,
                         fighters=[]))
    templates = content.house(house).fighters
    # Gangers before the types a gang may only have fewer of than its Gangers.
    order = sorted(templates, key=lambda t: t.category is not FighterCategory.GANGER)
    for number, template in enumerate(order):
        fighter_id = f"f{number}"
        try:
            w = hire_fighter(w, "g", content, template.fighter_type,
                             f"{template.fighter_type} {number}", fighter_id).world
        except RulesError:
            continue  # the gang's make-up allows no more of this type
        offered = [e for e in template.equipment_list if e.availability.rarity is Rarity.COMMON]
        weapons = [e for e in offered if e.kind is EquipmentKind.WEAPON]
        others = [e for e in offered if e.kind is not EquipmentKind.WEAPON]
        for index, entry in enumerate([*weapons[:2], *others[:1]]):
            try:
                w = buy_equipment(w, "g", content, entry.name, f"{fighter_id}-{index}",
                                  fighter_id=fighter_id).world
            except RulesError:
                continue  # no slot left for it: the next entry may still fit
    return w.gang("g")
