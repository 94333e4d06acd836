"""Failpoints: named places where a test can make the bot die on the spot (kill -9).

The crash tests (tests/e2e/test_crash_resume.py) start the real bot process
with ``MUNDA_FAILPOINTS=name[,name...]``; when the code reaches
``hit("name")`` for a listed name, the process sends itself SIGKILL. Nothing
runs after that: no ``finally``, no shutdown, no flush of the database
connection, exactly as when the host dies. The points sit where the bot has
committed something and not yet shown it (docs/reliability.md lists them).

Without the variable (always, in production) ``hit`` costs one set lookup.
The variable is read once per process, at the first hit.
"""

from __future__ import annotations

import logging
import os
import signal
from functools import cache

log = logging.getLogger(__name__)

ENV_VAR = "MUNDA_FAILPOINTS"

# Every name the code hits, so a test cannot ask for a point that does not exist.
AFTER_STAGE_STORED = "after-stage-stored"  # a stage's rolls stored, its message not yet posted
AFTER_CONFIRM_STORED = "after-confirm-stored"  # a confirmation stored, the next step not posted
AFTER_ACTION_STORED = "after-action-stored"  # an action in a stage stored, its lines not posted
AFTER_REPORT_QUEUED = "after-report-queued"  # the Arbitrator's report owed, not yet sent
AFTER_OUTBOX_SENT = "after-outbox-sent"  # Discord accepted an owed message; not yet recorded
AFTER_TIMER_FIRED = "after-timer-fired"  # a timer fired and its post owed, not yet sent
AFTER_CYCLE_STORED = "after-cycle-stored"  # a cycle's end and the next start stored, not posted
KNOWN = frozenset({
    AFTER_STAGE_STORED, AFTER_CONFIRM_STORED, AFTER_ACTION_STORED, AFTER_REPORT_QUEUED,
    AFTER_OUTBOX_SENT, AFTER_TIMER_FIRED, AFTER_CYCLE_STORED,
})


@cache
def armed() -> frozenset[str]:
    """The failpoints named by the environment (read once)."""
    names = frozenset(
        name.strip() for name in os.environ.get(ENV_VAR, "").split(",") if name.strip()
    )
    unknown = names - KNOWN
    if unknown:
        # A typo would make a crash test pass without ever crashing: say so loudly.
        log.error("unknown failpoints in %s: %s (known: %s)", ENV_VAR, sorted(unknown),
                  sorted(KNOWN))
    return names


def hit(name: str) -> None:
    """Die here, at once and without cleaning up, if ``name`` is armed."""
    if name not in KNOWN:
        raise ValueError(f"unknown failpoint {name!r}")
    if name in armed():
        log.warning("failpoint %s: killing the process", name)
        os.kill(os.getpid(), signal.SIGKILL)
