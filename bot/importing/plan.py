"""From a parsed gang to exactly what the Confirm button will store (pure).

A :class:`StagedGangImport` is computed when the player asks, shown to them,
and kept in storage (``Transaction.stage_import``) until they confirm; the
Confirm stores it as it is, after checking that the gang it updates has not
changed since (``fingerprint``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from pydantic import BaseModel, Field

from bot.importing.diff import fingerprint, merge, resolve_clashes
from bot.importing.parsed import ParsedGang
from bot.importing.questions import ImportQuestion
from bot.importing.report import ImportReport
from bot.storage import GangImportLink
from rules.errors import InvalidRequest
from rules.models import Gang
from rules.names import name_key


class StagedGangImport(BaseModel):
    campaign_id: str
    gang: Gang
    # The id of the stored gang this import updates; None: a new gang.
    update_of: str | None = None
    # fingerprint() of that stored gang when the player saw the differences.
    stored_fingerprint: str | None = None
    link: GangImportLink | None = None
    source_label: str
    report: ImportReport = Field(default_factory=ImportReport)
    declared_rating: int | None = None
    # Asked in the preview; Confirm waits until each has its answer (set on ``gang``).
    questions: list[ImportQuestion] = Field(default_factory=list)


def plan_import(
    parsed: ParsedGang,
    *,
    campaign_id: str,
    gangs: list[Gang],
    existing: Gang | None,
    known_fighters: dict[str, str],
    rename: str | None,
    make_id: Callable[[], str],
    now: datetime,
) -> StagedGangImport:
    """What to store: ``parsed`` as a new gang, or merged into ``existing``.

    ``gangs`` are the campaign's gangs (``existing`` among them, if any);
    ``known_fighters`` is the source key -> fighter id map of the last import.
    """
    # A copy: the caller's parse result stays as it was.
    parsed = parsed.model_copy(deep=True)
    report = parsed.report
    if rename is not None:
        parsed.gang.name = rename
    others = [g for g in gangs if existing is None or g.id != existing.id]
    clash = next((g for g in others if name_key(g.name) == name_key(parsed.gang.name)), None)
    if clash is not None:
        raise InvalidRequest(
            f"There is already a gang called '{clash.name}' in this campaign; import this one "
            "with the name option to call it something else."
        )
    if existing is None:
        gang = parsed.gang
        keys = {key: fighter_id for fighter_id, key in parsed.fighter_keys.items()}
    else:
        gang, keys = merge(existing, parsed, known_fighters, make_id)
    resolve_clashes(gang, others, report)
    link = None
    if parsed.external_id is not None:
        link = GangImportLink(
            source=parsed.source, external_id=parsed.external_id, gang_id=gang.id,
            fighter_ids=keys, imported_at=now,
        )
    return StagedGangImport(
        campaign_id=campaign_id,
        gang=gang,
        update_of=existing.id if existing else None,
        stored_fingerprint=fingerprint(existing) if existing else None,
        link=link,
        source_label=parsed.source_label,
        report=report,
        declared_rating=parsed.declared_rating,
        questions=parsed.questions,
    )
