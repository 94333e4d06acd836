"""How a slash command is declared: its name, what it does, and its options' descriptions.

``@slash("show", "A gang's roster")`` is ``app_commands.command`` with every
option described: an option named in :data:`OPTION_HELP` (``campaign``,
``gang``, ``fighter``...) takes the description written there once, so the
same option reads the same in every command; a command describes only what
is its own (``@slash("add", "...", name="the fighter's name")``). A cog whose
options mean something else by the same name (the gang of a post-battle
sequence, say) makes its own decorator with :func:`slash_with`.

The body is written ``async def show(self, call: Call, gang: GangName, ...)``:
it is handed the interaction's :class:`bot.call.Call` (:func:`given_call`), and
reaches the interaction itself, where it must, as ``call.interaction``.

An option with a fixed list of choices takes them from :func:`value_choices`
(``@app_commands.choices(status=value_choices(FighterStatus))``).

A description given for an option the command does not have is refused when
the cog loads (discord.py's ``describe`` checks it), so a renamed option
cannot keep a stale description.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from discord import app_commands
from discord.utils import resolve_annotation

from bot.call import Call, Interaction
from rules.models import DEFAULT_RULESET

Body = Callable[..., Coroutine[Any, Any, None]]
Declared = Callable[[Body], app_commands.Command[Any, ..., None]]

OPTION_HELP: dict[str, str] = {
    "campaign": "the campaign (default: the server's default campaign)",
    "gang": "the gang",
    "fighter": "the fighter",
    "name": "a new name",
    "item": "the item",
    "captive": "the captive",
    "vehicle": "the vehicle",
    "territory": "the Territory",
    "substep": "the deferred sub-step",
    "gang1": "a gang that fights",
    "gang2": "another gang that fights",
    "gang3": "a third gang (optional)",
    "gang4": "a fourth gang (optional)",
    "profile": 'as a roster prints it: M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+',
    "alignment": "Law Abiding or Outlaw",
    "fighter_type": "a fighter type of the gang's House List",
    "vehicle_type": "a vehicle of the gang's House List",
    "item_cost": "the item's value (default: its Trading Post price)",
    "kind": "the item's kind (default: as the Trading Post says, else wargear)",
    "two_slots": "a weapon marked * that takes two of a fighter's three weapon slots",
    "pay": "charge the House List cost from the Stash (default: no)",
    "report_channel": "channel for battle reports",
    "ruleset": f"rule data set to play with (default {DEFAULT_RULESET})",
    "scenario_die": "die for the scenario roll (default D6)",
    "reputation": "Reputation (1 or more)",
    # A fighter's characteristics, as /fighter edit takes them.
    "m": "Movement in inches",
    "ws": "Weapon Skill as the target number (4 for 4+)",
    "bs": "Ballistic Skill as the target number (4 for 4+)",
    "s": "Strength",
    "t": "Toughness",
    "w": "Wounds",
    "i": "Initiative as the target number (4 for 4+)",
    "a": "Attacks",
    "ld": "Leadership as the target number (7 for 7+)",
    "cl": "Cool as the target number (7 for 7+)",
    "wil": "Willpower as the target number (7 for 7+)",
    "int_": "Intelligence as the target number (7 for 7+)",
    "xp": "experience points",
}


# A fighter's gang where the fighter is found by name and the gang only narrows the search.
FIGHTERS_GANG = "the fighter's gang (default: found by name)"


def slash_with(**defaults: str) -> Callable[..., Declared]:
    """A ``slash`` whose options named in ``defaults`` read so unless a command says
    otherwise (a cog's own meaning of ``gang``, say)."""
    table = OPTION_HELP | defaults

    def declare(name: str, description: str, /, *, under: app_commands.Group | None = None,
                **help: str) -> Declared:
        def decorate(body: Body) -> app_commands.Command[Any, ..., None]:
            options = inspect.signature(body).parameters
            texts = {o: table[o] for o in options if o in table} | help
            described = app_commands.describe(**texts)(given_call(body))
            if under is not None:
                return under.command(name=name, description=description)(described)
            return app_commands.command(name=name, description=description)(described)

        return decorate

    return declare


slash = slash_with()


def given_call(body: Body) -> Body:
    """The command as discord.py calls it, ``(cog, interaction, **options)``, for a body
    written ``(self, call: Call, **options)``: the interaction's Call is made here, once.

    discord.py reads the options from the signature and looks their annotations up in
    the callback's module; this function lives here, not in the cog, so the signature
    it shows carries them already looked up in the body's module.
    """
    self_, _call, *given = inspect.signature(body).parameters.values()
    cache: dict[str, Any] = {}
    options = [option.replace(annotation=resolve_annotation(
        option.annotation, body.__globals__, body.__globals__, cache)) for option in given]
    shown = inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD)

    @functools.wraps(body)
    async def command(cog: Any, interaction: Interaction, /, **chosen: Any) -> None:
        await body(cog, Call.of(interaction), **chosen)

    # What inspect.signature reads first; typeshed gives functions no such attribute.
    setattr(command, "__signature__", inspect.Signature([self_, shown, *options]))  # noqa: B010
    return command


def value_choices(values: Iterable[str]) -> list[app_commands.Choice[str]]:
    """An option's fixed choices, each shown as its value: an enum's "In Recovery", not
    the member name discord.py would show."""
    return [app_commands.Choice(name=str(value), value=str(value)) for value in values]
