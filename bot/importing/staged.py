"""A staged import met again at its Confirm button or one of its questions.

Whatever was staged (a gang, rule data), the button finds the campaign and the
staged state still there, and only the person who asked may answer. The
Confirm of an import that is gone answers on its own message (``ImportGone``
becomes its ``Confirmed`` text); anywhere else it is a refusal like any other.
"""

from __future__ import annotations

from typing import TypeVar

from bot.call import Actor
from bot.errors import Refused
from bot.storage import Campaign, Transaction
from rules.errors import InvalidRequest, NotFound

S = TypeVar("S")


class ImportGone(InvalidRequest):
    """The campaign or the staged import is no longer there: nothing was imported."""


async def staging_campaign(tx: Transaction, campaign_id: str) -> Campaign:
    try:
        return await tx.get_campaign(campaign_id)
    except NotFound:
        raise ImportGone("That campaign no longer exists; nothing was imported.") from None


def askers_state(found: tuple[str, S] | None, actor: Actor, *, command: str, answer: str) -> S:
    """The staged state ``found`` ((who asked, state), None when expired or taken), for
    the one who asked ``command`` alone; ``answer`` is what they do ("confirm this import")."""
    if found is None:
        raise ImportGone(f"This import has expired or was already done; run {command} again.")
    user_id, state = found
    if user_id != actor.ledger_id:
        raise Refused(f"Only the person who asked can {answer}.")
    return state
