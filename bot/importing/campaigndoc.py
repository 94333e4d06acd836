"""Reading a campaign export (``/campaign import``): untrusted input, refused readably.

Before the document model sees it, the decoded JSON is walked once: every
list is bounded (a limit per kind of list, named in the refusal), nesting is
bounded, and values SQLite or the bot could not keep (integers beyond 64
bits, infinities, text with lone surrogates) are refused with where they
are. Then the model validates it and :func:`bot.storage.exporting.prepare_import`
gives it fresh ids and turns its post-battle sequences into history. All of
it is synchronous and CPU-bound: ``bot.importing.files.prepare_campaign_file``
runs it in the import worker's child process so a large file never holds up the
event loop.
"""

from __future__ import annotations

import asyncio
import math
import re
from typing import Any

import discord
from pydantic import ValidationError

from bot.importing.common import load_json
from bot.importing.gangdoc import is_gang_document
from bot.importing.history import as_history
from bot.storage import CampaignDocument
from bot.storage.exporting import ImportGrant, PreparedImport, prepare_import, read_document
from rules.errors import InvalidRequest
from rules.limits import CAMPAIGN_LIST_LIMITS, CAMPAIGN_OTHER_LIST, MAX_DEPTH, MAX_STORED_INT

SHOWN_ERRORS = 3

DAMAGED = "That campaign export is damaged and nothing was imported"


def read_campaign_document(data: bytes) -> CampaignDocument:
    """The document in ``data`` (JSON bytes), checked and validated; InvalidRequest if not."""
    decoded = load_json(data, "a campaign export")
    if is_gang_document(decoded):
        raise InvalidRequest("That is one gang, not a campaign: bring it in with /gang import.")
    check_values(decoded)
    try:
        return read_document(decoded)
    except ValidationError as error:
        where = [
            ".".join(str(part) for part in detail["loc"])[:120] + f": {detail['msg']}"
            for detail in error.errors()[:SHOWN_ERRORS]
        ]
        raise InvalidRequest(f"{DAMAGED}: " + "; ".join(where) + ".") from None


def prepare_campaign(data: bytes) -> PreparedImport:
    """Read ``data`` and make it safe to store (fresh ids, runs as history)."""
    return prepare_import(read_campaign_document(data), history=as_history)


# Entries freed at a time: one gang (at most 200 fighters) or a few hundred ledger rows.
_RELEASE_STEP = {"gangs": 1, "battles": 50, "sequences": 50}
_RELEASE_DEFAULT_STEP = 500


async def release_campaign(prepared: PreparedImport) -> None:
    """Free an imported document's lists a little at a time, in a worker thread.

    Freeing hundreds of thousands of objects in one go (when the command's last
    reference goes) is one C call that holds the GIL for a fifth of a second;
    freed a slice at a time, the event loop runs in between. The document is
    emptied: call this when the import is stored and nothing reads it any more.
    """
    await asyncio.to_thread(_empty_lists, prepared.document)


def _empty_lists(document: CampaignDocument) -> None:
    for name, value in list(document.__dict__.items()):
        if isinstance(value, list):
            step = _RELEASE_STEP.get(name, _RELEASE_DEFAULT_STEP)
            while value:
                del value[-step:]


def check_values(document: Any) -> None:
    """Refuse lists over their limit, deep nesting and values that cannot be stored."""
    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InvalidRequest(f"{DAMAGED}: it is nested more than {MAX_DEPTH} levels deep.")
        if isinstance(value, dict):
            for key, item in value.items():
                stack.append((item, f"{where}.{key}" if where else key, depth + 1))
        elif isinstance(value, list):
            _check_length(value, where)
            stack.extend((item, f"{where}[{n}]", depth + 1) for n, item in enumerate(value))
        elif isinstance(value, str | bool):
            # Text with half a character is refused while decoding (load_json).
            continue
        elif isinstance(value, int):
            if not -MAX_STORED_INT - 1 <= value <= MAX_STORED_INT:
                raise InvalidRequest(
                    f"{DAMAGED}: the number at {_place(where)} is too large "
                    f"({len(str(abs(value)))} digits)."
                )
        elif isinstance(value, float) and not math.isfinite(value):
            raise InvalidRequest(f"{DAMAGED}: the number at {_place(where)} is not finite.")


def _check_length(value: list[Any], where: str) -> None:
    key = re.sub(r"\[\d+\]$", "", where).rsplit(".", 1)[-1]
    limit = CAMPAIGN_LIST_LIMITS.get(key, CAMPAIGN_OTHER_LIST)
    if len(value) > limit:
        raise InvalidRequest(
            f"That campaign export is too large and nothing was imported: {_place(where)} "
            f"has {len(value)} entries; this bot imports at most {limit} {key or 'entries'}"
            f"{' per gang' if key in _PER_GANG and where.startswith('gangs[') else ''}."
        )


_PER_GANG = frozenset({"fighters", "vehicles", "stash_vehicles", "stash"})


def _place(where: str) -> str:
    return where[:120] or "the top level"


async def grant_for(
    document: CampaignDocument, guild: discord.Guild, importer: int
) -> ImportGrant:
    """What of ``document``'s Discord ids ``guild`` vouches for (docs/importing.md).

    The report channel and the Arbitrator role are kept only when they are this
    server's own; a gang's owner only when they are a member here. The Arbitrators
    the file names are not: the importer is the Arbitrator.
    """
    campaign = document.campaign
    channel = campaign.report_channel_id
    role = campaign.arbitrator_role_id
    owners = {gang.owner for gang in document.gangs}
    members = frozenset([owner for owner in owners if await _is_member(guild, owner)])
    return ImportGrant(
        owner=str(importer),
        arbitrator_user_ids=(importer,),
        arbitrator_role_id=role if role is not None and guild.get_role(role) else None,
        report_channel_id=channel if channel is not None and guild.get_channel(channel) else None,
        owners=members,
    )


async def _is_member(guild: discord.Guild, user_id: str) -> bool:
    if not (user_id.isascii() and user_id.isdigit()) or int(user_id) > MAX_STORED_INT:
        return False
    if guild.get_member(int(user_id)) is not None:
        return True
    # Without the members intent the cache holds few members: ask Discord.
    try:
        await guild.fetch_member(int(user_id))
    except discord.NotFound:
        return False
    except discord.HTTPException:
        # Could not check: the importer keeps the gang; an Arbitrator can transfer it.
        return False
    return True
