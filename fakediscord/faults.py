"""Injected REST failures: the next N requests to a route answer 5xx or 429.

``fake.fail_requests("POST", f"/channels/{channel.id}/messages", status=500,
times=3)`` makes the next three matching requests fail before any handler
runs (nothing is created), then requests pass again. A 429 carries
``retry_after`` in its body and headers the way Discord sends it (with a
``Via`` header: discord.py treats a 429 without one as a Cloudflare ban).
Each :class:`Fault` records the requests it failed, so a test can check what
was tried, and when.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from aiohttp import web

from fakediscord.http_util import ok

FAILING_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(eq=False)
class Fault:
    """Fail ``times`` requests whose method and path (after ``/api/v10``) match."""

    method: str
    path: str | re.Pattern[str]
    status: int
    times: int
    retry_after: float = 0.5
    is_global: bool = False
    # (monotonic time, method, path) of every request this fault failed.
    hits: list[tuple[float, str, str]] = field(default_factory=list)

    @property
    def remaining(self) -> int:
        return self.times - len(self.hits)

    def matches(self, method: str, path: str) -> bool:
        if self.remaining <= 0 or method.upper() != self.method.upper():
            return False
        if isinstance(self.path, re.Pattern):
            return self.path.fullmatch(path) is not None
        return path == self.path

    def respond(self, method: str, path: str) -> web.Response:
        self.hits.append((time.monotonic(), method, path))
        if self.status == 429:
            response = ok({"message": "You are being rate limited.",
                           "retry_after": self.retry_after, "global": self.is_global},
                          status=429)
            response.headers["Retry-After"] = f"{self.retry_after:g}"
            response.headers["Via"] = "1.1 google"
            response.headers["X-RateLimit-Scope"] = "global" if self.is_global else "user"
            return response
        return ok({"message": f"{self.status}: injected failure", "code": 0},
                  status=self.status)


def check_status(status: int) -> None:
    if status not in FAILING_STATUSES:
        raise ValueError(f"inject one of {sorted(FAILING_STATUSES)}, not {status}")
