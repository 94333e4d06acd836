"""One routed component: every button and select the bot posts is ``munda:<route>:<args>``.

A click carries all its state in its custom_id, so it works after a
restart. One listener of the bot's interactions (:func:`route_click`) receives
every click whose id starts with ``munda:``; the route registry finds the
handler, converts the arguments, runs the route's check and guards the
handler: any refusal or failure is answered privately by
:func:`bot.errors.answer_error`, the same answer a slash command's error
gets from the command tree.

A route is registered once, where its handler lives::

    @route("stash-take", Id("campaign"), Id("gang"), Int("credits"), only=...)
    async def take(click: Click, campaign: str, gang: str, credits: int) -> None: ...

and drawn with :func:`button` or :func:`select`, which build the custom_id
with :func:`bot.ui.custom_ids.build` (at most 100 characters for any stored
id: an id too long or odd travels as its key, and a click resolves it back)
and keep labels, placeholders and option lists within Discord's limits. The route
names and argument patterns of the buttons posted before this module
existed are kept, so their old messages stay clickable.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
from discord.ext import commands

from bot.errors import Refused, answer_error
from bot.render import clip
from bot.ui import custom_ids
from bot.ui.first_answer import FirstAnswer

PREFIX = "munda"
# Discord's limits for components (docs: Message Components).
CUSTOM_ID_MAX = custom_ids.CUSTOM_ID_MAX
LABEL_MAX = 80
PLACEHOLDER_MAX = 150
OPTIONS_MAX = 25
OPTION_TEXT_MAX = 100



@dataclass(frozen=True)
class Param:
    """One argument of a route: its name, what it may look like, and how it is read."""

    name: str
    pattern: str
    read: Callable[[str], Any] = str
    write: Callable[[Any], str | int] = str


def Id(name: str) -> Param:
    """A stored id (a campaign's, gang's, battle's...), or its key when it would not fit."""
    return Param(name, custom_ids.ID, write=custom_ids.StoredId)


def Int(name: str, digits: int = 20) -> Param:
    return Param(name, rf"[0-9]{{1,{digits}}}", int)


def Choice(name: str, *options: str) -> Param:
    return Param(name, "|".join(re.escape(o) for o in options))


def Flag(name: str, yes: str = "y", no: str = "n") -> Param:
    return Param(name, f"{re.escape(yes)}|{re.escape(no)}", lambda text: text == yes,
                 lambda value: yes if value else no)


def Text(name: str, pattern: str) -> Param:
    return Param(name, pattern)


@dataclass(frozen=True)
class Click:
    """One click on a routed component: the interaction and, for a select, what was chosen.

    The interaction's client is any bot (this module sits below bot/app.py); a handler
    reaches the bot's storage through :meth:`bot.call.Call.of`.
    """

    interaction: discord.Interaction[Any]
    values: list[str] = field(default_factory=list)
    first: FirstAnswer | None = None

    @property
    def value(self) -> str | None:
        return self.values[0] if self.values else None

    @property
    def answer(self) -> FirstAnswer:
        """The click's first response, with its deadlines (a route registered with
        ``first_answer=True``)."""
        if self.first is None:
            raise TypeError("this route was registered without first_answer=True")
        return self.first


Handler = Callable[..., Awaitable[None]]


@dataclass(frozen=True)
class Route:
    """A route's name and arguments, and once registered (:func:`route`) its handler.

    A route declared apart from its handler (``Route("pb:confirm", (Id("campaign"), ...))``,
    drawn by a module that must not import the handlers) is registered by handing the
    declaration itself to :func:`route`."""

    name: str
    params: tuple[Param, ...]
    handler: Handler | None = None
    # The argument holding the only user id allowed to click (a question asked of one person).
    only: str | None = None
    # The router gives the handler a FirstAnswer (click.answer) and settles it.
    first_answer: bool = False

    @property
    def pattern(self) -> re.Pattern[str]:
        parts = [re.escape(f"{PREFIX}:{self.name}")]
        parts += [f"(?P<{p.name}>{p.pattern})" for p in self.params]
        return re.compile(":".join(parts))

    def custom_id(self, *args: Any) -> str:
        if len(args) != len(self.params):
            raise TypeError(f"route {self.name} takes {len(self.params)} arguments")
        parts = [p.write(a) for p, a in zip(self.params, args, strict=True)]
        text = custom_ids.build(PREFIX, *self.name.split(":"), *parts)
        if not self.pattern.fullmatch(text):
            # A fixed word outside its pattern is a mistake in the code, not the player's.
            raise ValueError(f"{text!r} does not match route {self.name}")
        return text

    def read(self, custom_id: str) -> dict[str, Any] | None:
        match = self.pattern.fullmatch(custom_id)
        if match is None:
            return None
        return {p.name: p.read(match[p.name]) for p in self.params}


ROUTES: dict[str, Route] = {}


def route(
    name: str | Route, *params: Param, only: str | None = None, first_answer: bool = False
) -> Callable[[Handler], Handler]:
    """Register the decorated ``handler(click, **args)`` for ``munda:<name>:<args>`` (or
    for a declared :class:`Route`'s name and arguments)."""
    declared = name if isinstance(name, Route) else Route(name, params)

    def register_route(handler: Handler) -> Handler:
        register(declared.name, *declared.params, handler=handler, only=only,
                 first_answer=first_answer)
        return handler

    return register_route


def register(name: str, *params: Param, handler: Handler, only: str | None = None,
             first_answer: bool = False) -> None:
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,15}(:[a-z][a-z0-9-]{0,15})?", name):
        raise ValueError(f"bad route name {name!r}")
    ROUTES[name] = Route(name, params, handler, only, first_answer)


def find_route(custom_id: str) -> tuple[Route, dict[str, Any]] | None:
    """The route a custom_id names and its arguments, or None."""
    parts = custom_id.split(":", 3)
    if len(parts) < 2 or parts[0] != PREFIX:
        return None
    # A route is named by one segment ("confirm") or two ("pb:confirm").
    for name in (":".join(parts[1:3]), parts[1]):
        found = ROUTES.get(name)
        if found is not None:
            args = found.read(custom_id)
            if args is not None:
                return found, args
    return None


def custom_id(name: str | Route, *args: Any) -> str:
    return (name if isinstance(name, Route) else ROUTES[name]).custom_id(*args)


def button(
    name: str | Route,
    *args: Any,
    label: str,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    emoji: str | None = None,
    row: int | None = None,
    disabled: bool = False,
) -> discord.ui.Button[Any]:
    return discord.ui.Button(
        label=clip(label, LABEL_MAX), style=style, emoji=emoji, row=row, disabled=disabled,
        custom_id=custom_id(name, *args),
    )


def option(
    value: str, label: str = "", *, description: str | None = None, default: bool = False
) -> discord.SelectOption:
    """A select option within Discord's lengths (label, value and description: 100)."""
    return discord.SelectOption(
        label=clip(label or value, OPTION_TEXT_MAX), value=value[:OPTION_TEXT_MAX],
        description=clip(description, OPTION_TEXT_MAX) if description else None,
        default=default,
    )


def select(
    name: str | Route,
    *args: Any,
    options: Sequence[discord.SelectOption],
    placeholder: str | None = None,
    min_values: int = 1,
    max_values: int = 1,
    row: int | None = None,
    disabled: bool = False,
) -> discord.ui.Select[Any]:
    if not 1 <= len(options) <= OPTIONS_MAX:
        raise ValueError(f"a select holds 1 to {OPTIONS_MAX} options, not {len(options)}")
    return discord.ui.Select(
        custom_id=custom_id(name, *args),
        placeholder=clip(placeholder, PLACEHOLDER_MAX) if placeholder else None,
        options=list(options),
        min_values=min(min_values, len(options)),
        max_values=max(1, min(max_values, len(options))),
        row=row,
        disabled=disabled,
    )


class PostedView(discord.ui.View):
    """The components of a message the bot posts or edits.

    discord.py keeps every dispatchable view it sends in its view store, keyed by
    message, for as long as the process runs when it never times out, and hands
    each click on it to the view's own items too. Ours carry no callbacks: every
    click reaches :func:`route_click` by its custom_id. Declared not dispatchable, they
    are sent and forgotten.
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_dispatchable(self) -> bool:
        return False


def view(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view of routed items; it never times out (the state is in the custom_ids)."""
    made = PostedView()
    for item in items:
        made.add_item(item)
    return made


# Every custom id the bot routes (tests/test_custom_ids.py checks the bot's ids fit it).
ROUTED = re.compile(rf"{PREFIX}:[^\s]{{1,94}}")


async def route_click(interaction: discord.Interaction[Any]) -> None:
    """Run the handler of a click on a ``munda:`` component (any other interaction is
    left alone). Any refusal or failure is answered by :func:`bot.errors.answer_error`.

    The click's own custom id and values are all a handler needs, so the router reads
    them from the interaction: discord.py's DynamicItem would first rebuild every
    component of the clicked message as a View (``View.from_message``) on each click."""
    if interaction.type not in (discord.InteractionType.component,
                                discord.InteractionType.modal_submit):
        return
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not ROUTED.fullmatch(custom_id):
        return
    try:
        found = find_route(custom_id)
        if found is None:
            # A button of a feature that no longer exists: say so rather than fail silently.
            raise Refused("This button no longer does anything; run the command again.")
        route_found, args = found
        assert route_found.handler is not None  # what ROUTES holds was registered
        args = await _resolved(interaction, route_found, args)
        if route_found.only is not None and interaction.user.id != args[route_found.only]:
            raise Refused("Only the person who asked can answer this question.")
        values = [str(value) for value in data.get("values", [])] or typed_values(data)
        first = FirstAnswer(interaction) if route_found.first_answer else None
        try:
            await route_found.handler(Click(interaction, values, first), **args)
        finally:
            if first is not None:
                # An error after the decision is answered below: after an
                # acknowledgement in flight, if any.
                await first.settled()
    except Exception as error:  # discord.py would only log it: answer instead
        await answer_error(interaction, error)


def typed_values(data: Any) -> list[str]:
    """What a submitted modal's text inputs hold, in their order (a routed modal's
    custom_id is a route's, like a button's)."""
    return [str(inner.get("value", "")) for row in data.get("components", [])
            for inner in row.get("components", []) if inner.get("type") == 4]


async def _resolved(
    interaction: discord.Interaction[Any], found: Route, args: dict[str, Any]
) -> dict[str, Any]:
    """The arguments with every id key turned back into the stored id it stands for."""
    keyed = [p.name for p in found.params
             if p.pattern == custom_ids.ID and custom_ids.is_key(args[p.name])]
    if not keyed:
        return args
    resolved = dict(args)
    if "campaign" in keyed:
        resolved["campaign"] = await custom_ids.resolve_campaign(interaction, args["campaign"])
    inside = [name for name in keyed if name != "campaign"]
    if inside and "campaign" in resolved:
        values = await custom_ids.resolve_in_campaign(
            interaction, resolved["campaign"], [args[name] for name in inside]
        )
        resolved.update(zip(inside, values, strict=True))
    return resolved


def routed_items(client: commands.Bot) -> None:
    """Route every ``munda:`` click of this client (called once at start-up)."""
    client.add_listener(route_click, "on_interaction")
