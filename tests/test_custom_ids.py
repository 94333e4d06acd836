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

from bot.battle import clicks, views
from bot.battle.interactive import DecisionKind, agreement_view, decision_view, new_agreement
from bot.ui.confirm import confirm_view, confirmation
from bot.ui.custom_ids import CUSTOM_ID_MAX, StoredId, build, id_key
from bot.ui.routes import ROUTED, ROUTES, find_route
from tests import factories as f

Make = Callable[[str, str, str], str]


def test_every_component_of_a_run_has_its_handler_in_the_one_router() -> None:
    assert clicks.confirm is not None  # importing the handlers registers the run's routes
    for spec in views.ROUTES:
        assert spec.name in ROUTES, spec.name
        assert ROUTES[spec.name].params == spec.params, spec.name
    custom_id = views.PICK.custom_id("5e1f0a9c3b7d", "0d4c2b8a6e10", 2, "by1", 1)
    found = find_route(custom_id)
    assert found is not None and found[0].name == "pb:pick"
    assert found[1] == {"campaign": "5e1f0a9c3b7d", "battle": "0d4c2b8a6e10", "gang": 2,
                        "section": "by1", "slot": 1}


def _pay(kind: DecisionKind, c: str, b: str, a: str, t: str, value: int, pay: bool) -> str:
    button = decision_view(kind, c, b, a, t, value, affordable=True).children[0 if pay else 1]
    return str(getattr(button, "custom_id", ""))


def _agree(c: str, a: str, choice: str) -> str:
    asked = new_agreement("trade", c, "?", [f.gang("G", id="g1")], proposed_by=1)
    asked.id = a
    button = agreement_view(asked).children[0 if choice == "yes" else 1]
    return str(getattr(button, "custom_id", ""))

# Each item with the longest fixed words it is ever given; ids (campaign, other, another) vary.
ITEMS: dict[str, Make] = {
    "sec": lambda c, b, f: views.SECTION.custom_id(c, b, 3),
    "pick": lambda c, b, f: views.PICK.custom_id(c, b, 3, "enemies1", 1),
    "injf": lambda c, b, f: views.INJURY_FIGHTER.custom_id(c, b, 3),
    "inj": lambda c, b, f: views.INJURY.custom_id(c, b, 3, f),
    "tog": lambda c, b, f: views.TOGGLE.custom_id(c, b, 3, "bottled"),
    "page": lambda c, b, f: views.PAGE.custom_id(c, b, 3, "prev"),
    "submit": lambda c, b, f: views.SUBMIT.custom_id(c, b, 3),
    "confirm": lambda c, b, f: views.CONFIRM.custom_id(c, b, 9999),
    "behalf": lambda c, b, f: views.BEHALF.custom_id(c, b, 9999),
    "undo": lambda c, b, f: views.UNDO.custom_id(c, b, 9999),
    "cancel": lambda c, b, f: views.CANCEL.custom_id(c, b, 9999),
    "really": lambda c, b, f: views.YES_UNDO_OR_CANCEL.custom_id("cancel", c, b, 9999),
    "pay": lambda c, b, f: _pay(DecisionKind.ESCORT, c, b, f, f + "v", 999, True),
    "agree": lambda c, b, f: _agree(c, b, "yes"),
}


def fits(custom_id: str) -> str:
    """Within Discord's length, taken by the one router, and routed to a handler."""
    assert len(custom_id) <= CUSTOM_ID_MAX, (len(custom_id), custom_id)
    assert ROUTED.fullmatch(custom_id), custom_id
    assert find_route(custom_id) is not None, custom_id
    return custom_id


def test_sixty_four_character_imported_ids_fit_in_every_custom_id() -> None:
    campaign, battle, fighter = "c" * 64, "b" * 64, "f" * 64
    for name, make in ITEMS.items():
        custom_id = fits(make(campaign, battle, fighter))
        assert campaign not in custom_id, name  # carried by its key
        assert id_key(campaign) in custom_id, name


def test_one_long_id_among_short_ones_is_the_only_one_carried_by_its_key() -> None:
    campaign = "imported-campaign-" + "x" * 46
    fitting = fits(views.PICK.custom_id(campaign, "0123456789ab", 1, "ooa", 0))
    assert fitting == f"munda:pb:pick:{campaign}:0123456789ab:1:ooa:0"  # 99 characters
    custom_id = fits(views.INJURY.custom_id(campaign, "0123456789ab", 1, "a1b2c3d4e5f6"))
    assert custom_id == f"munda:pb:inj:{id_key(campaign)}:0123456789ab:1:a1b2c3d4e5f6"


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.text(min_size=1, max_size=64), min_size=3, max_size=3))
def test_any_stored_ids_make_custom_ids_that_fit_and_parse(ids: list[str]) -> None:
    for make in ITEMS.values():
        fits(make(*ids))


def test_the_bots_own_ids_keep_the_custom_ids_posted_before() -> None:
    c, b, f = "5e1f0a9c3b7d", "0d4c2b8a6e10", "a1b2c3d4e5f6"
    old = {
        f"munda:pb:sec:{c}:{b}:1": views.SECTION.custom_id(c, b, 1),
        f"munda:pb:pick:{c}:{b}:1:ooa:0": views.PICK.custom_id(c, b, 1, "ooa", 0),
        f"munda:pb:inj:{c}:{b}:0:{f}": views.INJURY.custom_id(c, b, 0, f),
        f"munda:pb:really:undo:{c}:{b}:7": views.YES_UNDO_OR_CANCEL.custom_id("undo", c, b, 7),
        f"munda:pb:confirm:{c}:{b}:12": views.CONFIRM.custom_id(c, b, 12),
        f"munda:pay:r:{c}:{b}:{f}:{f}:4:n": _pay(DecisionKind.REPAIRS, c, b, f, f, 4, False),
        f"munda:agree:{c}:{f}:no": _agree(c, f, "no"),
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
