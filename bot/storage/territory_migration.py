"""The Python step of migration 0007: stored Territories regain what their template does.

Before 0007 the territories table kept a Territory's name, income text and
Boon text only, so a Territory added from its rule set's template forgot
what the data says its income and Boons do: the Rogue Doc Shop paid every
gang, and no Boon could be applied by the bot. This step gives each stored
Territory the rule fields (``income_only_for``, ``income_max_dice``,
``income_double_injures``, ``boon_effects``) of the template of the same
name in its campaign's rule data set. A Territory named by hand after no
template is left as it always behaved: income for every gang, Boons as text.

It uses the SQL of schema version 7, never the current codec, so it keeps
working when later migrations change the tables.
"""

from __future__ import annotations

import json
import logging

import aiosqlite

from rules.data import available_rulesets, load_ruleset
from rules.errors import RulesError
from rules.models import Territory
from rules.names import name_key

log = logging.getLogger(__name__)

_UPDATE = (
    "UPDATE territories SET income_only_for = ?, income_max_dice = ?,"
    " income_double_injures = ?, boon_effects = ? WHERE pk = ?"
)


async def restore_territory_rules(db: aiosqlite.Connection) -> None:
    cursor = await db.execute(
        "SELECT t.pk, t.name_key, c.ruleset FROM territories t"
        " JOIN campaigns c ON c.pk = t.campaign_pk"
    )
    templates: dict[str, dict[str, Territory]] = {}
    for pk, key, ruleset in await cursor.fetchall():
        if ruleset not in templates:
            templates[ruleset] = _templates(ruleset)
        template = templates[ruleset].get(key)
        if template is None:
            continue
        await db.execute(_UPDATE, (
            template.income_only_for.value if template.income_only_for else None,
            template.income_max_dice, int(template.income_double_injures),
            json.dumps([b.model_dump(mode="json") for b in template.boon_effects]), pk,
        ))
        log.info("territory %s: income and Boons as its template %r says", pk, template.name)


def _templates(ruleset: str) -> dict[str, Territory]:
    """The Territory templates of one shipped rule data set, by name key."""
    if ruleset not in available_rulesets():
        return {}
    try:
        return {name_key(t.name): t for t in load_ruleset(ruleset).territories}
    except (RulesError, OSError, ValueError):
        log.warning("rule data set %r could not be read; its Territories are left as they are",
                    ruleset)
        return {}
