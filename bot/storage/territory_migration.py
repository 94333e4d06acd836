"""The Python step of migration 0007: Territories made from a template regain their alignment.

Before 0007 the territories table had no column for a Territory's income
being for one alignment only (the Rogue Doc Shop pays Outlaws), so a
Territory added from its rule set's template forgot it, and its income went
to every gang. This step gives each stored Territory the restriction of the
template of the same name in its campaign's rule data set, where that
template has one. A Territory named by hand after no template is left
paying every gang, as it always did.

It uses the SQL of schema version 7, never the current codec, so it keeps
working when later migrations change the tables.
"""

from __future__ import annotations

import logging

import aiosqlite

from rules.data import available_rulesets, load_ruleset
from rules.errors import RulesError
from rules.names import name_key

log = logging.getLogger(__name__)


async def restore_alignments(db: aiosqlite.Connection) -> None:
    cursor = await db.execute(
        "SELECT t.pk, t.name_key, c.ruleset FROM territories t"
        " JOIN campaigns c ON c.pk = t.campaign_pk"
    )
    rows = await cursor.fetchall()
    restricted: dict[str, dict[str, str]] = {}
    for pk, key, ruleset in rows:
        if ruleset not in restricted:
            restricted[ruleset] = _restrictions(ruleset)
        alignment = restricted[ruleset].get(key)
        if alignment is not None:
            await db.execute("UPDATE territories SET income_only_for = ? WHERE pk = ?",
                             (alignment, pk))
            log.info("territory %s: income for %s only, as its template says", pk, alignment)


def _restrictions(ruleset: str) -> dict[str, str]:
    """Template name keys to the alignment their income is for, in one rule data set."""
    if ruleset not in available_rulesets():
        return {}
    try:
        templates = load_ruleset(ruleset).territories
    except (RulesError, OSError, ValueError):
        log.warning("rule data set %r could not be read; its Territories are left as they are",
                    ruleset)
        return {}
    return {name_key(t.name): t.income_only_for.value for t in templates
            if t.income_only_for is not None}
