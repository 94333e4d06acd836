"""Reading a campaign export (``/campaign import``) with a readable refusal for bad files."""

from __future__ import annotations

from pydantic import ValidationError

from bot.importing.common import load_json
from bot.importing.gangdoc import is_gang_document
from bot.storage import CampaignDocument
from bot.storage.exporting import read_document
from rules.errors import InvalidRequest

SHOWN_ERRORS = 3


def read_campaign_document(data: bytes) -> CampaignDocument:
    """The document in ``data`` (JSON bytes), validated; InvalidRequest when it is not one."""
    decoded = load_json(data, "a campaign export")
    if is_gang_document(decoded):
        raise InvalidRequest("That is one gang, not a campaign: bring it in with /gang import.")
    try:
        return read_document(decoded)
    except ValidationError as error:
        where = [
            ".".join(str(part) for part in detail["loc"]) + f": {detail['msg']}"
            for detail in error.errors()[:SHOWN_ERRORS]
        ]
        raise InvalidRequest(
            "That campaign export is damaged and nothing was imported: " + "; ".join(where) + "."
        ) from None
