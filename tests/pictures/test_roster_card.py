"""The roster card: real PNG pages of A4 size, paginated, and a picture of the roster as it is."""

from __future__ import annotations

from PIL import ImageChops

from bot.pictures import WeaponProfile, roster_card
from bot.pictures.canvas import A4_HEIGHT, A4_WIDTH, MARGIN
from bot.pictures.fonts import typeface
from bot.pictures.roster import (
    BLOCKS_END,
    MAX_PAGES,
    RosterOptions,
    paginate,
    roster_blocks,
)
from tests import factories as f
from tests.pictures.helpers import big_gang, decode, without_profile, worst_gang

DISCORD_ATTACHMENTS_PER_MESSAGE = 10


def test_a_small_gang_is_one_a4_page_that_decodes() -> None:
    pages = roster_card(f.gang(), owner_name="Alice")
    assert len(pages) == 1
    image = decode(pages[0])
    assert image.size == (A4_WIDTH, A4_HEIGHT)
    # Something is drawn: far more than the paper colour alone.
    assert len(image.convert("RGB").getcolors(maxcolors=100_000) or []) > 10


def test_forty_fighters_take_several_pages_each_a4() -> None:
    pages = roster_card(big_gang(40))
    assert 2 <= len(pages) <= DISCORD_ATTACHMENTS_PER_MESSAGE
    for page in pages:
        assert decode(page).size == (A4_WIDTH, A4_HEIGHT)
    assert len(roster_card(big_gang(12))) < len(pages)


def test_every_block_of_forty_fighters_ends_above_the_footer_on_its_page() -> None:
    gang = big_gang(40)
    layout = paginate(roster_blocks(gang, RosterOptions()))
    pages = roster_card(gang)
    assert len(layout) == len(pages)
    for number, placed in enumerate(layout, start=1):
        for item in placed:
            left, top, right, bottom = item.box
            where = f"page {number}: {item.block.title} at {item.box}"
            assert left >= MARGIN and right <= A4_WIDTH - MARGIN, where
            assert top >= MARGIN and bottom <= BLOCKS_END, where
        # What is drawn agrees: between the blocks' end and the footer's line, bare paper.
        image = decode(pages[number - 1]).convert("RGB")
        paper = image.getpixel((0, 0))  # the paper colour after the PNG's palette
        strip = image.crop((0, BLOCKS_END + 1, A4_WIDTH, A4_HEIGHT - MARGIN))
        assert strip.getcolors() == [(strip.width * strip.height, paper)], f"page {number}"


def test_the_same_roster_draws_the_same_bytes() -> None:
    gang = big_gang(6)
    assert roster_card(gang) == roster_card(gang.model_copy(deep=True))


def test_the_card_changes_when_the_roster_changes() -> None:
    gang = big_gang(6)
    before = decode(roster_card(gang)[0]).convert("RGB")
    gang.fighters[2].xp += 5
    after_xp = decode(roster_card(gang)[0]).convert("RGB")
    assert ImageChops.difference(before, after_xp).getbbox() is not None
    gang.credits += 10
    after_credits = decode(roster_card(gang)[0]).convert("RGB")
    assert ImageChops.difference(after_xp, after_credits).getbbox() is not None


def test_a_fighter_added_can_add_a_page() -> None:
    gang = big_gang(10)
    pages = len(roster_card(gang))
    while len(roster_card(gang)) == pages:
        gang.fighters.append(f.fighter(f"Recruit {len(gang.fighters)}"))
    assert len(roster_card(gang)) == pages + 1


def test_a_fighter_without_a_profile_is_drawn_and_marked() -> None:
    gang = big_gang(3)
    with_profile = decode(roster_card(gang)[0]).convert("RGB")
    gang.fighters[1] = without_profile(gang.fighters[1])
    marked = decode(roster_card(gang)[0]).convert("RGB")
    changed = ImageChops.difference(with_profile, marked).getbbox()
    assert changed is not None
    # Only that fighter's block changed: the gang header and the figures above it did not.
    assert changed[1] > 300


def test_names_in_any_script_draw_without_error() -> None:
    names = ["Жук Кровавый", "Ωμέγα Λύκος", "鬼龍団", "ダークネス", "한글 갱", "💀🔥 Skulls",
             "عقرب الصحراء", "ज्वाला", "Z̷a̷l̷g̷o̷", "Zed\u200dJoin\ufe0f"]
    fighters = [f.fighter(name) for name in names]
    pages = roster_card(f.gang("鬼龍 💀 Жуки", fighters=fighters), owner_name="アリス")
    assert decode(pages[0]).size == (A4_WIDTH, A4_HEIGHT)


def test_cjk_is_drawn_with_the_bundled_font_not_a_placeholder() -> None:
    face = typeface(20)
    assert face.runs("鬼龍 Boss") == [(1, "鬼龍"), (0, " Boss")]
    assert face.runs("한글") == [(1, "한글")]
    assert face.runs("Жук Ωμέγα") == [(0, "Жук Ωμέγα")]
    one = decode(roster_card(f.gang(fighters=[f.fighter("鬼")]))[0]).convert("RGB")
    other = decode(roster_card(f.gang(fighters=[f.fighter("龍")]))[0]).convert("RGB")
    assert ImageChops.difference(one, other).getbbox() is not None


def test_a_weapon_profile_from_the_rule_data_adds_its_line() -> None:
    gang = big_gang(2)
    plain = decode(roster_card(gang)[0]).convert("RGB")
    profile = WeaponProfile(short_range='8"', long_range='24"', strength="3", ap="-",
                            damage="1", ammo="4+", traits=["Rapid Fire (1)"])
    profiled = decode(roster_card(gang, weapon_profiles={"AUTOGUN": [profile]})[0]).convert("RGB")
    assert ImageChops.difference(plain, profiled).getbbox() is not None


def test_a_fighter_too_long_for_a_column_is_cut_not_lost() -> None:
    hoarder = f.fighter("Hoarder", skills=[f"Skill number {n}" for n in range(400)])
    pages = roster_card(f.gang(fighters=[hoarder, f.fighter("After")]))
    assert 1 <= len(pages) <= 2
    for page in pages:
        assert decode(page).size == (A4_WIDTH, A4_HEIGHT)


def test_the_largest_roster_the_limits_allow_is_cut_to_its_budget_and_says_so() -> None:
    gang = worst_gang()
    options = RosterOptions()
    blocks = list(roster_blocks(gang, options))
    # Every list of a block stops at its budget and counts what it left out.
    skills = [line.text for block in blocks for line in block.lines
              if "more skills" in line.text]
    assert skills and all(text.endswith("more skills not shown") for text in skills), skills[:3]
    # The pages stop at their budget: the blocks past it are counted, not placed.
    pages = paginate(iter(blocks))
    assert len(pages) == MAX_PAGES
    assert sum(map(len, pages)) < len(blocks)
    drawn = roster_card(gang)
    assert len(drawn) == MAX_PAGES
