"""Gangs for the picture tests, and decoding what the pictures module returns."""

from __future__ import annotations

import io
import os
import time

from PIL import Image

from bot.pictures import roster_card
from rules.models import EquipmentKind, Fighter, FighterCategory, FighterStatus, Gang
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
