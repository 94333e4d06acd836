"""What start-up makes of Discord's answer to "who is this token": a local web server
stands in for Discord (no other address is ever asked)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from bot.config import ConfigError, DiscordSettings
from bot.startup import TokenRefused, Unreachable, pauses, reach_discord


async def serving(status: int) -> AsyncIterator[str]:
    seen: list[str] = []

    async def me(request: web.Request) -> web.Response:
        seen.append(request.headers.get("Authorization", ""))
        return web.json_response({"id": "1", "username": "bot"}, status=status)

    app = web.Application()
    app.router.add_get("/api/v10/users/@me", me)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    sock = site._server.sockets[0]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/api/v10"
    finally:
        await runner.cleanup()
    assert seen and all(h == "Bot the-token" for h in seen), seen


async def reach(status: int) -> None:
    async for base in serving(status):
        await reach_discord(DiscordSettings(api_base=base), "the-token")


async def test_a_token_discord_knows_is_let_through() -> None:
    await reach(200)


@pytest.mark.parametrize(("status", "error"), [
    (401, TokenRefused), (404, ConfigError), (429, Unreachable), (502, Unreachable),
    (503, Unreachable),
])
async def test_discords_answer_decides_between_stopping_and_trying_again(
    status: int, error: type[Exception],
) -> None:
    with pytest.raises(error) as raised:
        await reach(status)
    assert "\n" not in str(raised.value)
    if error is Unreachable:
        assert not isinstance(raised.value, ConfigError)


async def test_nothing_listening_is_out_of_reach_in_one_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(Unreachable) as raised:
        await reach_discord(DiscordSettings(api_base=f"http://127.0.0.1:{port}/api/v10"), "x")
    assert raised.value.message.startswith(
        f"could not reach Discord at http://127.0.0.1:{port}/api/v10: Cannot connect to host")
    assert "\n" not in raised.value.message


def test_the_pauses_double_up_to_a_minute() -> None:
    waits = pauses()
    assert [next(waits) for _ in range(9)] == [1, 2, 4, 8, 16, 32, 60, 60, 60]
