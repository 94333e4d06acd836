"""Fresh ids for an imported campaign: every id minted anew, every reference rewritten.

A campaign file is untrusted input. Ids from it could name things of a
campaign already on this server (a copy of a campaign next to its original)
or be chosen to collide with them, so nothing it holds keeps its id: the
campaign, gangs, fighters, vehicles, items, territories, battles, post-battle
sequences, and the ids its ledger names (things long gone included) each get
a new one.

One map from old id to new serves every kind: the same old string becomes
the same new id wherever it appears, so every reference stays consistent by
construction, whatever kind of thing it names. Typed fields are rewritten
where they are known to hold ids; the free-form parts (sequence states and
the before/after values of ledger changes) are rewritten wherever a string
or a key equals a known id. Pure and synchronous: a large document is
re-keyed off the event loop by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from bot.storage.codec import new_id
from bot.storage.records import (
    CampaignDocument,
    ExportedSequence,
    GangImportLink,
    LedgerEvent,
)
from rules.models import Battle, Fighter, Gang, Item, Territory, Vehicle

# "equipment[ab12].cost": ids in a change's path sit between brackets.
_PATH_ID = re.compile(r"\[([^\[\]]+)\]")


class IdMap:
    """Old id -> fresh id; an id seen again gets the id it got the first time."""

    def __init__(self, minted: Callable[[], str] = new_id) -> None:
        self._minted = minted
        self._fresh: dict[str, str] = {}
        self._used: set[str] = set()

    def __call__(self, old: str) -> str:
        fresh = self._fresh.get(old)
        if fresh is None:
            fresh = self._minted()
            while fresh in self._used or fresh in self._fresh:
                fresh = self._minted()
            self._fresh[old] = fresh
            self._used.add(fresh)
        return fresh

    def pin(self, old: str, fresh: str) -> None:
        """Map ``old`` to a fresh id chosen by the caller (the new campaign's)."""
        self._fresh[old] = fresh
        self._used.add(fresh)

    def optional(self, old: str | None) -> str | None:
        return None if old is None else self(old)

    def known(self, value: str) -> str:
        """``value``'s new id if it is an old id, else ``value`` itself."""
        return self._fresh.get(value, value)

    def deep(self, value: Any) -> Any:
        """A JSON value with every string and key that is an old id replaced."""
        if isinstance(value, str):
            return self.known(value)
        if isinstance(value, list):
            return [self.deep(v) for v in value]
        if isinstance(value, dict):
            return {self.known(k): self.deep(v) for k, v in value.items()}
        return value

    def path(self, path: str) -> str:
        return _PATH_ID.sub(lambda m: f"[{self.known(m.group(1))}]", path)

    @property
    def old_ids(self) -> set[str]:
        return set(self._fresh)


def rekey(
    document: CampaignDocument, campaign_id: str, ids: IdMap | None = None
) -> CampaignDocument:
    """``document`` with ``campaign_id`` for its campaign and fresh ids for all it holds."""
    ids = ids or IdMap()
    ids.pin(document.campaign.id, campaign_id)
    # Mint the ids of what the campaign holds first, so the free-form parts below
    # (which rewrite only known ids) see all of them, including the ids of sequences.
    for sequence in document.sequences:
        for found in _state_ids(sequence.state):
            ids(found)
    gangs = [_gang(g, ids) for g in document.gangs]
    territories = [_territory(t, ids) for t in document.territories]
    battles = [_battle(b, ids) for b in document.battles]
    ledger = [_event(e, ids) for e in document.ledger]
    links = [_link(link, ids) for link in document.gang_imports]
    # Every id is minted by now: the free-form parts can be rewritten.
    return document.model_copy(update={
        "campaign": document.campaign.model_copy(update={"id": campaign_id}),
        "gangs": gangs,
        "territories": territories,
        "battles": battles,
        "sequences": [_sequence(s, ids) for s in document.sequences],
        "ledger": [_event_values(e, ids) for e in ledger],
        "gang_imports": links,
    })


def _state_ids(value: Any) -> Iterable[str]:
    """The values of the ``id`` keys of a sequence state (its own id, a sequence's...)."""
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            found = current.get("id")
            if isinstance(found, str):
                yield found
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)


def _item(item: Item, ids: IdMap) -> Item:
    return item.model_copy(update={
        "id": ids(item.id), "boon_of_sequence": ids.optional(item.boon_of_sequence),
    })


def _fighter(fighter: Fighter, ids: IdMap) -> Fighter:
    return fighter.model_copy(update={
        "id": ids(fighter.id),
        "captured_by": ids.optional(fighter.captured_by),
        "equipment": [_item(i, ids) for i in fighter.equipment],
    })


def _vehicle(vehicle: Vehicle, ids: IdMap) -> Vehicle:
    return vehicle.model_copy(update={
        "id": ids(vehicle.id),
        "crew_id": ids.optional(vehicle.crew_id),
        "upgrades": [_item(i, ids) for i in vehicle.upgrades],
        "equipment": [_item(i, ids) for i in vehicle.equipment],
    })


def _gang(gang: Gang, ids: IdMap) -> Gang:
    return gang.model_copy(update={
        "id": ids(gang.id),
        "stash": [_item(i, ids) for i in gang.stash],
        "stash_vehicles": [_vehicle(v, ids) for v in gang.stash_vehicles],
        "fighters": [_fighter(f, ids) for f in gang.fighters],
        "vehicles": [_vehicle(v, ids) for v in gang.vehicles],
    })


def _territory(territory: Territory, ids: IdMap) -> Territory:
    return territory.model_copy(update={
        "id": ids(territory.id), "controller": ids.optional(territory.controller),
    })


def _battle(battle: Battle, ids: IdMap) -> Battle:
    return battle.model_copy(update={
        "id": ids(battle.id),
        "gang_ids": [ids(g) for g in battle.gang_ids],
        "winner": ids.optional(battle.winner),
        "staked_territory": ids.optional(battle.staked_territory),
        "fighters": [
            f.model_copy(update={"gang_id": ids(f.gang_id), "fighter_id": ids(f.fighter_id)})
            for f in battle.fighters
        ],
        "vehicles": [
            v.model_copy(update={"gang_id": ids(v.gang_id), "vehicle_id": ids(v.vehicle_id)})
            for v in battle.vehicles
        ],
        "gangs_with_models_left": [ids(g) for g in battle.gangs_with_models_left],
        "bottled_out": [ids(g) for g in battle.bottled_out],
        "enemies_out_of_action": {ids(g): n for g, n in battle.enemies_out_of_action.items()},
    })


def _event(event: LedgerEvent, ids: IdMap) -> LedgerEvent:
    return event.model_copy(update={
        "battle_id": ids.optional(event.battle_id),
        "subject_id": ids.optional(event.subject_id),
        "gang_id": ids.optional(event.gang_id),
    })


def _event_values(event: LedgerEvent, ids: IdMap) -> LedgerEvent:
    return event.model_copy(update={
        "path": None if event.path is None else ids.path(event.path),
        "before": ids.deep(event.before),
        "after": ids.deep(event.after),
    })


def _sequence(sequence: ExportedSequence, ids: IdMap) -> ExportedSequence:
    # "postbattle:<battle id>": every part of a key that is an id is rewritten.
    key = ":".join(ids.known(part) for part in sequence.key.split(":"))
    return sequence.model_copy(update={
        "key": key,
        "battle_id": ids.optional(sequence.battle_id),
        "state": ids.deep(sequence.state),
    })


def _link(link: GangImportLink, ids: IdMap) -> GangImportLink:
    return link.model_copy(update={
        "gang_id": ids(link.gang_id),
        "fighter_ids": {source: ids(f) for source, f in link.fighter_ids.items()},
    })
