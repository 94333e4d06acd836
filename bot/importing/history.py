"""Imported post-battle sequences become history: never live, never drawn anywhere.

A campaign file's sequence states name channels, threads and messages of the
server they were played on (or of any server, if the file was edited), and a
live run acts on them: a cancel rewrites its messages and posts in its
channel. So a run comes in as a record of what happened only:

- in progress (reporting or in its steps): **cancelled**, as an Arbitrator's
  cancel leaves it (what it stored stays; the battle may be started again);
- finished: finished, with its deferred sub-steps closed (nothing can act in
  it again) and its battle report counted as posted where it was made;
- every channel, thread and message id is dropped, and the dice seeds come
  from nowhere but this server (a file's are never read).

Other sequences (open questions such as a captive trade) are not imported:
their buttons stayed on the other server.
"""

from __future__ import annotations

from pydantic import ValidationError

from bot.battle.state import RUN_KEY_PREFIX, Phase, PostBattleRun
from bot.storage.exporting import public_state
from bot.storage.records import ExportedSequence
from bot.storage.sequences import model_name
from rules.errors import InvalidRequest

RUN_MODEL = model_name(PostBattleRun)
# report_message_id of a finished run whose report belongs to another server: not None,
# so the bot never posts that report here (a finished run without one owes it).
REPORT_POSTED_ELSEWHERE = 0


def as_history(sequence: ExportedSequence, campaign_id: str) -> ExportedSequence | None:
    """The history copy of a post-battle run (ids already fresh); None for anything else."""
    if sequence.model != RUN_MODEL or not sequence.key.startswith(RUN_KEY_PREFIX):
        return None
    try:
        # A file's seeds are never used: the run gets fresh ones it will never roll with.
        run = PostBattleRun.model_validate(public_state(sequence.state))
    except ValidationError as error:
        raise InvalidRequest(
            "That campaign export is damaged and nothing was imported: the post-battle "
            f"sequence {sequence.key[:80]} cannot be read ({error.error_count()} errors)."
        ) from None
    if run.key != sequence.key or run.battle_id != sequence.battle_id:
        raise InvalidRequest(
            "That campaign export is damaged and nothing was imported: the post-battle "
            f"sequence {sequence.key[:80]} names another battle."
        )
    if run.in_progress:
        run.phase = Phase.CANCELLED
        run.cancelled_by = None
    run.campaign_id = campaign_id
    run.channel_id = 0
    run.thread_id = None
    run.report_channel_id = None
    run.report_message_id = REPORT_POSTED_ELSEWHERE if run.phase is Phase.FINISHED else None
    for report in run.reports.values():
        report.message_id = None
    for record in run.stages:
        record.message_ids = []
    run.sequence.reopened = {}
    run.sequence.deferrals_closed = list(run.sequence.gang_ids)
    return sequence.model_copy(update={"state": run.model_dump(mode="json"), "revision": 1})
