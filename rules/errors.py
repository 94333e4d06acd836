"""Typed errors the rules raise for illegal requests.

Every error carries a message a player can read as it is; the bot shows it
ephemerally and changes nothing. A rules function raises before it has
changed anything (it works on copies), so an error never leaves half a change.
"""

from __future__ import annotations


class RulesError(Exception):
    """Base of every refusal by the rules engine."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(RulesError):
    """The request does not make sense (unknown name, bad number, bad expression)."""


# A refusal lists this many problems of a file at most, then how many more there are.
MAX_PROBLEMS = 6


def problems_found(heading: str, problems: list[str]) -> InvalidRequest:
    """One refusal for a file's problems: the heading, then the first few as a list."""
    shown = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        shown.append(f"and {len(problems) - MAX_PROBLEMS} more")
    return InvalidRequest(f"{heading}:\n- " + "\n- ".join(shown))


class NotFound(InvalidRequest):
    """A named gang, fighter, item, vehicle or territory does not exist."""


class InsufficientCredits(RulesError):
    """Spending more than the Stash holds."""


class NotEligible(RulesError):
    """The rules do not allow this fighter, gang or captive to do this now."""


class WeaponLimit(NotEligible):
    """A fighter would carry more than three weapon slots (PB-6D)."""


class OutOfStep(RulesError):
    """An action was asked for outside the step of the sequence it belongs to."""
