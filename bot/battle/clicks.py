"""The click handlers of a post-battle run's buttons and selects (routes of bot/ui/routes.py).

Each handler turns the click into an actor and an action, lets
:mod:`bot.battle.engine` decide and store it, and answers. A refusal is
raised before anything is answered, so the router answers it privately. A
click that changed the message it was made on is answered with that
message's edit itself (one call to Discord instead of an acknowledgement and
an edit) when that comes within ANSWER_DEADLINE of the decision; otherwise
it is acknowledged then: the router hands each of these routes its
:class:`~bot.ui.first_answer.FirstAnswer` (``click.answer``) with those
deadlines. The rest of the scene is drawn after.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.battle import engine, owed, publish, render, views
from bot.battle.engine import RunCall
from bot.battle.flow import Scene
from bot.battle.panel import ReportEdit, gang_names
from bot.battle.state import StageRecord
from bot.call import Call, Interaction
from bot.ui.components import Components
from bot.ui.first_answer import FirstAnswer
from bot.ui.routes import Click, Route, route


def _where(click: Click) -> tuple[Interaction, Call, int]:
    call = Call.of(click.interaction)
    return click.interaction, call, call.guild_id


async def _edit_clicked(answer: FirstAnswer, guild_id: int, stored: engine.StoredDecision,
                        embed: discord.Embed, view: Components | None) -> bool:
    """Answer with the edit of the message clicked, showing ``stored``'s revision;
    acknowledge instead when a newer one is drawn (True when edited). The caller has
    claimed the first response."""
    response = answer.interaction.response
    edited = await publish.answer_with(
        guild_id, stored.run, stored.revision,
        lambda: response.edit_message(
            embed=embed, view=view.as_view() if view is not None else None))
    if not edited:
        await response.defer()
    return edited


def _clicked(interaction: Interaction) -> int | None:
    return interaction.message.id if interaction.message is not None else None


# --------------------------------------------------------------------------- report panels


async def _edit_panel(click: Click, campaign: str, battle: str, gang: int,
                      edit: ReportEdit) -> None:
    _interaction, call, guild_id = _where(click)
    answer = click.answer
    stored = await engine.edit_report(RunCall.of(call, campaign, battle), gang, edit,
                                      acknowledge=answer.acknowledge, decided=answer.decided)
    await _answer_panel(answer, guild_id, stored, gang)


async def _answer_panel(
    answer: FirstAnswer, guild_id: int, stored: engine.StoredDecision, gang: int
) -> None:
    interaction = answer.interaction
    run = stored.run
    panel = run.reports[run.gang_ids[gang]].message_id
    answered = False
    if (stored.revision and panel is not None and _clicked(interaction) == panel
            and answer.claim()):
        embed, view = owed.panel_parts(stored.campaign, run, stored.world, gang)
        answered = await _edit_clicked(answer, guild_id, stored, embed, view)
    await answer.acknowledge()
    await engine.show(interaction.client, guild_id, stored,
                      except_panel=gang if answered else None)
    if stored.note:
        await interaction.followup.send(stored.note, ephemeral=True)


@route(views.SECTION, first_answer=True)
async def section(click: Click, campaign: str, battle: str, gang: int) -> None:
    await _edit_panel(click, campaign, battle, gang,
                      ReportEdit(kind="section", section=click.value or "psi"))


@route(views.PICK, first_answer=True)
async def pick(click: Click, campaign: str, battle: str, gang: int, section: str,
               slot: int) -> None:
    await _edit_panel(click, campaign, battle, gang, ReportEdit(
        kind="pick", section=section, slot=slot, values=[v for v in click.values if v != "-"]))


def _chosen_values(declared: Route, kind: str) -> None:
    """Route ``declared``: a select of the panel whose chosen values make an edit of ``kind``.
    A route argument after the gang names what the select is about and fills the
    ReportEdit field of its name (the fighter of an injury, the section of an amount)."""

    async def chosen(click: Click, campaign: str, battle: str, gang: int, **about: Any) -> None:
        await _edit_panel(click, campaign, battle, gang,
                          ReportEdit(kind=kind, values=list(click.values), **about))

    route(declared, first_answer=True)(chosen)


for _select, _kind in ((views.INJURY_FIGHTER, "injfighter"), (views.INJURY, "injury"),
                       (views.AMOUNT, "amount"), (views.DAMAGE_RESULT, "damage")):
    _chosen_values(_select, _kind)


@route(views.TOGGLE, first_answer=True)
async def toggle(click: Click, campaign: str, battle: str, gang: int, what: str) -> None:
    await _edit_panel(click, campaign, battle, gang, ReportEdit(kind=what))


@route(views.PAGE, first_answer=True)
async def page(click: Click, campaign: str, battle: str, gang: int, direction: str) -> None:
    await _edit_panel(click, campaign, battle, gang, ReportEdit(kind=direction))


@route(views.SUBMIT, first_answer=True)
async def submit(click: Click, campaign: str, battle: str, gang: int) -> None:
    interaction, call, guild_id = _where(click)
    # Who may submit is answered at once; what the report lacks comes after (the
    # Wrap-up it may roll takes longer than Discord waits for an answer).
    at = RunCall.of(call, campaign, battle)
    await engine.check_report(at, gang)
    await click.answer.acknowledge()
    stored = await engine.submit_report(at, gang)
    await engine.show(interaction.client, guild_id, stored)
    await interaction.followup.send(stored.note, ephemeral=True)


# --------------------------------------------------------------------------- steps


def answers_with_its_edit(scene: Scene, record: StageRecord, clicked: int | None) -> bool:
    """Whether a Confirm clicked on message ``clicked`` is answered with the edit of its
    step's message: the decision redraws that step and it is the message clicked. That
    holds whether the step stays open (one confirmation of several) or closes; a closing
    one then delivers the next step and redraws the rest, and its note follows once they
    are posted. The last step's closing is the exception: it owes the battle report,
    whose delivery redraws the last step (publish._redraw_delivered), so it is drawn
    after the report is out, as a restart after a crash there draws it too. (A step of
    several pages is acknowledged, then redrawn.)"""
    return (record.number in scene.stages and not scene.owe_report
            and bool(record.message_ids) and clicked == record.message_ids[0])


async def _confirmed(answer: FirstAnswer, campaign: str, battle: str, stage: int,
                     gang: str | None, *, on_behalf: bool) -> None:
    interaction = answer.interaction
    call = Call.of(interaction)
    guild_id = call.guild_id
    stored = await engine.confirm_stage(
        RunCall.of(call, campaign, battle), stage, gang, on_behalf=on_behalf,
        by=engine.who(interaction), acknowledge=answer.acknowledge, decided=answer.decided)
    if not stored.revision:  # a double click: say so, change nothing
        await answer.tell(stored.note)
        return
    run = stored.run
    record = run.stage_record(stage)
    answered = False
    if record is not None and answers_with_its_edit(stored.decision.scene, record,
                                                    _clicked(interaction)):
        names = gang_names(stored.world)
        pages = render.stage_pages(run, record, names)
        if len(pages) == 1 and answer.claim():
            answered = await _edit_clicked(answer, guild_id, stored, pages[0],
                                           owed.stage_view(run, record, names))
    await answer.acknowledge()
    await engine.show(interaction.client, guild_id, stored,
                      except_stage=stage if answered else None)
    await interaction.followup.send(stored.note, ephemeral=True)


@route(views.CONFIRM, first_answer=True)
async def confirm(click: Click, campaign: str, battle: str, stage: int) -> None:
    await _confirmed(click.answer, campaign, battle, stage, None, on_behalf=False)


@route(views.BEHALF, first_answer=True)
async def behalf(click: Click, campaign: str, battle: str, stage: int) -> None:
    await _confirmed(click.answer, campaign, battle, stage, click.value, on_behalf=True)


async def _ask(click: Click, kind: str, campaign: str, battle: str, stage: int) -> None:
    call = Call.of(click.interaction)
    question = await engine.undo_or_cancel_question(RunCall.of(call, campaign, battle), kind,
                                                    stage)
    await click.answer.tell(question, views.yes_view(kind, campaign, battle, stage))


@route(views.UNDO, first_answer=True)
async def undo(click: Click, campaign: str, battle: str, stage: int) -> None:
    await _ask(click, "undo", campaign, battle, stage)


@route(views.CANCEL, first_answer=True)
async def cancel(click: Click, campaign: str, battle: str, stage: int) -> None:
    await _ask(click, "cancel", campaign, battle, stage)


@route(views.YES_UNDO_OR_CANCEL)
async def yes_undo_or_cancel(click: Click, kind: str, campaign: str, battle: str,
                             stage: int) -> None:
    interaction, call, guild_id = _where(click)
    client = interaction.client
    await interaction.response.defer()  # an undo takes back every action of its step
    at = RunCall.of(call, campaign, battle)
    stored = await (engine.undo_stage(at, stage) if kind == "undo" else engine.cancel_run(at))
    await engine.show(client, guild_id, stored)
    # The question's own message says what was done (and loses its button), once shown.
    await interaction.edit_original_response(content=stored.note, view=None)
