"""One entry point for a gang file: a Yaktribe export or this bot's own gang file."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.importing.common import load_json, require_worker_thread
from bot.importing.gangdoc import is_gang_document, parse_gang_document
from bot.importing.parsed import ParsedGang
from bot.importing.yaktribe import parse_yaktribe
from bot.storage import EXPORT_FORMAT
from rules.errors import InvalidRequest
from rules.limits import MAX_JSON_VALUES
from rules.models import FighterCategory
from rules.ruleset import RuleSet


def read_gang_file(
    data: bytes,
    *,
    ruleset: RuleSet,
    owner: str,
    make_id: Callable[[], str],
    campaign_id: str,
    categories: Mapping[str, FighterCategory] | None = None,
) -> ParsedGang:
    """The gang in the file's bytes, decoded and checked, whichever of the two shapes its
    JSON has; for a worker thread (a file may be megabytes of JSON)."""
    require_worker_thread("Reading a gang file")
    decoded = load_json(data, "a gang export", max_values=MAX_JSON_VALUES)
    if isinstance(decoded, dict) and decoded.get("format") == EXPORT_FORMAT:
        raise InvalidRequest(
            "That is a whole campaign, not a gang: an Arbitrator brings it in with "
            "/campaign import."
        )
    if is_gang_document(decoded):
        return parse_gang_document(decoded, owner=owner, make_id=make_id,
                                   campaign_id=campaign_id)
    return parse_yaktribe(decoded, ruleset=ruleset, owner=owner, make_id=make_id,
                          categories=categories)
