"""Download a gang export by URL: one allowed host, a timeout, a size limit.

A URL typed by a player must never make the bot an open proxy into the
network it runs in, so only the configured Yaktribe host is fetched
(``[importing] yaktribe_host``), over https; plain http only when that host
is a loopback address (how the tests serve files). Redirects are not
followed (they could lead anywhere), and the body is counted while it
streams in, so a huge or endless answer is cut off at ``max_import_bytes``.
"""

from __future__ import annotations

import asyncio

import aiohttp
from yarl import URL

from bot.config import ImportingSettings
from rules.errors import InvalidRequest

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
CHUNK = 64 * 1024
USER_AGENT = "MundaArbitrator (Discord bot; gang import)"


def check_url(text: str, allowed_host: str) -> URL:
    """The URL if it points at the allowed host (``host`` or ``host:port``); else a refusal."""
    host, _, port = allowed_host.partition(":")
    url_text = text.strip()
    if any(not char.isprintable() or char.isspace() for char in url_text):
        raise InvalidRequest("A URL has no spaces or control characters in it.")
    try:
        url = URL(url_text)
        # yarl decodes the host (IDNA) and the port lazily: junk such as
        # "xn--yaktribe-" or port 99999 raises only when they are read.
        url_host, url_port, scheme = url.host, url.port, url.scheme
        has_credentials = url.user is not None or url.password is not None
    except (ValueError, TypeError):
        raise InvalidRequest(
            f"That is not a URL this bot can read; give the gang's https:// address on {host}."
        ) from None
    if scheme not in ("https", "http") or not url_host:
        raise InvalidRequest(f"Give the gang's https:// address on {host}.")
    if has_credentials:
        raise InvalidRequest("A gang URL cannot carry a user name or password.")
    if url_host.lower() != host:
        raise InvalidRequest(
            f"Gangs are only fetched from {host}; download the file and attach it instead."
        )
    if scheme == "http" and host not in LOOPBACK:
        raise InvalidRequest(f"Use the https:// address of {host}.")
    wanted_port = int(port) if port.isdigit() else {"https": 443, "http": 80}[scheme]
    if url_port != wanted_port:
        raise InvalidRequest(f"Gangs are only fetched from {allowed_host}.")
    return url


async def fetch(text: str, settings: ImportingSettings) -> bytes:
    """The body at ``text``; InvalidRequest for a refused URL, an error, a timeout or too much."""
    url = check_url(text, settings.yaktribe_host)
    limit = settings.max_import_bytes
    timeout = aiohttp.ClientTimeout(total=settings.fetch_timeout_seconds)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.get(
                url, allow_redirects=False,
                headers={"Accept": "application/json", "User-Agent": USER_AGENT},
            ) as response,
        ):
            if 300 <= response.status < 400:
                raise InvalidRequest(
                    f"{url.host} sent the request elsewhere ({response.status}); give the "
                    "address of the gang's JSON export itself."
                )
            if response.status != 200:
                raise InvalidRequest(
                    f"{url.host} answered {response.status} for that address; check it is the "
                    "gang's JSON export and that the gang is public."
                )
            if response.content_length is not None and response.content_length > limit:
                raise InvalidRequest(_too_large(limit))
            body = bytearray()
            async for chunk in response.content.iter_chunked(CHUNK):
                body += chunk
                if len(body) > limit:
                    raise InvalidRequest(_too_large(limit))
            return bytes(body)
    except TimeoutError:
        raise InvalidRequest(
            f"{url.host} did not answer within {settings.fetch_timeout_seconds:g} seconds; "
            "try again later, or attach the file."
        ) from None
    except (aiohttp.ClientError, asyncio.IncompleteReadError) as error:
        raise InvalidRequest(
            f"Could not fetch the gang from {url.host} ({type(error).__name__}); try again "
            "later, or attach the file."
        ) from None


def _too_large(limit: int) -> str:
    return f"That file is larger than {limit} bytes, the most this bot reads."
