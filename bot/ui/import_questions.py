"""The buttons and selects of a gang import's preview: a select per open question, then
Confirm (disabled until every question has its answer) and Cancel.

The selects are routed (``munda:import-answer:<campaign>:<token>:<question>:<user>``),
so only the importing player may answer, and an answer given after a restart still
lands: the answers are kept with the staged import (bot.importing.gangflow.answer).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.call import Call
from bot.importing import gangflow
from bot.importing.plan import StagedGangImport
from bot.importing.preview import preview
from bot.importing.questions import unanswered
from bot.ui.routes import Click, Id, Int, button, option, select, view

# The preview's Confirm (a bot.ui.confirm action; the gang cog handles it).
IMPORT_GANG = "import-gang"
ANSWER = "import-answer"
ANSWER_PARAMS = (Id("campaign"), Id("token"), Int("question", 4), Int("user"))
# Discord allows five rows of components: one select a row, the last for the buttons.
MAX_ASKED = 4


def import_view(
    campaign_id: str, token: str, user_id: int, staged: StagedGangImport
) -> discord.ui.View:
    """The preview's components for the import ``token`` asked by ``user_id``."""
    questions = staged.questions
    still_open = unanswered(questions)
    answered = [i for i in range(len(questions)) if i not in still_open]
    # Open questions first; answered ones stay while there is room, to be changed.
    shown = sorted((still_open + answered)[:MAX_ASKED])
    items: list[discord.ui.Item[Any]] = [
        select(
            ANSWER, campaign_id, token, index, user_id,
            options=[option(choice, default=choice == questions[index].answer)
                     for choice in questions[index].choices],
            placeholder=questions[index].label, row=row,
        )
        for row, index in enumerate(shown)
    ]
    items += [
        button(f"confirm:{IMPORT_GANG}", campaign_id, token, user_id, label="Confirm",
               style=discord.ButtonStyle.danger, row=MAX_ASKED, disabled=bool(still_open)),
        button(f"cancel:{IMPORT_GANG}", campaign_id, token, user_id, label="Cancel", row=MAX_ASKED),
    ]
    return view(*items)


async def answer_clicked(
    click: Click, campaign: str, token: str, question: int, user: int
) -> None:
    """A select of the import preview: keep the answer, show the preview again."""
    call = Call.of(click.interaction)
    async with call.write_server() as tx:
        found, staged, existing = await gangflow.answer(
            tx, campaign, token, call.actor, question, click.value or ""
        )
    shown = preview(staged, existing, found.name)
    await click.interaction.response.edit_message(
        content=shown.content, embeds=shown.embeds,
        view=import_view(campaign, token, user, staged),
    )
