"""The rule data set a campaign plays with, loaded once per process.

Campaigns name a shipped data set (``rules.data.available_rulesets()``);
players never give a path, since ``load_ruleset`` also reads folders.
"""

from __future__ import annotations

from functools import lru_cache

from bot.storage import Campaign
from rules.data import available_rulesets, load_ruleset
from rules.errors import InvalidRequest
from rules.ruleset import RuleSet


def check_ruleset_name(name: str) -> str:
    known = available_rulesets()
    if name not in known:
        raise InvalidRequest(f"There is no rule data set called '{name[:50]}'; "
                             f"choose one of: {', '.join(known)}.")
    return name


@lru_cache(maxsize=16)
def _load(name: str) -> RuleSet:
    return load_ruleset(check_ruleset_name(name))


def ruleset_for(campaign: Campaign) -> RuleSet:
    return _load(campaign.settings.ruleset)
