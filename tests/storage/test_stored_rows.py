"""Gangs read back are built from the rows as stored, without being validated again;
whatever comes from outside (an imported file, a command's input) still is."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from bot.storage import Campaign, Storage
from rules.models import Gang
from rules.names import MAX_LENGTH

from .conftest import ACTOR, GUILD_A, GUILD_B, execute, full_gang

# A name no model accepts: longer than any name may be.
TOO_LONG = "N" * (MAX_LENGTH + 1)


async def test_a_stored_gang_is_read_as_stored_and_equals_its_validated_form(
    storage: Storage, campaign: Campaign
) -> None:
    gang = await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    loaded = await storage.read(GUILD_A).get_gang(campaign.id, gang.id)
    assert loaded == gang == Gang.model_validate(loaded.model_dump())
    assert loaded.model_dump_json() == gang.model_dump_json()

    # A row the bot wrote is not checked again on the way out: a fighter whose name
    # broke a rule (as one written under an older rule might) is read as it is stored,
    # so the campaign stays readable, instead of failing the name check on every read.
    await execute(storage, f"UPDATE fighters SET name = '{TOO_LONG}' WHERE id = 'a-boss'")
    assert (await storage.read(GUILD_A).get_gang(campaign.id, gang.id)).fighter("a-boss").name \
        == TOO_LONG


async def test_an_imported_bad_name_is_still_refused(
    storage: Storage, campaign: Campaign
) -> None:
    await storage.write(GUILD_A).create_gang(campaign.id, full_gang(), actor=ACTOR)
    document = json.loads(
        (await storage.read(GUILD_A).export_campaign(campaign.id)).model_dump_json())
    document["gangs"][0]["fighters"][0]["name"] = TOO_LONG
    with pytest.raises(ValidationError, match="too long"):
        await storage.write(GUILD_B).import_campaign(document, actor="99")
    assert await storage.read(GUILD_B).list_campaigns() == []
