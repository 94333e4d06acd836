"""``/campaign ruledata``: read a campaign's own rule data file, preview it, store it on Confirm.

The file (TOML or JSON, docs/rule-data.md) is read in the import worker's
child process (:mod:`bot.importing.worker`), off the event loop, and checked
whole before anything is kept: its syntax (a refusal names the line), its
bounds (:mod:`rules.limits`), its schema (a refusal names the field, with the
names of the entries it sits in), and the rule set it makes with the
campaign's shipped set (a Territory's free Hanger-on must exist, its export
must import again, and so on). The checked content is staged with the staged
imports; the Confirm button stores it in one transaction, all or nothing, and
replaces the campaign's earlier own content whole.
"""

from __future__ import annotations

import io
import json
from typing import Any, Literal

import discord
import tomli_w
from pydantic import ValidationError

from bot.call import actor_from
from bot.importing.jobs import check_rule_data, read_rule_data_file
from bot.importing.staged import ImportGone, askers_state, staging_campaign
from bot.importing.uploads import json_file
from bot.importing.worker import import_worker
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Transaction, new_id
from bot.ui.confirm import Confirmed
from rules.errors import InvalidRequest
from rules.models import Model, Profile
from rules.profiles import profile_line
from rules.ruledata import (
    FORMAT,
    VERSION,
    RuleData,
    preview_lines,
    rule_data_of,
)
from rules.ruledata_reader import read_rule_data

__all__ = ["StagedRuleData", "confirm", "document_bytes", "export_bytes",
           "export_file", "read_rule_data", "stage"]


class StagedRuleData(Model):
    """Rule data checked and waiting for its Confirm button."""

    filename: str
    rule_data: RuleData


async def stage(
    tx: Transaction, campaign: Campaign, data: bytes, filename: str, user_id: str
) -> tuple[str, list[str]]:
    """Read, check and keep the file until Confirm; the token for the button and the preview."""
    # In the import worker's child: validating a large file holds the GIL throughout.
    rule_data = await import_worker.run(read_rule_data_file, data, filename, campaign)
    token = new_id()
    await tx.stage_import(campaign.id, token, user_id,
                          StagedRuleData(filename=filename[:200], rule_data=rule_data))
    lines = preview_lines(ruleset_for(campaign), rule_data)
    if campaign.rule_data is not None:
        lines.append("Replaces the campaign's earlier own rule data whole.")
    return token, lines


async def confirm(
    tx: Transaction, campaign_id: str, token: str, interaction: discord.Interaction[Any]
) -> Confirmed:
    """The Confirm button: store the staged content, all of it, in this transaction."""
    actor = actor_from(interaction)
    try:
        campaign = await staging_campaign(tx, campaign_id)
        actor.require_arbitrator(campaign)
        staged = askers_state(await tx.take_staged_import(campaign_id, token, StagedRuleData),
                              actor, command="/campaign ruledata import",
                              answer="confirm this import")
    except ImportGone as gone:
        return Confirmed(str(gone))
    # The campaign's rule set may have changed since the preview: check again.
    await import_worker.run(check_rule_data, campaign, staged.rule_data, staged.filename[:80])
    stored = await tx.set_rule_data(
        campaign_id, staged.rule_data.model_dump_json(by_alias=True),
        actor=actor.ledger_id, note=f"Rule data imported from {staged.filename[:80]}.",
    )
    summary = (f"**{stored.name}** plays with its own rule data from "
               f"{staged.filename[:80]} now.")
    return Confirmed(f"Done. {summary}",
                     announcement=f"{interaction.user.mention}: {summary}")


ExportFormat = Literal["json", "toml"]


def export_bytes(
    campaign: Campaign, *, own_only: bool, file_format: ExportFormat = "json"
) -> bytes:
    """The campaign's content in the rule data format: all it plays with, or its own only,
    as JSON or TOML (the same keys either way, so either imports again)."""
    if own_only:
        if campaign.rule_data is None:
            raise InvalidRequest(f"{campaign.name} has no rule data of its own; export without "
                                 "own_only to get the content it plays with.")
        content = RuleData.model_validate_json(campaign.rule_data)
    else:
        try:
            content = rule_data_of(ruleset_for(campaign))
        except ValidationError:
            # Only rule data stored before its bounds were checked against the base.
            raise InvalidRequest(f"{campaign.name} plays with more than one rule data file "
                                 "may hold; export its own only (own_only).") from None
    return document_bytes(content, file_format)


def document_bytes(content: RuleData, file_format: ExportFormat) -> bytes:
    """One rule data file, as JSON or TOML."""
    # Defaults left out keep the file short; format and version say what the file is.
    body = content.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    document = {"format": FORMAT, "version": VERSION, **body}
    if file_format == "toml":
        return tomli_w.dumps(_profiles_as_lines(document)).encode()
    return json.dumps(document, indent=2, ensure_ascii=False).encode()


def _profiles_as_lines(node: Any) -> Any:
    """Fighter profiles as the lines a roster prints: TOML has no null for a characteristic
    the fighter lacks, and the line writes it as ``-``, which reads back as lacking. A
    vehicle's profile (no characteristic it may lack) stays a table."""
    if isinstance(node, list):
        return [_profiles_as_lines(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: profile_line(Profile.model_validate(value))
            if key == "profile" and isinstance(value, dict) and "ws" in value
            else _profiles_as_lines(value)
            for key, value in node.items()}


def export_file(campaign: Campaign, *, own_only: bool, file_format: ExportFormat, stem: str,
                limit: int) -> discord.File:
    """The export as an attachment; a TOML file over Discord's limit is refused, and the
    JSON one is compressed when large, as every other export is."""
    data = export_bytes(campaign, own_only=own_only, file_format=file_format)
    if file_format == "json":
        return json_file(data, stem, limit)
    if len(data) > limit:
        raise InvalidRequest(f"The TOML file is {len(data)} bytes, more than Discord lets this "
                             "bot upload here; export it as JSON, which is compressed.")
    return discord.File(io.BytesIO(data), filename=f"{stem}.toml")
