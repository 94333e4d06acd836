"""Fetching by URL: the host allow-list, the timeout and the size limit, against a local server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from bot.config import ImportingSettings
from bot.importing.fetch import check_url, fetch
from rules.errors import InvalidRequest

BODY = b'{"gang_name": "Slag Kings"}'


async def ok(request: web.Request) -> web.Response:
    return web.Response(body=BODY, content_type="application/json")


async def big(request: web.Request) -> web.Response:
    return web.Response(body=b"x" * 5000)


async def endless(request: web.Request) -> web.StreamResponse:
    # Chunked, without a Content-Length: only counting while reading stops it.
    response = web.StreamResponse()
    await response.prepare(request)
    for _ in range(100):
        await response.write(b"y" * 1000)
    return response


async def slow(request: web.Request) -> web.Response:
    await asyncio.sleep(5)
    return web.Response(body=BODY)


async def moved(request: web.Request) -> web.Response:
    raise web.HTTPFound("http://169.254.169.254/latest/meta-data")


@pytest.fixture
async def server() -> AsyncIterator[str]:
    app = web.Application()
    app.router.add_get("/gang.json", ok)
    app.router.add_get("/big.json", big)
    app.router.add_get("/endless.json", endless)
    app.router.add_get("/slow.json", slow)
    app.router.add_get("/moved.json", moved)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await runner.cleanup()


def settings(host: str, **fields: float) -> ImportingSettings:
    return ImportingSettings.model_validate(
        {"yaktribe_host": host, "fetch_timeout_seconds": 2, "max_import_bytes": 2048, **fields}
    )


async def test_a_file_on_the_allowed_host_is_fetched(server: str) -> None:
    assert await fetch(f"http://{server}/gang.json", settings(server)) == BODY


async def test_errors_redirects_and_sizes_are_refused(server: str) -> None:
    with pytest.raises(InvalidRequest, match="answered 404"):
        await fetch(f"http://{server}/nothing.json", settings(server))
    with pytest.raises(InvalidRequest, match="sent the request elsewhere"):
        await fetch(f"http://{server}/moved.json", settings(server))
    with pytest.raises(InvalidRequest, match="larger than 2048 bytes"):
        await fetch(f"http://{server}/big.json", settings(server))
    with pytest.raises(InvalidRequest, match="larger than 2048 bytes"):
        await fetch(f"http://{server}/endless.json", settings(server))


async def test_a_slow_server_times_out(server: str) -> None:
    with pytest.raises(InvalidRequest, match=r"did not answer within 0\.3 seconds"):
        await fetch(f"http://{server}/slow.json", settings(server, fetch_timeout_seconds=0.3))


async def test_nobody_listening_is_a_polite_refusal() -> None:
    with pytest.raises(InvalidRequest, match="Could not fetch the gang"):
        await fetch("http://127.0.0.1:9/gang.json", settings("127.0.0.1:9"))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://evil.example/gang.json", "only fetched from yaktribe.games"),
        ("https://yaktribe.games.evil.example/x", "only fetched from yaktribe.games"),
        ("http://yaktribe.games/gang.json", "Use the https:// address"),
        ("ftp://yaktribe.games/gang.json", "https:// address on yaktribe.games"),
        ("https://user:pw@yaktribe.games/x", "user name or password"),
        ("https://yaktribe.games:8443/x", "only fetched from yaktribe.games"),
        ("yaktribe.games/gang.json", "https:// address"),
        ("file:///etc/passwd", "https:// address"),
    ],
)
def test_only_the_configured_host_over_https(url: str, message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        check_url(url, "yaktribe.games")


def test_allowed_urls() -> None:
    url = check_url(" https://YakTribe.games/underhive/json/gang/48213.json ", "yaktribe.games")
    assert url.path == "/underhive/json/gang/48213.json"
    assert check_url("http://127.0.0.1:8080/g.json", "127.0.0.1:8080").port == 8080
    with pytest.raises(InvalidRequest):
        check_url("http://127.0.0.1:8081/g.json", "127.0.0.1:8080")


def test_the_importing_settings_section() -> None:
    assert ImportingSettings().yaktribe_host == "yaktribe.games"
    assert ImportingSettings(yaktribe_host=" YakTribe.Games ").yaktribe_host == "yaktribe.games"
    for bad in ("https://yaktribe.games", "", "a b"):
        with pytest.raises(ValueError):
            ImportingSettings(yaktribe_host=bad)
    with pytest.raises(ValueError):
        ImportingSettings(fetch_timeout_seconds=0)


def test_environment_overrides_reach_the_importing_section() -> None:
    from bot.config import load_config

    config = load_config(None, environ={
        "MUNDA_IMPORTING_YAKTRIBE_HOST": "127.0.0.1:8123",
        "MUNDA_IMPORTING_FETCH_TIMEOUT_SECONDS": "3.5",
        "MUNDA_IMPORTING_MAX_IMPORT_BYTES": "4096",
    })
    assert config.importing.yaktribe_host == "127.0.0.1:8123"
    assert config.importing.fetch_timeout_seconds == 3.5
    assert config.importing.max_import_bytes == 4096
