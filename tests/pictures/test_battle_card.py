"""The battle card: the report as a compact picture, with each gang's casualties."""

from __future__ import annotations

from PIL import ImageChops

from bot.pictures import battle_card, casualties_of
from bot.pictures.battle import CARD_WIDTH
from rules.models import Battle, FighterEndState
from rules.report import battle_report
from tests import factories as f
from tests.pictures.helpers import decode


def _battle() -> tuple[Battle, dict]:
    ash = f.gang("Ash Wolves", id="ash", fighters=[f.fighter("Krag", id="krag"),
                                                   f.fighter("Жук", id="zhuk")])
    web = f.gang("鬼龍団", id="web", fighters=[f.fighter("Vexa", id="vexa")])
    territory = f.territory("Old Ruins", id="ruins")
    battle = Battle(
        id="b1", gang_ids=["ash", "web"], scenario="Sneak Attack", winner="ash",
        staked_territory="ruins", enemies_out_of_action={"ash": 1},
        fighters=[
            FighterEndState(gang_id="web", fighter_id="vexa", out_of_action=True,
                            critical_injury=True),
            FighterEndState(gang_id="ash", fighter_id="zhuk", prone_seriously_injured=True),
            FighterEndState(gang_id="ash", fighter_id="krag"),
        ],
    )
    return battle, {"world": f.world(ash, web, territories=[territory]), "ash": ash, "web": web}


def test_casualties_name_the_fighters_and_how_they_fell() -> None:
    battle, parts = _battle()
    assert casualties_of(battle, {"ash": parts["ash"], "web": parts["web"]}) == {
        "ash": ["Жук (Seriously Injured)"],
        "web": ["Vexa (Out of Action, Critical Injury)"],
    }
    # A fighter cleared from the roster since (a death) is never named by its id.
    gone = battle.model_copy(update={"fighters": [
        FighterEndState(gang_id="web", fighter_id="8411417c4b62", out_of_action=True)]})
    assert casualties_of(gone, parts["world"].gangs)["web"] == [
        "a fighter no longer on the roster (Out of Action)"]


def test_the_card_decodes_and_grows_with_the_gangs() -> None:
    battle, parts = _battle()
    report = battle_report(parts["world"], battle)
    card = decode(battle_card(report, casualties_of(battle, parts["world"].gangs)))
    assert card.size[0] == CARD_WIDTH
    assert 300 <= card.size[1] <= 500
    draw = battle.model_copy(update={"winner": None})
    drawn = decode(battle_card(battle_report(parts["world"], draw)))
    assert drawn.size == card.size
    assert ImageChops.difference(card.convert("RGB"), drawn.convert("RGB")).getbbox()
