"""What the import worker's child process runs (bot.importing.worker): plain functions
of picklable arguments, each reading one whole file or staged import."""

from __future__ import annotations

import os

from bot.importing.campaigndoc import prepare_campaign
from bot.importing.gangfile import read_gang_file
from bot.importing.parsed import ParsedGang
from bot.importing.plan import StagedGangImport
from bot.importing.questions import answer
from bot.importing.tradingpost import read_trading_post
from bot.rulesets import check_rule_data, ruleset_for
from bot.storage import Campaign, new_id
from rules.errors import InvalidRequest
from rules.models import FighterCategory
from rules.ruledata import RuleData
from rules.ruledata_reader import read_rule_data

__all__ = ["answer_staged", "check_rule_data", "prepare_campaign", "read_gang",
           "read_rule_data_file", "read_staged", "read_trading_post", "ready"]


def ready() -> int:
    """The child's process id, once it has loaded every importer (this module imports
    them all, so the first player's file does not wait for that)."""
    return os.getpid()


def read_gang(
    data: bytes, campaign: Campaign, owner: str,
    categories: dict[str, FighterCategory] | None = None,
) -> ParsedGang:
    """The gang in ``data`` as ``campaign`` would import it (its rule set and Trading Post),
    with the categories the player gave for fighter types nothing else settles."""
    return read_gang_file(
        data, ruleset=ruleset_for(campaign), owner=owner, make_id=new_id,
        campaign_id=campaign.id, categories=categories,
    )


def read_staged(state: str) -> StagedGangImport:
    """A staged import as stored (``Transaction.take_staged_state``), validated."""
    return StagedGangImport.model_validate_json(state)


def answer_staged(state: str, index: int, value: str) -> tuple[str, StagedGangImport]:
    """The staged import with ``value`` as the answer to its question ``index``: as it is
    to be stored again, and validated."""
    staged = StagedGangImport.model_validate_json(state)
    answer(staged.gang, staged.questions, index, value)
    return staged.model_dump_json(by_alias=True), staged


def read_rule_data_file(data: bytes, filename: str, campaign: Campaign) -> RuleData:
    """A rule data attachment read whole and checked against ``campaign``'s rule set."""
    label = filename[:80] or "the file"
    rule_data = read_rule_data(data, filename, label)
    if rule_data.is_empty:
        raise InvalidRequest(f"{label} holds no House List, weapon, wargear, skill set, "
                             "Hanger-on or Territory: nothing to import.")
    check_rule_data(campaign, rule_data, label)
    return rule_data
