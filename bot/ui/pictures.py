"""Pictures as Discord attachments: roster cards, campaign charts, battle cards.

bot/pictures draws PNG bytes; this module names them as files, spreads a
card's pages over messages (Discord takes at most 10 attachments in one),
finds the names a card shows, and draws a battle's pictures for the report
(:func:`battle_report_pictures`; the report itself gets them through the outbox,
bot/ui/report_pictures.py).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import discord

from bot.importing.uploads import file_stem
from bot.pictures import GangSeries, Measure, PictureWorker
from bot.render import safe
from bot.storage import Campaign, Transaction
from bot.ui import embed_batches
from bot.ui.report_pictures import ReportRecipe, draw_card, draw_chart, report_file_names
from rules.models import Battle, FighterStatus, Gang
from rules.report import BattleReport

log = logging.getLogger(__name__)

FILES_PER_MESSAGE = 10


def png_files(pages: Sequence[bytes], stem: str) -> list[discord.File]:
    """``stem``.png, or ``stem``-1.png, ``stem``-2.png ... for several pages."""
    if len(pages) == 1:
        return [discord.File(io.BytesIO(pages[0]), filename=f"{stem}.png")]
    return [discord.File(io.BytesIO(page), filename=f"{stem}-{number}.png")
            for number, page in enumerate(pages, 1)]


def shows_roster_card(asked: bool | None, campaign: Campaign, bot_default: bool) -> bool:
    """Whether /gang show attaches the card: as the player asked, else as the campaign is
    set (``/campaign settings roster_cards:``), else as the bot is (campaigns stored
    before the setting existed)."""
    if asked is not None:
        return asked
    setting = campaign.settings.roster_cards
    return bot_default if setting is None else setting


def roster_stem(gang: Gang) -> str:
    return f"roster-{file_stem(gang.name, 'gang')}"


async def send_with_files(
    interaction: discord.Interaction, embeds: Sequence[discord.Embed],
    files: Sequence[discord.File], *, content: str = "",
) -> None:
    """Answer publicly: the embeds as :func:`bot.ui.send_embeds` would, the files ten to a
    message, the first ten beside the first embeds and the rest in follow-ups."""
    embed_groups = embed_batches(embeds) or [[]]
    file_groups = [list(files[i:i + FILES_PER_MESSAGE])
                   for i in range(0, len(files), FILES_PER_MESSAGE)] or [[]]
    messages = max(len(embed_groups), len(file_groups))
    for index in range(messages):
        group = embed_groups[index] if index < len(embed_groups) else []
        attached = file_groups[index] if index < len(file_groups) else []
        text = content if index == 0 and content else discord.utils.MISSING
        if index == 0 and not interaction.response.is_done():
            await interaction.response.send_message(text or None, embeds=group, files=attached)
        else:
            await interaction.followup.send(text, embeds=group, files=attached)


def chart_caption(whose: str, measure: Measure, series: Sequence[GangSeries]) -> str:
    """What the chart shows, in words: whose, which measure, how many battles and gangs."""
    battles = max((point.battle for line in series for point in line.points), default=0)
    if battles == 0:
        return f"**{safe(whose)}**: no battles fought yet, so nothing to chart."
    gangs = len(series)
    return (f"**{safe(whose)}**: {measure} from the start to battle {battles}, "
            f"{gangs} {'gang' if gangs == 1 else 'gangs'}.")


async def member_name(interaction: discord.Interaction, user_id: str) -> str | None:
    """The display name of ``user_id`` on the interaction's server, if it can be found."""
    guild = interaction.guild
    if guild is None or not user_id.isdigit():
        return None
    if interaction.user.id == int(user_id):
        return interaction.user.display_name
    member = guild.get_member(int(user_id))
    if member is None:
        try:
            member = await guild.fetch_member(int(user_id))
        except discord.HTTPException:
            # Left the server, or Discord did not answer: the card shows no owner.
            return None
    return member.display_name


def captor_names(gang: Gang, names: Mapping[str, str]) -> dict[str, str]:
    """``names`` (gang id -> name) cut to the gangs holding a captive of ``gang``: what
    its card shows ("Captured by ..."), so other gangs' renames leave the card as it is."""
    captors = {f.captured_by for f in gang.fighters
               if f.status is FighterStatus.CAPTURED and f.captured_by}
    return {gang_id: name for gang_id, name in names.items() if gang_id in captors}


@dataclass(frozen=True)
class ReportPictures:
    """A finished battle's pictures: its card, and the campaign's Gang Rating chart."""

    card: bytes
    chart: bytes

    def files(self, battle_id: str) -> list[discord.File]:
        card_name, chart_name = report_file_names(battle_id)
        return [discord.File(io.BytesIO(self.card), filename=card_name),
                discord.File(io.BytesIO(self.chart), filename=chart_name)]


async def battle_report_pictures(
    tx: Transaction, worker: PictureWorker, campaign_id: str, battle: Battle,
    report: BattleReport, gangs: Mapping[str, Gang] | None = None,
) -> ReportPictures:
    """The pictures the battle report carries, read in the report's own transaction: drawn
    from the same recipe as the outbox draws them when it sends the report.

    ``gangs`` (id -> gang, as the report's world holds them) name the
    casualties; without them the battle's gangs are read as stored. The chart
    is every gang's Gang Rating over the campaign up to this battle's last
    stored change.
    """
    known = dict(gangs) if gangs is not None else {
        gang_id: await tx.get_gang(campaign_id, gang_id) for gang_id in battle.gang_ids
    }
    recipe = ReportRecipe.of(campaign_id, battle, report, known)
    card = await draw_card(worker, recipe)
    chart = await draw_chart(worker, recipe, await tx.roster_changes(campaign_id))
    return ReportPictures(card=card, chart=chart)
