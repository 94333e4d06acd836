"""A message owed (bot/storage/outbox.py, ``owe``) as one statement of a write made at
once (bot/storage/at_once.py): the report panels a new post-battle run owes are written
with the run in one round trip."""

from __future__ import annotations

import secrets
import time
from typing import Any

from bot.storage.at_once import Statement
from bot.storage.codec import dumps, now
from bot.storage.outbox import NONCE_BYTES


def owe_statement(
    guild_id: int, key: str, channel_id: int, payload: dict[str, Any], *,
    link: dict[str, Any] | None = None, fallback_channel_id: int | None = None,
) -> Statement:
    """Owe a message unless ``key`` is owed (or was delivered) already, as ``owe`` does;
    its row, when it is new, is the statement's (a key owed already is left as it is)."""
    return Statement(
        "INSERT INTO outbox (guild_id, key, channel_id, fallback_channel_id, payload, nonce,"
        " link, created_at, due_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, key) DO NOTHING RETURNING pk",
        (guild_id, key, channel_id, fallback_channel_id, dumps(payload),
         secrets.token_hex(NONCE_BYTES), dumps(link) if link is not None else None, now(),
         time.time()),
    )
