"""Every custom_id the bot puts on a component, built within Discord's 100 characters.

A custom_id is ``munda:<kind>:...``: fixed words (a step number, ``yes``) and
stored ids (a campaign's, a battle's, a fighter's), joined by ``:``. The
bot's own ids are 12 hex characters, so its custom ids fit as they are and
read the same as those of buttons posted before this module existed. Ids
from an imported campaign can be 64 characters of anything: an id that is
not plain (``[A-Za-z0-9_-]``) or does not fit travels as its *key*, ``~``
and 10 base32 characters of its SHA-256, longest ids first until the whole
fits. The key is stable, so a message redrawn keeps its custom ids, and a
click resolves it back by looking among the ids the key could stand for
(:func:`resolve_campaign`, :func:`resolve_in_campaign`).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

import discord

from bot.storage import StorageError
from rules.errors import RulesError

CUSTOM_ID_MAX = 100
SEPARATOR = ":"
KEY_MARK = "~"
_KEY_CHARS = 10
PLAIN_ID = r"[A-Za-z0-9_-]{1,64}"
# A stored id in a DynamicItem template: as it is, or its key.
ID = rf"(?:{PLAIN_ID}|{KEY_MARK}[a-z2-7]{{{_KEY_CHARS}}})"

_PLAIN = re.compile(PLAIN_ID)


class StoredId(str):
    """A part of a custom id that is a stored id: it may travel as its key."""

    __slots__ = ()


def id_key(stored_id: str) -> str:
    """The short stand-in for ``stored_id`` in a custom id (never a plain id: it has ``~``)."""
    digest = hashlib.sha256(stored_id.encode()).digest()
    return KEY_MARK + base64.b32encode(digest).decode().lower()[:_KEY_CHARS]


def is_key(part: str) -> bool:
    return part.startswith(KEY_MARK)


def build(*parts: str | int) -> str:
    """Join ``parts`` into a custom id of at most 100 characters.

    :class:`StoredId` parts that are not plain, and then the longest of the
    rest, are replaced by their keys until the whole fits. Fixed words are
    kept as they are: a custom id that cannot fit even with every id as its
    key is a mistake in the code, and raises ValueError.
    """
    words = [str(part) for part in parts]
    ids = [i for i, part in enumerate(parts) if isinstance(part, StoredId)]
    for i in ids:
        if not _PLAIN.fullmatch(words[i]):
            words[i] = id_key(words[i])
    for i in sorted(ids, key=lambda i: -len(words[i])):  # stable: earlier first on a tie
        if len(SEPARATOR.join(words)) <= CUSTOM_ID_MAX:
            break
        if not is_key(words[i]):
            words[i] = id_key(words[i])
    custom_id = SEPARATOR.join(words)
    if len(custom_id) > CUSTOM_ID_MAX:
        raise ValueError(f"custom id longer than {CUSTOM_ID_MAX} characters: {custom_id!r}")
    return custom_id


def _match(part: str, candidates: Iterable[str]) -> str:
    return next((c for c in candidates if id_key(c) == part), part)


async def resolve_campaign(interaction: discord.Interaction[Any], part: str) -> str:
    """The campaign id a custom id's part stands for (unknown keys are left as they are:
    the handler then refuses, as for any campaign that is gone)."""
    if not is_key(part) or interaction.guild_id is None:
        return part
    campaigns = await interaction.client.storage.read(interaction.guild_id).list_campaigns()
    return _match(part, (c.id for c in campaigns))


async def resolve_in_campaign(
    interaction: discord.Interaction[Any], campaign_id: str, parts: Sequence[str]
) -> list[str]:
    """The ids ``parts`` stand for among the campaign's gangs, fighters, vehicles, battles
    and stored sequences (post-battle runs, agreements)."""
    if not any(is_key(part) for part in parts) or interaction.guild_id is None:
        return list(parts)
    try:
        async with interaction.client.storage.read_only(interaction.guild_id) as tx:
            gangs = await tx.list_gangs(campaign_id)
            battles = await tx.list_battles(campaign_id, limit=None)
            sequences = await tx.list_sequences(campaign_id)
    except (RulesError, StorageError):
        return list(parts)  # no such campaign: the handler says so
    known: list[str] = [b.id for b in battles]
    known += [s.key.partition(SEPARATOR)[2] for s in sequences]
    for gang in gangs:
        known.append(gang.id)
        known += [f.id for f in gang.fighters]
        known += [v.id for v in (*gang.vehicles, *gang.stash_vehicles)]
    return [_match(part, known) if is_key(part) else part for part in parts]


async def resolve_match(
    interaction: discord.Interaction[Any], match: re.Match[str], *names: str
) -> list[str]:
    """The ids a DynamicItem's custom id names: its ``campaign`` group, then ``names``
    (ids within that campaign), keys resolved."""
    campaign = await resolve_campaign(interaction, match["campaign"])
    return [campaign, *await resolve_in_campaign(interaction, campaign, [match[n] for n in names])]
