"""The messages a run owes, as the outbox sends them, and where a delivered one is recorded.

"Owed": a message is owed once the decision behind it is stored, and stays owed (in
the outbox) until Discord has accepted it.

Every new message of a run (a report panel, a step's pages, an action's
lines, a notice, the battle report) is owed in the transaction that stores
the decision behind it and posted by the outbox (bot/outbox.py). The battle
report's row also names the pictures to attach (its link's ``pictures``). When
Discord accepts one, :func:`record_delivery` stores its id in the run with
ONE UPDATE of the stored document (no reload, no re-save); the revision it
bumps makes a click decided from the run before it decide again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.battle import render, views
from bot.battle.panel import gang_names, report_scope
from bot.battle.state import Phase, PostBattleRun, StageRecord, StageStatus, run_key
from bot.report_record import composed_report
from bot.rulesets import ruleset_for
from bot.scheduling import complete_battle
from bot.storage import Campaign, OutboxEntry, Transaction
from bot.storage.at_once import Statement
from bot.storage.sequences import set_in_state_statement
from bot.ui.components import Components
from bot.ui.report_pictures import ReportRecipe
from rules.world import World

if TYPE_CHECKING:
    from bot.outbox import Accepted

# The outbox link kind of a run's messages (bot/outbox.py calls the hooks of publish.py).
OUTBOX_KIND = "pb"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def thread_url(guild_id: int, run: PostBattleRun) -> str:
    return f"https://discord.com/channels/{guild_id}/{run.target_channel_id}"


def owed_key(run: PostBattleRun, *parts: object) -> str:
    # The sequence id is new each time a battle's run starts (a cancelled battle can be
    # started again), so the keys of two runs of one battle never meet.
    return ":".join(["pb", run.sequence.id, *(str(part) for part in parts)])


def _link(run: PostBattleRun, what: str, **more: object) -> dict[str, Any]:
    return {"kind": OUTBOX_KIND, "campaign": run.campaign_id, "battle": run.battle_id,
            "sequence": run.sequence.id, "what": what, **more}


def body(
    *, embed: discord.Embed | None = None, view: Components | None = None,
    content: str | None = None,
) -> dict[str, Any]:
    """A new message's JSON, as discord.py would send it; it never pings anyone."""
    made: dict[str, Any] = {"allowed_mentions": {"parse": []}}
    if content:
        made["content"] = content
    if embed is not None:
        made["embeds"] = [embed.to_dict()]
    if view is not None:
        made["components"] = view.to_components()
    return made


def same(made: dict[str, Any], sent: dict[str, Any]) -> bool:
    return bool(json.loads(json.dumps(made)) == sent)


def stage_view(
    run: PostBattleRun, record: StageRecord, names: dict[str, str]
) -> Components | None:
    if record.status is StageStatus.OPEN and run.phase is Phase.SEQUENCE:
        return views.stage_view(run, record, names)
    return None


def stage_bodies(run: PostBattleRun, record: StageRecord, world: World) -> list[dict[str, Any]]:
    names = gang_names(world)
    view = stage_view(run, record, names)
    return [body(embed=page, view=view if index == 0 else None)
            for index, page in enumerate(render.stage_pages(run, record, names))]


def panel_parts(
    campaign: Campaign, run: PostBattleRun, world: World, index: int
) -> tuple[discord.Embed, Components | None]:
    gang = world.gang(run.gang_ids[index])
    embed = render.report_embed(run, gang.id, gang.owner, gang_names(world),
                                gang.fighters, gang.vehicles)
    view = None
    if run.phase is Phase.REPORTING:
        view = views.report_view(report_scope(run, world, index, ruleset_for(campaign)))
    return embed, view


async def owe_stage(
    tx: Transaction, run: PostBattleRun, record: StageRecord, world: World,
    *, revision: int | None = None,
) -> bool:
    """Owe the pages of ``record`` not posted yet, in the caller's transaction.

    ``revision``: the run's revision once the caller saves it (a delivery of a run
    that has not moved since needs no redraw). True when a page turned out to be
    delivered already without its id in the run (the id is adopted here: the caller
    saves the run).
    """
    adopted = False
    for index, made in enumerate(stage_bodies(run, record, world)):
        if index < len(record.message_ids):
            continue
        entry = await tx.owe_unless_delivered(
            owed_key(run, "stage", record.number, index), run.target_channel_id, made,
            link=_link(run, "stage", stage=record.number, page=index, rev=revision),
        )
        if entry is None or entry.message_id is None:
            break  # the later pages wait for this one: their ids follow it in the list
        record.message_ids = [*record.message_ids, entry.message_id]
        adopted = True
    return adopted


async def owe_panels(
    tx: Transaction, campaign: Campaign, run: PostBattleRun, world: World,
    *, revision: int | None = None,
) -> bool:
    """Owe the report panels not posted yet; True when one was adopted (see owe_stage)."""
    adopted = False
    for gang_id, (key, payload, link) in panels_owed(campaign, run, world, revision).items():
        entry = await tx.owe_unless_delivered(key, run.target_channel_id, payload, link=link)
        if entry is not None and entry.message_id is not None:
            run.reports[gang_id].message_id, adopted = entry.message_id, True
    return adopted


def panels_owed(
    campaign: Campaign, run: PostBattleRun, world: World, revision: int | None
) -> dict[str, tuple[str, dict[str, Any], dict[str, Any]]]:
    """Per gang whose report panel is not posted yet: the panel's outbox key, its message
    and its link (to the run's target channel)."""
    owed: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {}
    for index, gang_id in enumerate(run.gang_ids):
        if run.reports[gang_id].message_id is not None:
            continue
        embed, view = panel_parts(campaign, run, world, index)
        owed[gang_id] = (owed_key(run, "panel", gang_id), body(embed=embed, view=view),
                         _link(run, "panel", gang=gang_id, rev=revision))
    return owed


async def owe_notice(tx: Transaction, run: PostBattleRun, name: str, text: str) -> None:
    """Owe a plain message in the run's channel (``name`` unique within the run)."""
    for index, page in enumerate(render.paginate_notice(text)):
        await tx.owe_message_unanswered(owed_key(run, "notice", name, index),
                                        run.target_channel_id, body(content=page))


async def owe_report(
    tx: Transaction, campaign: Campaign, run: PostBattleRun, world: World
) -> bool:
    """Owe the battle report (PB-7) to the report channel; where the battle began if that
    channel refuses it. True when it was delivered already (its id is adopted)."""
    battle = await tx.get_battle(campaign.id, run.battle_id)
    report = await composed_report(tx, campaign.id, world, battle)
    embed = render.final_report_embed(report, thread_url(tx.guild_id, run))
    target = campaign.report_channel_id or run.channel_id
    # What to attach, drawn when the outbox sends it (bot/ui/report_pictures.py).
    pictures = ReportRecipe.of(campaign.id, battle, report, world.gangs)
    entry = await tx.owe_unless_delivered(
        owed_key(run, "report"), target, body(embed=embed),
        link=_link(run, "report", pictures=pictures.model_dump(mode="json")),
        fallback_channel_id=run.channel_id if target != run.channel_id else None,
    )
    if entry is None or entry.message_id is None:
        return False
    run.report_channel_id = entry.delivered_channel_id
    run.report_message_id = entry.message_id
    return True


_Update = tuple[str, str, list[tuple[str, str | int]], dict[str, int]]


def _delivery_update(entry: OutboxEntry, accepted: Accepted) -> _Update | None:
    """Where a delivered message's id goes in its run: campaign, run key, the paths that
    must still hold (it is the run that owed it) and the numbers to set."""
    link = entry.link or {}
    campaign, key = str(link.get("campaign")), run_key(str(link.get("battle")))
    checks: list[tuple[str, str | int]] = [("$.sequence.id", str(link.get("sequence")))]
    what = link.get("what")
    if what == "stage":
        # A page past the end of the ids is not set (json_set leaves the array as it is).
        number, page = int(link["stage"]), int(link["page"])
        checks.append((f"$.stages[{number - 1}].number", number))
        values = {f"$.stages[{number - 1}].message_ids[{page}]": accepted.message_id}
    elif what == "panel":
        gang = str(link.get("gang"))
        checks.append((f'$.reports."{gang}".gang_id', gang))
        values = {f'$.reports."{gang}".message_id': accepted.message_id}
    elif what == "report":
        values = {"$.report_channel_id": accepted.channel_id,
                  "$.report_message_id": accepted.message_id}
    else:
        return None
    return campaign, key, checks, values


def _plain(entry: OutboxEntry) -> bool:
    """Whether the row's gang id (if any) is fit for a JSON path."""
    link = entry.link or {}
    return link.get("what") != "panel" or bool(_PLAIN_KEY.fullmatch(str(link.get("gang"))))


async def record_delivery(tx: Transaction, entry: OutboxEntry, accepted: Accepted) -> None:
    """In the transaction marking ``entry`` delivered: store its message id in the run,
    in one UPDATE of the stored run (only if it is still the run that owed it)."""
    link = entry.link or {}
    if link.get("what") == "report":
        # The report is the post-battle sequence's last word: its scheduled battle (and
        # Discord event) is over, in the transaction that records the report sent.
        await complete_battle(tx, str(link["campaign"]), str(link["battle"]))
    update = _delivery_update(entry, accepted)
    if update is None:
        return
    campaign, key, checks, values = update
    if not _plain(entry):  # the long way
        link = entry.link or {}
        await _record_panel(tx, campaign, key, str(link.get("gang")), accepted.message_id)
        return
    await tx.set_in_sequence(campaign, key, checks, values)


def delivery_statements(entry: OutboxEntry, accepted: Accepted) -> list[Statement] | None:
    """:func:`record_delivery` as statements of the one-trip write that marks ``entry``
    delivered; None when it needs the long way (a transaction)."""
    if not _plain(entry) or (entry.link or {}).get("what") == "report":
        return None
    update = _delivery_update(entry, accepted)
    if update is None:
        return []
    campaign, key, checks, values = update
    return [set_in_state_statement(entry.guild_id, campaign, key, checks, values)]


def delivery_statements_many(
    delivered: Sequence[tuple[OutboxEntry, Accepted]],
) -> tuple[list[Statement], list[list[int]]] | None:
    """:func:`delivery_statements` for several rows recorded in one write: one statement
    per run, setting every id the rows bring (PostgreSQL makes only one of two updates
    of one row in one statement), and for each row the index of its run's statement;
    None when a row needs the long way."""
    runs: dict[tuple[str, str], tuple[list[tuple[str, str | int]], dict[str, int]]] = {}
    of_each: list[list[int]] = []
    arrays: set[tuple[str, str, str]] = set()
    guild_id = delivered[0][0].guild_id
    for entry, accepted in delivered:
        if not _plain(entry) or (entry.link or {}).get("what") == "report":
            return None
        update = _delivery_update(entry, accepted)
        if update is None:
            of_each.append([])
            continue
        campaign, key, checks, values = update
        for path in values:
            if path.endswith("]"):
                # Two pages of one step: PostgreSQL's json_set checks each index against
                # the stored array, so the second would not be appended after the first.
                array = (campaign, key, path[:path.rindex("[")])
                if array in arrays:
                    return None
                arrays.add(array)
        run_checks, run_values = runs.setdefault((campaign, key), ([], {}))
        run_checks += [check for check in checks if check not in run_checks]
        run_values.update(values)
        of_each.append([list(runs).index((campaign, key))])
    statements = [set_in_state_statement(guild_id, campaign, key, checks, values)
                  for (campaign, key), (checks, values) in runs.items()]
    return statements, of_each


def recorded_revision(recorded: list[list[Any]] | None) -> int | None:
    """The run's revision once :func:`delivery_statements` stored a delivered message's id
    in it (the rows those statements returned); None when unknown (recorded the long
    way, or the run was not the one that owed it)."""
    if not recorded or not recorded[0]:
        return None
    return int(recorded[0][0][0])


async def _record_panel(
    tx: Transaction, campaign_id: str, key: str, gang_id: str, message_id: int
) -> None:
    run = await tx.load_sequence(campaign_id, key, PostBattleRun)
    if run is None or gang_id not in run.reports:
        return
    run.reports[gang_id].message_id = message_id
    await tx.save_sequence(campaign_id, key, run, battle_id=run.battle_id)
