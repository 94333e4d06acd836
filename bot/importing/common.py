"""Reading uploaded bytes as text or JSON, with player-readable refusals.

Campaign exports may arrive gzip-compressed (the bot compresses large ones
to fit Discord's upload limit); unpacking is bounded so a small "zip bomb"
cannot fill memory.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from typing import Any

from rules import jsontext
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


def load_json(data: bytes, what: str, *, max_values: int | None = None) -> Any:
    """Decoded JSON; InvalidRequest for anything that is not JSON text a gang could hold.

    The decoding itself is :func:`rules.jsontext.loads` (numbers too long, keys
    given twice, nesting too deep, half characters refused). ``max_values`` bounds
    the entries of every list and object together (counted as commas, before
    decoding): the decoder reads texts without stopping, so only their number
    bounds the time.
    """
    text = decode_text(data)
    if max_values is not None and text.count(",") >= max_values:
        raise jsontext.too_many_values(what, limit=max_values)
    try:
        return jsontext.loads(text, what)
    except json.JSONDecodeError as error:
        raise InvalidRequest(
            f"That file is not valid JSON, so not {what} "
            f"(line {error.lineno}, column {error.colno}: {error.msg})."
        ) from None


def require_worker_thread(what: str) -> None:
    """Refuse to read a whole file on the event loop's thread: it would stall every server."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(f"{what} must run in a worker thread (asyncio.to_thread)")
