"""/ledger: the latest recorded events of a campaign, a gang or a battle, newest first.

Anyone may read the ledger; it is the campaign's open record of every roll
and change. How it reads is :mod:`bot.ui.ledger`'s business.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, choose, gang_names
from bot.context import guild_id_of, storage_of
from bot.errors import Refused
from bot.render import safe
from bot.storage import StorageError
from bot.ui import send_embeds
from bot.ui.ledger import ledger_embeds
from cogs.fighter import Choices, GuildReads, Interaction, Name, campaign_in
from rules.errors import RulesError

if TYPE_CHECKING:
    from bot.app import MundaBot

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 20
# Action titles are looked up among this many latest actions; older ones show their clause.
TITLE_LOOKBACK = 200


async def battle_ids(interaction: Interaction, current: str) -> Choices:
    """Recent battles of the campaign by id, labelled with their scenario."""
    try:
        if interaction.guild_id is None:
            return []
        source = GuildReads.of(interaction)
        campaign = await campaign_in(source, getattr(interaction.namespace, "campaign", None))
        battles = await storage_of(interaction).list_battles(
            interaction.guild_id, campaign.id, limit=100
        )
    except (RulesError, Refused, StorageError):
        return []
    except Exception:
        # Autocomplete must never fail loudly; the log keeps the cause.
        log.exception("battle autocomplete failed")
        return []
    # Choice names hold 100 characters; a label is cut there so it still maps back to its id.
    labels = {b.id: (f"{b.id} · {b.scenario}" if b.scenario else b.id)[:100] for b in battles}
    matching = choose(labels.values(), current)
    by_label = {label: battle_id for battle_id, label in labels.items()}
    return [app_commands.Choice(name=c.name, value=by_label.get(c.name, c.value))
            for c in matching]


class LedgerCog(commands.Cog):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot

    @app_commands.command(name="ledger", description="The latest rolls and changes, newest first")
    @app_commands.describe(
        gang="only what touched this gang",
        battle="only what belongs to this battle (its id)",
        limit="how many events to show (1 to 25, default 20)",
        campaign="the campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(gang=gang_names, battle=battle_ids, campaign=campaign_names)
    async def ledger(
        self,
        interaction: Interaction,
        gang: Name | None = None,
        battle: app_commands.Range[str, 1, 64] | None = None,
        limit: app_commands.Range[int, 1, 25] = DEFAULT_LIMIT,
        campaign: Name | None = None,
    ) -> None:
        source = GuildReads.of(interaction)
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        found = await campaign_in(source, campaign)
        title = f"Ledger · {safe(found.name)}"
        gang_id = None
        if gang:
            target = await source.get_gang_by_name(found.id, gang)
            gang_id = target.id
            title += f" · {safe(target.name)}"
        if battle:
            # Refuses an unknown battle rather than showing an empty page.
            await storage.get_battle(guild_id, found.id, battle)
            title += f" · battle {safe(battle, 64)}"
        events = await storage.recent_events(
            guild_id, found.id, gang_id=gang_id, battle_id=battle, limit=limit
        )
        actions = await storage.list_actions(
            guild_id, found.id, battle_id=battle, limit=TITLE_LOOKBACK
        )
        titles = {action.id: action.title for action in actions}
        await send_embeds(interaction, ledger_embeds(events, title=title, titles=titles))


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(LedgerCog(bot))
