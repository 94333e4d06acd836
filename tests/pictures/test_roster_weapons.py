"""The roster card as players know it, drawn from the shipped content (necromunda-2023):
each weapon as the roster sheet's profile table, read from the boxes the card draws."""

from __future__ import annotations

import pytest
from PIL import Image

from bot.pictures import roster_card
from bot.pictures.canvas import A4_WIDTH, MARGIN
from bot.pictures.roster import (
    BLOCK_GAP,
    BLOCKS_END,
    COLUMN_WIDTH,
    GUTTER,
    MAX_CELL_LINES,
    MAX_PAGES,
    Placed,
    RosterOptions,
    WeaponHead,
    WeaponLine,
    paginate,
    roster_blocks,
    vehicle_block,
)
from rules.data import load_ruleset
from rules.models import EquipmentKind, Gang, Item, Vehicle, WeaponProfile
from rules.ruleset import RuleSet
from rules.tradingpost import written_item
from tests import factories as f
from tests.pictures.helpers import decode, house_gang, worst_gang

HOUSES = ["Goliath", "Escher", "Orlock", "Van Saar", "Cawdor", "Delaque"]
RIGHT_COLUMN = MARGIN + COLUMN_WIDTH + GUTTER


@pytest.fixture(scope="module")
def content() -> RuleSet:
    return load_ruleset("necromunda-2023")


def layout(gang: Gang) -> list[list[Placed]]:
    return paginate(roster_blocks(gang, RosterOptions()))


def weapon_lines(placed: Placed) -> list[tuple[WeaponLine, tuple[float, float, float, float]]]:
    return [(part, box) for part, box in placed.block.parts(placed.x, placed.y)
            if isinstance(part, WeaponLine)]


def inside(inner: tuple[float, float, float, float],
           outer: tuple[float, float, float, float]) -> bool:
    return (outer[0] <= inner[0] and inner[2] <= outer[2]
            and outer[1] <= inner[1] and inner[3] <= outer[3])


def ink_in(image: Image.Image, box: tuple[float, float, float, float]) -> int:
    """How many pixels of ``box`` are not the paper's colour."""
    paper = image.getpixel((0, 0))
    area = image.crop(box)
    return sum(n for n, colour in area.getcolors(maxcolors=1_000_000) or [] if colour != paper)


def test_a_weapon_with_two_profile_lines_is_two_rows_of_figures(content: RuleSet) -> None:
    long_las = content.trading_post_item("Long las")
    assert len(long_las.profiles) == 2
    sniper = f.fighter("Sniper", equipment=[written_item("i1", long_las.name, long_las)])
    gang = f.gang(fighters=[sniper])
    [placed] = [p for page in layout(gang) for p in page if p.block.title == "Sniper"]
    rows = weapon_lines(placed)
    assert [row.row.figures for row, _ in rows] == [
        (p.short_range, p.long_range, p.short_accuracy, p.long_accuracy, p.strength, p.ap,
         p.damage, p.ammo) for p in long_las.profiles]
    assert [row.row.first for row, _ in rows] == [True, False]
    # Drawn one under the other, under the table's heading, inside the block, with ink.
    heads = [box for part, box in placed.block.parts(placed.x, placed.y)
             if isinstance(part, WeaponHead)]
    (_, first_box), (_, second_box) = rows
    assert len(heads) == 1 and heads[0][3] <= first_box[1] < first_box[3] <= second_box[1]
    assert "focusing crystal" in " ".join(line.text for line in rows[1][0].name)
    image = decode(roster_card(gang)[0]).convert("RGB")
    for _, box in rows:
        assert inside(box, placed.box)
        assert ink_in(image, box) > 50, box


@pytest.mark.parametrize("house", HOUSES)
def test_a_gang_of_each_house_shows_every_profile_line_of_its_weapons(
        content: RuleSet, house: str) -> None:
    gang = house_gang(content, house)
    pages = layout(gang)
    assert len(roster_card(gang)) == len(pages)
    by_name = {f.name: f for f in gang.fighters}
    for page in pages:
        for placed in page:
            assert placed.box[3] <= BLOCKS_END
            fighter = by_name.get(placed.block.title)
            if fighter is None:
                continue
            weapons = [i for i in fighter.equipment if i.kind is EquipmentKind.WEAPON]
            expected = sum(max(1, len(w.profiles)) for w in weapons)
            rows = weapon_lines(placed)
            assert len(rows) == expected, fighter.name
            assert all(inside(box, placed.box) for _, box in rows)
            assert [r.row.weapon.id for r, _ in rows if r.row.first] == [w.id for w in weapons]


def test_a_small_gang_fills_both_columns_of_its_page() -> None:
    gang = f.gang()  # three fighters and the Stash: once all in the left column
    [page] = layout(gang)
    lefts = {placed.x for placed in page}
    assert lefts == {MARGIN, RIGHT_COLUMN}
    # Read in order: down the left column, then the right.
    assert [p.x for p in page] == sorted(p.x for p in page)
    image = decode(roster_card(gang)[0]).convert("RGB")
    for placed in page:
        assert ink_in(image, placed.box) > 1000
    right = [p for p in page if p.x == RIGHT_COLUMN]
    assert all(p.box[2] <= A4_WIDTH - MARGIN for p in right)


def test_full_pages_fill_the_left_column_first_and_the_last_page_is_shared(
        content: RuleSet) -> None:
    gang = house_gang(content, "Cawdor")
    pages = layout(gang)
    assert len(pages) >= 2
    for page in pages:
        assert {p.x for p in page} == {MARGIN, RIGHT_COLUMN}, [p.block.title for p in page]
    # A full page's right column starts because the next block would not fit on the left.
    first = pages[0]
    left = [p for p in first if p.x == MARGIN]
    following = next(p for p in first if p.x == RIGHT_COLUMN)
    assert left[-1].box[3] + BLOCK_GAP + following.block.height > BLOCKS_END


def test_the_worst_roster_keeps_its_budgets_with_weapon_tables() -> None:
    gang = worst_gang()
    pages = layout(gang)
    assert len(pages) == MAX_PAGES
    for page in pages:
        for placed in page:
            assert placed.box[3] <= BLOCKS_END
            for row, box in weapon_lines(placed):
                assert inside(box, placed.box)
                # Twenty traits of sixty characters: the cell ends in an ellipsis.
                assert len(row.traits) <= MAX_CELL_LINES
                assert row.traits[-1].text.endswith("…")
    assert len(roster_card(gang)) == MAX_PAGES


def test_a_weapon_named_in_the_rule_data_takes_its_profile_there() -> None:
    plain = f.fighter("Plain", equipment=[Item(id="i1", name="Autogun", cost=15,
                                               kind=EquipmentKind.WEAPON)])
    gang = f.gang(fighters=[plain])
    bare = layout(gang)[0][0]
    assert [r.row.figures for r, _ in weapon_lines(bare)] == [("-",) * 8]
    known = {"autogun": [WeaponProfile(short_range='8"', long_range='24"', strength="3")]}
    given = paginate(roster_blocks(gang, RosterOptions(weapon_profiles=known)))[0][0]
    [(row, _)] = weapon_lines(given)
    assert row.row.figures[:2] == ('8"', '24"') and row.row.figures[4] == "3"


def test_a_weapon_s_price_is_never_broken_inside() -> None:
    for name in ["Renderizer", "Combat shotgun", "Reclaimed Autogun with Polearm", "Boltgun"]:
        weapon = Item(id="i1", name=name, cost=35, kind=EquipmentKind.WEAPON)
        placed = layout(f.gang(fighters=[f.fighter("Krull", equipment=[weapon])]))[0][0]
        [(row, _)] = weapon_lines(placed)
        cell = [line.text for line in row.name]
        assert cell[-1].endswith("(35)") and " ".join(cell) == f"{name} (35)", cell


def test_a_vehicle_shows_its_type_s_profile_from_the_rule_data() -> None:
    ruleset = load_ruleset("necromunda-2023")
    known = Vehicle(id="v1", name="Ironjaw", vehicle_type="Wolfquad", cost=70)
    unknown = Vehicle(id="v2", name="Scrapheap", vehicle_type="Home-made", cost=40)
    options = RosterOptions(vehicle_profiles=ruleset.vehicle_profiles(["WOLFQUAD", "Home-made"]))
    drawn = vehicle_block(known, None, options)
    assert drawn.has_profile and drawn.stats == [
        ("M", '8"'), ("Front", "3"), ("Side", "3"), ("Rear", "3"), ("HP", "2"), ("Hnd", "5+"),
        ("Sv", "5+")]
    # A type the data does not know has no table (no "profile not set": nobody can give one).
    bare = vehicle_block(unknown, None, options)
    assert not bare.has_profile and bare.height < drawn.height
