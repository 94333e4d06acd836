"""A staged gang import met again: only the person who asked may confirm or answer it,
and an import that is gone says so on its own message."""

from __future__ import annotations

import pytest

from bot.call import Actor
from bot.errors import Refused
from bot.importing import gangflow
from bot.importing.plan import StagedGangImport
from bot.storage import Campaign, Storage
from rules.errors import InvalidRequest
from tests import factories as f
from tests.storage.conftest import ACTOR, GUILD_A, campaign

__all__ = ["campaign"]  # a fixture; db_path and storage come from tests/conftest.py

ASKER = Actor(int(ACTOR))
STRANGER = Actor(444)


async def staged(storage: Storage, campaign: Campaign, token: str) -> None:
    await storage.write(GUILD_A).stage_import(campaign.id, token, ACTOR, StagedGangImport(
        campaign_id=campaign.id, gang=f.gang("Ash Wolves", owner=ACTOR),
        source_label="Yaktribe"))


async def test_someone_else_can_neither_confirm_nor_answer_and_the_import_stays(
    storage: Storage, campaign: Campaign
) -> None:
    await staged(storage, campaign, "tok")
    with pytest.raises(Refused, match="Only the person who asked can confirm this import"):
        async with storage.transaction(GUILD_A) as tx:
            await gangflow.confirm(tx, campaign.id, "tok", STRANGER, mention="<@444>")
    with pytest.raises(Refused, match="Only the person who asked can answer this question"):
        async with storage.transaction(GUILD_A) as tx:
            await gangflow.answer(tx, campaign.id, "tok", STRANGER, 0, "x")
    async with storage.transaction(GUILD_A) as tx:
        done = await gangflow.confirm(tx, campaign.id, "tok", ASKER, mention="<@1>")
    assert done.message.startswith("Done.")


async def test_an_import_already_done_or_of_a_deleted_campaign_says_so(
    storage: Storage, campaign: Campaign
) -> None:
    gone = "This import has expired or was already done; run /gang import again."
    async with storage.transaction(GUILD_A) as tx:
        assert (await gangflow.confirm(tx, campaign.id, "none", ASKER, mention="")).message == gone
    with pytest.raises(InvalidRequest, match=gone):
        async with storage.transaction(GUILD_A) as tx:
            await gangflow.answer(tx, campaign.id, "none", ASKER, 0, "x")
    await storage.write(GUILD_A).delete_campaign(campaign.id)
    async with storage.transaction(GUILD_A) as tx:
        done = await gangflow.confirm(tx, campaign.id, "tok", ASKER, mention="")
    assert done.message == "That campaign no longer exists; nothing was imported."
