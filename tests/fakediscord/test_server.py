"""The fake's HTTP surface checked directly with aiohttp (no bot needed)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import aiohttp

from fakediscord import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


async def _json(resp: aiohttp.ClientResponse) -> Any:
    # discord.py only parses exactly "application/json"; hold the fake to that.
    assert resp.headers["Content-Type"] == "application/json"
    return await resp.json()


async def test_unknown_route_is_json_404(server: tuple[FakeDiscord, aiohttp.ClientSession]) -> None:
    fake, http = server
    async with http.get(f"{fake.base_url}/guilds/1/audit-logs") as resp:
        assert resp.status == 404
        body = await _json(resp)
    assert body["code"] == 0 and "audit-logs" in body["message"]
    async with aiohttp.ClientSession() as anonymous, anonymous.get(f"{fake.root_url}/nope") as r:
        assert r.status == 404 and (await _json(r))["code"] == 0
    assert fake.unknown_routes == ["GET /api/v10/guilds/1/audit-logs", "GET /nope"]


async def test_bad_token_is_401(server: tuple[FakeDiscord, aiohttp.ClientSession]) -> None:
    fake, http = server
    async with http.get(f"{fake.base_url}/users/@me", headers={"Authorization": "Bot nope"}) as r:
        assert r.status == 401
    async with http.get(f"{fake.base_url}/gateway/bot") as resp:
        body = await _json(resp)
    assert body["url"] == fake.gateway_url and body["shards"] == 1


async def test_message_limits_match_discord(
    server: tuple[FakeDiscord, aiohttp.ClientSession],
) -> None:
    fake, http = server
    url = f"{fake.base_url}/channels/{fake.channel('general', 'Underhive').id}/messages"
    cases: list[tuple[dict[str, Any], int]] = [
        ({"content": "x" * 2001}, 50035),
        ({"content": ""}, 50006),
        ({"embeds": [{"title": "t" * 257}]}, 50035),
        (
            {
                "components": [
                    {
                        "type": 1,
                        "components": [
                            {"type": 2, "style": 1, "label": "A", "custom_id": "same"},
                            {"type": 2, "style": 1, "label": "B", "custom_id": "same"},
                        ],
                    }
                ]
            },
            50035,
        ),
    ]
    for payload, code in cases:
        async with http.post(url, json=payload) as resp:
            assert resp.status == 400, payload
            assert (await _json(resp))["code"] == code


async def test_channel_messages_and_attachments(
    server: tuple[FakeDiscord, aiohttp.ClientSession],
) -> None:
    fake, http = server
    channel = fake.channel("general", "Underhive")
    url = f"{fake.base_url}/channels/{channel.id}/messages"
    for text in ("one", "two"):
        async with http.post(url, json={"content": text, "allowed_mentions": {"parse": []}}) as r:
            assert r.status == 200
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", json.dumps({"content": "roster attached"}))
    form.add_field("files[0]", b"name,credits\nAsh Wolves,1000\n", filename="roster.csv")
    async with http.post(url, data=form) as resp:
        sent = await _json(resp)
    assert sent["attachments"][0]["filename"] == "roster.csv"
    async with http.get(sent["attachments"][0]["url"]) as resp:
        assert await resp.read() == b"name,credits\nAsh Wolves,1000\n"
    async with http.get(url, params={"limit": "2"}) as resp:
        newest_first = await _json(resp)
    assert [m["content"] for m in newest_first] == ["roster attached", "two"]
    assert channel.messages[0].allowed_mentions == {"parse": []}
    async with http.patch(f"{url}/{sent['id']}", json={"content": "edited"}) as resp:
        assert (await _json(resp))["edited_timestamp"] is not None
    async with http.delete(f"{url}/{sent['id']}") as resp:
        assert resp.status == 204
    assert [m.content for m in channel.messages] == ["one", "two"]


async def test_command_registration_is_validated(
    server: tuple[FakeDiscord, aiohttp.ClientSession],
) -> None:
    fake, http = server
    url = f"{fake.base_url}/applications/{fake.world.application_id}/commands"
    bad = [{"name": "Gang", "description": "upper-case names are rejected", "type": 1}]
    async with http.put(url, json=bad) as resp:
        assert resp.status == 400
    good = [{"name": "gang", "description": "Gang things", "type": 1, "options": []}]
    async with http.put(url, json=good) as resp:
        first = (await _json(resp))[0]
    async with http.put(url, json=good) as resp:
        second = (await _json(resp))[0]
    assert first["id"] == second["id"], "overwriting keeps command ids stable"


async def test_standalone_entry_point_prints_base_url() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "fakediscord",
        "--port",
        "0",
        "--log-level",
        "WARNING",
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 15)
        base_url = line.decode().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/api/v10")
        summary_url = base_url.removesuffix("/api/v10") + "/_fake"
        async with aiohttp.ClientSession() as http, http.get(summary_url) as resp:
            summary = await resp.json()
        assert set(summary["guilds"]) == {"Underhive", "Spire"}
        # Read from the services once the server listens, as the process printed it.
        assert summary["base_url"] == base_url
        assert summary["gateway_url"] == base_url.replace("http://", "ws://").replace(
            "/api/v10", "/gateway-ws")
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)
    assert proc.returncode == 0
