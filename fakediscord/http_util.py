"""Request parsing and response helpers shared by the REST handlers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from aiohttp import BodyPartReader, web

from fakediscord.common import JsonObj
from fakediscord.errors import ApiError, invalid_form, not_found
from fakediscord.messages import Upload

T = TypeVar("T")


def ok(data: Any, status: int = 200) -> web.Response:
    # discord.py only parses bodies whose Content-Type is exactly "application/json";
    # aiohttp's json_response would append "; charset=utf-8" and get them read as text.
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def no_content() -> web.Response:
    return web.Response(status=204)


def error_response(exc: ApiError) -> web.Response:
    return ok(exc.body(), status=exc.status)


async def read_body(request: web.Request) -> tuple[JsonObj, list[Upload]]:
    """A JSON body, or a multipart body with ``payload_json`` plus ``files[n]`` parts."""
    if request.content_type.startswith("multipart/"):
        return await _read_multipart(request)
    if not request.can_read_body:
        return {}, []
    try:
        data = await request.json()
    except ValueError:
        raise invalid_form("body is not valid JSON") from None
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        # Bulk command overwrite sends a list; callers that expect one use read_json_list.
        return {"__list__": data}, []
    return data, []


async def _read_multipart(request: web.Request) -> tuple[JsonObj, list[Upload]]:
    payload: JsonObj = {}
    files: dict[int, Upload] = {}
    reader = await request.multipart()
    async for part in reader:
        if not isinstance(part, BodyPartReader):
            continue
        name = part.name or ""
        if name == "payload_json":
            payload = json.loads(await part.text())
        elif name.startswith("files[") and name.endswith("]"):
            index = int(name[6:-1])
            files[index] = Upload(
                filename=part.filename or f"file{index}",
                data=bytes(await part.read()),
                content_type=part.headers.get("Content-Type"),
            )
    return payload, [files[i] for i in sorted(files)]


def snowflake(request: web.Request, key: str) -> int:
    raw = request.match_info[key]
    if not raw.isdigit():
        raise ApiError(404, 0, "404: Not Found")
    return int(raw)


def known(table: Mapping[int, T], request: web.Request, key: str, what: str, code: int) -> T:
    """What the URL's ``key`` names in ``table``, or Discord's 404 for an unknown ``what``."""
    found = table.get(snowflake(request, key))
    if found is None:
        raise not_found(what, code)
    return found
