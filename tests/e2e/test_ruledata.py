"""Real fighters through the real bot: a campaign's own rule data imported with a preview
and a Confirm, hiring from its House List with its profiles, pasted profiles, "profile not
set" where nobody gave one, weapon profiles on the fighter's card, and the export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest_asyncio

from demo.arena import Arena
from fakediscord import Upload
from fakediscord.result import InteractionResult
from rules.models import EquipmentKind, FighterCategory
from tests.e2e.helpers import U, database
from tests.e2e.test_fighter import ok, refused, said, slash
from tests.importing.test_yaktribe import cult_gang

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "rule-data-example.toml"
MATRIARCH = 'M5" WS3+ BS3+ S3 T3 W2 I3+ A2 Ld6+ Cl6+ Wil7+ Int6+'


@pytest_asyncio.fixture(loop_scope="module", scope="module", autouse=True)
async def campaign(arena: Arena) -> None:
    await ok(arena, "alice", "campaign create", name="Ink Wars")
    await ok(arena, "bob", "gang create", name="Goliath Lads", house="Goliath",
             alignment="Law Abiding", credits=1000)


async def test_a_fighter_nobody_gave_a_profile_shows_profile_not_set(arena: Arena) -> None:
    # Written by hand: the House List's types come with their profiles.
    answer = await ok(arena, "bob", "fighter add", gang="Goliath Lads", name="Krag",
                      category="Leader", cost=135)
    assert "profile not set" in answer
    card = await ok(arena, "carol", "fighter show", fighter="Krag")
    assert "Profile not set" in card and 'M5"' not in card and "WS4+" not in card
    roster = await ok(arena, "carol", "gang show", gang="Goliath Lads")
    assert "profile not set" in roster and "Ld7+" not in roster


async def test_a_pasted_profile_is_read_and_a_bad_one_named(arena: Arena) -> None:
    refusal = await refused(arena, "bob", "fighter edit", fighter="Krag",
                            profile='M4" WS2+ BS9++ S4 T4 W2 I3+ A2 Ld5+ Cl5+ Wil7+ Int6+')
    assert "BS '9++'" in refusal
    assert "Profile not set" in await ok(arena, "carol", "fighter show", fighter="Krag")
    lonely = await refused(arena, "bob", "fighter edit", fighter="Krag", ws=3)
    assert "profile is not set" in lonely
    await ok(arena, "bob", "fighter edit", fighter="Krag",
             profile="m 4  ws2 bs 4 S4 t4 W2 i3 A2 ld5 CL5 wil7 int6", notes="Came from the forge")
    card = await ok(arena, "carol", "fighter show", fighter="Krag")
    assert "WS" in card and "2+" in card and '4"' in card
    await ok(arena, "bob", "fighter edit", fighter="Krag", ws=3)
    roster = await ok(arena, "carol", "gang show", gang="Goliath Lads")
    assert 'M4" WS3+ BS4+ S4 T4 W2 I3+ A2 Ld5+ Cl5+ Wil7+ Int6+' in roster


async def test_rule_data_is_previewed_and_stored_only_on_confirm(arena: Arena) -> None:
    upload = Upload("quillon.toml", EXAMPLE.read_bytes())
    not_yours = await refused(arena, "bob", "campaign ruledata import", file=upload)
    assert "Arbitrator" in not_yours
    asked = await slash(arena, "alice", "campaign ruledata import", file=upload)
    assert asked.ephemeral
    preview = said(asked)
    assert "Adds 1 House Lists: Quillon" in preview
    assert "Quill pistol" in preview and "Calligraphy" in preview
    assert "Fighter types: 3, 2 with a profile" in preview
    # Nothing is played with before the Confirm.
    none_yet = await refused(arena, "alice", "campaign ruledata export", own_only=True)
    assert "no rule data of its own" in none_yet
    done = await arena.driver.click(asked, "Confirm", "alice")
    assert "plays with its own rule data" in done.content


async def test_hiring_from_the_campaign_list_gives_its_profile(arena: Arena) -> None:
    await ok(arena, "bob", "gang create", name="Scribes", house="Quillon",
             alignment="Law Abiding", credits=500)
    await ok(arena, "bob", "fighter add", gang="Scribes", name="Mother Vellum",
             fighter_type="Quill Matriarch", pay=True)
    await ok(arena, "bob", "fighter add", gang="Scribes", name="Smudge", fighter_type="Blotter")
    roster = await ok(arena, "carol", "gang show", gang="Scribes")
    assert MATRIARCH in roster
    assert "profile not set" in roster  # the Blotter: the file gives no profile


async def test_the_card_shows_each_weapon_profile(arena: Arena) -> None:
    await ok(arena, "bob", "fighter equip", fighter="Mother Vellum", item="Quill launcher")
    card = await ok(arena, "carol", "fighter show", fighter="Mother Vellum")
    # A profile table as on the roster sheet: one row per profile line.
    flat = " ".join(card.split())
    assert "Weapon Rng S/L Acc S/L S AP D Am Traits" in flat
    assert 'Quill launcher (Barbed) 8"/24" -/-1 4 -1 1 5+ Blast (3")' in flat
    assert "- Ink " in flat and "Blind" in flat


async def test_bad_rule_data_names_the_line_or_field_and_changes_nothing(arena: Arena) -> None:
    broken = b'format = "munda-arbitrator/rule-data"\nversion = 1\n[[weapons]\nname = "x"\n'
    refusal = await refused(arena, "alice", "campaign ruledata import",
                            file=Upload("broken.toml", broken))
    assert "broken.toml, line 3" in refusal
    wrong = EXAMPLE.read_text().replace(MATRIARCH, MATRIARCH.replace("WS3+", "WS3++"))
    refusal = await refused(arena, "alice", "campaign ruledata import",
                            file=Upload("wrong.toml", wrong.encode()))
    assert "houses[1] (Quillon) > fighters[1] (Quill Matriarch) > profile" in refusal
    assert "WS '3++'" in refusal


async def test_the_export_reads_back_as_the_same_content(arena: Arena) -> None:
    exported = await slash(arena, "carol", "campaign ruledata export", own_only=True)
    attachment = exported.message.attachments[0] if exported.message else None
    assert attachment is not None
    document = json.loads(attachment.data)
    assert document["format"] == "munda-arbitrator/rule-data"
    assert [h["house"] for h in document["houses"]] == ["Quillon"]
    everything = await slash(arena, "carol", "campaign ruledata export")
    whole = json.loads(everything.message.attachments[0].data)  # type: ignore[union-attr]
    assert {h["house"] for h in whole["houses"]} >= {"Goliath", "Quillon"}
    asked = await slash(arena, "alice", "campaign ruledata import",
                        file=Upload(attachment.filename, attachment.data))
    assert "Replaces 1 House Lists: Quillon" in said(asked)
    done = await arena.driver.click(asked, "Confirm", "alice")
    assert "plays with its own rule data" in done.content
    roster = await ok(arena, "carol", "gang show", gang="Scribes")
    assert MATRIARCH in roster


async def test_the_toml_export_imports_again(arena: Arena) -> None:
    exported = await slash(arena, "carol", "campaign ruledata export", own_only=True,
                           format="toml")
    attachment = exported.message.attachments[0] if exported.message else None
    assert attachment is not None and attachment.filename.endswith(".toml")
    assert b'[[houses]]' in attachment.data and b'house = "Quillon"' in attachment.data
    asked = await slash(arena, "alice", "campaign ruledata import",
                        file=Upload(attachment.filename, attachment.data))
    assert "Replaces 1 House Lists: Quillon" in said(asked)


async def test_an_unknown_house_asks_for_categories_and_keeps_weapon_profiles(
    arena: Arena,
) -> None:
    upload = Upload("brood.json", json.dumps(cult_gang()).encode())
    preview = await slash(arena, "bob", "gang import", file=upload,
                          categories="Hush Acolyte=Ganger")
    assert preview.ephemeral and "Import The Hushed Brood?" in said(preview)
    assert preview.message is not None
    assert not preview.message.component("Confirm").get("disabled")
    await arena.driver.click(preview, "Confirm", "bob")
    card = await ok(arena, "carol", "fighter show", fighter="Mother Hush")
    flat = " ".join(card.split())
    assert "Vein Sword E/- -/- S+1 -2 1 - Melee, Parry" in flat
    assert "Hush Caster (Low)" in flat and '- High 6"/18" -/- 5 -1 2 6+ Unstable' in flat
    assert "Weapon slots\n2 of 3" in card
    familiar = await ok(arena, "carol", "gang show", gang="The Hushed Brood")
    assert 'M5" WS3+ BS- S3' in familiar


def hush_market() -> dict[str, Any]:
    """The cult gang under another name: its Acolyte's type is in no rule data and the
    file gives no category; a Hush Charm is in no Trading Post and the file gives no
    kind."""
    gang = cult_gang()
    gang.update(gang_id=778, gang_name="The Hush Market")
    for n, fighter in enumerate(gang["gangers"]):
        fighter["name"] = f"Market {fighter['name']}"
        fighter["ganger_id"] = 100 + n
    gang["gangers"][2]["equipment"].append({"name": "Hush Charm", "qty": 1, "cost": 5})
    return gang


async def select_as(arena: Arena, result: InteractionResult, placeholder: str,
                    value: str, user: str) -> InteractionResult:
    """Choose in a select of someone else's ephemeral message (a forged or replayed
    custom_id: the fake's driver, like Discord, shows the message to its user only)."""
    return await arena.driver.forge(result, placeholder, user, [value])


async def test_the_preview_asks_what_the_file_leaves_open_and_confirm_waits(
    arena: Arena,
) -> None:
    upload = Upload("market.json", json.dumps(hush_market()).encode())
    asked = await slash(arena, "bob", "gang import", file=upload)
    assert asked.ephemeral and "Import The Hush Market?" in said(asked)
    assert "2 of 2 to answer" in asked.content
    message = asked.message
    assert message is not None
    category = "Hush Acolyte (1 fighter): category?"
    kind = "Hush Charm (1 item): weapon, wargear...?"
    assert message.component("Confirm").get("disabled")
    # Only the importing player answers.
    stranger = await select_as(arena, asked, category, "Leader", "carol")
    assert stranger.ephemeral and "Only the person who asked" in stranger.content
    assert "Something went wrong" not in stranger.content
    answered = await arena.driver.select(asked, category, ["Champion"], "bob")
    assert "1 of 2 to answer" in answered.content
    assert "Hush Acolyte (1 fighter): category? **Champion**" in answered.content
    assert "Market Pale Jon (Hush Acolyte, Champion)" in said(answered)
    assert arena.driver._message(asked).component("Confirm").get("disabled")
    done_asking = await arena.driver.select(asked, kind, ["weapon"], "bob")
    assert "Every question is answered" in done_asking.content
    assert not arena.driver._message(asked).component("Confirm").get("disabled")
    done = await arena.driver.click(asked, "Confirm", "bob")
    assert done.content.startswith("Done."), done.content
    async with database(arena) as storage:
        guild_id = arena.fake.world.guild(U).id
        campaign = (await storage.read(guild_id).list_campaigns())[0]
        gang = await storage.read(guild_id).get_gang_by_name(campaign.id, "The Hush Market")
    jon = next(f for f in gang.fighters if f.name == "Market Pale Jon")
    assert jon.category is FighterCategory.CHAMPION and jon.gang_hierarchy
    charm = next(item for item in jon.equipment if item.name == "Hush Charm")
    assert charm.kind is EquipmentKind.WEAPON
