"""Imports and exports through the real bot process against the fake Discord.

A Yaktribe export of twenty fighters (mixed string and number fields, one
malformed fighter) is imported from an attachment and re-imported from a URL
served by a local web server, which the bot is configured to allow; a
campaign's own Trading Post is imported and the availability roll lists from
it; a campaign exported from the Underhive is imported into the Spire with
identical standings. Tests run in order and build on each other's campaign.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web

from bot.rulesets import ruleset_for
from demo.arena import Arena, open_arena
from fakediscord import Upload
from fakediscord.entities import Message
from fakediscord.result import InteractionResult
from rules.dice import ScriptedRoller
from rules.models import FighterCategory, FighterStatus
from rules.tradingpost import seek_rare_and_illegal
from rules.world import World
from tests.e2e.battle_helpers import (
    bot_ready,
    new_campaign,
    new_fighter,
    new_gang,
    panel_of,
    thread_named,
)
from tests.e2e.helpers import G, U, database, slash

S = "Spire"

FIXTURES = Path(__file__).parent.parent / "importing" / "fixtures"
CAMPAIGN = "Scrap Hollow"
GANG = "The Slag Kings"


class GangServer:
    """A stand-in for Yaktribe: serves whatever JSON a test puts at a path."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.host = ""

    async def serve(self, request: web.Request) -> web.Response:
        body = self.files.get(request.path)
        if body is None:
            raise web.HTTPNotFound()
        return web.Response(body=body, content_type="application/json")

    def url(self, path: str) -> str:
        return f"http://{self.host}{path}"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def gang_server() -> AsyncIterator[GangServer]:
    server = GangServer()
    app = web.Application()
    app.router.add_get("/{tail:.*}", server.serve)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server.host = f"127.0.0.1:{runner.addresses[0][1]}"
    try:
        yield server
    finally:
        await runner.cleanup()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def arena(
    tmp_path_factory: pytest.TempPathFactory, gang_server: GangServer
) -> AsyncIterator[Arena]:
    """This module's bot may fetch gangs from the local server, and nowhere else."""
    workdir: Path = tmp_path_factory.mktemp("arena")
    env = {"MUNDA_IMPORTING_YAKTRIBE_HOST": gang_server.host}
    async with open_arena(workdir, env=env) as running:
        yield running


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


async def import_trading_post(arena: Arena, user: str, csv_fixture: str) -> InteractionResult:
    """``user`` uploads the Trading Post file ``csv_fixture`` to /campaign tradingpost import."""
    return await slash(arena, user, "campaign tradingpost import",
                       file=Upload("tp.csv", fixture(csv_fixture)))


def slag_kings() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(fixture("yaktribe_slag_kings.json"))
    return data


def all_text(result: InteractionResult) -> str:
    """Content and embeds of every message of a reply, as one string."""
    parts = []
    for message in result.messages:
        parts.append(message.content)
        for embed in message.embeds:
            parts += [embed.get("title", ""), embed.get("description", "")]
            parts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


async def stored_gang(arena: Arena, name: str = GANG, guild: str = U) -> Any:
    guild_id = arena.fake.world.guild(guild).id
    async with database(arena) as storage:
        campaign = await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)
        return await storage.read(guild_id).get_gang_by_name(campaign.id, name)


async def answer_all(arena: Arena, asked: InteractionResult, user: str) -> None:
    """Answer every question of an import preview as the import used to guess (wargear
    for an item, Ganger for a type), so Confirm is enabled."""
    while True:
        message = arena.driver._message(asked)
        open_ = [c for c in message.iter_components()
                 if c.get("type") == 3 and not any(o.get("default") for o in c["options"])]
        if not open_:
            return
        choice = "wargear" if "wargear" in open_[0]["placeholder"] else "Ganger"
        await arena.driver.select(asked, open_[0]["custom_id"], [choice], user)


# --------------------------------------------------------------------------- Yaktribe


async def test_campaign_and_a_rival_gang(arena: Arena) -> None:
    started = await slash(arena, "alice", "campaign create", name=CAMPAIGN)
    assert not started.ephemeral, started.content
    rival = await slash(arena, "bob", "gang create", name="Sump Rats", house="Escher",
                        alignment="Law Abiding", credits=600)
    assert not rival.ephemeral, rival.content


async def test_a_yaktribe_file_is_shown_then_stored_on_confirm(arena: Arena) -> None:
    asked = await slash(arena, "alice", "gang import",
                        file=Upload("slag-kings.json", fixture("yaktribe_slag_kings.json")))
    assert asked.ephemeral
    shown = all_text(asked)
    assert f"Import {GANG}?" in shown
    assert "20 fighters" in shown and "Gang Rating **1715** (the file says 1715)" in shown
    assert "Fighter #21 'Twitch': ws 'four' is not a number; cost is missing" in shown
    assert "Scrap totem" in shown and "fighter.portrait" in shown
    assert "Slag Furnace, Old Ruins" in shown
    # Nothing is stored before the Confirm.
    listed = await slash(arena, "carol", "gang list")
    assert GANG not in listed.text()

    await answer_all(arena, asked, "alice")
    done = await arena.driver.click(asked, "Confirm", "alice")
    assert "imported from Yaktribe" in done.content
    assert "20 fighters, Gang Rating 1715, 245 credits" in done.content
    announced = await done.wait_followups(1)
    assert not announced[0].ephemeral and GANG in announced[0].content

    gang = await stored_gang(arena)
    assert len(gang.fighters) == 20 and gang.rating == 1715 and gang.credits == 245
    krug = next(f for f in gang.fighters if f.name == "Krug Ironhide")
    assert krug.category is FighterCategory.LEADER and krug.profile.get("ws") == 2
    assert [i.name for i in krug.equipment] == ["Boltgun", "Furnace plates", "Stub Gun"]
    roster = await slash(arena, "carol", "gang show", gang=GANG)
    assert "Krug Ironhide" in roster.text() and "Twitch" not in roster.text()


async def test_a_re_import_by_url_shows_the_differences_first(
    arena: Arena, gang_server: GangServer
) -> None:
    before = await stored_gang(arena)
    data = slag_kings()
    data["credits"] = 300
    data["gangers"][0]["xp"] = 15
    data["gangers"] = [g for g in data["gangers"] if g["name"] != "Grund"]
    gang_server.files["/underhive/json/gang/48213.json"] = json.dumps(data).encode()
    url = gang_server.url("/underhive/json/gang/48213.json")

    refused = await slash(arena, "bob", "gang import", url=url)
    assert refused.ephemeral and "is not your gang" in refused.content

    asked = await slash(arena, "alice", "gang import", url=url)
    shown = all_text(asked)
    assert f"Update {GANG}?" in shown
    assert f"{GANG}: credits 245 → 300" in shown
    assert "Krug Ironhide: xp 12 → 15" in shown
    assert "Grund leaves the roster" in shown
    await answer_all(arena, asked, "alice")
    done = await arena.driver.click(asked, "Confirm", "alice")
    assert "updated from Yaktribe" in done.content

    after = await stored_gang(arena)
    assert after.id == before.id and after.credits == 300 and len(after.fighters) == 19
    old_ids = {f.name: f.id for f in before.fighters}
    assert all(old_ids[f.name] == f.id for f in after.fighters)
    again = await slash(arena, "alice", "gang import", url=url)
    assert "No differences" in all_text(again)
    cancelled = await arena.driver.click(again, "Cancel", "alice")
    assert "nothing was changed" in cancelled.content


async def test_urls_elsewhere_and_broken_files_are_refused(
    arena: Arena, gang_server: GangServer
) -> None:
    elsewhere = await slash(arena, "alice", "gang import", url="https://evil.example/gang.json")
    assert elsewhere.ephemeral and f"only fetched from {gang_server.host.split(':')[0]}" in (
        elsewhere.content
    )
    missing = await slash(arena, "alice", "gang import", url=gang_server.url("/nope.json"))
    assert missing.ephemeral and "answered 404" in missing.content
    broken = {**slag_kings(), "gang_name": ""}
    refused = await slash(arena, "alice", "gang import",
                          file=Upload("broken.json", json.dumps(broken).encode()))
    assert refused.ephemeral
    # Refusals are escaped as markdown (they quote what players typed).
    assert "gang\\_name is empty" in refused.content
    assert "Nothing was imported" in refused.content
    not_json = await slash(arena, "alice", "gang import", file=Upload("x.json", b"{oops"))
    assert "not valid JSON" in not_json.content
    neither = await slash(arena, "alice", "gang import")
    assert "Attach the exported file or give its URL" in neither.content


async def test_a_cancelled_import_stores_nothing(arena: Arena) -> None:
    data = {**slag_kings(), "gang_id": 777, "gang_name": "Cinder Boys"}
    asked = await slash(arena, "bob", "gang import",
                        file=Upload("cinder.json", json.dumps(data).encode()))
    shown = all_text(asked)
    # Fighter names are unique in a campaign: these clash with the Slag Kings'.
    assert "this one is imported as 'Krug Ironhide (2)'" in shown
    await arena.driver.click(asked, "Cancel", "bob")
    listed = await slash(arena, "carol", "gang list")
    assert "Cinder Boys" not in listed.text()


async def test_arbitrators_import_for_players_and_the_button_survives_a_restart(
    arena: Arena,
) -> None:
    data = {**slag_kings(), "gang_id": 778, "gang_name": "Ember Lads",
            "gangers": slag_kings()["gangers"][:2]}
    for number, ganger in enumerate(data["gangers"]):
        ganger["name"] = f"Ember {number}"
    upload = Upload("ember.json", json.dumps(data).encode())
    refused = await slash(arena, "bob", "gang import", file=upload, owner="alice")
    assert refused.ephemeral and "Only an Arbitrator" in refused.content
    asked = await slash(arena, "carol", "gang import", file=upload, owner="bob")
    assert "Import Ember Lads?" in all_text(asked)
    # The question is kept in the database, not in the bot's memory.
    await arena.restart_bot()
    await answer_all(arena, asked, "carol")
    done = await arena.driver.click(asked, "Confirm", "carol")
    assert "imported from Yaktribe" in done.content
    gang = await stored_gang(arena, "Ember Lads")
    assert gang.owner == str(arena.fake.world.user("bob").id)
    assert [f.name for f in gang.fighters] == ["Ember 0", "Ember 1"]


# --------------------------------------------------------------------------- Trading Post


async def test_a_trading_post_import_is_for_arbitrators_and_lists_bad_rows(
    arena: Arena,
) -> None:
    refused = await import_trading_post(arena, "bob", "trading_post.csv")
    assert refused.ephemeral and "Only an Arbitrator" in refused.content
    bad = await import_trading_post(arena, "carol", "trading_post_bad.csv")
    assert bad.ephemeral
    assert "4 rows are not right" in bad.content and "line 4: cost 'lots'" in bad.content
    shown = await slash(arena, "carol", "campaign tradingpost show")
    assert "253 items, from the rule set necromunda-2023" in shown.text()  # still the set's


async def test_the_availability_roll_lists_from_the_imported_trading_post(
    arena: Arena,
) -> None:
    done = await import_trading_post(arena, "carol", "trading_post.csv")
    assert done.ephemeral and "Imported 13 items" in done.content
    assert "Columns not read: source" in done.content
    announced = await done.wait_followups(2)
    assert not announced[-1].ephemeral and "its own Trading Post: 13 items" in (
        announced[-1].content
    )
    shown = await slash(arena, "bob", "campaign tradingpost show")
    text = shown.text()
    assert not shown.ephemeral
    assert "Grav-chute: 40 credits, Rare (10)" in text and "Chrono-crystal" not in text

    guild_id = arena.fake.world.guild(U).id
    async with database(arena) as storage:
        campaign = await storage.read(guild_id).get_campaign_by_name(CAMPAIGN)
        gang = await storage.read(guild_id).get_gang_by_name(campaign.id, GANG)
    krug = next(f for f in gang.fighters if f.name == "Krug Ironhide")
    assert krug.status is FighterStatus.ACTIVE
    # 2D6 = 6, Leader +2: availability 8 for an Outlaw gang.
    result = seek_rare_and_illegal(
        World.of([gang]), gang.id, [krug], ScriptedRoller([3, 3]), ruleset_for(campaign)
    )
    assert result.availability == 8
    assert sorted(result.unlocked_names) == ["Boltgun", "Infra-sight", "Obscura"]


# --------------------------------------------------------------------------- exports


async def test_a_gang_file_read_back_here_changes_nothing(arena: Arena) -> None:
    exported = await slash(arena, "bob", "gang export", gang=GANG)
    assert exported.ephemeral
    attachment = exported.message.attachments[0] if exported.message else None
    assert attachment is not None and attachment.filename == "the-slag-kings.json"
    document = json.loads(attachment.data)
    assert document["format"] == "munda-arbitrator/gang" and document["version"] == 1
    assert document["gang"]["name"] == GANG and len(document["gang"]["fighters"]) == 19
    asked = await slash(arena, "alice", "gang import",
                        file=Upload(attachment.filename, attachment.data))
    assert f"Update {GANG}?" in all_text(asked) and "No differences" in all_text(asked)
    await arena.driver.click(asked, "Cancel", "alice")


async def test_a_campaign_exported_here_has_the_same_standings_in_another_server(
    arena: Arena,
) -> None:
    territory = await slash(arena, "carol", "campaign territory add", name="Slag Furnace",
                            income="D6x10")
    assert not territory.ephemeral, territory.content
    assigned = await slash(arena, "carol", "campaign territory assign",
                           territory="Slag Furnace", gang=GANG)
    assert not assigned.ephemeral, assigned.content

    refused = await slash(arena, "bob", "campaign export")
    assert refused.ephemeral and "Only an Arbitrator" in refused.content
    exported = await slash(arena, "alice", "campaign export")
    assert exported.ephemeral and "3 gangs, 1 Territory" in exported.content
    attachment = exported.message.attachments[0] if exported.message else None
    assert attachment is not None and attachment.filename == "scrap-hollow.json"

    imported = await slash(arena, "dave", "campaign import", guild=S,
                           file=Upload(attachment.filename, attachment.data))
    assert imported.ephemeral and f"Campaign **{CAMPAIGN}** imported: 3 gangs" in (
        imported.content
    )
    announced = await imported.wait_followups(2)
    assert not announced[-1].ephemeral

    # Alice is no member of the Spire: her gang is the importer's there; bob's stay his.
    assert "Gangs whose owner is not a member here are yours now (1)" in imported.content
    here = await slash(arena, "carol", "campaign show")
    there = await slash(arena, "bob", "campaign show", guild=S)

    def standings(result: InteractionResult) -> list[tuple[str, str]]:
        return [(f["name"], f["value"].split("\n", 1)[1])
                for e in result.embeds for f in e["fields"]]

    assert here.embeds and standings(here) == standings(there)
    dave = arena.fake.world.user("dave").id
    assert f"owner <@{dave}>" in there.embeds[0]["fields"][0]["value"]
    # The file's 1715 without Grund's 75, who left the gang on the re-import.
    assert "Rating **1640**" in here.text() and "1 territory" in here.text()

    spire_tp = await slash(arena, "bob", "campaign tradingpost show", guild=S)
    assert "Grav-chute" in spire_tp.text()
    again = await slash(arena, "dave", "campaign import", guild=S,
                        file=Upload(attachment.filename, attachment.data))
    assert again.ephemeral and "name option" in again.content
    wrong = await slash(arena, "dave", "campaign import", guild=S,
                        file=Upload("tp.csv", fixture("trading_post.csv")))
    assert wrong.ephemeral and "not valid JSON" in wrong.content


async def test_a_re_import_after_the_move_still_finds_its_gang(
    arena: Arena, gang_server: GangServer
) -> None:
    url = gang_server.url("/underhive/json/gang/48213.json")
    asked = await slash(arena, "dave", "gang import", guild=S, url=url)
    # The import link came along with the campaign: dave is an Arbitrator there.
    shown = all_text(asked)
    assert f"Update {GANG}?" in shown
    # Priced from the campaign's own Trading Post now, which has no Medicae kit.
    assert "Not in any Trading Post or Equipment List (kept at 0 credits): Medicae kit" in shown
    await arena.driver.click(asked, "Cancel", "dave")


# --------------------------------------------------------------------------- untrusted files

REACH = "Ash Reach"
HOUNDS, EATERS = "Rust Hounds", "Bile Eaters"


def looks(message: Message) -> tuple[object, ...]:
    """What a message shows (and whether it was ever edited)."""
    return (message.content, message.embeds, message.components, message.edits)


def posted(arena: Arena, channel: Any, guild: str) -> list[tuple[object, ...]]:
    return [looks(m) for m in arena.driver.messages(channel, guild=guild,
                                                     include_ephemeral=False)]


async def export_file(arena: Arena, campaign: str) -> dict[str, Any]:
    exported = await slash(arena, "alice", "campaign export", campaign=campaign)
    assert exported.ephemeral and exported.message is not None, exported.content
    data: dict[str, Any] = json.loads(exported.message.attachments[0].data)
    return data


async def test_a_campaign_with_a_run_in_progress(arena: Arena) -> None:
    driver = arena.driver
    await bot_ready(arena)
    await new_campaign(driver, REACH)
    await new_gang(driver, "alice", REACH, HOUNDS)
    await new_gang(driver, "bob", REACH, EATERS)
    await new_fighter(driver, "alice", REACH, HOUNDS, "Grist", "Goliath Forge Boss")
    await new_fighter(driver, "bob", REACH, EATERS, "Slop", "Goliath Forge Boss")
    started = await slash(arena, "alice", "postbattle start", winner=HOUNDS, gang1=HOUNDS,
                          gang2=EATERS, campaign=REACH)
    assert not started.ephemeral, started.content
    thread = await thread_named(driver, f"{HOUNDS} vs {EATERS}")
    await panel_of(driver, thread, HOUNDS)
    await panel_of(driver, thread, EATERS)


async def test_a_forged_file_cannot_reach_into_another_server(arena: Arena) -> None:
    """The attack: a run's channel and message ids pointed at another server's bot message,
    imported, then cancelled. The other server sees nothing happen."""
    driver = arena.driver
    spire_general = arena.fake.world.guild(S).channel(G)
    theirs = await slash(arena, "dave", "campaign create", guild=S, name="Spire League")
    assert not theirs.ephemeral and theirs.message is not None, theirs.content
    target = theirs.message
    data = await export_file(arena, REACH)
    [run] = [s for s in data["sequences"] if s["key"].startswith("postbattle:")]
    assert "seeds" not in run["state"]
    run["state"]["channel_id"] = spire_general.id
    run["state"]["thread_id"] = None
    for report in run["state"]["reports"].values():
        report["message_id"] = target.id
    data["campaign"]["report_channel_id"] = spire_general.id
    data["campaign"]["arbitrator_user_ids"] = [arena.fake.world.user("dave").id]
    before = posted(arena, spire_general, S)

    imported = await slash(arena, "alice", "campaign import", name="Forged Reach",
                           file=Upload("reach.json", json.dumps(data).encode()))
    assert imported.ephemeral and "Campaign **Forged Reach** imported" in imported.content
    assert "report channel is not one of this server's" in imported.content
    cancelled = await slash(arena, "alice", "postbattle cancel", gang=HOUNDS,
                            campaign="Forged Reach")
    assert cancelled.ephemeral and "is in no post-battle sequence now" in cancelled.text()
    await asyncio.sleep(0.5)  # anything the bot were to post would be out by now
    assert posted(arena, spire_general, S) == before
    assert looks(target) == before[[m.id for m in driver.messages(
        spire_general, guild=S, include_ephemeral=False)].index(target.id)]

    guild_id = arena.fake.world.guild(U).id
    async with database(arena) as storage:
        forged = await storage.read(guild_id).get_campaign_by_name("Forged Reach")
        assert forged.report_channel_id is None
        assert forged.arbitrator_user_ids == [arena.fake.world.user("alice").id]
        # Both owners are members of the Underhive: they keep their gangs.
        owners = {g.name: g.owner for g in await storage.read(guild_id).list_gangs(forged.id)}
        assert owners == {HOUNDS: str(arena.fake.world.user("alice").id),
                          EATERS: str(arena.fake.world.user("bob").id)}


async def test_a_copy_on_the_same_server_leaves_the_original_run_alone(arena: Arena) -> None:
    driver = arena.driver
    thread = await thread_named(driver, f"{HOUNDS} vs {EATERS}")
    before = posted(arena, thread, U)
    panel = await panel_of(driver, thread, HOUNDS)
    data = await export_file(arena, REACH)
    copied = await slash(arena, "alice", "campaign import", name="Reach Copy",
                         file=Upload("reach.json", json.dumps(data).encode()))
    assert copied.ephemeral and "Campaign **Reach Copy** imported" in copied.content
    refused = await slash(arena, "alice", "postbattle cancel", gang=EATERS,
                          campaign="Reach Copy")
    assert "is in no post-battle sequence now" in refused.text()
    # At start-up the bot redraws every run in progress: the copy has none.
    await arena.restart_bot()
    await bot_ready(arena)
    status = await slash(arena, "alice", "postbattle status", gang=HOUNDS, campaign=REACH)
    assert not status.ephemeral, status.text()
    await asyncio.sleep(0.5)
    assert posted(arena, thread, U) == before
    # The original's panel still has its buttons, and they still work.
    picked = await driver.select(panel, "Report which part?", ["ooa"], "alice")
    assert not picked.ephemeral, picked.text()


async def test_imported_history_shows_as_imported_in_the_ledger(arena: Arena) -> None:
    alice = arena.fake.world.user("alice").id
    data = await export_file(arena, REACH)
    data["ledger"].append({
        "id": 999, "kind": "roll", "at": "2030-01-01T00:00:00Z", "actor": str(alice),
        "clause": "PB-4", "expression": "D6x10", "faces": [6], "total": 60,
        "purpose": "income for Rust Hounds",
    })
    imported = await slash(arena, "carol", "campaign import", name="Ledger Reach",
                           file=Upload("reach.json", json.dumps(data).encode()))
    assert imported.ephemeral and "imported" in imported.content

    shown = await slash(arena, "bob", "ledger", campaign="Ledger Reach", limit=25)
    text = shown.text()
    assert "📥 **Imported** from *Ash Reach* on <t:" in text
    # The forged roll is there, under an imported header that names nobody.
    lines = text.splitlines()
    forged = next(n for n, line in enumerate(lines) if "income for Rust Hounds" in line)
    header = next(line for line in reversed(lines[:forged]) if not line.lstrip().startswith("•"))
    assert "Imported" in header and "<@" not in header
    # Only the import itself (by carol, here) is attributed to a user.
    assert f"<@{alice}>" not in text
    assert f"<@{arena.fake.world.user('carol').id}>" in text


async def test_forged_ledger_text_is_shown_escaped_on_its_own_line(arena: Arena) -> None:
    """A ledger row's texts are the file's word: a path with a line break and markdown in
    it must not become a bold entry header of its own."""
    alice = arena.fake.world.user("alice").id
    data = await export_file(arena, REACH)
    forged = f"cost\n**#7 Forged entry** (PB-4) · <@{alice}>\n> quoted"
    data["ledger"].append({
        "id": 998, "kind": "change", "at": "2030-01-02T00:00:00Z", "actor": str(alice),
        "clause": "ROSTER", "subject": "fighter", "subject_id": "f1",
        "subject_name": "Grub\n# Heading", "gang_id": "g1", "path": forged,
        "before": 55, "after": 60,
    })
    imported = await slash(arena, "carol", "campaign import", name="Forged Ledger",
                           file=Upload("reach.json", json.dumps(data).encode()))
    assert imported.ephemeral and "imported" in imported.content

    text = (await slash(arena, "bob", "ledger", campaign="Forged Ledger", limit=25)).text()
    [line] = [line for line in text.splitlines() if "Forged entry" in line]
    assert "• Grub # Heading: cost \\*\\*#7 Forged entry\\*\\* (PB-4)" in line, line
    assert "**#7" not in text and "\n> quoted" not in text and f"<@{alice}>" not in text
