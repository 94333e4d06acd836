"""Reading uploaded bytes as text or JSON, with player-readable refusals.

Campaign exports may arrive gzip-compressed (the bot compresses large ones
to fit Discord's upload limit); unpacking is bounded so a small "zip bomb"
cannot fill memory.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
import zlib
from typing import Any

from bot.importing.limits import MAX_NUMBER_DIGITS
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


# A \uD800-\uDFFF escape: JSON's only way to smuggle in half a character.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _NumberTooLong(Exception):
    pass


def _read_int(text: str) -> int:
    if len(text) - text.startswith("-") > MAX_NUMBER_DIGITS:
        raise _NumberTooLong
    return int(text)


def _read_float(text: str) -> float:
    if len(text) > 2 * MAX_NUMBER_DIGITS:
        raise _NumberTooLong
    return float(text)


def _read_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return dict(pairs)


def load_json(data: bytes, what: str, *, max_values: int | None = None) -> Any:
    """Decoded JSON; InvalidRequest for anything that is not JSON text a gang could hold.

    Numbers and objects are made by Python functions, not inside the C decoder,
    so a worker thread decoding a file lets the event loop run in between (the
    C decoder holds the GIL throughout). ``max_values`` bounds the entries of
    every list and object together (counted as commas, before decoding): the
    decoder reads texts without stopping, so only their number bounds the time.
    """
    text = decode_text(data)
    if max_values is not None and text.count(",") >= max_values:
        raise InvalidRequest(
            f"That file holds more than {max_values} values (texts, numbers, list entries); "
            f"this bot reads at most {max_values} in {what}. Nothing was imported."
        )
    try:
        decoded = json.loads(
            text, parse_int=_read_int, parse_float=_read_float, object_pairs_hook=_read_object
        )
    except _NumberTooLong:
        raise InvalidRequest(
            f"That file holds a number of more than {MAX_NUMBER_DIGITS} digits, too long to "
            f"be {what}."
        ) from None
    except json.JSONDecodeError as error:
        raise InvalidRequest(
            f"That file is not valid JSON, so not {what} "
            f"(line {error.lineno}, column {error.colno}: {error.msg})."
        ) from None
    except RecursionError:
        raise InvalidRequest(f"That file is nested too deeply to be {what}.") from None
    if _SURROGATE_ESCAPE.search(text):
        _require_whole_characters(decoded, what)
    return decoded


def _require_whole_characters(decoded: Any, what: str) -> None:
    """Refuse text with a lone surrogate (escapes in pairs decode to one whole character)."""
    try:
        json.dumps(decoded, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidRequest(
            "That file holds text with half a character in it (an unpaired escape "
            f"between \\ud800 and \\udfff), so it is not {what}."
        ) from None
    except RecursionError:
        raise InvalidRequest(f"That file is nested too deeply to be {what}.") from None


def require_worker_thread(what: str) -> None:
    """Refuse to read a whole file on the event loop's thread: it would stall every server."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError(f"{what} must run in a worker thread (asyncio.to_thread)")
