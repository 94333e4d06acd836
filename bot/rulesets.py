"""The rule data set a campaign plays with, loaded once per process.

Campaigns name a shipped data set (``rules.data.available_rulesets()``);
players never give a path, since ``load_ruleset`` also reads folders. A
campaign's own rule data (``/campaign ruledata import``, docs/rule-data.md)
extends or overrides that set entry by entry. A campaign with its own
Trading Post (``/campaign tradingpost import``) then plays with that table in
place of the set's own, replaced whole as ``rules.data`` replaces tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from bot.storage import Campaign, TradingPostEntry
from rules.data import available_rulesets, check_ruleset, load_ruleset
from rules.errors import InvalidRequest
from rules.models import DEFAULT_RULESET, Availability, Equipment, EquipmentKind, Rarity
from rules.ruledata import RuleData, apply_rule_data
from rules.ruledata_reader import check_exportable
from rules.ruleset import RuleSet

# Everything of an entry the rules read, as a hashable key for the cache.
_EntryKey = tuple[str, int, str, str, int | None, bool, bool]


def check_ruleset_name(name: str) -> str:
    known = available_rulesets()
    if name not in known:
        raise InvalidRequest(f"There is no rule data set called '{name[:50]}'; "
                             f"choose one of: {', '.join(known)}.")
    return name


@lru_cache(maxsize=16)
def _load(name: str) -> RuleSet:
    return load_ruleset(check_ruleset_name(name))


def warm_up() -> None:
    """Read the default set now: the shipped Necromunda content takes half a second to
    read, which no player's first command after a start should wait for."""
    _load(DEFAULT_RULESET)


def _key(entries: Sequence[TradingPostEntry]) -> tuple[_EntryKey, ...]:
    return tuple(
        (e.name, e.cost, e.kind.value, e.availability.rarity.value, e.availability.level,
         e.two_slots, e.grants_mounted)
        for e in entries
    )


@lru_cache(maxsize=64)
def _with_rule_data(name: str, rule_data: str | None) -> RuleSet:
    # Keyed by the stored text: new content is a new key, never a stale set.
    if rule_data is None:
        return _load(name)
    return apply_rule_data(_load(name), RuleData.model_validate_json(rule_data))


@lru_cache(maxsize=64)
def _with_trading_post(name: str, rule_data: str | None,
                       key: tuple[_EntryKey, ...]) -> RuleSet:
    # Keyed by content, not campaign id: an edited Trading Post is a new key,
    # so the cache can never hand out a stale table.
    items = [
        Equipment(
            name=item_name, cost=cost, kind=EquipmentKind(kind),
            availability=Availability(rarity=Rarity(rarity), level=level),
            two_slots=two_slots, grants_mounted=mounted,
        )
        for item_name, cost, kind, rarity, level, two_slots, mounted in key
    ]
    return _with_rule_data(name, rule_data).model_copy(update={"trading_post": items})


def ruleset_for(campaign: Campaign) -> RuleSet:
    """The campaign's rule set, with its own rule data and Trading Post when it has them
    (shared: read only)."""
    if campaign.trading_post is None:
        return _with_rule_data(campaign.settings.ruleset, campaign.rule_data)
    return _with_trading_post(campaign.settings.ruleset, campaign.rule_data,
                              _key(campaign.trading_post))


def check_rule_data(campaign: Campaign, rule_data: RuleData, label: str) -> None:
    """Refuse content that would break the campaign's rule set once laid over it, or make
    one whose export could not be imported again."""
    base = ruleset_for(campaign.model_copy(update={"rule_data": None, "trading_post": None}))
    merged = apply_rule_data(base, rule_data)
    check_ruleset(merged, label)
    check_exportable(merged, label)
