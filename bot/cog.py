"""What every cog shares: the bot it serves, the agreements it carries out, and the
``setup`` that adds it.

A cog is ``class StashCog(BotCog, commands.GroupCog, group_name="stash", ...)``
with ``self.bot`` set, and its module ends with ``setup = adds(StashCog)``,
the hook discord.py's ``load_extension`` calls. A method marked ``@agreement(KIND)``
carries out the agreements of that kind (bot/battle/interactive.py) while the cog
is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from discord.ext import commands

from bot.battle.interactive import (
    Agreement,
    AgreementHandler,
    agreement_view,
    register_agreement,
    unregister_agreement,
)
from bot.call import Call

if TYPE_CHECKING:
    from bot.app import MundaBot


_AGREEMENT = "__munda_agreement__"
M = TypeVar("M", bound=Callable[..., Any])


def agreement(kind: str) -> Callable[[M], M]:
    """Mark a cog's method ``(self, interaction, agreement) -> AgreementOutcome`` as the
    handler of the agreements of ``kind``."""

    def mark(method: M) -> M:
        setattr(method, _AGREEMENT, kind)
        return method

    return mark


class BotCog:
    """Keeps the bot on ``self.bot``; listed before ``commands.Cog`` or ``GroupCog``.

    A subclass's own ``cog_load``/``cog_unload`` calls ``super()``'s."""

    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    def _agreements(self) -> dict[str, AgreementHandler]:
        return {getattr(member, _AGREEMENT): getattr(self, name)
                for klass in type(self).__mro__ for name, member in vars(klass).items()
                if hasattr(member, _AGREEMENT)}

    async def cog_load(self) -> None:
        for kind, handler in self._agreements().items():
            register_agreement(kind, handler)

    async def cog_unload(self) -> None:
        for kind in self._agreements():
            unregister_agreement(kind)

    async def ask(self, call: Call, agreement: Agreement) -> None:
        """Keep an agreement that is still open and post its question with its buttons."""
        async with call.write_in(agreement.campaign_id) as stored:
            await stored.tx.save_sequence(stored.campaign.id, agreement.key, agreement)
        await call.say(agreement.text(), view=agreement_view(agreement))


def adds(*cogs: Callable[[MundaBot], commands.Cog]) -> Callable[[MundaBot],
                                                              Coroutine[Any, Any, None]]:
    """The extension's ``setup``: add these cogs to the bot."""

    async def setup(bot: MundaBot) -> None:
        for cog in cogs:
            await bot.add_cog(cog(bot))

    return setup
