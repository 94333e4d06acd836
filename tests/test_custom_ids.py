"""Every component custom id fits Discord's 100 characters for any stored id, and reads back.

Stored ids are 1..64 characters of anything (an imported campaign keeps its
own); the bot's own are 12 hex characters, and buttons posted with those
before custom ids were built in one place must keep their exact form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.battle import views
from bot.battle.interactive import AgreementButton, DecisionButton, DecisionKind
from bot.ui.confirm import confirm_view, confirmation
from bot.ui.custom_ids import CUSTOM_ID_MAX, StoredId, build, id_key

Make = Callable[[str, str, str], discord.ui.DynamicItem[Any]]

# Each item with the longest fixed words it is ever given; ids (campaign, other, another) vary.
ITEMS: dict[str, Make] = {
    "sec": lambda c, b, f: views.ReportSection(c, b, 3),
    "pick": lambda c, b, f: views.ReportPick(c, b, 3, "enemies1", 1),
    "injf": lambda c, b, f: views.ReportInjuryFighter(c, b, 3),
    "inj": lambda c, b, f: views.ReportInjury(c, b, 3, f),
    "tog": lambda c, b, f: views.ReportToggle(c, b, 3, "bottled"),
    "page": lambda c, b, f: views.ReportPage(c, b, 3, "prev"),
    "submit": lambda c, b, f: views.ReportSubmit(c, b, 3),
    "confirm": lambda c, b, f: views.StageConfirm(c, b, 9999),
    "behalf": lambda c, b, f: views.StageBehalf(c, b, 9999),
    "undo": lambda c, b, f: views.StageUndo(c, b, 9999),
    "cancel": lambda c, b, f: views.StageCancel(c, b, 9999),
    "really": lambda c, b, f: views.StageReally("cancel", c, b, 9999),
    "pay": lambda c, b, f: DecisionButton(DecisionKind.ESCORT, c, b, f, f + "v", 999, True),
    "agree": lambda c, b, f: AgreementButton(c, b, "yes"),
}


def custom_id_of(item: discord.ui.DynamicItem[Any]) -> str:
    custom_id = item.item.custom_id
    assert custom_id is not None
    return custom_id


def fits(item: discord.ui.DynamicItem[Any]) -> str:
    custom_id = custom_id_of(item)
    assert len(custom_id) <= CUSTOM_ID_MAX, (len(custom_id), custom_id)
    assert type(item).__discord_ui_compiled_template__.fullmatch(custom_id), custom_id
    return custom_id


def test_sixty_four_character_imported_ids_fit_in_every_custom_id() -> None:
    campaign, battle, fighter = "c" * 64, "b" * 64, "f" * 64
    for name, make in ITEMS.items():
        custom_id = fits(make(campaign, battle, fighter))
        assert campaign not in custom_id, name  # carried by its key
        assert id_key(campaign) in custom_id, name


def test_one_long_id_among_short_ones_is_the_only_one_carried_by_its_key() -> None:
    campaign = "imported-campaign-" + "x" * 46
    fitting = fits(views.ReportPick(campaign, "0123456789ab", 1, "ooa", 0))
    assert fitting == f"munda:pb:pick:{campaign}:0123456789ab:1:ooa:0"  # 99 characters
    custom_id = fits(views.ReportInjury(campaign, "0123456789ab", 1, "a1b2c3d4e5f6"))
    assert custom_id == f"munda:pb:inj:{id_key(campaign)}:0123456789ab:1:a1b2c3d4e5f6"


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.text(min_size=1, max_size=64), min_size=3, max_size=3))
def test_any_stored_ids_make_custom_ids_that_fit_and_parse(ids: list[str]) -> None:
    for make in ITEMS.values():
        fits(make(*ids))


def test_the_bots_own_ids_keep_the_custom_ids_posted_before() -> None:
    c, b, f = "5e1f0a9c3b7d", "0d4c2b8a6e10", "a1b2c3d4e5f6"
    old = {
        f"munda:pb:sec:{c}:{b}:1": views.ReportSection(c, b, 1),
        f"munda:pb:pick:{c}:{b}:1:ooa:0": views.ReportPick(c, b, 1, "ooa", 0),
        f"munda:pb:inj:{c}:{b}:0:{f}": views.ReportInjury(c, b, 0, f),
        f"munda:pb:really:undo:{c}:{b}:7": views.StageReally("undo", c, b, 7),
        f"munda:pb:confirm:{c}:{b}:12": views.StageConfirm(c, b, 12),
        f"munda:pay:r:{c}:{b}:{f}:{f}:4:n": DecisionButton(DecisionKind.REPAIRS, c, b, f, f,
                                                            4, False),
        f"munda:agree:{c}:{f}:no": AgreementButton(c, f, "no"),
    }
    for expected, item in old.items():
        assert fits(item) == expected
    confirmation("test-delete-gang", _never)
    buttons = confirm_view("test-delete-gang", c, f, 42).children
    assert [getattr(b, "custom_id", None) for b in buttons] == [
        f"munda:confirm:test-delete-gang:{c}:{f}:42", f"munda:cancel:test-delete-gang:{c}:{f}:42",
    ]


def test_a_confirmation_with_the_longest_ids_fits() -> None:
    confirmation("a" * 15, _never)
    for button in confirm_view("a" * 15, "c" * 64, "t" * 64, 2**64 - 1).children:
        custom_id = getattr(button, "custom_id", "")
        assert len(custom_id) <= CUSTOM_ID_MAX, custom_id
        assert id_key("c" * 64) in custom_id


async def _never(interaction: discord.Interaction[Any], campaign: str, target: str) -> Any:
    raise AssertionError("not clicked in this test")


def test_fixed_words_that_cannot_fit_are_a_mistake_in_the_code() -> None:
    try:
        build("munda", "x" * 95, StoredId("a"))
    except ValueError as error:
        assert "longer than 100" in str(error)
    else:
        raise AssertionError("a custom id over 100 characters was built")
