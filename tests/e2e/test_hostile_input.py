"""Hostile input over every slash command, through the real bot process.

Every command the bot registered with the fake Discord (read back from its
registry, so a new command is covered without editing this file) is sent
hypothesis-drawn values: text of every length up to the option's limit,
control characters, markdown, mentions, SQL fragments, the numeric bounds,
zero, negatives and huge numbers, real names of this server and names that
exist only in the other one. Each answer must be a short ephemeral refusal
or a stored change shown escaped: never the unexpected-error answer, never
a change left behind by a refusal, never a ping.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from demo.arena import Arena
from fakediscord import BotResponseError, CommandInputError, Upload, WaitTimeout
from tests.e2e import hostile
from tests.e2e.battle_helpers import (
    all_text,
    battle_reported,
    bot_ready,
    confirm_until,
    ensure_member,
    new_gang_with,
    slash,
    until,
)

U, S, G = "Underhive", "Spire", "general"
CAMPAIGN, SECOND, SPIRE_CAMPAIGN = "Hostile Hive", "Second Hive", "Spire Campaign"
# Examples per family of commands; every example sends each command of the family once.
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "15"))

# Real names for options of these names, so drawn values reach past "no gang called".
# The Spire's names come too: from the Underhive they must be as unknown as gibberish.
GANGS = ["Iron Lords", "Sump Rats", "Spire Gang"]
FIGHTERS = ["Krag", "Tusk", "Cinder", "Spire Fighter"]
POOLS: dict[str, list[str]] = {
    "campaign": [CAMPAIGN, SECOND, SPIRE_CAMPAIGN],
    **{name: GANGS for name in ("gang", "gang1", "gang2", "gang3", "gang4", "to_gang",
                                "captor", "winner")},
    **{name: FIGHTERS for name in ("fighter", "crew", "captive", "rescue_captive", "target")},
    "vehicle": ["Rumbler"], "replacement": ["Rumbler"],
    "item": ["Frag grenades", "Autogun", "Lasgun", "Lucky charm"],
    "territory": ["Old Mine"], "template": ["Settlement", "Old Mine"],
    "house": ["Goliath", "Escher"],
    "fighter_type": ["Goliath Forge Tyrant", "Goliath Bruiser", "Goliath Forge Boss"],
    "vehicle_type": ["Mauler"], "action": ["Trade", "Medical Escort", "Sell"],
    "expression": ["D6", "2D6", "D66", "D3x10"], "income": ["D6x10", "15"],
}
# What exists only in the Underhive: never suggested to, nor found by, the Spire.
UNDERHIVE_ONLY = frozenset({CAMPAIGN, SECOND, "Limits", "Iron Lords", "Sump Rats", "Krag",
                            "Tusk", "Cinder", "Rumbler", "Old Mine"})
# Who sends the commands: the Arbitrator who started the campaign, a player, the
# server's Administrator, a player without a gang; and in the Spire its owner.
UNDERHIVE_USERS = ["alice", "bob", "bob", "carol", "carol", "dan"]
SPIRE_USERS = ["dave", "bob"]

# In this order: the post-battle sequence the scene starts is fuzzed by the commands
# acting inside it before /postbattle (cancel, undo) and /campaign (default) can end it.
FAMILIES = ["roster", "rewards", "action", "captive", "fighter", "vehicle", "stash", "gang",
            "ledger", "roll", "prebattle", "postbattle", "campaign"]
BEFORE_TRADING_POST = ["▶️ Wrap-up", "▶️ Assign/Reassign Territory", "▶️ Receive Rewards",
                       "▶️ Collect Income", "▶️ Post-battle Actions",
                       "▶️ Update Roster (A. Clean House)"]
OTHER = "(any other command)"


class Scene:
    """The arena, its command catalogue and the ids hostile text mentions."""

    def __init__(self, arena: Arena, catalogue: list[hostile.CommandSpec],
                 ids: dict[str, int]) -> None:
        self.arena = arena
        self.catalogue = catalogue
        self.ids = ids
        # command -> [refused, accepted]: how deep the drawn values got (HOSTILE_STATS=1).
        self.outcomes: dict[str, list[int]] = {}

    def __repr__(self) -> str:  # hypothesis prints the arguments of a failing example
        return f"<Scene of {len(self.catalogue)} commands>"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def scene(arena: Arena) -> AsyncIterator[Scene]:
    """Two servers with campaigns, gangs, fighters, a Stash, a Territory and a vehicle."""
    await bot_ready(arena)
    ensure_member(arena, "dan")
    d = arena.driver
    await slash(d, "alice", "campaign create", name=CAMPAIGN)
    await slash(d, "alice", "campaign create", name=SECOND)
    await new_gang_with(d, "bob", CAMPAIGN, "Iron Lords",
                        {"Krag": "Goliath Forge Tyrant", "Tusk": "Goliath Forge Boss"})
    await new_gang_with(d, "dan", CAMPAIGN, "Sump Rats", {"Cinder": "Goliath Forge Tyrant"},
                        alignment="Outlaw")
    await slash(d, "bob", "stash add", gang="Iron Lords", item="Frag grenades",
                campaign=CAMPAIGN)
    await slash(d, "bob", "fighter equip", fighter="Krag", item="Autogun", campaign=CAMPAIGN)
    await slash(d, "bob", "vehicle add", gang="Iron Lords", name="Rumbler", cost=40,
                campaign=CAMPAIGN)
    await slash(d, "alice", "campaign territory add", name="Old Mine", income="D6x10",
                campaign=CAMPAIGN)
    # A post-battle sequence at the Trading Post, where most /roster commands act,
    # after Krag's Trade action unlocked Seek Rare & Illegal.
    thread = await battle_reported(arena, CAMPAIGN, "Iron Lords", "Sump Rats")
    await confirm_until(d, thread, BEFORE_TRADING_POST[:4], ["bob", "dan"])
    await until(lambda: BEFORE_TRADING_POST[4] in all_text(d, thread) or None, "the actions")
    await slash(d, "bob", "action take", fighter="Krag", action="Trade", campaign=CAMPAIGN)
    await confirm_until(d, thread, BEFORE_TRADING_POST[4:], ["bob", "dan"])
    await until(lambda: "▶️ Update Roster (B. Visit the Trading Post)" in all_text(d, thread)
                or None, "the Trading Post")
    spire = await d.slash(S, G, "dave", "campaign create", name=SPIRE_CAMPAIGN)
    assert not spire.ephemeral, spire.text()
    made = await d.slash(S, G, "dave", "gang create", name="Spire Gang", house="Escher",
                         alignment="Outlaw")
    assert not made.ephemeral, made.text()
    hired = await d.slash(S, G, "dave", "fighter add", gang="Spire Gang", name="Spire Fighter",
                          category="Ganger", cost=50)
    assert not hired.ephemeral, hired.text()
    world = arena.fake.world
    hive = world.guild(U)
    ids = {"user": world.user("bob").id, "role": next(r.id for r in hive.roles.values()
                                                       if r.name == "Arbitrator"),
           "channel": hive.channel(G).id}
    built = Scene(arena, hostile.catalogue(arena.fake, hive.id), ids)
    yield built
    if os.environ.get("HOSTILE_STATS"):
        for path, (refused, accepted) in sorted(built.outcomes.items()):
            print(f"{path:32} refused {refused:4} accepted {accepted:4}")


def commands_of(scene: Scene, family: str) -> list[hostile.CommandSpec]:
    if family == OTHER:
        return [c for c in scene.catalogue if c.top not in FAMILIES]
    return [c for c in scene.catalogue if c.top == family]


@pytest.fixture(params=[*FAMILIES, OTHER])
def family(request: pytest.FixtureRequest, scene: Scene) -> str:
    name: str = request.param
    if not commands_of(scene, name):
        pytest.skip(f"no registered command in {name}")
    return name


async def send_and_judge(scene: Scene, guild: str, user: str, command: hostile.CommandSpec,
                         values: dict[str, Any]) -> None:
    """Send one command and check the answer, the database and every new message."""
    arena = scene.arena
    what = hostile.describe(command.path, values, user, guild)
    await hostile.settle(arena.database_path)
    before = hostile.snapshot(arena.database_path)
    newest = hostile.newest_message_id(arena.fake)
    edits = hostile.edit_counts(arena.fake)
    try:
        result = await arena.driver.slash(guild, G, user, command.path, options=values)
    except CommandInputError as exc:
        raise AssertionError(
            f"{what}: a client could send this, the driver refused: {exc}") from None
    except (BotResponseError, WaitTimeout) as exc:
        raise AssertionError(f"{what}: no proper answer: {exc}\n{arena.log_tail()}") from None
    touched = hostile.touched_messages(arena.fake, newest, edits)
    verdict = hostile.judge(result, touched)
    scene.outcomes.setdefault(command.path, [0, 0])[0 if verdict.refused else 1] += 1
    problems = hostile.crash_problems(verdict, result)
    for message in touched:
        problems += [f"message {message.id}: {p}" for p in hostile.mention_problems(message)]
    if verdict.refused:
        after = hostile.snapshot(arena.database_path)
        changed = hostile.snapshot_difference(before, after)
        if changed:
            # A private answer that stored something is a success only if the change is
            # shown to the others too (a stage message edited, a line in the thread),
            # which the bot may do just after answering.
            try:
                await until(lambda: hostile.public_effects(arena.fake, newest, edits) or None,
                            "the stored change to be shown", timeout=5.0)
            except AssertionError:
                problems.append(f"refused ({verdict.text[:200]!r}) but stored:\n{changed}")
    assert not problems, f"{what}:\n" + "\n".join(problems) + f"\n{arena.log_tail(15)}"


async def autocomplete_and_judge(scene: Scene, guild: str, user: str,
                                 command: hostile.CommandSpec, focused: str,
                                 values: dict[str, Any]) -> None:
    """Typing hostile text into an autocompleted option gets suggestions, never an error."""
    arena = scene.arena
    what = hostile.describe(command.path, values, user, guild) + f" typing into {focused}"
    try:
        choices = await arena.driver.autocomplete(guild, G, user, command.path,
                                                  focused=focused, options=values)
    except (BotResponseError, WaitTimeout) as exc:
        raise AssertionError(f"{what}: {exc}\n{arena.log_tail(15)}") from None
    assert len(choices) <= 25, what
    for choice in choices:
        assert 1 <= len(choice.name) <= 100, (what, choice)
        # Typed in the other server, nothing of this one is suggested.
        assert guild != S or not UNDERHIVE_ONLY & {str(choice.value), choice.name}, (
            what, choice)


@settings(max_examples=EXAMPLES, deadline=None,
          derandomize=os.environ.get("HOSTILE_RANDOM") is None,
          # The bot and its database carry state from one example to the next, so a
          # failing example cannot be shrunk by replaying it; it is reported as drawn.
          phases=[Phase.explicit, Phase.generate], database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
async def test_every_command_survives_hostile_options(
    scene: Scene, family: str, data: st.DataObject
) -> None:
    world = scene.arena.fake.world
    hive = world.guild(U)
    roles = [r.name for r in hive.roles.values()]
    channels = [c.name for c in hive.channels.values() if not c.is_thread]
    users = [u.username for u in world.users.values()]
    for command in commands_of(scene, family):
        # One command in six comes from the other server, naming this one's things.
        guild = data.draw(st.sampled_from([U, U, U, U, U, S]), label="guild")
        in_spire = guild == S
        user = data.draw(st.sampled_from(SPIRE_USERS if in_spire else UNDERHIVE_USERS),
                         label="user")
        values = data.draw(hostile.option_values(
            command, pools=POOLS, users=users, ids=scene.ids,
            roles=roles if not in_spire else [r.name for r in world.guild(S).roles.values()],
            channels=channels if not in_spire else ["general"],
        ), label=command.path)
        await send_and_judge(scene, guild, user, command, values)
        typed = [o for o in command.options if o.autocomplete]
        if typed:
            focused = data.draw(st.sampled_from(typed), label="focused")
            partial = {k: v for k, v in values.items() if command.option(k).type in (3, 4, 5)}
            partial[focused.name] = data.draw(hostile.hostile_text(
                0, focused.length_bounds[1], user_id=scene.ids["user"],
                role_id=scene.ids["role"], channel_id=scene.ids["channel"],
                pool=POOLS.get(focused.name, ())), label="typed")
            await autocomplete_and_judge(scene, guild, user, command, focused.name, partial)


# ---------------------------------------------------------------------------- at the limits

# Names exactly as long as Discord lets them be, made of what escaping doubles or what
# would ping: every place that shows them must still fit Discord's limits and stay silent.
LIMIT_UNITS = ["*", "_", "\\", "`", "|", "~", "@everyone ", "<@&{role}>", "<@{user}>", "\x00"]


def at_limit(unit: str, prefix: str = "", length: int = 100) -> str:
    return (prefix + unit * length)[:length]


async def answered(scene: Scene, guild: str, user: str, command: str,
                   **values: Any) -> hostile.Verdict:
    """Send a command that must be answered without a crash or a ping; returns the verdict."""
    spec = next(c for c in scene.catalogue if c.path == command)
    await send_and_judge(scene, guild, user, spec, values)
    result = scene.arena.fake.interactions.all()[-1]
    text = "\n".join(m.content + m.embed_text() for m in
                     ([result.original] if result.original else []) + result.followups)
    ephemeral = bool(result.original and result.original.ephemeral)
    return hostile.Verdict(refused=ephemeral, text=text)


def enabled(d: Any, thread: Any, prefix: str, suffix: str = "") -> tuple[Any, str] | None:
    """The newest message of ``thread`` with an enabled component ``prefix...suffix``,
    and that component's custom id (names are escaped in the messages: found by id)."""
    for message in reversed(d.messages(thread, guild=U, include_ephemeral=False)):
        for comp in message.iter_components():
            custom_id = str(comp.get("custom_id", ""))
            if custom_id.startswith(prefix) and custom_id.endswith(suffix) and not comp.get(
                    "disabled"):
                return message, custom_id
    return None


async def test_names_at_the_limit_are_stored_and_shown_escaped(scene: Scene) -> None:
    """Every name a player types, at the length limit and made of markdown or mentions,
    is stored as typed and shown escaped everywhere: roster, cards, lists, the ledger,
    a post-battle thread with its report panels and stage messages."""
    d = scene.arena.driver
    campaign = "Limits"
    await slash(d, "alice", "campaign create", name=campaign)
    units = [u.replace("{role}", str(scene.ids["role"])).replace("{user}", str(scene.ids["user"]))
             for u in LIMIT_UNITS]
    gangs: list[str] = []
    for n, unit in enumerate(units):
        owner = "bob" if n % 2 == 0 else "dan"
        gang = at_limit(unit, f"G{n}")
        fighter = at_limit(unit, f"F{n}")
        # House and fighter type have a visible letter: NULs alone show nothing.
        made = await answered(scene, U, owner, "gang create", name=gang,
                              house=at_limit(unit, "H"), alignment="Outlaw", campaign=campaign)
        assert not made.refused, made.text
        gangs.append(gang)
        for command, values in (
            ("fighter add", {"gang": gang, "name": fighter, "fighter_type": at_limit(unit, "T"),
                             "category": "Leader", "cost": 100}),
            ("fighter add", {"gang": gang, "name": at_limit(unit, f"H{n}"), "category": "Ganger",
                             "cost": 50}),
            ("fighter equip", {"fighter": fighter, "item": at_limit(unit, "I"), "cost": 5}),
            ("stash add", {"gang": gang, "item": at_limit(unit, "S"), "cost": 5}),
            ("vehicle add", {"gang": gang, "name": at_limit(unit, f"V{n}"), "cost": 40}),
            ("campaign territory add", {"name": at_limit(unit, f"T{n}"), "income": "5"}),
        ):
            stored = await answered(scene, U, owner if command != "campaign territory add"
                                    else "alice", command, campaign=campaign, **values)
            assert not stored.refused, (command, values, stored.text)
        await answered(scene, U, "alice", "campaign territory assign",
                       territory=at_limit(unit, f"T{n}"), gang=gang, campaign=campaign)
        # Refusals quote what was typed: escaped too.
        missing = await answered(scene, U, "carol", "gang show", gang=at_limit(unit, "Nobody"),
                                 campaign=campaign)
        assert missing.refused, missing.text
        # A role mention typed into a name is shown as text (the bot's own "owner <@id>"
        # is meant as a mention and pings nobody; a player's is escaped).
        role_mention = f"<@&{scene.ids['role']}>"
        assert role_mention not in missing.text, missing.text
        for command, values in (
            ("gang show", {"gang": gang}), ("fighter show", {"fighter": fighter}),
            ("stash show", {"gang": gang}), ("ledger", {"gang": gang, "limit": 25}),
            ("gang export", {"gang": gang}),
        ):
            shown = await answered(scene, U, "carol", command, campaign=campaign, **values)
            assert not shown.refused or command == "gang export", (command, shown.text)
            assert role_mention not in shown.text, (command, shown.text)
    for command in ("gang list", "campaign show", "campaign territory list", "captive list",
                    "ledger"):
        shown = await answered(scene, U, "carol", command, campaign=campaign)
        assert not shown.refused, (command, shown.text)

    # A battle between two of them: the thread's name, the report panels listing the
    # fighters, the stage messages and the final report all carry the names.
    newest = max((t.id for t in d.threads(G, guild=U)), default=0)
    await slash(d, "bob", "postbattle start", winner=gangs[0], gang1=gangs[0], gang2=gangs[1],
                campaign=campaign)
    thread = await until(lambda: next((t for t in d.threads(G, guild=U) if t.id > newest),
                                      None), "the battle thread")
    assert len(thread.name) <= 100 and "G0" in thread.name, thread.name
    for gang_index, user in ((0, "bob"), (1, "dan")):
        panel = await until(lambda: enabled(d, thread, "munda:pb:submit:",
                                            f":{gang_index}"),  # noqa: B023
                            f"the report panel of gang {gang_index}")
        result = await d.click(*panel, user)
        assert hostile.CRASH_MARK not in result.text(), result.text()
    await until(lambda: enabled(d, thread, "munda:pb:confirm:"), "the Wrap-up")
    confirmed = 0
    while (stage := enabled(d, thread, "munda:pb:confirm:")) is not None and confirmed < 20:
        for user in ("bob", "dan"):
            pressed = await d.click(*stage, user)
            if not pressed.ephemeral:  # a deferred update: the note follows
                await pressed.wait_followups(1)
            assert hostile.CRASH_MARK not in pressed.text(), pressed.text()
        confirmed += 1
        # The next step's message, or after the last step no button at all.
        await until(lambda: enabled(d, thread, "munda:pb:confirm:") != stage or None,
                    f"the step after {stage[1]}")
    assert confirmed >= 5, f"only {confirmed} stages could be confirmed"
    problems = [f"{m.id}: {p}" for m in hostile.bot_messages(scene.arena.fake)
                for p in hostile.mention_problems(m)]
    assert not problems, problems
    assert not hostile.log_problems(scene.arena.log_path.read_text(errors="replace"))


def realistic_values(command: hostile.CommandSpec) -> dict[str, Any]:
    """Required options filled with the scene's first names (or a plain word)."""
    values: dict[str, Any] = {}
    for spec in command.required:
        pool = POOLS.get(spec.name)
        if spec.choices:
            values[spec.name] = spec.choices[0]
        elif spec.type == 3:
            values[spec.name] = pool[0] if pool else "Plain"
        elif spec.type in (4, 10):
            values[spec.name] = max(spec.value_bounds[0], min(1, spec.value_bounds[1]))
        elif spec.type == 5:
            values[spec.name] = False
        elif spec.type == 6:
            values[spec.name] = "bob"
        elif spec.type == 7:
            values[spec.name] = G
        elif spec.type == 8:
            values[spec.name] = "Arbitrator"
        elif spec.type == 11:
            values[spec.name] = Upload("empty.json", b"{}")
    return values


async def test_every_free_text_option_has_a_sensible_max_length(scene: Scene) -> None:
    """Discord's client enforces max_length; without one a player may paste 6000 characters."""
    unbounded = [f"/{c.path} {o.name}: max_length {o.max_length}" for c in scene.catalogue
                 for o in c.options if o.free_text and (
                     o.max_length is None or o.max_length > hostile.SENSIBLE_STRING_MAX)]
    assert not unbounded, unbounded
    assert any(o.free_text for c in scene.catalogue for o in c.options)


async def test_a_client_cannot_send_past_the_declared_limits(scene: Scene) -> None:
    """What the schema declares is what Discord's client lets through: one character past
    a max_length, one past a min/max value (or past Discord's own integer range) is
    refused by the driver before anything reaches the bot."""
    checked = 0
    for command in scene.catalogue:
        base = realistic_values(command)
        for spec in command.options:
            beyond: list[Any] = []
            if spec.free_text:
                beyond.append("x" * (spec.length_bounds[1] + 1))
                if spec.length_bounds[0] > 0:
                    beyond.append("")
            elif spec.type == 4:
                beyond += hostile.beyond_int(spec)
            for value in beyond:
                sent = len(scene.arena.fake.interactions.all())
                with pytest.raises(CommandInputError):
                    await scene.arena.driver.slash(U, G, "carol", command.path,
                                                   options={**base, spec.name: value})
                assert len(scene.arena.fake.interactions.all()) == sent
                checked += 1
    assert checked > 50, checked


async def test_every_command_at_its_limits(scene: Scene) -> None:
    """Each command once with every number at its minimum, once at its maximum (Discord's
    range where none is declared) and once with every free text at its full length of
    characters that escaping doubles: answered, never crashed, never half applied."""
    for command in scene.catalogue:
        base = realistic_values(command)
        numbers = [o for o in command.options if o.type == 4]
        texts = [o for o in command.options if o.free_text and not POOLS.get(o.name)]
        variants: list[dict[str, Any]] = []
        if numbers:
            variants.append({o.name: o.value_bounds[0] for o in numbers})
            variants.append({o.name: o.value_bounds[1] for o in numbers})
        if texts:
            variants.append({o.name: ("*_" * o.length_bounds[1])[:o.length_bounds[1]]
                             for o in texts})
        for variant in variants:
            await send_and_judge(scene, U, "carol", command, {**base, **variant})


async def test_nothing_the_bot_sent_could_ping_and_nothing_crashed(scene: Scene) -> None:
    """Checked last, over everything the module made the bot send: every message carries
    allowed_mentions that parse nothing, and the bot's log has no unexpected error."""
    messages = hostile.bot_messages(scene.arena.fake)
    assert len(messages) > 50, len(messages)
    problems = [f"{m.id} {m.content[:80]!r}: {p}" for m in messages
                for p in hostile.mention_problems(m)]
    assert not problems, "\n".join(problems[:20])
    logged = hostile.log_problems(scene.arena.log_path.read_text(errors="replace"))
    assert not logged, "\n".join(logged[:20])
