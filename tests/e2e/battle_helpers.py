"""Shared steps of the post-battle end-to-end tests: set up gangs, start a run, confirm steps.

Everything goes through the real bot process and the fake Discord, as a
player would: slash commands, the report panels' selects and the stage
messages' Confirm buttons.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from demo.arena import Arena
from fakediscord import Driver, InteractionResult
from fakediscord.entities import Channel, Message

T = TypeVar("T")

GUILD = "Underhive"
CHANNEL = "general"


# The steps confirmed before the post-battle actions (PB-5) open.
STEPS_BEFORE_ACTIONS = ["▶️ Wrap-up", "▶️ Assign/Reassign Territory", "▶️ Receive Rewards",
                        "▶️ Collect Income"]


async def bot_ready(arena: Arena) -> None:
    """Wait until the bot has its guilds cached (threads need it), as its log says."""

    def ready() -> bool | None:
        text = arena.log_path.read_text(errors="replace") if arena.log_path.exists() else ""
        return True if "ready as" in text else None

    await until(ready, "the bot to be ready", timeout=30.0)


def ensure_member(arena: Arena, name: str) -> None:
    """A plain member (no roles) of the Underhive, added once per arena."""
    world = arena.fake.world
    if any(u.username == name for u in world.users.values()):
        return
    user = arena.fake.add_user(name, global_name=name.capitalize())
    arena.fake.guild(GUILD).add_member(user)


async def slash(driver: Driver, user: str, command: str, **values: object) -> str:
    """Run a slash command; fail with the answer when it was refused."""
    result = await driver.slash(GUILD, CHANNEL, user, command, **values)
    text = result.text()
    assert "Something went wrong" not in text, text
    return text


async def new_campaign(driver: Driver, name: str) -> None:
    text = await slash(driver, "alice", "campaign create", name=name)
    assert "has begun" in text, text


async def default_elsewhere(driver: Driver, name: str) -> None:
    """A new campaign ``name`` made the server's default, so the campaigns a test makes
    after it are not: what they show and suggest must come from their ``campaign``
    option, never from the default."""
    await new_campaign(driver, name)
    text = await slash(driver, "alice", "campaign settings", campaign=name, default=True)
    assert "Default campaign" in text and "yes" in text, text


async def new_gang(
    driver: Driver, user: str, campaign: str, name: str, *, house: str = "Goliath",
    alignment: str = "Law Abiding", credits: int = 1000,
) -> None:
    text = await slash(driver, user, "gang create", name=name, house=house,
                       alignment=alignment, credits=credits, campaign=campaign)
    assert "joins" in text, text


# The tests' own figures: the shipped example House Lists give no profiles, and the
# battles act on characteristics (Eye Injury, advancements).
TEST_PROFILE = 'M5" WS4+ BS4+ S3 T3 W1 I4+ A1 Ld7+ Cl7+ Wil7+ Int7+'


async def new_fighter(
    driver: Driver, user: str, campaign: str, gang: str, name: str, fighter_type: str
) -> None:
    text = await slash(driver, user, "fighter add", gang=gang, name=name,
                       fighter_type=fighter_type, campaign=campaign, profile=TEST_PROFILE)
    assert "joins" in text, text


async def capture(driver: Driver, campaign: str, captive: str, captor: str) -> None:
    """alice, the Arbitrator, records ``captive`` as held Captive by the gang ``captor``."""
    await slash(driver, "alice", "fighter status", fighter=captive, status="Captured",
                captor=captor, campaign=campaign)


async def new_campaign_of_two(driver: Driver, campaign: str, bobs: str, dans: str, *,
                              dans_alignment: str = "Law Abiding") -> None:
    """A new campaign with bob's Law Abiding gang ``bobs`` and dan's ``dans``; no fighters."""
    await new_campaign(driver, campaign)
    await new_gang(driver, "bob", campaign, bobs)
    await new_gang(driver, "dan", campaign, dans, alignment=dans_alignment)


async def held_captive(driver: Driver, campaign: str, captor: str, owner: str, captive: str,
                       *, owner_alignment: str = "Law Abiding") -> None:
    """A new campaign in which bob's ``captor`` holds dan's Goliath Bully ``captive`` of
    ``owner`` Captive."""
    await new_campaign_of_two(driver, campaign, captor, owner, dans_alignment=owner_alignment)
    await new_fighter(driver, "dan", campaign, owner, captive, "Goliath Bully")
    await capture(driver, campaign, captive, captor)


async def new_gang_with(
    driver: Driver, user: str, campaign: str, name: str, fighters: Mapping[str, str], *,
    house: str = "Goliath", alignment: str = "Law Abiding", credits: int = 1000,
) -> None:
    """A new gang and its fighters, each name with its House List type."""
    await new_gang(driver, user, campaign, name, house=house, alignment=alignment,
                   credits=credits)
    for fighter, fighter_type in fighters.items():
        await new_fighter(driver, user, campaign, name, fighter, fighter_type)


async def until(check: Callable[[], T | None], what: str, timeout: float = 10.0) -> T:
    """Poll ``check`` until it returns something (the bot posts after answering)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = check()
        if found is not None:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def start_battle(
    arena: Arena, campaign: str, gang1: str, gang2: str, *, winner: str | None = None
) -> Channel:
    """bob starts the post-battle sequence of a battle of ``gang1`` and ``gang2`` that
    ``winner`` won (``gang1`` unless told; "draw" for a draw); its thread."""
    started = await arena.driver.slash(
        GUILD, CHANNEL, "bob", "postbattle start", winner=winner or gang1, gang1=gang1,
        gang2=gang2, campaign=campaign)
    assert not started.ephemeral, started.text()
    return await thread_named(arena.driver, f"{gang1} vs {gang2}")


async def battle_reported(
    arena: Arena, campaign: str, bobs: str, dans: str, *, winner: str | None = None
) -> Channel:
    """:func:`start_battle` of bob's ``bobs`` and dan's ``dans``, and both reports
    submitted with nothing marked; the battle's thread."""
    thread = await start_battle(arena, campaign, bobs, dans, winner=winner)
    await report(arena.driver, thread, "bob", bobs)
    await report(arena.driver, thread, "dan", dans)
    return thread


async def wrap_up_text(arena: Arena, thread: Channel) -> str:
    """The Wrap-up step's message, once rolled (its lines end with the battle recorded)."""
    message = await stage_message(arena.driver, thread, "Wrap-up")
    text = message.embed_text()
    assert "**Battle recorded**" in text, text
    return text


async def thread_named(driver: Driver, words: str, after: int = 0) -> Channel:
    """The newest thread of #general whose name contains ``words`` (waits for it)."""

    def find() -> Channel | None:
        threads = [t for t in driver.threads(CHANNEL, guild=GUILD)
                   if words in t.name and t.id > after]
        return threads[-1] if threads else None

    return await until(find, f"a thread named {words!r}")


def thread_messages(driver: Driver, thread: Channel) -> list[Message]:
    return driver.messages(thread, guild=GUILD, include_ephemeral=False)


async def panel_of(driver: Driver, thread: Channel, gang: str) -> Message:
    """The report panel of ``gang`` in the battle's thread."""

    def find() -> Message | None:
        for message in reversed(thread_messages(driver, thread)):
            text = message.content + " ".join(str(e) for e in message.embeds)
            if gang in text and _has(message, "munda:pb:submit:"):
                return message
        return None

    return await until(find, f"the report panel of {gang}")


async def stage_message(driver: Driver, thread: Channel, label: str) -> Message:
    """The newest stage message whose embeds mention ``label`` and carry a Confirm button."""

    def find() -> Message | None:
        for message in reversed(thread_messages(driver, thread)):
            text = " ".join(str(e) for e in message.embeds) + message.content
            if label in text and _has(message, "munda:pb:confirm:"):
                return message
        return None

    return await until(find, f"the stage message of {label!r}")


def _has(message: Message, prefix: str) -> bool:
    return any(str(c.get("custom_id", "")).startswith(prefix)
               for c in message.iter_components())


def custom_id(message: Message, prefix: str) -> str:
    for comp in message.iter_components():
        if str(comp.get("custom_id", "")).startswith(prefix):
            return str(comp["custom_id"])
    raise AssertionError(f"no component {prefix} in {message.id}")


async def report(
    driver: Driver, thread: Channel, user: str, gang: str,
    marks: Sequence[tuple[str, Sequence[str]]] = (),
    injuries: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Fill ``gang``'s report panel: for each (section label, fighter names), then the
    Lasting Injuries rolled at the table (fighter name: results, in order), then Submit."""
    for section, names in marks:
        await mark(driver, thread, user, gang, section, names)
    for fighter, results in (injuries or {}).items():
        for result_name in results:
            picked = await pick_injury(driver, thread, user, gang, fighter, result_name)
            assert not picked.ephemeral, picked.text()
        phrase = injury_phrase(results)
        await until(lambda: panel_shows(driver, thread, gang, phrase),  # noqa: B023
                    f"{gang}'s panel to show {fighter}'s injuries")
    panel = await panel_of(driver, thread, gang)
    result = await driver.click(panel, custom_id(panel, "munda:pb:submit:"), user)
    assert "Something went wrong" not in result.text(), result.text()
    await until(lambda: _submitted(driver, thread, gang), f"{gang}'s report to be submitted")


async def mark(
    driver: Driver, thread: Channel, user: str, gang: str, section: str, names: Sequence[str]
) -> None:
    """Choose ``names`` in one section (by its label) of ``gang``'s panel; no Submit."""
    panel = await panel_of(driver, thread, gang)
    chooser = panel.component(custom_id(panel, "munda:pb:sec:"))
    value = next(o["value"] for o in chooser["options"] if o["label"] == section)
    await driver.select(panel, chooser["custom_id"], [value], user)
    suffix, wanted = f":{value}:0", list(names)
    panel = await until(lambda: _panel_with(driver, thread, gang, suffix),
                        f"the {section} section of {gang}")
    await driver.select(panel, custom_id(panel, "munda:pb:pick:"), wanted, user)
    await until(lambda: _panel_showing(driver, thread, gang, wanted),
                f"{gang}'s panel to show {wanted}")


def _submitted(driver: Driver, thread: Channel, gang: str) -> bool | None:
    for message in thread_messages(driver, thread):
        body = message.content + " ".join(str(e) for e in message.embeds)
        if f"End of battle: {gang}" in body and "Submitted by" in body:
            return True
    return None


def _panel_with(
    driver: Driver, thread: Channel, gang: str, pick_suffix: str, text: str = ""
) -> Message | None:
    for message in reversed(thread_messages(driver, thread)):
        body = message.content + " ".join(str(e) for e in message.embeds)
        if gang not in body or not _has(message, "munda:pb:submit:"):
            continue
        picks = [str(c.get("custom_id", "")) for c in message.iter_components()
                 if str(c.get("custom_id", "")).startswith("munda:pb:pick:")]
        if any(p.endswith(pick_suffix) for p in picks) and text in body:
            return message
        return None
    return None


def _panel_showing(
    driver: Driver, thread: Channel, gang: str, names: Sequence[str]
) -> Message | None:
    message = _panel_with(driver, thread, gang, "")
    if message is None:
        return None
    chosen = {o.get("label") for c in message.iter_components() for o in c.get("options", [])
              if o.get("default") and str(c.get("custom_id", "")).startswith("munda:pb:pick:")}
    return message if set(names) <= chosen else None


async def confirm(driver: Driver, thread: Channel, label: str, users: Sequence[str]) -> None:
    """Every player presses Confirm on the stage message of ``label``."""
    for user in users:
        message = await stage_message(driver, thread, label)
        result = await driver.click(message, custom_id(message, "munda:pb:confirm:"), user)
        if result.ephemeral:
            assert "Something went wrong" not in result.text(), result.text()


async def confirm_until(
    driver: Driver, thread: Channel, labels: Sequence[str], users: Sequence[str]
) -> None:
    for label in labels:
        await confirm(driver, thread, label, users)


def all_text(driver: Driver, channel: Channel | str) -> str:
    return driver.transcript(channel, guild=GUILD)


TRADING_POST = "▶️ Update Roster (B. Visit the Trading Post)"
ADVANCEMENTS = "▶️ Update Roster (E. Purchase Advancements)"


async def at_step(driver: Driver, thread: Channel, label: str) -> None:
    """Wait until the thread shows the step ``label`` opened."""
    await until(lambda: label in all_text(driver, thread) or None, label)


async def at_post_battle_actions(driver: Driver, thread: Channel, users: Sequence[str]) -> None:
    """Agree every step before the Post-battle Actions, then wait for that step to show."""
    await confirm_until(driver, thread, STEPS_BEFORE_ACTIONS, users)
    await until(lambda: "▶️ Post-battle Actions" in all_text(driver, thread) or None,
                "the Post-battle Actions step")


def number_after(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in {text[-2000:]}"
    return int(found.group(1))


# --------------------------------------------------------------------------- injuries at the table

INJURIES_SECTION = "Lasting Injuries rolled at the table"
NOT_ROLLED = "Not rolled at the table (the bot rolls it)"


def injury_phrase(results: Sequence[str]) -> str:
    """How the report panel lists results rolled at the table (see bot.battle.render)."""
    if len(results) <= 1:
        return f"rolled at the table: {''.join(results)}" if results else ""
    return f"rolled at the table: {results[0]}: {', '.join(results[1:])}"


def panel_shows(driver: Driver, thread: Channel, gang: str, text: str) -> Message | None:
    """``gang``'s report panel once it shows ``text`` (in its embed or content)."""
    message = _newest_panel(driver, thread, gang)
    if message is None:
        return None
    body = message.content + " ".join(str(e) for e in message.embeds)
    return message if text in body else None


def _newest_panel(driver: Driver, thread: Channel, gang: str) -> Message | None:
    for message in reversed(thread_messages(driver, thread)):
        body = message.content + " ".join(str(e) for e in message.embeds)
        if f"End of battle: {gang}" in body and _has(message, "munda:pb:submit:"):
            return message
    return None


def _option(component: dict[str, object], label: str) -> dict[str, object] | None:
    options = component.get("options") or []
    assert isinstance(options, list)
    return next((o for o in options if o.get("label") == label), None)


async def _choose(driver: Driver, panel: Message, prefix: str, label: str, user: str) -> str:
    """Choose the option ``label`` in the panel's select ``prefix`` unless it is the chosen
    one already; its value."""
    select = panel.component(custom_id(panel, prefix))
    option = _option(select, label)
    assert option is not None, f"no {label!r} in {select['options']}"
    value = str(option["value"])
    if not option.get("default"):
        await driver.select(panel, select["custom_id"], [value], user)
    return value


async def pick_injury(
    driver: Driver, thread: Channel, user: str, gang: str, fighter: str, result: str
) -> InteractionResult:
    """Pick ``result`` (a table result, or NOT_ROLLED) for ``fighter`` in the injuries section.

    Opens the section and chooses the fighter first when the panel shows
    another; returns the pick's answer: an ephemeral one is a refusal,
    otherwise the panel has been redrawn from what was stored.
    """
    panel = await panel_of(driver, thread, gang)
    if not _has(panel, "munda:pb:injf:"):
        chooser = panel.component(custom_id(panel, "munda:pb:sec:"))
        option = _option(chooser, INJURIES_SECTION)
        assert option is not None, f"no {INJURIES_SECTION!r} in {chooser['options']}"
        await driver.select(panel, chooser["custom_id"], [option["value"]], user)
        panel = await until(lambda: _newest_with(driver, thread, gang, "munda:pb:injf:"),
                            f"the injuries section of {gang}")
    fighter_id = await _choose(driver, panel, "munda:pb:injf:", fighter, user)
    panel = await until(
        lambda: _newest_with(driver, thread, gang, "munda:pb:inj:", suffix=f":{fighter_id}"),
        f"the injury select of {fighter}")
    select = next(c for c in panel.selects
                  if str(c.get("custom_id", "")).startswith("munda:pb:inj:"))
    picked = await driver.select(panel, select["custom_id"], [result], user)
    if not picked.ephemeral:
        await picked.wait_for_update()
    return picked


def _newest_with(
    driver: Driver, thread: Channel, gang: str, prefix: str, suffix: str = ""
) -> Message | None:
    message = _newest_panel(driver, thread, gang)
    if message is None:
        return None
    found = [str(c.get("custom_id", "")) for c in message.iter_components()
             if str(c.get("custom_id", "")).startswith(prefix)]
    return message if any(c.endswith(suffix) for c in found) else None


async def credits_of(arena: Arena, gang: str, campaign: str) -> int:
    """The gang's credits as bob reads them with /stash show."""
    text = await slash(arena.driver, "bob", "stash show", gang=gang, campaign=campaign)
    return number_after(r"💰 \*\*([0-9,]+)\*\* credits", text.replace(",", ""))


# ------------------------------------------------------------------- amounts and Lasting Damage

XP_SECTION = "XP earned by each fighter"
KILLS_SECTION = "Enemies each fighter took Out of Action"
WRECKED_RESULTS_SECTION = "Wrecked results of each vehicle"
DAMAGE_SECTION = "Lasting Damage rolled at the table"


async def open_section(
    driver: Driver, thread: Channel, user: str, gang: str, section: str
) -> Message:
    """``gang``'s panel showing the section labelled ``section`` (chosen if it was not)."""
    panel = await panel_of(driver, thread, gang)
    value = await _choose(driver, panel, "munda:pb:sec:", section, user)
    return await until(
        lambda: _newest_with(driver, thread, gang, "munda:pb:pick:", suffix=f":{value}:0"),
        f"the {section} section of {gang}")


async def _select(
    driver: Driver, panel: Message, prefix: str, values: Sequence[str], user: str
) -> InteractionResult:
    select = next(c for c in panel.selects if str(c.get("custom_id", "")).startswith(prefix))
    picked = await driver.select(panel, str(select["custom_id"]), list(values), user)
    if not picked.ephemeral:
        await picked.wait_for_update()
    return picked


async def choose_in_section(
    driver: Driver, thread: Channel, user: str, gang: str, section: str, names: Sequence[str]
) -> InteractionResult:
    """Choose exactly ``names`` in the first select of a section (labels may add an amount:
    "Gorg (2 XP)")."""
    panel = await open_section(driver, thread, user, gang, section)
    select = panel.component(custom_id(panel, "munda:pb:pick:"))
    options = select.get("options") or []
    assert isinstance(options, list)
    values = [str(o["value"]) for o in options
              if str(o["label"]).split(" (")[0] in names]
    assert len(values) == len(names), f"{names} not all in {options}"
    return await _select(driver, panel, "munda:pb:pick:", values, user)


async def give_amount(
    driver: Driver, thread: Channel, user: str, gang: str, section: str, amount: int,
    names: Sequence[str] = (),
) -> InteractionResult:
    """In an amount section, choose ``names`` (if any) then pick ``amount`` for them;
    the amount's answer (ephemeral: a refusal)."""
    if names:
        chosen = await choose_in_section(driver, thread, user, gang, section, names)
        assert not chosen.ephemeral, chosen.text()
    panel = await open_section(driver, thread, user, gang, section)
    return await _select(driver, panel, "munda:pb:amt:", [str(amount)], user)


async def pick_damage(
    driver: Driver, thread: Channel, user: str, gang: str, vehicle: str, result: str
) -> InteractionResult:
    """Pick a Lasting Damage ``result`` rolled at the table (or NOT_ROLLED) for ``vehicle``."""
    chosen = await choose_in_section(driver, thread, user, gang, DAMAGE_SECTION, [vehicle])
    assert not chosen.ephemeral, chosen.text()
    panel = await until(lambda: _newest_with(driver, thread, gang, "munda:pb:dmg:"),
                        f"the Lasting Damage select of {vehicle}")
    return await _select(driver, panel, "munda:pb:dmg:", [result], user)
