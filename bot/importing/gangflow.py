"""``/gang import``: read the file in the import worker, stage it, store it on Confirm.

The file is read (decoded, parsed, checked against ``rules.limits``)
before the write transaction opens and off the event loop, in the import
worker's child process: a large file must neither stall other servers'
commands nor hold the database's write lock. Staging then checks that the
campaign's rules did not change meanwhile, and plans the import in a worker
thread (inside the transaction: the plan depends on the campaign's gangs as
stored). The Confirm has the staged import validated in the child too.

Both steps re-check who may do it: time passes between the question and the
button, and the gang may have changed hands or been edited meanwhile (then
the Confirm is refused and the player asked to look again).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.call import Actor
from bot.importing.diff import fingerprint
from bot.importing.jobs import answer_staged, read_gang, read_staged
from bot.importing.parsed import ParsedGang
from bot.importing.plan import StagedGangImport, plan_import
from bot.importing.questions import unanswered
from bot.importing.staged import ImportGone, askers_state, staging_campaign
from bot.importing.worker import import_worker
from bot.render import safe
from bot.storage import Campaign, Transaction, new_id
from bot.ui.confirm import Confirmed
from rules.errors import InvalidRequest, NotFound
from rules.models import FighterCategory, Gang
from rules.names import name_key

COMMAND = "/gang import"


async def read(
    data: bytes, campaign: Campaign, *, owner: str, categories: str | None = None
) -> ParsedGang:
    """The gang in ``data`` as ``campaign`` would import it, read in the import worker.

    A fighter type whose category neither the rule data, the file nor ``categories``
    gives, and an item nothing gives a kind, come back as questions for the preview."""
    given = category_answers(categories)
    return await import_worker.run(read_gang, data, campaign, owner, given)


def category_answers(text: str | None) -> dict[str, FighterCategory]:
    """``Cult Alpha=Leader; Acolyte=Ganger`` as {name key: category}; refuses what it cannot
    read, naming it."""
    answers: dict[str, FighterCategory] = {}
    for part in (text or "").replace("\n", ";").split(";"):
        if not part.strip():
            continue
        fighter_type, sep, category = part.partition("=")
        wanted = " ".join(category.split()).casefold()
        found = next((c for c in FighterCategory if c.value.casefold() == wanted), None)
        if not sep or not fighter_type.strip() or found is None:
            raise InvalidRequest(
                f"'{part.strip()[:60]}' is not read as type=category: write, for example, "
                "`Cult Alpha=Leader; Neophyte Hybrid=Ganger`."
            )
        answers[name_key(fighter_type)] = found
    return answers


async def stage(
    tx: Transaction,
    campaign: Campaign,
    parsed: ParsedGang,
    actor: Actor,
    *,
    read_for: Campaign,
    rename: str | None,
) -> tuple[str, StagedGangImport, Gang | None]:
    """Plan and keep the import of ``parsed`` (read for ``read_for``, the campaign as it was
    before the transaction); returns (token for the button, plan, gang it updates)."""
    if (campaign.id, campaign.settings.ruleset, campaign.trading_post) != (
        read_for.id, read_for.settings.ruleset, read_for.trading_post
    ):
        raise InvalidRequest(
            f"{campaign.name}'s rule set or Trading Post changed while the file was read; "
            "nothing was imported. Run /gang import again."
        )
    gangs = await tx.list_gangs(campaign.id)
    existing, known = await _existing(tx, campaign, parsed, gangs)
    if existing is not None:
        actor.require_control(campaign, existing)
    # Copying and merging a gang at its bounds takes a good fraction of a second.
    staged = await asyncio.to_thread(
        plan_import, parsed, campaign_id=campaign.id, gangs=gangs, existing=existing,
        known_fighters=known, rename=rename, make_id=new_id, now=datetime.now(UTC),
    )
    token = new_id()
    await tx.stage_import(campaign.id, token, actor.ledger_id, staged)
    return token, staged, existing


async def _existing(
    tx: Transaction, campaign: Campaign, parsed: ParsedGang, gangs: list[Gang]
) -> tuple[Gang | None, dict[str, str]]:
    """The gang an earlier import of the same source became, with its fighter keys."""
    if parsed.external_id is None:
        return None, {}
    by_id = {g.id: g for g in gangs}
    link = await tx.find_gang_import(campaign.id, parsed.source, parsed.external_id)
    if link is not None and link.gang_id in by_id:
        return by_id[link.gang_id], link.fighter_ids
    if parsed.source == "munda":
        # A gang file of this very campaign: it restores the gang it came from.
        origin_campaign, _, origin_gang = parsed.external_id.partition("/")
        if origin_campaign == campaign.id and origin_gang in by_id:
            gang = by_id[origin_gang]
            return gang, {f.id: f.id for f in gang.fighters}
    return None, {}


async def confirm(
    tx: Transaction, campaign_id: str, token: str, actor: Actor, *, mention: str
) -> Confirmed:
    """The Confirm button: store the staged gang (new or updated) and its link, all at once."""
    try:
        campaign = await staging_campaign(tx, campaign_id)
        state = askers_state(await tx.take_staged_state(campaign_id, token), actor,
                             command=COMMAND, answer="confirm this import")
    except ImportGone as gone:
        return Confirmed(str(gone))
    # A gang at its bounds is a megabyte of JSON: one pydantic call would hold the GIL.
    staged = await import_worker.run(read_staged, state)
    if unanswered(staged.questions):
        # The button is disabled until then; an old message or a forged click is not.
        raise InvalidRequest("Answer every question of this import first; nothing was "
                             "imported.")
    label = staged.source_label
    if staged.update_of is None:
        if staged.gang.owner != actor.ledger_id:
            actor.require_arbitrator(campaign)
        saved = await tx.create_gang(
            campaign_id, staged.gang, actor=actor.ledger_id, title=f"Import from {label}"
        )
        verb = "imported"
    else:
        try:
            current = await tx.get_gang(campaign_id, staged.update_of)
        except NotFound:
            return Confirmed("That gang has been deleted since; nothing was imported.")
        actor.require_control(campaign, current)
        if fingerprint(current) != staged.stored_fingerprint:
            return Confirmed(
                f"**{safe(current.name)}** has changed since these differences were shown; "
                "nothing was imported. Run /gang import again to see the new ones."
            )
        saved = await tx.update_gang(
            campaign_id, staged.gang, actor=actor.ledger_id, title=f"Re-import from {label}"
        )
        verb = "updated"
    if staged.link is not None:
        await tx.save_gang_import(campaign_id, staged.link.model_copy(update={"gang_id": saved.id}))
    fighters = len(saved.fighters)
    summary = (
        f"**{safe(saved.name)}** ({safe(saved.house)}) {verb} from {safe(label)} in "
        f"{safe(campaign.name)}: {fighters} {'fighter' if fighters == 1 else 'fighters'}, "
        f"Gang Rating {saved.rating}, {saved.credits} credits."
    )
    return Confirmed(
        f"Done. {summary}",
        announcement=f"{mention}: {summary} Owner: <@{saved.owner}>.",
    )


async def answer(
    tx: Transaction, campaign_id: str, token: str, actor: Actor, index: int, value: str
) -> tuple[Campaign, StagedGangImport, Gang | None]:
    """A select of the preview: keep ``value`` as the answer to question ``index`` of the
    staged import; returns what the preview shows again."""
    campaign = await staging_campaign(tx, campaign_id)
    state = askers_state(await tx.peek_staged_state(campaign_id, token), actor,
                         command=COMMAND, answer="answer this question")
    new_state, staged = await import_worker.run(answer_staged, state, index, value)
    await tx.restage_import(campaign_id, token, new_state)
    existing = None
    if staged.update_of is not None:
        try:
            existing = await tx.get_gang(campaign_id, staged.update_of)
        except NotFound:
            existing = None
    return campaign, staged, existing
