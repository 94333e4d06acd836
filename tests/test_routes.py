"""The component router: custom_ids within Discord's limits, old ids still routed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.ui import routes
from bot.ui.confirm import confirm_view, confirmation
from bot.ui.custom_ids import id_key
from bot.ui.routes import Choice, Click, Flag, Id, Int, find_route


async def _nothing(click: Click, **args: Any) -> None:
    return None


@pytest.fixture
def sample_route() -> Iterator[str]:
    routes.register("test-sample", Id("campaign"), Int("stage", 4), Choice("dir", "prev", "next"),
                    Flag("pay"), handler=_nothing)
    yield "test-sample"
    routes.ROUTES.pop("test-sample", None)


def test_a_custom_id_reads_back_as_its_arguments(sample_route: str) -> None:
    made = routes.custom_id(sample_route, "c1", 12, "next", True)
    assert made == "munda:test-sample:c1:12:next:y"
    found = find_route(made)
    assert found is not None
    route, args = found
    assert route.name == sample_route
    assert args == {"campaign": "c1", "stage": 12, "dir": "next", "pay": True}


def test_fixed_words_outside_their_pattern_are_a_mistake_in_the_code(sample_route: str) -> None:
    with pytest.raises(ValueError):
        routes.custom_id(sample_route, "c1", 12345, "next", True)
    assert find_route("munda:test-sample:c1:1:sideways:y") is None


def test_an_odd_or_long_id_travels_as_its_key_and_every_id_fits(sample_route: str) -> None:
    odd = routes.custom_id(sample_route, "has:colon", 1, "next", True)
    assert odd == f"munda:test-sample:{id_key('has:colon')}:1:next:y"
    longest = "x" * 64  # the longest id the stored models allow
    routes.register("test-long", Id("a"), Id("b"), Id("c"), handler=_nothing)
    try:
        made = routes.custom_id("test-long", longest, longest, "y" * 10)
        assert len(made) <= routes.CUSTOM_ID_MAX
        found = find_route(made)
        assert found is not None
        assert found[1] == {"a": id_key(longest), "b": id_key(longest), "c": "y" * 10}
    finally:
        routes.ROUTES.pop("test-long", None)


def test_selects_keep_discords_limits(sample_route: str) -> None:
    options = [routes.option(f"v{n}", "L" * 200, description="D" * 300) for n in range(3)]
    made = routes.select(sample_route, "c", 1, "prev", False, options=options,
                         placeholder="P" * 400, max_values=10)
    assert made.max_values == 3
    assert made.placeholder is not None and len(made.placeholder) == routes.PLACEHOLDER_MAX
    assert all(len(o.label) <= 100 and len(o.description or "") <= 100 for o in made.options)
    with pytest.raises(ValueError):
        routes.select(sample_route, "c", 1, "prev", False, options=[])
    with pytest.raises(ValueError):
        routes.select(sample_route, "c", 1, "prev", False,
                      options=[routes.option(str(n)) for n in range(26)])


async def _confirmed(interaction: discord.Interaction[Any], campaign: str, target: str) -> Any:
    raise AssertionError("not clicked in this test")


def test_a_confirmation_keeps_the_custom_ids_posted_before_the_router() -> None:
    confirmation("test-delete", _confirmed)
    try:
        # As bot/ui/confirm.py built them before the router: munda:<choice>:<action>:...
        for old in ("munda:confirm:test-delete:c0ffee:g-1:1234567890",
                    "munda:cancel:test-delete:c0ffee:g-1:1234567890"):
            found = find_route(old)
            assert found is not None, old
            route, args = found
            assert args == {"campaign": "c0ffee", "target": "g-1", "user": 1234567890}
            assert route.only == "user"
        buttons = confirm_view("test-delete", "c0ffee", "g-1", 1234567890).children
        ids = [getattr(b, "custom_id", None) for b in buttons]
        assert ids == ["munda:confirm:test-delete:c0ffee:g-1:1234567890",
                       "munda:cancel:test-delete:c0ffee:g-1:1234567890"]
    finally:
        routes.ROUTES.pop("confirm:test-delete", None)
        routes.ROUTES.pop("cancel:test-delete", None)


def test_ids_of_other_bots_or_unknown_routes_are_not_routed() -> None:
    assert find_route("other:confirm:x") is None
    assert find_route("munda:no-such-route:1") is None


def test_the_router_takes_the_battle_components_too() -> None:
    # One router takes every munda: click: the post-battle wizard, Pay / Don't pay
    # and agreements are routes like the rest, each with its handler.
    from bot.battle import clicks
    from bot.battle.interactive import DecisionKind, decision_view

    assert clicks.section is not None  # importing the handlers registers them
    ids = [getattr(item, "custom_id", "") for item in decision_view(
        DecisionKind.ESCORT, "c1", "b1", "f1", "p1", 60, affordable=True).children]
    ids += ["munda:pb:sec:c1:b1:0", "munda:agree:c1:a1:yes", "munda:pb:really:undo:c1:b1:3"]
    for custom_id in ids:
        assert routes.ROUTED.fullmatch(custom_id), custom_id
        found = find_route(custom_id)
        assert found is not None, custom_id
    assert not hasattr(routes, "OWN_DYNAMIC_ITEMS")


async def test_a_posted_view_is_sent_and_forgotten_by_discord_py(sample_route: str) -> None:
    # discord.py keeps a dispatchable view that never times out for as long as the
    # process runs; routed clicks need none of it (they reach route_click by custom_id).
    client = discord.Client(intents=discord.Intents(guilds=True))
    state = client._connection
    bot_user = {"id": "7", "username": "munda", "discriminator": "0", "avatar": None}

    async def send_message(channel_id: int, *, params: Any) -> dict[str, Any]:
        # The network's edge: Discord's answer to the POST, as it would be.
        return {"id": "900", "channel_id": str(channel_id), "author": bot_user, "content": "x",
                "timestamp": "2026-12-02T08:00:00+00:00", "edited_timestamp": None,
                "tts": False, "mention_everyone": False, "mentions": [], "mention_roles": [],
                "attachments": [], "embeds": [], "pinned": False, "type": 0,
                "components": params.payload["components"]}

    state.http.send_message = send_message  # type: ignore[method-assign]
    channel = discord.PartialMessageable(state=state, id=5)
    posted = routes.view(routes.button(sample_route, "c1", 1, "next", True, label="Next"))
    message = await channel.send("x", view=posted)
    assert message.components, "the components were sent"
    assert not state._view_store.persistent_views
    assert state._view_store._views == {}
    await client.close()


def _click_payload(custom_id: str, posted: list[str], values: list[str] | None = None) -> Any:
    """A direct message's component interaction as the gateway brings it: the click's
    custom id, and the clicked message carrying the buttons ``posted``."""
    user = {"id": "6", "username": "ann", "discriminator": "0", "avatar": None}
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": 3 if values else 2}
    if values is not None:
        data["values"] = values
    return {
        "id": "1", "application_id": "2", "type": 3, "token": "token", "version": 1,
        "channel_id": "4", "locale": "en-US", "attachment_size_limit": 8_000_000,
        "app_permissions": "0", "user": user, "data": data,
        "message": {
            "id": "7", "channel_id": "4", "author": user, "content": "", "tts": False,
            "timestamp": "2026-01-01T00:00:00+00:00", "edited_timestamp": None,
            "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
            "embeds": [], "pinned": False, "type": 0, "flags": 0,
            "components": [{"type": 1, "components": [
                {"type": 2, "style": 2, "label": "Go", "custom_id": posted_id}
                for posted_id in posted]}],
        },
    }


async def test_a_click_is_routed_from_its_own_custom_id_whatever_its_message_shows() -> None:
    # The message a click comes from may have been redrawn meanwhile (another player's
    # click closed the step): the click still reaches its handler, which answers it,
    # instead of being dropped because its button is no longer among the message's.
    clicked: asyncio.Queue[tuple[list[str], dict[str, Any]]] = asyncio.Queue()

    async def handler(click: Click, **args: Any) -> None:
        clicked.put_nowait((click.values, args))

    routes.register("test-click", Int("stage", 4), handler=handler)
    client = commands.Bot(command_prefix=(), intents=discord.Intents(guilds=True))
    try:
        await client.__aenter__()  # the event loop's client, as at a start
        routes.routed_items(client)
        custom_id = routes.custom_id("test-click", 3)
        client._connection.parse_interaction_create(
            _click_payload(custom_id, ["munda:test-click:4"], values=["a", "b"]))
        assert await asyncio.wait_for(clicked.get(), 10) == (["a", "b"], {"stage": 3})
        client._connection.parse_interaction_create(_click_payload("other:1", [custom_id]))
        client._connection.parse_interaction_create(_click_payload(custom_id, [custom_id]))
        assert await asyncio.wait_for(clicked.get(), 10) == ([], {"stage": 3})
        assert clicked.empty()  # the other bot's click was left alone
    finally:
        routes.ROUTES.pop("test-click", None)
        await client.close()
