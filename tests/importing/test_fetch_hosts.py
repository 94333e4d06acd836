"""The Yaktribe host is matched exactly: look-alike hosts, user names and odd ports are refused."""

from __future__ import annotations

import pytest

from bot.config import ImportingSettings
from bot.importing.fetch import check_url, fetch
from rules.errors import InvalidRequest

HOST = "yaktribe.games"
OTHER_HOST = "only fetched from yaktribe.games"
USERINFO = "user name or password"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        # Hosts that end with the allowed one, or start with it.
        ("https://evilyaktribe.games/underhive/json/gang/48213.json", OTHER_HOST),
        ("https://EvilYakTribe.GAMES/underhive/json/gang/48213.json", OTHER_HOST),
        ("https://www.yaktribe.games/underhive/json/gang/48213.json", OTHER_HOST),
        ("https://evil.yaktribe.games/x", OTHER_HOST),
        ("https://yaktribe.games.evil.com/", OTHER_HOST),
        ("https://YAKTRIBE.GAMES.evil.com/", OTHER_HOST),
        ("https://yaktribe.games%2eevil.com/", OTHER_HOST),
        # A trailing dot names the same DNS root, but not the configured host.
        ("https://yaktribe.games./x", OTHER_HOST),
        ("https://yaktribe.games.:443/x", OTHER_HOST),
        # The allowed host as a user name, or after a fragment or query mark.
        ("https://yaktribe.games@evil.com/", USERINFO),
        ("https://yaktribe.games:@evil.com/", USERINFO),
        ("https://yaktribe.games:443@evil.com/", USERINFO),
        ("https://evil.com#@yaktribe.games/", OTHER_HOST),
        ("https://evil.com?@yaktribe.games/", OTHER_HOST),
        # Ports other than https's.
        ("https://yaktribe.games:80/x", OTHER_HOST),
        ("https://yaktribe.games:444/x", OTHER_HOST),
        ("https://evilyaktribe.games:443/x", OTHER_HOST),
        # Addresses instead of the name.
        ("https://127.0.0.1/x", OTHER_HOST),
        ("https://[::1]/x", OTHER_HOST),
    ],
)
def test_look_alike_hosts_are_refused(url: str, message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        check_url(url, HOST)


@pytest.mark.parametrize(
    "url",
    [
        "https://yaktribe.games/underhive/json/gang/48213.json",
        "https://YAKTRIBE.GAMES/underhive/json/gang/48213.json",
        "https://yaktribe.games:443/underhive/json/gang/48213.json",
    ],
)
def test_the_host_itself_in_any_case_and_its_own_port_is_allowed(url: str) -> None:
    checked = check_url(url, HOST)
    assert checked.path == "/underhive/json/gang/48213.json"
    assert (checked.host, checked.port) == (HOST, 443)


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://evil127.0.0.1:8080/g.json", "127.0.0.1:8080"),
        ("http://127.0.0.1.evil.com:8080/g.json", "127.0.0.1:8080"),
        ("http://x.localhost:8080/g.json", "localhost:8080"),
        ("http://evillocalhost:8080/g.json", "localhost:8080"),
    ],
)
def test_a_loopback_host_is_matched_exactly_too(url: str, allowed: str) -> None:
    with pytest.raises(InvalidRequest, match="only fetched from"):
        check_url(url, allowed)


async def test_a_refused_look_alike_is_never_fetched() -> None:
    # The refusal comes before any connection: the message is the host rule's, not a
    # network error's.
    settings = ImportingSettings(yaktribe_host=HOST, fetch_timeout_seconds=1)
    with pytest.raises(InvalidRequest, match=OTHER_HOST):
        await fetch("https://evilyaktribe.games/underhive/json/gang/48213.json", settings)
