"""Shared pieces of the interactive post-battle commands: /rewards, /action, /roster, /captive.

The cogs stay thin adapters; what they have in common lives here:

- :func:`run_of` / :func:`battle_of` find the post-battle run a gang is in and
  its battle, refusing politely when there is none.
- :func:`act` defers the interaction (privately), runs one rules function in a
  stage through :func:`bot.battle.engine.act_in_stage` (which stores it and
  posts the lines in the battle's thread) and answers the player privately
  with the same lines.
- :func:`decision_view` and its route :func:`decide`: the Pay / Don't pay
  buttons of a Medical Escort or a Negotiate Repairs. The cost is rolled (and
  stored) first; the button's custom id carries the campaign, the battle, the
  acting fighter, the patient or vehicle and the rolled value, so it works
  after a restart and never rolls the cost again.
- :func:`agreement_view` and its route :func:`answer_agreement`: a question
  several players must agree to (a captive trade, deferring a sub-step). Its
  state is a small record stored with ``save_sequence`` (key
  ``agreement:<id>``); cogs register what happens once everyone agreed with
  :func:`register_agreement`.

Both are routes of :mod:`bot.ui.routes`, whose router answers every refusal and
failure of a button with :func:`bot.errors.answer_error`, like a slash command's.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

import discord
from pydantic import BaseModel, ConfigDict, Field

from bot.battle.engine import ActResult, act_in_stage, find_active_run
from bot.battle.flow import no_run_in_progress
from bot.battle.state import PostBattleRun, run_key
from bot.call import Call, Interaction, Scope
from bot.errors import Refused
from bot.locks import ServerLocks
from bot.render import clip, safe
from bot.rulesets import ruleset_for
from bot.storage import ActionRecord, Campaign, LedgerEvent, Transaction, new_id
from bot.ui import embed_batches, lines_embeds
from bot.ui.routes import Choice, Click, Flag, Id, Int, button, route, view
from rules.actions import ActionResult, Actor, medical_escort_treat, negotiate_repairs
from rules.dice import Roller
from rules.models import Battle, Gang
from rules.sequence import Step, SubStep
from rules.world import RuleResult, World

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

Stages = Sequence[tuple[Step, SubStep | None]]
Compute = Callable[[World, PostBattleRun, Roller], RuleResult]
Bookkeeping = Callable[[PostBattleRun, RuleResult], None]
Check = Callable[[Transaction, PostBattleRun], Awaitable[None]]

POST_BATTLE_ACTIONS: Stages = ((Step.POST_BATTLE_ACTIONS, None),)


# =========================================================================== runs and acting


async def run_of(interaction: Interaction, campaign: Campaign, gang: Gang) -> PostBattleRun:
    """The gang's active post-battle run, or a polite refusal."""
    call = Call.of(interaction)
    run = await find_active_run(call.storage, call.guild_id, campaign.id, gang.id)
    if run is None:
        raise no_run_in_progress(gang)
    return run


async def battle_of(interaction: Interaction, campaign: Campaign, run: PostBattleRun) -> Battle:
    call = Call.of(interaction)
    return await call.storage.read(call.guild_id).get_battle(campaign.id, run.battle_id)


async def battle_world(interaction: Interaction, campaign: Campaign, run: PostBattleRun) -> World:
    """The battle's gangs and the owners of the captives they hold (for reading only)."""
    call = Call.of(interaction)
    storage, guild_id = call.storage, call.guild_id
    gang_ids = list(run.gang_ids)
    for gang_id in run.gang_ids:
        for owner, _captive in await storage.read(guild_id).captives_held_by(campaign.id, gang_id):
            if owner.id not in gang_ids:
                gang_ids.append(owner.id)
    return await storage.read(guild_id).load_world(campaign.id, gang_ids)


async def act(
    interaction: Interaction,
    *,
    campaign: Campaign,
    gang: Gang,
    stages: Stages,
    compute: Compute,
    bookkeeping: Bookkeeping | None = None,
    check: Check | None = None,
) -> ActResult:
    """Run ``compute`` in one of ``stages`` of ``gang``'s run and tell the player privately.

    The caller has checked ``require_gang_control``. Everyone sees the lines in
    the battle's thread (posted by the engine); the player gets them here too.
    """
    await Call.of(interaction).defer()
    done = await act_in_stage(
        interaction, campaign=campaign, gang=gang, stages=stages, compute=compute,
        bookkeeping=bookkeeping, check=check,
    )
    lines = [*done.lines, f"Posted in <#{done.run.target_channel_id}> for everyone."]
    await send_private(interaction, safe(done.result.title, 200), lines)
    return done


async def send_private(interaction: Interaction, title: str, lines: Sequence[str]) -> None:
    """Follow up privately with ``lines`` as embeds, paged within Discord's limits."""
    for batch in embed_batches(lines_embeds(title, lines, empty="Done.")):
        await interaction.followup.send(embeds=batch, ephemeral=True)


def note_result(world: World, clause: str, title: str, notes: Sequence[str]) -> RuleResult:
    """A result that changes nothing: a decision recorded in the ledger and the thread."""
    return RuleResult(clause=clause, title=title, notes=list(notes), world=world)


def actor_for(run: PostBattleRun, battle: Battle, gang_id: str, fighter_id: str) -> Actor:
    """The rules' Actor, with the fighters of the gang that have acted in this run."""
    if run.battle_id != battle.id:
        raise Refused("That belongs to another battle's post-battle sequence.")
    return Actor(
        battle=battle, gang_id=gang_id, fighter_id=fighter_id,
        already_acted=run.sequence.already_acted(gang_id),
    )


def record_action(run: PostBattleRun, result: RuleResult) -> None:
    """Bookkeeping of a post-battle action: the fighter has made its one action (PB-5.0)."""
    if not isinstance(result, ActionResult):
        raise TypeError(f"{type(result).__name__} is not a post-battle action result")
    run.sequence.record_action_result(result)


# =========================================================================== quotes in the ledger


async def live_actions(
    tx: Transaction, campaign_id: str, battle_id: str
) -> list[tuple[ActionRecord, list[LedgerEvent]]]:
    """The battle's actions that stand (neither undone nor undos), newest first, with events.

    A check made just before rolling reads them in the transaction that rolls, so two
    requests arriving together cannot both see "not rolled yet"."""
    actions = await tx.list_actions(campaign_id, battle_id=battle_id, limit=500)
    if not any(_stands(a) for a in actions):
        return []
    return _standing(actions, await tx.battle_events(campaign_id, battle_id))


def _stands(action: ActionRecord) -> bool:
    return action.undone_by is None and action.undoes is None


def _standing(
    actions: Sequence[ActionRecord], events: Sequence[LedgerEvent]
) -> list[tuple[ActionRecord, list[LedgerEvent]]]:
    by_action: dict[int, list[LedgerEvent]] = {}
    for event in events:
        if event.action_id is not None:
            by_action.setdefault(event.action_id, []).append(event)
    return [(action, by_action.get(action.id, [])) for action in actions if _stands(action)]


async def stored_quote(
    tx: Transaction, campaign_id: str, battle_id: str, quote_title: str, decision_title: str
) -> int | None:
    """The value rolled for a quote that is still waiting for its decision, if any.

    A Medical Escort's cost and a repair's die are rolled and stored before the
    player decides; asking again must show that roll, not roll another. The
    ledger is the record: the latest quote of this battle (not undone) with no
    decision (not undone) after it.
    """
    live = await live_actions(tx, campaign_id, battle_id)
    return _quote(live, quote_title, decision_title)


def no_quote_yet(
    campaign_id: str, battle_id: str, quote_title: str, decision_title: str, refusal: str
) -> Check:
    """An ``act`` check refusing with ``refusal`` when the quote was rolled meanwhile
    (the same request sent twice at once must roll the price once)."""

    async def check(tx: Transaction, _run: PostBattleRun) -> None:
        live = await live_actions(tx, campaign_id, battle_id)
        if _quote(live, quote_title, decision_title) is not None:
            raise Refused(refusal)

    return check


def _quote(
    live: Sequence[tuple[ActionRecord, list[LedgerEvent]]], quote_title: str, decision_title: str
) -> int | None:
    for action, events in live:
        if action.title == decision_title:
            return None
        if action.title == quote_title:
            rolls = [e.total for e in events if e.kind == "roll" and e.total is not None]
            return rolls[-1] if rolls else None
    return None


async def rolled_in(tx: Transaction, campaign_id: str, battle_id: str, purpose: str) -> bool:
    """Whether a standing action of this battle already rolled dice for ``purpose``."""
    return _rolled(await live_actions(tx, campaign_id, battle_id), purpose)


def _rolled(live: Sequence[tuple[ActionRecord, list[LedgerEvent]]], purpose: str) -> bool:
    return any(event.kind == "roll" and event.purpose == purpose
               for _action, events in live for event in events)


async def stored_or_refused(s: Scope, key: str, model_type: type[M], gone: str) -> M:
    """The stored state a button's custom id names, or the refusal ``gone`` once it is no
    more (a cancelled run, a question answered and cleared)."""
    found = await s.tx.load_sequence(s.campaign.id, key, model_type)
    if found is None:
        raise Refused(gone)
    return found


# =========================================================================== Pay / Don't pay


class DecisionKind(StrEnum):
    ESCORT = "e"  # Medical Escort: the value is the rolled cost
    REPAIRS = "r"  # Negotiate Repairs: the value is the rolled D6


@route("pay", Choice("kind", *(k.value for k in DecisionKind)), Id("campaign"), Id("battle"),
       Id("actor"), Id("target"), Int("value", 3), Flag("pay"))
async def decide(click: Click, kind: str, campaign: str, battle: str, actor: str, target: str,
                 value: int, pay: bool) -> None:
    """Pay or refuse a rolled Medical Escort cost or repair price; all state in the custom id."""
    interaction = click.interaction
    call = Call.of(interaction)
    async with call.read_in(campaign) as s:
        run = await stored_or_refused(s, run_key(battle), PostBattleRun,
                                      "That post-battle sequence no longer exists.")
        world = await s.tx.load_world(s.campaign.id, run.gang_ids)
        gang, fighter = world.find_fighter(actor)
        s.require_control(gang)
        stored_battle = await s.tx.get_battle(s.campaign.id, run.battle_id)
    found, ruleset = s.campaign, ruleset_for(s.campaign)
    await interaction.response.defer()
    escort = DecisionKind(kind) is DecisionKind.ESCORT

    def compute(world: World, run: PostBattleRun, roller: Roller) -> RuleResult:
        acting = actor_for(run, stored_battle, gang.id, fighter.id)
        if escort:
            return medical_escort_treat(world, acting, target, roller, ruleset, cost=value,
                                        pay=pay)
        return negotiate_repairs(world, acting, target, die=value, pay=pay)

    done = await act_in_stage(
        interaction, campaign=found, gang=gang, stages=POST_BATTLE_ACTIONS,
        compute=compute, bookkeeping=record_action,
    )
    decided = "paid" if pay else "did not pay"
    message = interaction.message
    before = message.content if message is not None else ""
    text = "\n".join([before, f"**{user_name(interaction)} {decided}.**", *done.lines])
    await interaction.edit_original_response(content=clip(text, MESSAGE_MAX), view=None)


def decision_view(
    kind: DecisionKind,
    campaign_id: str,
    battle_id: str,
    actor_id: str,
    target_id: str,
    value: int,
    *,
    affordable: bool,
) -> discord.ui.View:
    """Pay (disabled when the Stash cannot cover it) and Don't pay."""
    ids = (kind.value, campaign_id, battle_id, actor_id, target_id, value)
    escort = kind is DecisionKind.ESCORT
    return view(
        button("pay", *ids, True, label="Pay" if escort else "Pay for repairs",
               style=discord.ButtonStyle.success, disabled=not affordable),
        button("pay", *ids, False, label="Don't pay" if escort else "Leave it",
               style=discord.ButtonStyle.danger),
    )


def user_name(interaction: discord.Interaction[Any]) -> str:
    """The interacting user's display name, escaped, for messages."""
    return safe(getattr(interaction.user, "display_name", None) or str(interaction.user), 60)


MESSAGE_MAX = 1900


# =========================================================================== agreements


class AgreementStatus(StrEnum):
    OPEN = "open"
    DONE = "done"
    DECLINED = "declined"


class Agreement(BaseModel):
    """A question that the players of some gangs (and maybe the Arbitrator) must agree to."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(min_length=1, max_length=64)
    kind: str = Field(pattern=r"^[a-z][a-z-]{0,15}$")
    campaign_id: str
    question: str = Field(max_length=1500)
    # The gangs whose players must agree, by id, with their names for the message.
    gang_names: dict[str, str]
    needs_arbitrator: bool = False
    agreed: list[str] = Field(default_factory=list)
    arbitrator_agreed: bool = False
    status: AgreementStatus = AgreementStatus.OPEN
    proposed_by: int
    # What the registered handler needs (ids, amounts), as the cog chose.
    details: dict[str, str | int | None] = Field(default_factory=dict)
    outcome: str = ""

    @property
    def key(self) -> str:
        return agreement_key(self.id)

    @property
    def complete(self) -> bool:
        everyone = all(gang_id in self.agreed for gang_id in self.gang_names)
        return everyone and (self.arbitrator_agreed or not self.needs_arbitrator)

    def waiting_for(self) -> list[str]:
        names = [safe(name) for gang_id, name in self.gang_names.items()
                 if gang_id not in self.agreed]
        if self.needs_arbitrator and not self.arbitrator_agreed:
            names.append("an Arbitrator")
        return names

    def text(self) -> str:
        agreed = [safe(self.gang_names[g]) for g in self.agreed if g in self.gang_names]
        if self.needs_arbitrator and self.arbitrator_agreed:
            agreed.append("an Arbitrator")
        lines = [self.question]
        lines.append(f"Agreed: {', '.join(agreed) or 'nobody yet'}.")
        if self.status is AgreementStatus.OPEN:
            lines.append(f"Waiting for: {', '.join(self.waiting_for()) or 'nobody'}.")
        elif self.status is AgreementStatus.DECLINED:
            lines.append(f"**Declined.** {self.outcome}")
        else:
            lines.append(f"**Agreed by all.** {self.outcome}")
        return clip("\n".join(lines), MESSAGE_MAX)


def agreement_key(agreement_id: str) -> str:
    return f"agreement:{agreement_id}"


@dataclass(frozen=True)
class AgreementOutcome:
    """What a carried-out agreement says in its message (and optionally posts as lines)."""

    summary: str
    lines: Sequence[str] = ()


AgreementHandler = Callable[[Interaction, Agreement], Awaitable[AgreementOutcome]]
_HANDLERS: dict[str, AgreementHandler] = {}


def register_agreement(kind: str, handler: AgreementHandler) -> None:
    """Make ``handler(interaction, agreement)`` carry out ``kind`` once everyone agreed."""
    _HANDLERS[kind] = handler


def unregister_agreement(kind: str) -> None:
    _HANDLERS.pop(kind, None)


def new_agreement(
    kind: str,
    campaign_id: str,
    question: str,
    gangs: Sequence[Gang],
    *,
    proposed_by: int,
    needs_arbitrator: bool = False,
    details: dict[str, str | int | None] | None = None,
) -> Agreement:
    return Agreement(
        id=new_id(), kind=kind, campaign_id=campaign_id, question=clip(question, 1500),
        gang_names={g.id: g.name for g in gangs}, needs_arbitrator=needs_arbitrator,
        proposed_by=proposed_by, details=details or {},
    )


def agree_as(
    agreement: Agreement, campaign: Campaign, gangs: Sequence[Gang], interaction: Interaction
) -> list[str]:
    """Record the agreement of whoever is interacting: their own gangs, and the Arbitrator's.

    Returns what was newly agreed (gang names, "the Arbitrator"); refuses
    someone who has no say.
    """
    user = str(interaction.user.id)
    newly: list[str] = []
    for gang in gangs:
        concerned = gang.id in agreement.gang_names and gang.id not in agreement.agreed
        if concerned and gang.owner == user:
            agreement.agreed = [*agreement.agreed, gang.id]
            newly.append(gang.name)
    arbitrator = Call.of(interaction).actor.is_arbitrator(campaign)
    if agreement.needs_arbitrator and not agreement.arbitrator_agreed and arbitrator:
        agreement.arbitrator_agreed = True
        newly.append("the Arbitrator")
    return newly


def has_say(
    agreement: Agreement, campaign: Campaign, gangs: Sequence[Gang], interaction: Interaction
) -> bool:
    user = str(interaction.user.id)
    owns = any(g.id in agreement.gang_names and g.owner == user for g in gangs)
    return owns or Call.of(interaction).actor.is_arbitrator(campaign)


@route("agree", Id("campaign"), Id("agreement"), Choice("choice", "yes", "no"))
async def answer_agreement(click: Click, campaign: str, agreement: str, choice: str) -> None:
    """Agree or decline; the state is the stored :class:`Agreement` the custom id names."""
    interaction = click.interaction
    call = Call.of(interaction)
    async with call.write_in(campaign) as s:
        asked = await stored_or_refused(s, agreement_key(agreement), Agreement,
                                        "That question no longer exists.")
        if asked.status is not AgreementStatus.OPEN:
            raise Refused(f"That question is closed ({asked.status.value}).")
        gangs = await s.tx.list_gangs(s.campaign.id)
        if not has_say(asked, s.campaign, gangs, interaction):
            raise Refused("Only the players of the gangs concerned, or an Arbitrator, can "
                          "answer this.")
        if choice == "no":
            asked.status = AgreementStatus.DECLINED
            asked.outcome = f"{user_name(interaction)} declined; nothing was changed."
        elif not agree_as(asked, s.campaign, gangs, interaction) and not asked.complete:
            raise Refused(_nothing_to_agree(asked, gangs, interaction))
        await s.tx.save_sequence(s.campaign.id, asked.key, asked)
    await interaction.response.defer()
    if asked.status is AgreementStatus.OPEN and asked.complete:
        await carry_out(interaction, asked)
        return
    shown = agreement_view(asked) if asked.status is AgreementStatus.OPEN else None
    await interaction.edit_original_response(content=asked.text(), view=shown)


def _nothing_to_agree(
    agreement: Agreement, gangs: Sequence[Gang], interaction: discord.Interaction[Any]
) -> str:
    user = str(interaction.user.id)
    if any(g.id in agreement.gang_names and g.owner == user for g in gangs):
        return f"You have already agreed; waiting for {', '.join(agreement.waiting_for())}."
    return ("The players answer this for their own gangs. An Arbitrator can act for everyone "
            "by running the command themselves.")


async def carry_out(interaction: Interaction, agreement: Agreement) -> AgreementOutcome:
    """Everyone agreed: run the registered handler, then close the question.

    A handler that refuses (the captive was traded meanwhile, the stage moved
    on) leaves the question open, so it can be tried again or declined.
    """
    handler = _HANDLERS.get(agreement.kind)
    if handler is None:
        raise Refused("This question no longer does anything; run the command again.")
    call = Call.of(interaction)
    storage, guild_id = call.storage, call.guild_id
    # The last "yes" clicked twice at once passes the check in _answer twice: only the
    # first carries it out; the others find it done (read again under the lock).
    async with _carrying((guild_id, agreement.key)):
        stored = await storage.read(guild_id).load_sequence(agreement.campaign_id,
                                                            agreement.key, Agreement)
        if stored is not None and stored.status is not AgreementStatus.OPEN:
            await interaction.edit_original_response(content=stored.text(), view=None)
            return AgreementOutcome(summary=stored.outcome)
        outcome = await handler(interaction, agreement)
        agreement.status = AgreementStatus.DONE
        agreement.outcome = outcome.summary
        await storage.write(guild_id).save_sequence(agreement.campaign_id, agreement.key, agreement)
    await interaction.edit_original_response(content=agreement.text(), view=None)
    return outcome


_carrying: ServerLocks[tuple[int, str]] = ServerLocks()


def agreement_view(agreement: Agreement) -> discord.ui.View:
    ids = (agreement.campaign_id, agreement.id)
    return view(
        button("agree", *ids, "yes", label="Agree", style=discord.ButtonStyle.success),
        button("agree", *ids, "no", label="Decline"),
    )
