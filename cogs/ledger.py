"""/ledger: the latest recorded events of a campaign, a gang or a battle, newest first.

Anyone may read the ledger; it is the campaign's open record of every roll
and change. How it reads is :mod:`bot.ui.ledger`'s business.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.call import Call
from bot.cog import BotCog, adds
from bot.options import BattleId, CampaignName, GangName
from bot.render import safe
from bot.slash import slash
from bot.ui.ledger import ledger_embeds

if TYPE_CHECKING:
    pass

DEFAULT_LIMIT = 20
# Action titles are looked up among this many latest actions; older ones show their clause.
TITLE_LOOKBACK = 200


class LedgerCog(BotCog, commands.Cog):
    @slash("ledger", "The latest rolls and changes, newest first",
           gang="only what touched this gang", battle="only what belongs to this battle (its id)",
           limit="how many events to show (1 to 25, default 20)")
    async def ledger(
        self,
        call: Call,
        gang: GangName | None = None,
        battle: BattleId | None = None,
        limit: app_commands.Range[int, 1, 25] = DEFAULT_LIMIT,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.read(campaign) as s:
            title = f"Ledger · {safe(s.campaign.name)}"
            target = await s.gang(gang) if gang else None
            if target is not None:
                title += f" · {safe(target.name)}"
            if battle:
                # Refuses an unknown battle rather than showing an empty page.
                await s.tx.get_battle(s.campaign.id, battle)
                title += f" · battle {safe(battle, 64)}"
            events = await s.tx.recent_events(s.campaign.id, gang_id=target.id if target else None,
                                              battle_id=battle, limit=limit)
            actions = await s.tx.list_actions(s.campaign.id, battle_id=battle,
                                              limit=TITLE_LOOKBACK)
        titles = {action.id: action.title for action in actions}
        await call.answer_embeds(ledger_embeds(events, title=title, titles=titles))


setup = adds(LedgerCog)
