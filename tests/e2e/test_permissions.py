"""Who may do what: every command and every button against every kind of user.

The expected table (``EXPECTED``) is written out below from the permission
rules of the README, bot/call.py (Actor) and docs/commands-*.md / docs/battle.md.
Each row is then played through the real bot process for each kind of user:

- refused: the answer is a short ephemeral refusal and a snapshot of the
  whole database is exactly what it was before;
- allowed: the change happens (the database changed), or for a look the
  answer is given; a few one-shot steps are marked PASSES (below).

A click that Discord would not let someone make (another user's ephemeral
message, a button of another server) is forged, as a replayed request would
be: the bot must refuse it by itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from demo.arena import TOKEN, Arena, open_arena
from fakediscord import FakeDiscord, InteractionResult, Message, Perm, Upload
from rules.cycles import Calendar
from tests.e2e import hostile
from tests.e2e.battle_helpers import (
    TEST_PROFILE,
    all_text,
    bot_ready,
    report,
    thread_named,
    until,
)
from tests.e2e.helpers import database

U, S, G = "Underhive", "Spire", "general"
CAMPAIGN = "Perm Hive"
FIXTURES = Path(__file__).parent.parent / "importing" / "fixtures"


class Kind(StrEnum):
    OWNER = "the gang's owner"
    PLAYER = "another player"
    PARTICIPANT = "a battle participant"
    NAMED = "a named Arbitrator"
    ROLE = "an Arbitrator by role"
    MANAGER = "a member with Manage Server"
    ADMIN = "a member with Administrator"
    OUTSIDER = "a member with no gang"
    OTHER_SERVER = "a user of another server"


# Who plays each kind: (server, user). olive owns the gangs acted on; pat owns the
# other gang of each battle; oscar has a gang of his own but no part in it; nora is
# named in the campaign's settings, rory holds its Arbitrator role (a role without
# any Discord permission); manny has Manage Server, carol Administrator; otto is a
# member with nothing; dave is the owner of the other server, acting from there.
WHO: dict[Kind, tuple[str, str]] = {
    Kind.OWNER: (U, "olive"), Kind.PLAYER: (U, "oscar"), Kind.PARTICIPANT: (U, "pat"),
    Kind.NAMED: (U, "nora"), Kind.ROLE: (U, "rory"), Kind.MANAGER: (U, "manny"),
    Kind.ADMIN: (U, "carol"), Kind.OUTSIDER: (U, "otto"), Kind.OTHER_SERVER: (S, "dave"),
}

ANYONE_HERE = frozenset(set(Kind) - {Kind.OTHER_SERVER})
ARBITRATORS = frozenset({Kind.NAMED, Kind.ROLE, Kind.MANAGER, Kind.ADMIN})
MANAGERS = frozenset({Kind.MANAGER, Kind.ADMIN})
GANG_CONTROL = ARBITRATORS | {Kind.OWNER}
BATTLE_PLAYERS = frozenset({Kind.OWNER, Kind.PARTICIPANT})

# The expected table: who may, per command and per button. Everyone else is refused.
# "another server" is refused everywhere: nothing of this server exists there (a roll
# is the only thing one can do anywhere, and starting its own first campaign, which
# test_the_other_server_keeps_to_itself checks on its own).
EXPECTED: dict[str, frozenset[Kind]] = {
    # /campaign: Arbitrators change a campaign; Manage Server starts further ones.
    "campaign create": MANAGERS,
    "campaign show": ANYONE_HERE,
    "campaign chart": ANYONE_HERE,
    "campaign list": ANYONE_HERE,
    "campaign settings": ARBITRATORS,  # a change; without one it only shows (see below)
    "campaign settings (looking)": ANYONE_HERE,
    "campaign territory add": ARBITRATORS,
    "campaign territory list": ANYONE_HERE,
    "campaign territory assign": ARBITRATORS,
    "campaign export": ARBITRATORS,
    "campaign import": ARBITRATORS,
    "campaign tradingpost import": ARBITRATORS,
    "campaign tradingpost show": ANYONE_HERE,
    "campaign tradingpost clear": ARBITRATORS,
    "campaign delete": ARBITRATORS,  # asking; Confirm deletes (the button's row)
    "help": ANYONE_HERE | {Kind.OTHER_SERVER},
    "campaign ruledata import": ARBITRATORS,
    "campaign ruledata export": ANYONE_HERE,
    # Downtime: Arbitrators open it; a gang's steps are its owner's (or an Arbitrator's).
    "campaign downtime open": ARBITRATORS,
    "campaign downtime promote": GANG_CONTROL,
    "button: downtime Confirm": GANG_CONTROL,
    "button: downtime Undo": ARBITRATORS,
    # The campaign week: Arbitrators keep the calendar; a gang's turn is its owner's.
    "campaign standings": ANYONE_HERE,
    "campaign cycle start": ARBITRATORS,
    "campaign cycle show": ANYONE_HERE,
    "campaign cycle set": ARBITRATORS,
    "campaign cycle extend": ARBITRATORS,
    "campaign cycle end": ARBITRATORS,
    "campaign cycle phase": ARBITRATORS,
    "campaign cycle limits": ARBITRATORS,
    "campaign cycle undo": ARBITRATORS,
    "challenge new": GANG_CONTROL,
    "challenge pass": GANG_CONTROL,
    "challenge list": ANYONE_HERE,
    # /gang: anyone founds their own; the owner or an Arbitrator changes it.
    "gang create": ANYONE_HERE,
    "gang show": ANYONE_HERE,
    "gang list": ANYONE_HERE,
    "gang export": ANYONE_HERE,
    "gang import": ANYONE_HERE,  # for oneself; for another owner Arbitrators only
    "gang import (for another player)": ARBITRATORS,
    "gang edit": GANG_CONTROL,
    "gang transfer": GANG_CONTROL,
    "gang delete": GANG_CONTROL,
    # /fighter, /vehicle, /stash: the owner or an Arbitrator; anyone looks.
    "fighter add": GANG_CONTROL,
    "fighter edit": GANG_CONTROL,
    "fighter equip": GANG_CONTROL,
    "fighter unequip": GANG_CONTROL,
    "fighter status": GANG_CONTROL,
    "fighter retire": GANG_CONTROL,
    "fighter show": ANYONE_HERE,
    "vehicle add": GANG_CONTROL,
    "vehicle edit": GANG_CONTROL,
    "stash add": GANG_CONTROL,
    "stash remove": GANG_CONTROL,
    "stash show": ANYONE_HERE,
    "ledger": ANYONE_HERE,
    "roll": ANYONE_HERE | {Kind.OTHER_SERVER},
    # The other server starting its own first campaign (anyone may, on a server without).
    "campaign create (other server)": frozenset({Kind.OTHER_SERVER}),
    "campaign import (other server)": frozenset({Kind.OTHER_SERVER}),
    # Battles: a player of the battle or an Arbitrator starts them; steps are the owner's.
    "prebattle": BATTLE_PLAYERS | ARBITRATORS,
    "postbattle start": BATTLE_PLAYERS | ARBITRATORS,
    "postbattle status": ANYONE_HERE,
    "postbattle confirm-on-behalf": ARBITRATORS,
    "postbattle undo": ARBITRATORS,
    "postbattle cancel": ARBITRATORS,
    "rewards claim": GANG_CONTROL,
    "rewards dome": GANG_CONTROL,
    "action take": GANG_CONTROL,
    "action list": ANYONE_HERE,
    "roster retire": GANG_CONTROL,
    "roster scrap": GANG_CONTROL,
    "roster hire": GANG_CONTROL,
    "roster vehicle": GANG_CONTROL,
    "roster hangeron": GANG_CONTROL,
    "roster sell": GANG_CONTROL,
    "roster buy": GANG_CONTROL,
    "roster seek": GANG_CONTROL,
    "roster buyrare": GANG_CONTROL,
    "roster boon": GANG_CONTROL,
    "roster give": GANG_CONTROL,
    "roster take": GANG_CONTROL,
    "roster advance": GANG_CONTROL,
    "roster defer": GANG_CONTROL,
    "roster reopen": GANG_CONTROL,
    "roster done": GANG_CONTROL,
    # Captives: the captive's owner; a rescue's outcome also the captor's; a trade the
    # captor's or the receiver's player; Arbitrators all of it.
    "captive list": ANYONE_HERE,
    "captive rescue-declined": GANG_CONTROL,
    "captive rescue-failed": GANG_CONTROL | {Kind.PARTICIPANT},
    "captive trade": GANG_CONTROL | {Kind.PARTICIPANT},
    # Buttons and selects.
    "button: report section select": GANG_CONTROL,
    "button: report pick select": GANG_CONTROL,
    "button: report toggle": GANG_CONTROL,
    "button: report submit": GANG_CONTROL,
    "button: stage Confirm": BATTLE_PLAYERS,  # Arbitrators use the behalf select
    "button: stage on-behalf select": ARBITRATORS,
    "button: stage Undo": ARBITRATORS,
    "button: stage Yes, undo": ARBITRATORS,
    "button: stage Cancel sequence": ARBITRATORS,
    "button: stage Yes, cancel": ARBITRATORS,
    "button: Pay for repairs / Leave it": GANG_CONTROL,
    "button: Agree": ARBITRATORS | {Kind.PARTICIPANT},  # the asker's gangs agreed already
    "button: Decline": ARBITRATORS | BATTLE_PLAYERS,
    "button: gang delete Confirm": frozenset({Kind.OWNER}),  # only who asked (the owner)
    "button: gang import Confirm": frozenset({Kind.OWNER}),  # only who asked
    "button: campaign delete Confirm": frozenset({Kind.NAMED}),  # only who asked (nora)
    # Scheduling: a gang's player proposes (an Arbitrator for them); only the other
    # gang's player answers; a player of the battle or an Arbitrator calls it off.
    "schedule propose": GANG_CONTROL,
    "schedule list": ANYONE_HERE,
    "schedule cancel": BATTLE_PLAYERS | ARBITRATORS,
    "schedule settings": ARBITRATORS,  # a change; without one it only shows
    "schedule settings (looking)": ANYONE_HERE,
    "button: schedule Accept": frozenset({Kind.PARTICIPANT}),
    "button: schedule Call off": BATTLE_PLAYERS | ARBITRATORS,
    # A challenge to olive's gang: its owner answers, or an Arbitrator for them.
    "button: challenge Accept": GANG_CONTROL,
    "button: challenge Decline": GANG_CONTROL,
}

# Rows whose allowed action can happen once per gang and sequence (a roll, a deferral):
# the first allowed user makes the change; the others must get past the permission
# check to the rules' own refusal ("rolled once"), never the permission refusal.
ONCE = frozenset({"roster seek", "roster defer", "roster reopen", "roster done"})
# Rows the shipped rule data cannot let succeed (no Hanger-on in its House Lists; a
# Rare item only if the availability roll unlocked it): every allowed user must get
# past the permission check to the rules' refusal.
PASSES = frozenset({"roster hangeron", "roster buyrare",
                    # Promotion needs three advancements no command here gives.
                    "campaign downtime promote"})

# What a permission refusal says (bot/call.py, the cogs, bot/battle).
PERMISSION_REFUSAL = re.compile(
    r"not your gang|Only an Arbitrator|Only the players|Only a player|Only .+'s player"
    r"|Only the person who asked|only members with Manage Server|Only members with Manage"
    r"|You have no gang in this battle|can confirm its steps|Only the player of",
    re.IGNORECASE)
# Refusals that are not about permission but are right for the kind: the asker of a
# question has agreed by asking.
OTHER_REFUSAL: dict[tuple[str, Kind], re.Pattern[str]] = {
    ("button: Agree", Kind.OWNER): re.compile(r"already agreed"),
}
# What the other server hears: nothing of this one exists there.
NOT_HERE = re.compile(r"no campaign|There is no|no longer exists|not part of|Unknown",
                      re.IGNORECASE)


# ---------------------------------------------------------------------------- the world


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    """The demo world plus one member per kind, built before the bot connects (its role
    cache comes from GUILD_CREATE)."""
    fake = FakeDiscord.demo(token=TOKEN)
    hive = fake.guild(U)
    referees = hive.add_role("Referees")  # no Discord permission: Arbitrators by settings
    mods = hive.add_role("Mods", Perm.MANAGE_GUILD)
    for name, roles in (("olive", []), ("pat", []), ("oscar", []), ("nora", []),
                        ("rory", [referees]), ("manny", [mods]), ("otto", [])):
        hive.add_member(fake.add_user(name, global_name=name.capitalize()), roles=roles)
    async with open_arena(tmp_path_factory.mktemp("permissions"), fake=fake) as running:
        yield running


class Table:
    """The arena, the cells played so far and the helpers every row uses."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.d = arena.driver
        self.played: dict[str, dict[Kind, str]] = {}
        self.counter = 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem} {self.counter}"

    # -- acting as a kind ------------------------------------------------------

    async def slash(self, kind: Kind, command: str, **values: Any) -> InteractionResult:
        guild, user = WHO[kind]
        return await self.d.slash(guild, G, user, command, options=values)

    async def as_user(self, user: str, command: str, **values: Any) -> InteractionResult:
        """Set-up as a named user of the Underhive; refusals fail the set-up."""
        result = await self.d.slash(U, G, user, command, options=values)
        text = result.text()
        assert hostile.CRASH_MARK not in text, text
        assert not (result.ephemeral and PERMISSION_REFUSAL.search(text)), text
        return result

    async def press(self, kind: Kind, message: Message, custom_id: str,
                    values: list[str] | None = None) -> InteractionResult:
        """Click (or choose ``values`` in) a component as ``kind``, forging the click
        Discord would not let them make: on another user's ephemeral message."""
        guild, user = WHO[kind]
        component = message.component(custom_id)
        assert guild == U, "only this server's members can click its messages"
        forged = message.ephemeral and message.ephemeral_to is not None and (
            message.ephemeral_to.username != user)
        if not forged:
            if values is None:
                return await self.d.click(message, custom_id, user)
            return await self.d.select(message, custom_id, values, user)
        return await self.d.forge(message, component["custom_id"], user, values)

    # -- the checks of one cell ---------------------------------------------------

    async def cell(self, row: str, kind: Kind, act: Callable[[], Awaitable[InteractionResult]],
                   *, look: bool = False, passes: bool = False,
                   settle: bool = True) -> InteractionResult:
        """Play one cell of ``row`` and check it against EXPECTED.

        ``settle`` first waits for what earlier interactions set going to finish; a
        refused cell leaves nothing going, so the next refused one need not wait.
        """
        allowed = kind in EXPECTED[row]
        fake = self.arena.fake
        what = f"{row} by {kind.value} ({WHO[kind][1]})"
        if settle:
            await hostile.settle(self.arena.database_path)
        before = hostile.snapshot(self.arena.database_path)
        newest, edits = hostile.newest_message_id(fake), hostile.edit_counts(fake)
        result = await act()
        await hostile.finished(fake, result, edits)
        touched = hostile.touched_messages(fake, newest, edits)
        # Judged by the answer alone: whatever else moved is seen in the database.
        verdict = hostile.judge(result, hostile.answer_messages(result))
        crashes = hostile.crash_problems(verdict, result)
        assert not crashes, f"{what}: {crashes}\n{self.arena.log_tail(20)}"
        for message in touched:
            assert not hostile.mention_problems(message), (what, message.content)
        self.played.setdefault(row, {})[kind] = "allowed" if allowed else "refused"
        if not allowed:
            assert verdict.refused, f"{what} should be refused; it answered {verdict.text!r}"
            wanted = OTHER_REFUSAL.get((row, kind), NOT_HERE if kind is Kind.OTHER_SERVER
                                       else PERMISSION_REFUSAL)
            assert wanted.search(verdict.text), f"{what}: not a refusal: {verdict.text!r}"
            changed = hostile.snapshot_difference(
                before, hostile.snapshot(self.arena.database_path))
            assert not changed, f"{what} was refused but stored:\n{changed}"
            return result
        assert not (verdict.refused and PERMISSION_REFUSAL.search(verdict.text)), (
            f"{what} should be allowed; it was refused: {verdict.text!r}")
        if look:
            assert not verdict.refused or any(m.embeds or m.attachments for m in
                                              hostile.answer_messages(result)), (what, verdict.text)
        elif passes:
            pass  # past the permission check: the rules may still say "only once"
        else:
            def stored() -> bool | None:
                now = hostile.snapshot(self.arena.database_path)
                return True if hostile.snapshot_difference(before, now) else None

            try:
                await until(stored, f"{what} to store its change", timeout=5.0)
            except AssertionError:
                raise AssertionError(f"{what} is allowed but changed nothing: "
                                     f"{verdict.text!r}") from None
        return result

    async def row(self, row: str, act: Callable[[Kind, Any], Awaitable[InteractionResult]],
                  *, prepare: Callable[[], Awaitable[Any]] | None = None,
                  fresh: bool = True, look: bool = False,
                  after: Callable[[Kind, Any, InteractionResult], Awaitable[None]] | None = None,
                  kinds: frozenset[Kind] | None = None) -> None:
        """Every kind on one row: the refused first on one target (it must stay as it
        was), then each allowed kind on a target of its own (``fresh``) or the same."""
        if kinds is None:
            # A button lives on a message of this server: Discord delivers a click only
            # from someone who sees that message, in its server, on a component it has.
            # There is no other-server click to forge (discord.py drops one that names a
            # component its message lacks), so buttons are played by this server's kinds.
            kinds = ANYONE_HERE if row.startswith("button:") else frozenset(Kind)
        everyone = kinds
        refused = [k for k in Kind if k in everyone and k not in EXPECTED[row]]
        allowed = [k for k in Kind if k in everyone and k in EXPECTED[row]]
        shared = await prepare() if prepare is not None else None
        for n, kind in enumerate(refused):
            await self.cell(row, kind, lambda k=kind, on=shared: act(k, on),  # type: ignore[misc]
                            settle=n == 0)
        for n, kind in enumerate(allowed):
            target = await prepare() if prepare is not None and fresh and n > 0 else shared
            passes = row in PASSES or (row in ONCE and n > 0)
            result = await self.cell(row, kind,
                                     lambda k=kind, on=target: act(k, on),  # type: ignore[misc]
                                     look=look, passes=passes)
            if after is not None:
                await after(kind, target, result)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def table(arena: Arena) -> Table:
    """The campaign (alice's, Arbitrators: nora by name, the Referees role) and a gang for
    oscar."""
    await bot_ready(arena)
    t = Table(arena)
    await t.as_user("alice", "campaign create", name=CAMPAIGN)
    await t.as_user("alice", "campaign settings", arbitrator_add="nora",
                    arbitrator_role="Referees")
    await t.as_user("oscar", "gang create", name="Oscar Crew", house="Goliath",
                    alignment="Outlaw")
    return t


async def test_the_table_names_every_command(table: Table) -> None:
    """A command added to a cog must get its row here (read from the fake's registry)."""
    registered = {c.path for c in hostile.catalogue(table.arena.fake)}
    rows = {r.split(" (")[0] for r in EXPECTED if not r.startswith("button:")}
    assert registered == rows, (sorted(registered - rows), sorted(rows - registered))


# ---------------------------------------------------------------------------- /campaign


async def olive_gang(t: Table, stem: str = "Olive Gang", **extra: Any) -> str:
    name = t.fresh(stem)
    await t.as_user("olive", "gang create", name=name, house="Goliath", alignment="Outlaw",
                    campaign=CAMPAIGN, **extra)
    return name


def looking(t: Table, command: str, **values: Any
            ) -> Callable[[Kind, Any], Awaitable[InteractionResult]]:
    """``command`` in the campaign (``/campaign list`` takes none) with ``values``."""
    if command != "campaign list":
        values = {"campaign": CAMPAIGN, **values}

    def act(kind: Kind, _: Any) -> Awaitable[InteractionResult]:
        return t.slash(kind, command, **values)

    return act


async def test_campaign_commands(table: Table) -> None:
    t = table
    # The other server's own first campaign: test_the_other_server_keeps_to_itself, last.
    await t.row("campaign create", lambda k, _: t.slash(k, "campaign create",
                                                        name=t.fresh("Extra Campaign")),
                kinds=ANYONE_HERE)
    for row, command in (("campaign show", "campaign show"), ("campaign list", "campaign list"),
                         ("campaign chart", "campaign chart"),
                         ("campaign territory list", "campaign territory list"),
                         ("campaign tradingpost show", "campaign tradingpost show"),
                         ("campaign settings (looking)", "campaign settings")):
        await t.row(row, looking(t, command), look=True)
    # Each allowed change flips a setting, so every one of them really changes it.
    now: dict[str, Any] = {"die": "D6", "holder": 1}

    async def flip(key: str, values: list[Any]) -> None:
        now[key] = values[1 - values.index(now[key])]

    await t.row("campaign settings", lambda k, _: t.slash(
        k, "campaign settings", campaign=CAMPAIGN,
        scenario_die="D4" if now["die"] == "D6" else "D6"),
        after=lambda *_: flip("die", ["D4", "D6"]))
    await t.row("campaign territory add", lambda k, _: t.slash(
        k, "campaign territory add", name=t.fresh("Land"), income="D6x10", campaign=CAMPAIGN))
    holders = [await olive_gang(t), "Oscar Crew"]
    await t.as_user("alice", "campaign territory add", name="Disputed", campaign=CAMPAIGN)
    await t.row("campaign territory assign", lambda k, _: t.slash(
        k, "campaign territory assign", territory="Disputed",
        gang=holders[1 - int(now["holder"])], campaign=CAMPAIGN),
        after=lambda *_: flip("holder", [0, 1]))
    await t.row("campaign export", lambda k, _: t.slash(k, "campaign export", campaign=CAMPAIGN),
                look=True)
    exported = await t.as_user("alice", "campaign export", campaign=CAMPAIGN)
    attachment = next(a for m in exported.messages for a in m.attachments)
    await t.row("campaign import", lambda k, _: t.slash(
        k, "campaign import", file=Upload(attachment.filename, attachment.data),
        name=t.fresh("Imported")), kinds=ANYONE_HERE)
    csv = (FIXTURES / "trading_post.csv").read_bytes()
    await t.row("campaign tradingpost import", lambda k, _: t.slash(
        k, "campaign tradingpost import", file=Upload("tp.csv", csv), campaign=CAMPAIGN))

    async def own_trading_post() -> None:
        await t.as_user("alice", "campaign tradingpost import", file=Upload("tp.csv", csv),
                        campaign=CAMPAIGN)

    await t.row("campaign tradingpost clear", lambda k, _: t.slash(
        k, "campaign tradingpost clear", campaign=CAMPAIGN), prepare=own_trading_post)
    await t.row("help", lambda k, _: t.slash(k, "help"), look=True)

    async def doomed_campaign() -> str:
        name = t.fresh("Doomed Campaign")
        await t.as_user("alice", "campaign create", name=name)
        await t.as_user("alice", "campaign settings", arbitrator_add="nora",
                        arbitrator_role="Referees", campaign=name)
        return name

    async def delete_and_confirm(kind: Kind, name: str, asked: InteractionResult) -> None:
        done = await click_as(t, kind, asked, "Confirm")
        assert "has been deleted" in done.text(), done.text()

    # Asking is allowed to Arbitrators; it stores nothing until Confirm.
    await t.row("campaign delete", lambda k, name: t.slash(k, "campaign delete", campaign=name),
                prepare=doomed_campaign, look=True, after=delete_and_confirm)

    async def nora_asks_to_delete() -> InteractionResult:
        return await t.as_user("nora", "campaign delete", campaign=await doomed_campaign())

    await t.row("button: campaign delete Confirm",
                lambda k, asked: click_as(t, k, asked, "Confirm"), prepare=nora_asks_to_delete)

    # The import stages the file for its Confirm button: that is what it stores.
    rule_data = (Path(__file__).parents[2] / "docs" / "examples"
                 / "rule-data-example.toml").read_bytes()
    await t.row("campaign ruledata import", lambda k, _: t.slash(
        k, "campaign ruledata import", file=Upload("rules.toml", rule_data), campaign=CAMPAIGN))
    await t.row("campaign ruledata export", lambda k, _: t.slash(
        k, "campaign ruledata export", campaign=CAMPAIGN), look=True)


# ---------------------------------------------------------------------------- /gang


async def click_as(t: Table, kind: Kind, result: InteractionResult, label: str
                   ) -> InteractionResult:
    """Press ``label`` on the (ephemeral) question ``result`` answered with."""
    message = result.message
    assert message is not None and message.components, result.text()
    return await t.press(kind, message, message.component(label)["custom_id"])


async def test_gang_commands(table: Table) -> None:
    t = table
    await t.row("gang create", lambda k, _: t.slash(
        k, "gang create", name=t.fresh("Founded"), house="Escher", alignment="Outlaw",
        campaign=CAMPAIGN), kinds=ANYONE_HERE)
    # From the other server the same command founds a gang there, in no campaign: refused.
    await t.cell("gang create", Kind.OTHER_SERVER, lambda: t.slash(
        Kind.OTHER_SERVER, "gang create", name="Intruders", house="Escher",
        alignment="Outlaw", campaign=CAMPAIGN))
    shown = await olive_gang(t, "Shown Gang")
    for row in ("gang show", "gang export"):
        await t.row(row, looking(t, row, gang=shown), look=True)
    await t.row("gang list", lambda k, _: t.slash(k, "gang list", campaign=CAMPAIGN), look=True)
    reputation = iter(range(2, 100))
    await t.row("gang edit", lambda k, _: t.slash(
        k, "gang edit", gang=shown, reputation=next(reputation), campaign=CAMPAIGN))
    await t.row("gang transfer", lambda k, gang: t.slash(
        k, "gang transfer", gang=gang, user="oscar", campaign=CAMPAIGN),
        prepare=lambda: olive_gang(t, "Given Gang"))

    async def delete_and_confirm(kind: Kind, gang: str, asked: InteractionResult) -> None:
        done = await click_as(t, kind, asked, "Confirm")
        assert "has been deleted" in done.text(), done.text()

    # Asking is allowed to the gang's controllers; it stores nothing until Confirm.
    await t.row("gang delete", lambda k, gang: t.slash(
        k, "gang delete", gang=gang, campaign=CAMPAIGN),
        prepare=lambda: olive_gang(t, "Doomed Gang"), look=True, after=delete_and_confirm)

    async def olive_asks_to_delete() -> InteractionResult:
        gang = await olive_gang(t, "Asked Gang")
        return await t.as_user("olive", "gang delete", gang=gang, campaign=CAMPAIGN)

    await t.row("button: gang delete Confirm", lambda k, asked: click_as(t, k, asked, "Confirm"),
                prepare=olive_asks_to_delete)

    exported = await t.as_user("olive", "gang export", gang=shown, campaign=CAMPAIGN)
    attachment = next(a for m in exported.messages for a in m.attachments)
    document = json.loads(attachment.data)

    def gang_file() -> Upload:
        # Each file from "another campaign" with a gang id of its own: a new gang, not a
        # re-import of one already here (which only that gang's controllers may make).
        document["campaign_id"] = "elsewhere"
        document["gang"]["id"] = t.fresh("origin").replace(" ", "")
        return Upload("gang.json", json.dumps(document).encode())

    async def import_and_confirm(kind: Kind, _: Any, asked: InteractionResult) -> None:
        done = await click_as(t, kind, asked, "Confirm")
        assert hostile.CRASH_MARK not in done.text(), done.text()

    await t.row("gang import", lambda k, _: t.slash(
        k, "gang import", file=gang_file(), name=t.fresh("Imported Gang"), campaign=CAMPAIGN),
        look=True, after=import_and_confirm)
    await t.row("gang import (for another player)", lambda k, _: t.slash(
        k, "gang import", file=gang_file(), name=t.fresh("Gift Import"), owner="bob",
        campaign=CAMPAIGN), look=True, after=import_and_confirm)

    async def olive_asks_to_import() -> InteractionResult:
        return await t.as_user("olive", "gang import", file=gang_file(),
                               name=t.fresh("Asked Import"), campaign=CAMPAIGN)

    await t.row("button: gang import Confirm", lambda k, asked: click_as(t, k, asked, "Confirm"),
                prepare=olive_asks_to_import)


# ---------------------------------------------------------------------------- roster keeping


async def olive_fighter(t: Table, gang: str, stem: str = "Olive Fighter") -> str:
    name = t.fresh(stem)
    await t.as_user("olive", "fighter add", gang=gang, name=name, category="Ganger", cost=50,
                    campaign=CAMPAIGN)
    return name


async def test_fighter_vehicle_stash_ledger_and_roll(table: Table) -> None:
    t = table
    gang = await olive_gang(t, "Roster Gang")
    boss = await olive_fighter(t, gang, "Roster Boss")
    await t.as_user("olive", "vehicle add", gang=gang, name="Roster Quad", cost=40,
                    campaign=CAMPAIGN)
    numbers = iter(range(1, 1000))
    await t.row("fighter add", lambda k, _: t.slash(
        k, "fighter add", gang=gang, name=t.fresh("Recruit"), category="Juve", cost=25,
        campaign=CAMPAIGN))
    await t.row("fighter edit", lambda k, _: t.slash(
        k, "fighter edit", fighter=boss, xp=next(numbers), campaign=CAMPAIGN))
    await t.row("fighter equip", lambda k, _: t.slash(
        k, "fighter equip", fighter=boss, item=t.fresh("Charm"), cost=5, campaign=CAMPAIGN))

    async def equipped() -> str:
        item = t.fresh("Trinket")
        await t.as_user("olive", "fighter equip", fighter=boss, item=item, cost=5,
                        campaign=CAMPAIGN)
        return item

    await t.row("fighter unequip", lambda k, item: t.slash(
        k, "fighter unequip", fighter=boss, item=item, campaign=CAMPAIGN), prepare=equipped)
    status = {"now": "Active"}

    async def flipped(*_: Any) -> None:
        status["now"] = "In Recovery" if status["now"] == "Active" else "Active"

    await t.row("fighter status", lambda k, _: t.slash(
        k, "fighter status", fighter=boss,
        status="In Recovery" if status["now"] == "Active" else "Active", campaign=CAMPAIGN),
        after=flipped)
    await t.row("fighter retire", lambda k, fighter: t.slash(
        k, "fighter retire", fighter=fighter, campaign=CAMPAIGN),
        prepare=lambda: olive_fighter(t, gang, "Retiree"))
    await t.row("fighter show", lambda k, _: t.slash(
        k, "fighter show", fighter=boss, campaign=CAMPAIGN), look=True)
    await t.row("vehicle add", lambda k, _: t.slash(
        k, "vehicle add", gang=gang, name=t.fresh("Quad"), cost=40, campaign=CAMPAIGN))
    await t.row("vehicle edit", lambda k, _: t.slash(
        k, "vehicle edit", vehicle="Roster Quad", cost=40 + next(numbers), campaign=CAMPAIGN))
    await t.row("stash add", lambda k, _: t.slash(
        k, "stash add", gang=gang, credits=10, campaign=CAMPAIGN))
    await t.row("stash remove", lambda k, _: t.slash(
        k, "stash remove", gang=gang, credits=1, campaign=CAMPAIGN))
    await t.row("stash show", lambda k, _: t.slash(
        k, "stash show", gang=gang, campaign=CAMPAIGN), look=True)
    await t.row("ledger", lambda k, _: t.slash(k, "ledger", gang=gang, campaign=CAMPAIGN),
                look=True)
    await t.row("roll", lambda k, _: t.slash(k, "roll", expression="2D6", purpose="a test"),
                look=True)


# ---------------------------------------------------------------------------- battles


class Fight:
    """A post-battle sequence of olive's gang (index 0) against pat's (index 1)."""

    def __init__(self, thread: Any, olive: str, pat: str) -> None:
        self.thread, self.olive, self.pat = thread, olive, pat


async def pair(t: Table, tag: str, *, olive_fighters: tuple[tuple[str, str], ...] = ()
               ) -> tuple[str, str]:
    """A gang of olive's and one of pat's, each led by a Goliath Forge Tyrant."""
    olive, pat = f"Olive {tag}", f"Pat {tag}"
    await t.as_user("olive", "gang create", name=olive, house="Goliath", alignment="Outlaw",
                    credits=10_000, campaign=CAMPAIGN)
    await t.as_user("pat", "gang create", name=pat, house="Goliath", alignment="Outlaw",
                    campaign=CAMPAIGN)
    await t.as_user("olive", "fighter add", gang=olive, name=f"{olive} Boss",
                    fighter_type="Goliath Forge Tyrant", campaign=CAMPAIGN)
    await t.as_user("pat", "fighter add", gang=pat, name=f"{pat} Boss",
                    fighter_type="Goliath Forge Tyrant", campaign=CAMPAIGN)
    for name, fighter_type in olive_fighters:
        await t.as_user("olive", "fighter add", gang=olive, name=name, fighter_type=fighter_type,
                        profile=TEST_PROFILE, campaign=CAMPAIGN)
    return olive, pat


async def fight(t: Table, tag: str, *, reported: bool = True,
                olive_fighters: tuple[tuple[str, str], ...] = ()) -> Fight:
    olive, pat = await pair(t, tag, olive_fighters=olive_fighters)
    await t.as_user("olive", "postbattle start", winner=olive, gang1=olive, gang2=pat,
                    campaign=CAMPAIGN)
    started = Fight(await thread_named(t.d, f"{olive} vs {pat}"), olive, pat)
    if reported:
        await report(t.d, started.thread, "olive", olive)
        await report(t.d, started.thread, "pat", pat)
        await live_stage(t, started)
    return started


def with_component(t: Table, f: Fight, prefix: str, suffix: str = "") -> Message | None:
    """The newest message of the fight's thread with an enabled component ``prefix...suffix``."""
    for message in reversed(t.d.messages(f.thread, guild=U, include_ephemeral=False)):
        for comp in message.iter_components():
            cid = str(comp.get("custom_id", ""))
            if cid.startswith(prefix) and cid.endswith(suffix) and not comp.get("disabled"):
                return message
    return None


def component_id(message: Message, prefix: str, suffix: str = "") -> str:
    return next(str(c["custom_id"]) for c in message.iter_components()
                if str(c.get("custom_id", "")).startswith(prefix)
                and str(c["custom_id"]).endswith(suffix))


async def live_stage(t: Table, f: Fight) -> Message:
    return await until(lambda: with_component(t, f, "munda:pb:confirm:"),
                       f"an open step of {f.olive} vs {f.pat}")


async def confirm_open_stage(t: Table, f: Fight) -> None:
    """Both players confirm the open step; returns once the next one is open (or none is)."""
    message = await live_stage(t, f)
    button = component_id(message, "munda:pb:confirm:")
    for user in ("olive", "pat"):
        pressed = await t.d.click(message, button, user)
        assert hostile.CRASH_MARK not in pressed.text(), pressed.text()
    # The next step's message, or after the last step none at all.
    await until(lambda: with_component(t, f, "munda:pb:confirm:") is not message or None,
                "the next step")


async def at_step(t: Table, f: Fight, label: str) -> None:
    await until(lambda: label in all_text(t.d, f.thread) or None, label)


async def test_starting_battles_and_their_status(table: Table) -> None:
    t = table
    olive, pat = await pair(t, "Pre")
    await t.row("prebattle", lambda k, _: t.slash(k, "prebattle", gang1=olive, gang2=pat,
                                                  campaign=CAMPAIGN))
    pairs = iter(range(100))
    await t.row("postbattle start", lambda k, gangs: t.slash(
        k, "postbattle start", winner=gangs[0], gang1=gangs[0], gang2=gangs[1],
        campaign=CAMPAIGN), prepare=lambda: pair(t, f"Start {next(pairs)}"))
    f = await fight(t, "Status", reported=False)
    await t.row("postbattle status", lambda k, _: t.slash(
        k, "postbattle status", gang=f.olive, campaign=CAMPAIGN), look=True)


async def test_report_panel_buttons(table: Table) -> None:
    t = table
    f = await fight(t, "Panel", reported=False)

    def panel() -> Message:
        message = with_component(t, f, "munda:pb:submit:", ":0")
        assert message is not None
        return message

    await until(lambda: with_component(t, f, "munda:pb:submit:", ":0"), "olive's panel")
    sections = iter(range(100))

    async def choose_section(kind: Kind, _: Any) -> InteractionResult:
        message = panel()
        chooser = message.component(component_id(message, "munda:pb:sec:"))
        options = [o["value"] for o in chooser["options"] if not o.get("default")]
        return await t.press(kind, message, chooser["custom_id"],
                             [options[next(sections) % len(options)]])

    await t.row("button: report section select", choose_section)

    # The picks of the Out of Action section: any of the gang's fighters, or none.
    message = panel()
    await t.d.select(message, component_id(message, "munda:pb:sec:"), ["ooa"], "olive")
    await until(lambda: with_component(t, f, "munda:pb:pick:", ":ooa:0"), "the ooa section")

    async def pick(kind: Kind, _: Any) -> InteractionResult:
        message = panel()
        select = message.component(component_id(message, "munda:pb:pick:"))
        chosen = [o["value"] for o in select["options"] if o.get("default")]
        everyone = [o["value"] for o in select["options"]]
        # Every pick changes the report: the fighters not chosen now, or nobody.
        values = [] if chosen else everyone[: select.get("max_values", 1)]
        return await t.press(kind, message, select["custom_id"], values)

    await t.row("button: report pick select", pick)
    await t.row("button: report toggle", lambda k, _: t.press(
        k, panel(), component_id(panel(), "munda:pb:tog:")))
    fights = iter(range(100))

    async def fresh_panel() -> Fight:
        made = await fight(t, f"Submit {next(fights)}", reported=False)
        await until(lambda: with_component(t, made, "munda:pb:submit:", ":0"), "olive's panel")
        return made

    async def submit(kind: Kind, made: Fight) -> InteractionResult:
        message = with_component(t, made, "munda:pb:submit:", ":0")
        assert message is not None
        return await t.press(kind, message, component_id(message, "munda:pb:submit:", ":0"))

    await t.row("button: report submit", submit, prepare=fresh_panel)


async def test_stage_buttons(table: Table) -> None:
    t = table
    f = await fight(t, "Stages")

    async def confirm(kind: Kind, _: Any) -> InteractionResult:
        message = await live_stage(t, f)
        return await t.press(kind, message, component_id(message, "munda:pb:confirm:"))

    # The owner confirms for olive's gang, the participant for pat's: the step moves on.
    await t.row("button: stage Confirm", confirm, fresh=False)

    async def behalf(kind: Kind, _: Any) -> InteractionResult:
        message = await live_stage(t, f)
        select = message.component(component_id(message, "munda:pb:behalf:"))
        awaited = [o["value"] for o in select["options"]]
        return await t.press(kind, message, select["custom_id"], awaited[:1])

    await t.row("button: stage on-behalf select", behalf)
    await t.row("button: stage Undo", lambda k, _: undo_button(t, f, k), look=True)

    async def ready_to_undo() -> InteractionResult:
        """A confirmed step to undo, and an Arbitrator's (alice's) "Yes, undo" question."""
        await confirm_open_stage(t, f)
        return await undo_button(t, f, None)

    async def really_undo(kind: Kind, alices: InteractionResult) -> InteractionResult:
        if kind not in EXPECTED["button: stage Yes, undo"]:
            return await click_as(t, kind, alices, "Yes, undo")
        asked = await undo_button(t, f, kind)
        return await click_as(t, kind, asked, "Yes, undo")

    await t.row("button: stage Yes, undo", really_undo, prepare=ready_to_undo)
    await t.row("button: stage Cancel sequence", lambda k, _: cancel_button(t, f, k), look=True)
    fights = iter(range(100))

    async def ready_to_cancel() -> tuple[Fight, InteractionResult]:
        made = await fight(t, f"Cancelled {next(fights)}")
        return made, await cancel_button(t, made, None)

    async def really_cancel(kind: Kind, ready: tuple[Fight, InteractionResult]
                            ) -> InteractionResult:
        made, alices = ready
        if kind not in EXPECTED["button: stage Yes, cancel"]:
            return await click_as(t, kind, alices, "Yes, cancel the sequence")
        asked = await cancel_button(t, made, kind)
        return await click_as(t, kind, asked, "Yes, cancel the sequence")

    await t.row("button: stage Yes, cancel", really_cancel, prepare=ready_to_cancel)


async def undo_button(t: Table, f: Fight, kind: Kind | None) -> InteractionResult:
    """Press Undo on the open step as ``kind`` (None: alice)."""
    return await stage_button(t, f, kind, "munda:pb:undo:")


async def cancel_button(t: Table, f: Fight, kind: Kind | None) -> InteractionResult:
    return await stage_button(t, f, kind, "munda:pb:cancel:")


async def stage_button(t: Table, f: Fight, kind: Kind | None, prefix: str) -> InteractionResult:
    """Press the open step's button whose custom id starts with ``prefix``, as ``kind``
    (None: alice, the campaign's creator)."""
    message = await live_stage(t, f)
    button = component_id(message, prefix)
    if kind is None:
        return await t.d.click(message, button, "alice")
    return await t.press(kind, message, button)


async def test_stage_commands(table: Table) -> None:
    t = table
    f = await fight(t, "Behalf")
    turns = iter([f.olive, f.pat] * 10)
    await t.row("postbattle confirm-on-behalf", lambda k, _: t.slash(
        k, "postbattle confirm-on-behalf", gang=next(turns), campaign=CAMPAIGN))
    await t.row("postbattle undo", lambda k, _: t.slash(
        k, "postbattle undo", gang=f.olive, campaign=CAMPAIGN),
        prepare=lambda: confirm_open_stage(t, f))
    fights = iter(range(100))
    await t.row("postbattle cancel", lambda k, made: t.slash(
        k, "postbattle cancel", gang=made.olive, campaign=CAMPAIGN),
        prepare=lambda: fight(t, f"Called off {next(fights)}", reported=False))


def newest_with(t: Table, prefix: str) -> Message | None:
    """The newest message anywhere with an enabled component whose custom id starts so."""
    for message in sorted(t.arena.fake.world.messages.values(), key=lambda m: -m.id):
        if message.deleted:
            continue
        for comp in message.iter_components():
            if str(comp.get("custom_id", "")).startswith(prefix) and not comp.get("disabled"):
                return message
    return None


ALLOWED_COUNT = 5  # allowed users per gang-control row: the owner and four Arbitrators


async def test_the_steps_of_a_post_battle_sequence(table: Table) -> None:
    """One sequence walked from the Rewards to the Advancements; at each step every
    command of that step is played by every kind, each allowed one on its own fighter,
    vehicle, Territory or item so that each really changes something."""
    t = table
    n = range(1, ALLOWED_COUNT + 1)
    champions = tuple((f"Champ {i}", "Goliath Forge Boss") for i in range(1, 2 * ALLOWED_COUNT + 1))
    gangers = tuple((f"Ganger {i}", "Goliath Bruiser") for i in n)
    f = await fight(t, "Main", reported=False, olive_fighters=champions + gangers)
    for i in n:
        await t.as_user("alice", "vehicle add", gang=f.olive, name=f"Scrap {i}", cost=40,
                        campaign=CAMPAIGN)
        await t.as_user("alice", "vehicle edit", vehicle=f"Scrap {i}",
                        add_damage="Persistent Rattle", campaign=CAMPAIGN)
        await t.as_user("alice", "campaign territory add", name=f"Boon Land {i}",
                        template="Settlement", campaign=CAMPAIGN)
        await t.as_user("alice", "campaign territory assign", territory=f"Boon Land {i}",
                        gang=f.olive, campaign=CAMPAIGN)
        await t.as_user("olive", "stash add", gang=f.olive, item="Frag grenade",
                        campaign=CAMPAIGN)
        await t.as_user("olive", "stash add", gang=f.olive, item="Autogun", campaign=CAMPAIGN)
        await t.as_user("olive", "fighter equip", fighter=f"Champ {i}", item="Stub gun",
                        campaign=CAMPAIGN)
        await t.as_user("olive", "fighter edit", fighter=f"Champ {i}", xp=10, campaign=CAMPAIGN)
    await t.as_user("alice", "vehicle add", gang=f.olive, name="Wreck", cost=100,
                    campaign=CAMPAIGN)
    await t.as_user("alice", "vehicle edit", vehicle="Wreck", add_damage="Persistent Rattle",
                    campaign=CAMPAIGN)
    await report(t.d, f.thread, "olive", f.olive)
    await report(t.d, f.thread, "pat", f.pat)

    def each(stem: str) -> Callable[[], Awaitable[str]]:
        """A prepare step handing out ``stem 1``, ``stem 2``... one per allowed user."""
        names = iter(f"{stem} {i}" for i in range(1, 20))

        async def next_one() -> str:
            return next(names)

        return next_one

    async def until_step(label: str) -> None:
        while label not in (await live_stage(t, f)).embed_text():
            await confirm_open_stage(t, f)

    def do(command: str, **values: Any) -> Callable[[Kind, Any], Awaitable[InteractionResult]]:
        """``command`` with ``values``; a value "{}" becomes the row's prepared name."""
        def act(kind: Kind, name: Any) -> Awaitable[InteractionResult]:
            filled = {k: (name if v == "{}" else v) for k, v in values.items()}
            return t.slash(kind, command, campaign=CAMPAIGN, **filled)

        return act

    await until_step("Receive Rewards")
    await t.row("rewards claim", do("rewards claim", gang=f.olive, reputation_gain=1,
                                    reason="a claim"), fresh=False)
    await t.as_user("alice", "campaign territory add", name="Olive Dome",
                    template="Collapsed Dome", campaign=CAMPAIGN)
    await t.as_user("alice", "campaign territory assign", territory="Olive Dome",
                    gang=f.olive, campaign=CAMPAIGN)
    await t.row("rewards dome", do("rewards dome", dice=3, territory="Olive Dome",
                                   gang=f.olive), fresh=False)
    # Oscar's crew takes it before Collect Income: no double of its dice hurts a fighter
    # the next rows need.
    await t.as_user("alice", "campaign territory assign", territory="Olive Dome",
                    gang="Oscar Crew", campaign=CAMPAIGN)
    await until_step("Post-battle Actions")
    await t.row("action take", do("action take", fighter="{}", action="Trade"),
                prepare=each("Champ"))
    await t.row("action list", do("action list", gang=f.olive), look=True)
    repairers = iter(f"Champ {i}" for i in range(ALLOWED_COUNT + 1, 2 * ALLOWED_COUNT + 1))

    async def repair_question() -> Message:
        await t.as_user("olive", "action take", fighter=next(repairers),
                        action="Negotiate Repairs", target="Wreck")
        return await until(lambda: newest_with(t, "munda:pay:r:"), "the repair question")

    await t.row("button: Pay for repairs / Leave it", lambda k, question: t.press(
        k, question, component_id(question, "munda:pay:r:", ":n")), prepare=repair_question)
    await until_step("A. Clean House")
    await t.row("roster retire", do("roster retire", fighter="{}"), prepare=each("Ganger"))
    await t.row("roster scrap", do("roster scrap", vehicle="{}", gang=f.olive),
                prepare=each("Scrap"))
    await until_step("B. Visit the Trading Post")
    await t.row("roster hire", do("roster hire", fighter_type="Goliath Bruiser", name="{}",
                                  gang=f.olive),
                prepare=each("Hired"))
    await t.row("roster vehicle", do("roster vehicle", vehicle_type="Mauler", name="{}",
                                     gang=f.olive), prepare=each("Bought Quad"))
    await t.row("roster hangeron", do("roster hangeron", fighter_type="Rogue Doc", name="{}",
                                      gang=f.olive), prepare=each("Doc"))
    await t.row("roster sell", do("roster sell", item="Frag grenade", gang=f.olive),
                fresh=False)
    await t.row("roster buy", do("roster buy", item="Lasgun", gang=f.olive), fresh=False)
    await t.row("roster seek", do("roster seek", gang=f.olive), fresh=False)
    await t.row("roster buyrare", do("roster buyrare", item="Boltgun", gang=f.olive),
                fresh=False)
    await until_step("C. Gain Boons")
    # The Settlement's Boon is rolled by the bot: the claim names the Territory only.
    await t.row("roster boon", do("roster boon", territory="{}", gang=f.olive),
                prepare=each("Boon Land"))
    await until_step("D. Distribute Equipment")
    await t.row("roster give", do("roster give", item="Autogun", fighter="{}", gang=f.olive),
                prepare=each("Champ"))
    await t.row("roster take", do("roster take", item="Stub gun", fighter="{}", gang=f.olive),
                prepare=each("Champ"))
    await until_step("E. Purchase Advancements")
    await t.row("roster advance", do("roster advance", fighter="{}",
                                     option="+1 Willpower or Intelligence", stat="wil",
                                     gang=f.olive), prepare=each("Champ"))


async def test_deferring_a_sub_step_and_its_questions(table: Table) -> None:
    t = table
    f = await fight(t, "Defer")
    while "B. Visit the Trading Post" not in (await live_stage(t, f)).embed_text():
        await confirm_open_stage(t, f)

    async def olives_question() -> Message:
        """olive asks to finish D later: pat and an Arbitrator must agree."""
        newest = hostile.newest_message_id(t.arena.fake)
        await t.as_user("olive", "roster defer", substep="D. Distribute Equipment",
                        gang=f.olive, campaign=CAMPAIGN)
        def asked() -> Message | None:
            found = newest_with(t, "munda:agree:")
            return found if found is not None and found.id > newest else None

        return await until(asked, "olive's question")

    def answer(label: str) -> Callable[[Kind, Message], Awaitable[InteractionResult]]:
        async def act(kind: Kind, question: Message) -> InteractionResult:
            return await t.press(kind, question, question.component(label)["custom_id"])

        return act

    await t.row("button: Decline", answer("Decline"), prepare=olives_question)
    await t.row("button: Agree", answer("Agree"), prepare=olives_question)
    # The owner's /roster defer asks (a question is stored); the first Arbitrator's is
    # recorded at once; later ones meet "already deferred".
    await t.row("roster defer", lambda k, _: t.slash(
        k, "roster defer", substep="E. Purchase Advancements", gang=f.olive,
        campaign=CAMPAIGN), fresh=False)
    while (with_component(t, f, "munda:pb:confirm:")) is not None:
        await confirm_open_stage(t, f)
    await t.row("roster reopen", lambda k, _: t.slash(
        k, "roster reopen", substep="E. Purchase Advancements", gang=f.olive,
        campaign=CAMPAIGN), fresh=False)
    await t.row("roster done", lambda k, _: t.slash(
        k, "roster done", substep="E. Purchase Advancements", gang=f.olive,
        campaign=CAMPAIGN), fresh=False)


async def test_captives(table: Table) -> None:
    t = table
    home, den = "Captive Home", "Captor Den"
    await t.as_user("olive", "gang create", name=home, house="Goliath", alignment="Outlaw",
                    campaign=CAMPAIGN)
    await t.as_user("pat", "gang create", name=den, house="Goliath", alignment="Outlaw",
                    campaign=CAMPAIGN)

    async def captive() -> str:
        name = await olive_fighter(t, home, "Captive")
        await t.as_user("alice", "fighter status", fighter=name, status="Captured", captor=den,
                        campaign=CAMPAIGN)
        return name

    await captive()
    await t.row("captive list", lambda k, _: t.slash(k, "captive list", campaign=CAMPAIGN),
                look=True)
    await t.row("captive rescue-declined", lambda k, name: t.slash(
        k, "captive rescue-declined", captive=name, campaign=CAMPAIGN), prepare=captive)
    await t.row("captive rescue-failed", lambda k, name: t.slash(
        k, "captive rescue-failed", captive=name, campaign=CAMPAIGN), prepare=captive)
    # Back to its own gang: the owner (receiver) or pat (captor) proposes, a question is
    # stored; an Arbitrator's trade is carried out at once.
    await t.row("captive trade", lambda k, name: t.slash(
        k, "captive trade", captive=name, to_gang=home, campaign=CAMPAIGN), prepare=captive)


async def test_scheduling(table: Table) -> None:
    t = table
    foes = "Pat Foes"
    await t.as_user("pat", "gang create", name=foes, house="Goliath", alignment="Outlaw",
                    campaign=CAMPAIGN)

    def when() -> str:
        later = datetime.now(UTC) + timedelta(days=3, minutes=t.counter)
        return later.strftime("%Y-%m-%d %H:%M")

    async def olive_side() -> str:
        return await olive_gang(t, "Olive Dates")

    async def proposed() -> tuple[str, InteractionResult]:
        gang = await olive_side()
        asked = await t.as_user("olive", "schedule propose", gang=gang, opponent=foes,
                                when=when(), campaign=CAMPAIGN)
        return gang, asked

    await t.row("schedule propose", lambda k, gang: t.slash(
        k, "schedule propose", gang=gang, opponent=foes, when=when(), campaign=CAMPAIGN),
        prepare=olive_side)
    await t.row("schedule list", looking(t, "schedule list"), look=True)
    await t.row("schedule settings (looking)", looking(t, "schedule settings"), look=True)
    zones = {"zone": "UTC"}

    async def flip_zone(*_: Any) -> None:
        zones["zone"] = "Asia/Tokyo" if zones["zone"] == "UTC" else "UTC"

    await t.row("schedule settings", lambda k, _: t.slash(
        k, "schedule settings", campaign=CAMPAIGN,
        time_zone="Asia/Tokyo" if zones["zone"] == "UTC" else "UTC"), after=flip_zone)
    await t.as_user("alice", "schedule settings", time_zone="UTC", campaign=CAMPAIGN)
    await t.row("schedule cancel", lambda k, made: t.slash(
        k, "schedule cancel", gang=made[0], opponent=foes, campaign=CAMPAIGN),
        prepare=proposed)
    await t.row("button: schedule Call off", lambda k, made: click_as(t, k, made[1], "Call off"),
                prepare=proposed)
    await t.row("button: schedule Accept", lambda k, made: click_as(t, k, made[1], "Accept"),
                prepare=proposed)
    # The Discord event is made after the answer: let it land before the next test.
    await until(lambda: True if t.arena.fake.guild(U).scheduled_events else None,
                "the accepted battle's event")


async def test_downtime(table: Table) -> None:
    t = table

    async def downtime_campaign() -> tuple[str, str]:
        """A new campaign (Arbitrators as CAMPAIGN's) with a gang of olive's."""
        name, gang = t.fresh("Downtime Camp"), t.fresh("Resting Crew")
        await t.as_user("alice", "campaign create", name=name)
        await t.as_user("alice", "campaign settings", arbitrator_add="nora",
                        arbitrator_role="Referees", campaign=name)
        await t.as_user("olive", "gang create", name=gang, house="Goliath",
                        alignment="Outlaw", campaign=name)
        return name, gang

    await t.row("campaign downtime open", lambda k, camp: t.slash(
        k, "campaign downtime open", campaign=camp[0]), prepare=downtime_campaign)
    resting = await olive_gang(t, "Resting Gang")
    grub = await olive_fighter(t, resting, "Resting Grub")
    await t.row("campaign downtime promote", lambda k, _: t.slash(
        k, "campaign downtime promote", fighter=grub, to="Goliath Stimmer",
        campaign=CAMPAIGN), fresh=False)

    async def first_step() -> Message:
        name, gang = await downtime_campaign()
        await t.as_user("alice", "campaign downtime open", campaign=name)

        def found() -> Message | None:
            for thread in t.d.threads(G, guild=U):
                if gang not in thread.name:
                    continue
                for message in t.d.messages(thread, guild=U, include_ephemeral=False):
                    if any(str(c.get("custom_id", "")).startswith("munda:dt:confirm:")
                           for c in message.iter_components()):
                        return message
            return None

        return await until(found, f"the first Downtime step of {gang}")

    await t.row("button: downtime Confirm", lambda k, message: t.press(
        k, message, message.component("Confirm")["custom_id"]), prepare=first_step)
    await t.row("button: downtime Undo", lambda k, message: t.press(
        k, message, message.component("Undo (Arbitrator)")["custom_id"]), prepare=first_step)


# ---------------------------------------------------------------------------- the week


async def week_campaign(t: Table, stem: str) -> str:
    """A campaign of alice's with nora and the Referees as Arbitrators."""
    name = t.fresh(stem)
    await t.as_user("alice", "campaign create", name=name)
    await t.as_user("alice", "campaign settings", arbitrator_add="nora",
                    arbitrator_role="Referees", campaign=name)
    return name


async def calendar_of(t: Table, campaign: str) -> tuple[Calendar, dict[str, str]]:
    guild = t.arena.fake.world.guild(U).id
    async with database(t.arena) as storage:
        found = await storage.read(guild).get_campaign_by_name(campaign)
        stored = await storage.read(guild).get_calendar(found.id)
        gangs = await storage.read(guild).gangs_without_rosters(found.id, None)
    assert stored is not None
    return stored[0], {gang_id: gang.name for gang_id, gang in gangs.items()}


async def test_the_campaign_week(table: Table) -> None:
    t = table
    await t.row("campaign cycle start", lambda k, name: t.slash(
        k, "campaign cycle start", campaign=name),
        prepare=lambda: week_campaign(t, "Week Start"))
    week = await week_campaign(t, "Week Hive")
    await t.as_user("olive", "gang create", name="Olive Week", house="Goliath",
                    alignment="Outlaw", campaign=week)
    await t.as_user("alice", "campaign cycle start", campaign=week)
    for row, command in (("campaign cycle show", "campaign cycle show"),
                         ("campaign standings", "campaign standings"),
                         ("challenge list", "challenge list")):
        await t.row(row, lambda k, _, c=command: t.slash(k, c, campaign=week), look=True)
    def later() -> int:
        """A number larger each time: every allowed cell sets a later date."""
        t.counter += 1
        return t.counter

    await t.row("campaign cycle set", lambda k, _: t.slash(
        k, "campaign cycle set", number=7, starts=f"{30 + later() % 20}d", ends=f"{60 + later()}d",
        campaign=week), fresh=False)
    await t.row("campaign cycle extend", lambda k, _: t.slash(
        k, "campaign cycle extend", until=f"{7 + later()}d", campaign=week), fresh=False)
    await t.row("campaign cycle phase", lambda k, _: t.slash(
        k, "campaign cycle phase", phase="Takeover", cycles=2 + later() % 9, campaign=week),
        fresh=False)
    await t.row("campaign cycle limits", lambda k, _: t.slash(
        k, "campaign cycle limits", challenges=later() % 5, campaign=week), fresh=False)
    await t.row("campaign cycle end", lambda k, _: t.slash(
        k, "campaign cycle end", campaign=week), fresh=False)

    async def calendar_change() -> None:
        await t.as_user("alice", "campaign cycle set", number=7, ends=f"{60 + later()}d",
                        campaign=week)

    await t.row("campaign cycle undo", lambda k, _: t.slash(
        k, "campaign cycle undo", campaign=week), prepare=calendar_change)

    # Challenges: olive's gang against pat's, in a campaign of long Occupation.
    dare = await week_campaign(t, "Dare Hive")
    olive, pat = "Olive Dare", "Pat Dare"
    await t.as_user("olive", "gang create", name=olive, house="Goliath", alignment="Outlaw",
                    campaign=dare)
    await t.as_user("pat", "gang create", name=pat, house="Goliath", alignment="Outlaw",
                    campaign=dare)
    for n in range(1, 9):
        await t.as_user("alice", "campaign territory add", name=f"Dare Land {n}",
                        campaign=dare)
    await t.as_user("alice", "campaign cycle start", campaign=dare)
    await t.as_user("alice", "campaign cycle phase", phase="Occupation", cycles=40,
                    campaign=dare)

    async def open_land() -> str:
        """An unclaimed Territory no waiting challenge has at stake."""
        calendar, _ = await calendar_of(t, dare)
        current = calendar.current
        assert current is not None
        staked = {c.territory for c in calendar.challenges_in(current.number)
                  if c.status.outstanding}
        guild = t.arena.fake.world.guild(U).id
        async with database(t.arena) as storage:
            found = await storage.read(guild).get_campaign_by_name(dare)
            held = await storage.read(guild).list_territories(found.id)
        return next(land.name for land in held
                    if land.controller is None and land.id not in staked)

    async def challenge_pat(kind: Kind) -> InteractionResult:
        return await t.slash(kind, "challenge new", gang=olive, opponent=pat,
                             territory=await open_land(), campaign=dare)

    async def turn_of(gang: str) -> None:
        """A new cycle, where it is ``gang``'s turn to challenge."""
        await t.as_user("alice", "campaign cycle end", campaign=dare)
        calendar, names = await calendar_of(t, dare)
        current = calendar.current
        assert current is not None and current.turn is not None
        if names[current.turn] != gang:
            await t.as_user("alice", "challenge pass", gang=names[current.turn],
                            campaign=dare)

    await t.row("challenge new", lambda k, _: challenge_pat(k), prepare=lambda: turn_of(olive))
    await t.row("challenge pass", lambda k, _: t.slash(
        k, "challenge pass", gang=olive, campaign=dare), prepare=lambda: turn_of(olive))

    async def challenged() -> Message:
        """pat's gang (alice for it) challenges olive's; the challenge's post."""
        await turn_of(pat)
        made = await t.as_user("alice", "challenge new", gang=pat, opponent=olive,
                               territory=await open_land(), campaign=dare)
        number = made.content.split("#")[1].split(" ")[0]

        def posted() -> Message | None:
            return next((m for m in reversed(t.d.messages(G, guild=U))
                         if m.content.startswith(f"#{number} {pat}") and m.components), None)

        return await until(posted, "the challenge's post")

    for label in ("Accept", "Decline"):
        await t.row(f"button: challenge {label}", lambda k, post, b=label: t.press(
            k, post, post.component(b)["custom_id"]), prepare=challenged)


async def test_the_other_server_keeps_to_itself(table: Table) -> None:
    """dave, from the Spire, may start the Spire's own first campaign (by creating or by
    importing one): that touches nothing of the Underhive, and names of the Underhive
    stay unknown there."""
    t = table
    hive = {table: [r for r in rows] for table, rows in
            hostile.snapshot(t.arena.database_path).items()}
    made = await t.cell("campaign create (other server)", Kind.OTHER_SERVER, lambda: t.slash(
        Kind.OTHER_SERVER, "campaign create", name=CAMPAIGN))
    assert not made.ephemeral and "has begun" in made.content, made.text()
    exported = await t.as_user("alice", "campaign export", campaign=CAMPAIGN)
    attachment = next(a for m in exported.messages for a in m.attachments)
    imported = await t.cell("campaign import (other server)", Kind.OTHER_SERVER, lambda: t.slash(
        Kind.OTHER_SERVER, "campaign import", file=Upload(attachment.filename, attachment.data),
        name="Copied Hive"))
    assert hostile.CRASH_MARK not in imported.text()
    after = hostile.snapshot(t.arena.database_path)
    spire = t.arena.fake.world.guild(S).id
    for name, rows in hive.items():
        gone = [r for r in rows if r not in after.get(name, [])]
        assert not gone, f"{name}: rows of the Underhive changed: {gone[:2]}"
    new_campaigns = [r for r in after["campaigns"] if r not in hive["campaigns"]]
    assert new_campaigns and all(spire in r for r in new_campaigns), new_campaigns
    # Its own campaign has the Underhive's name: the Underhive's gangs are still not there.
    for command, values in (("gang show", {"gang": "Oscar Crew"}),
                            ("gang edit", {"gang": "Oscar Crew", "reputation": 7}),
                            ("fighter retire", {"fighter": "Champ 1"})):
        refused = await t.slash(Kind.OTHER_SERVER, command, **values)
        assert refused.ephemeral and NOT_HERE.search(refused.content), refused.text()


async def test_every_cell_of_the_table_was_played(table: Table) -> None:
    """Checked last: each row of EXPECTED has been played by every kind it applies to."""
    missing = []
    for row in EXPECTED:
        kinds = ANYONE_HERE if row.startswith("button:") else frozenset(Kind)
        if row.endswith("(other server)"):
            kinds = frozenset({Kind.OTHER_SERVER})
        elif row in ("campaign create", "campaign import"):
            kinds = ANYONE_HERE  # the other server's cell: test_the_other_server_keeps_to_itself
        played = set(table.played.get(row, {}))
        missing += [f"{row}: {k.value}" for k in kinds if k not in played]
    assert not missing, missing
