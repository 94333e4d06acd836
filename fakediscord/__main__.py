"""``python -m fakediscord --port 0``: run the fake standalone with the demo world."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal

from fakediscord.client import ENV_VAR
from fakediscord.server import FakeDiscord


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m fakediscord", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--token", default=None, help="require this bot token (default: any)")
    parser.add_argument("--empty", action="store_true", help="start without the demo world")
    parser.add_argument("--heartbeat-ms", type=int, default=41250)
    parser.add_argument("--log-level", default="INFO")
    return parser.parse_args(argv)


async def _serve(args: argparse.Namespace) -> None:
    fake = FakeDiscord(token=args.token, heartbeat_interval_ms=args.heartbeat_ms)
    if not args.empty:
        fake.populate_demo()
    base_url = await fake.start(args.port)
    # The first line is the bare URL so scripts can read it with one readline().
    print(base_url, flush=True)
    print(
        f"gateway: {fake.gateway_url}\n"
        f"run the bot with {ENV_VAR}={base_url} and call "
        "fakediscord.client.point_discord_py_from_env() before bot.start(), or set\n"
        f"  discord.http.Route.BASE = {base_url!r}\n"
        f"  discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL({fake.gateway_url!r})\n"
        f"inspect: {fake.root_url}/_fake\n"
        f"transcript: {fake.root_url}/_fake/transcript?guild=Underhive&channel=general",
        flush=True,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await fake.stop()


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    asyncio.run(_serve(args))


if __name__ == "__main__":
    main()
