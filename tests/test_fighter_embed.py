"""The /fighter show card's equipment lines (bot/ui/fighter.py)."""

from __future__ import annotations

from bot.ui.fighter import item_line
from rules.models import EquipmentKind, WeaponProfile
from tests.factories import item


def test_wargear_with_its_own_profile_shows_it() -> None:
    # An item written down as wargear (a file's, a campaign's own data) keeps its lines.
    flare = item("Flare", 10, EquipmentKind.WARGEAR,
                 profiles=[WeaponProfile(short_range='6"', strength="2")])
    assert item_line(flare).splitlines() == [
        "Flare · wargear · 10 credits",
        '  ↳ Rng 6"/- · Acc -/- · S 2 · AP - · D - · Am -',
    ]


def test_a_weapon_without_lines_takes_the_rule_datas() -> None:
    stub = item("Stub gun", 5, EquipmentKind.WEAPON)
    known = {"stub gun": [WeaponProfile(short_range='6"', long_range='12"')]}
    assert item_line(stub, known).splitlines()[1:] == [
        '  ↳ Rng 6"/12" · Acc -/- · S - · AP - · D - · Am -']
    assert item_line(stub).splitlines()[1:] == []
