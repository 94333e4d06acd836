"""Reading uploaded bytes as text or JSON, with player-readable refusals.

Campaign exports may arrive gzip-compressed (the bot compresses large ones
to fit Discord's upload limit); unpacking is bounded so a small "zip bomb"
cannot fill memory.
"""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any

from rules.errors import InvalidRequest

GZIP_MAGIC = b"\x1f\x8b"


def unpack(data: bytes, max_bytes: int) -> bytes:
    """``data`` itself, or its gunzipped content when it is gzip; at most ``max_bytes``."""
    if not data.startswith(GZIP_MAGIC):
        return data
    # wbits 16 + MAX_WBITS: a gzip header; max_length stops a bomb early.
    unpacker = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = unpacker.decompress(data, max_bytes + 1)
    except zlib.error:
        raise InvalidRequest("That file looks compressed (gzip) but is damaged.") from None
    if len(out) > max_bytes or unpacker.unconsumed_tail:
        raise InvalidRequest(f"That file unpacks to more than {max_bytes} bytes; too large.")
    return out


def pack(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def decode_text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark is dropped, as spreadsheets write one)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidRequest("That file is not UTF-8 text.") from None


def load_json(data: bytes, what: str) -> Any:
    try:
        return json.loads(decode_text(data))
    except json.JSONDecodeError as error:
        raise InvalidRequest(
            f"That file is not valid JSON, so not {what} "
            f"(line {error.lineno}, column {error.colno}: {error.msg})."
        ) from None
    except RecursionError:
        raise InvalidRequest(f"That file is nested too deeply to be {what}.") from None


def clip(text: str, limit: int = 80) -> str:
    """Text from a file, shortened for a report line."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
