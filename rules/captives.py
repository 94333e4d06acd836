"""Captives: who may fight, what a captor may do, and trading captives (PB-1.6 to PB-1.8).

Decisions where the texts are silent:

- A fighter is available for a battle when it is still on the roster and is
  neither Captured nor In Recovery; Convalescence does not keep it out of the
  next battle (REFERENCE: Definitions).
- :func:`captive_options` answers what the captive's status allows at any
  time. Selling, bounties and disposal are post-battle actions: a fighter of
  the captor makes them in a post-battle sequence (see ``rules.actions``).
  Because nothing records which battle took the captive, they are allowed in
  any later post-battle sequence of the captor once the rescue chance is past,
  not only in the sequence of that battle.
- Declining or failing a rescue is recorded once; recording it again is
  harmless. Meeting the captor again lets the owner choose another Rescue
  Mission, but it does not take back the captor's freedom to deal.
- A captive traded to a gang other than its owner changes captor, and its
  owner has not yet had a chance to rescue it from the new captor: the rescue
  chance starts again, so the new captor may at first only trade it back to
  the owner.
- In a trade each side can give credits, captives it holds, items from its
  Stash and Territories it controls. Each side pays from what it had before
  the trade (credits received in the same deal cannot fund it). Every captive
  in the deal, not only the main one, must be one its giver may trade to the
  other side.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from rules.errors import InsufficientCredits, InvalidRequest, NotEligible, NotFound
from rules.models import Alignment, Fighter, FighterStatus, Gang
from rules.world import RuleResult, Workspace, World


class CaptiveOption(StrEnum):
    """What a captor may do with a captive."""

    TRADE_TO_OWNER = "Trade to its owner"
    TRADE_TO_ANY_GANG = "Trade to any gang"
    SELL_TO_GUILDERS = "Sell to the Guilders"
    CLAIM_BOUNTY = "Claim a bounty"
    DISPOSE = "Dispose of the captive"


def fighter_available_for_battle(fighter: Fighter) -> bool:
    """Whether ``fighter`` may take part in a battle (PB-1.6: a Captive may not)."""
    return fighter.on_roster and fighter.status not in (
        FighterStatus.CAPTURED,
        FighterStatus.IN_RECOVERY,
    )


def find_captive(world: World, captive_id: str) -> tuple[Gang, Fighter]:
    """The owner and the fighter, refusing a fighter that is not a Captive."""
    owner, fighter = world.find_fighter(captive_id)
    if fighter.status is not FighterStatus.CAPTURED or fighter.captured_by is None:
        raise NotEligible(f"{fighter.name} of {owner.name} is not held captive.")
    return owner, fighter


def captive_options(world: World, captor_id: str, captive_id: str) -> list[CaptiveOption]:
    """Exactly what ``captor_id`` may do with ``captive_id`` now (PB-1.7)."""
    captor = world.gang(captor_id)
    owner, captive = find_captive(world, captive_id)
    if captive.captured_by != captor_id:
        raise NotEligible(f"{captor.name} does not hold {captive.name} captive.")
    options = [CaptiveOption.TRADE_TO_OWNER]
    if not captive.rescue_chance_given:
        return options
    options += [CaptiveOption.TRADE_TO_ANY_GANG, CaptiveOption.SELL_TO_GUILDERS]
    if captor.alignment is Alignment.LAW_ABIDING and owner.alignment is Alignment.OUTLAW:
        options.append(CaptiveOption.CLAIM_BOUNTY)
    if captor.alignment is Alignment.OUTLAW:
        options.append(CaptiveOption.DISPOSE)
    return options


def require_captive_option(
    world: World, captor_id: str, captive_id: str, option: CaptiveOption
) -> None:
    """Raise :class:`NotEligible`, saying why, unless ``option`` is open to the captor."""
    if option in captive_options(world, captor_id, captive_id):
        return
    captor = world.gang(captor_id)
    owner, captive = find_captive(world, captive_id)
    if not captive.rescue_chance_given:
        raise NotEligible(
            f"{owner.name} has not yet had its chance to rescue {captive.name}: "
            f"until it declines or fails a Rescue Mission, {captor.name} may only "
            f"trade {captive.name} back to {owner.name}."
        )
    if option is CaptiveOption.CLAIM_BOUNTY:
        if captor.alignment is not Alignment.LAW_ABIDING:
            raise NotEligible(f"Only a Law Abiding gang may claim a bounty; {captor.name} is not.")
        raise NotEligible(
            f"A bounty is only paid on a captive of an Outlaw gang; {owner.name} is Law Abiding."
        )
    if option is CaptiveOption.DISPOSE:
        raise NotEligible(f"Only an Outlaw gang may dispose of a captive; {captor.name} is not.")
    raise NotEligible(f"{captor.name} cannot do that with {captive.name} now.")


# --------------------------------------------------------------------------- rescue chance


class RescueChanceResult(RuleResult):
    captive_id: str
    captive_name: str
    owner_gang_id: str
    captor_gang_id: str
    # False when the chance had already been recorded.
    newly_given: bool


def record_rescue_declined(world: World, captive_id: str) -> RescueChanceResult:
    """The owner chose not to mount a Rescue Mission (PB-1.7)."""
    return _record_rescue_chance(world, captive_id, "declined a Rescue Mission for")


def record_rescue_failed(world: World, captive_id: str) -> RescueChanceResult:
    """The owner's Rescue Mission failed (PB-1.7)."""
    return _record_rescue_chance(world, captive_id, "failed its Rescue Mission for")


def _record_rescue_chance(world: World, captive_id: str, what: str) -> RescueChanceResult:
    ws = Workspace(world)
    owner, _ = find_captive(ws.world, captive_id)
    captive = owner.fighter(captive_id)
    captor_id = captive.captured_by or ""
    captor = ws.gang(captor_id)
    newly_given = not captive.rescue_chance_given
    captive.rescue_chance_given = True
    ws.note(f"{owner.name} {what} {captive.name}.")
    if newly_given:
        ws.note(
            f"{captor.name} may now sell {captive.name} to the Guilders or trade it to any "
            "gang, and claim a bounty or dispose of it if its alignment allows."
        )
    return ws.finish(
        RescueChanceResult,
        clause="PB-1.7",
        title=f"Rescue chance for {captive.name}",
        captive_id=captive_id,
        captive_name=captive.name,
        owner_gang_id=owner.id,
        captor_gang_id=captor_id,
        newly_given=newly_given,
    )


# --------------------------------------------------------------------------- trading


class TradeOffer(BaseModel):
    """What one side of a captive trade hands over, besides the captive itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    credits: int = Field(default=0, ge=0, le=1_000_000)
    captive_ids: list[str] = Field(default_factory=list)
    stash_item_ids: list[str] = Field(default_factory=list)
    territory_ids: list[str] = Field(default_factory=list)


class CaptiveTradeTerms(BaseModel):
    """The terms both gangs agreed (the bot collects both confirmations)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    from_captor: TradeOffer = Field(default_factory=TradeOffer)
    from_receiver: TradeOffer = Field(default_factory=TradeOffer)


class CaptiveTransfer(BaseModel):
    """Where one captive of the deal ended up."""

    captive_id: str
    captive_name: str
    owner_gang_id: str
    from_gang_id: str
    to_gang_id: str
    # True when it went home and is available again at once.
    returned_home: bool


class CaptiveTradeResult(RuleResult):
    captor_gang_id: str
    receiver_gang_id: str
    captives: list[CaptiveTransfer]
    credits_to_captor: int
    credits_to_receiver: int
    items_to_captor: list[str]
    items_to_receiver: list[str]
    territories_to_captor: list[str]
    territories_to_receiver: list[str]


def trade_captive(
    world: World, captive_id: str, to_gang_id: str, terms: CaptiveTradeTerms
) -> CaptiveTradeResult:
    """Carry out an agreed captive trade, all of it or nothing (PB-1.8)."""
    ws = Workspace(world)
    _, captive = find_captive(ws.world, captive_id)
    captor = ws.gang(captive.captured_by or "")
    receiver = ws.gang(to_gang_id)
    if receiver.id == captor.id:
        raise InvalidRequest(f"{captor.name} already holds {captive.name}.")
    _check_distinct_captives(captive_id, terms)
    _check_offer(ws.world, captor, receiver, terms.from_captor)
    _check_offer(ws.world, receiver, captor, terms.from_receiver)

    transfers = [_transfer_captive(ws, captive_id, captor, receiver)]
    transfers += _hand_over(ws, captor, receiver, terms.from_captor)
    transfers += _hand_over(ws, receiver, captor, terms.from_receiver)
    return ws.finish(
        CaptiveTradeResult,
        clause="PB-1.8",
        title=f"{captor.name} trades {captive.name} to {receiver.name}",
        captor_gang_id=captor.id,
        receiver_gang_id=receiver.id,
        captives=transfers,
        credits_to_captor=terms.from_receiver.credits,
        credits_to_receiver=terms.from_captor.credits,
        items_to_captor=list(terms.from_receiver.stash_item_ids),
        items_to_receiver=list(terms.from_captor.stash_item_ids),
        territories_to_captor=list(terms.from_receiver.territory_ids),
        territories_to_receiver=list(terms.from_captor.territory_ids),
    )


def _check_distinct_captives(captive_id: str, terms: CaptiveTradeTerms) -> None:
    ids = [captive_id, *terms.from_captor.captive_ids, *terms.from_receiver.captive_ids]
    if len(set(ids)) != len(ids):
        raise InvalidRequest("The same captive appears more than once in this trade.")
    for offer in (terms.from_captor, terms.from_receiver):
        if len(set(offer.stash_item_ids)) != len(offer.stash_item_ids):
            raise InvalidRequest("The same item appears more than once in this trade.")
        if len(set(offer.territory_ids)) != len(offer.territory_ids):
            raise InvalidRequest("The same Territory appears more than once in this trade.")


def _check_offer(world: World, giver: Gang, taker: Gang, offer: TradeOffer) -> None:
    if offer.credits > giver.credits:
        raise InsufficientCredits(
            f"{giver.name} has {giver.credits} credits and cannot pay {offer.credits}."
        )
    stash_ids = {item.id for item in giver.stash}
    for item_id in offer.stash_item_ids:
        if item_id not in stash_ids:
            raise NotFound(f"{giver.name} has no item with id {item_id} in its Stash.")
    for territory_id in offer.territory_ids:
        territory = world.territory(territory_id)
        if territory.controller != giver.id:
            raise NotEligible(f"{giver.name} does not control {territory.name}.")
    for other_id in offer.captive_ids:
        owner, other = find_captive(world, other_id)
        if other.captured_by != giver.id:
            raise NotEligible(f"{giver.name} does not hold {other.name} captive.")
        if owner.id != taker.id:
            require_captive_option(world, giver.id, other_id, CaptiveOption.TRADE_TO_ANY_GANG)


def _hand_over(
    ws: Workspace, giver: Gang, taker: Gang, offer: TradeOffer
) -> list[CaptiveTransfer]:
    if offer.credits:
        giver.credits -= offer.credits
        taker.credits += offer.credits
        ws.note(f"{giver.name} pays {offer.credits} credits to {taker.name}.")
    for item_id in offer.stash_item_ids:
        item = next(i for i in giver.stash if i.id == item_id)
        giver.stash = [i for i in giver.stash if i.id != item_id]
        taker.stash = [*taker.stash, item]
        ws.note(f"{item.name} passes from the Stash of {giver.name} to that of {taker.name}.")
    for territory_id in offer.territory_ids:
        territory = ws.world.territory(territory_id)
        territory.controller = taker.id
        ws.note(f"{giver.name} surrenders {territory.name} to {taker.name}.")
    return [_transfer_captive(ws, cid, giver, taker) for cid in offer.captive_ids]


def _transfer_captive(
    ws: Workspace, captive_id: str, giver: Gang, taker: Gang
) -> CaptiveTransfer:
    owner, captive = find_captive(ws.world, captive_id)
    if owner.id != taker.id:
        require_captive_option(ws.world, giver.id, captive_id, CaptiveOption.TRADE_TO_ANY_GANG)
    returned_home = owner.id == taker.id
    if returned_home:
        captive.set_status(FighterStatus.ACTIVE)
        ws.note(f"{captive.name} returns to {owner.name} and is available at once.")
    else:
        captive.capture(taker.id)
        # The owner gets its chance to rescue the captive from its new captor.
        captive.rescue_chance_given = False
        ws.note(f"{taker.name} now holds {captive.name} of {owner.name} captive.")
    return CaptiveTransfer(
        captive_id=captive_id,
        captive_name=captive.name,
        owner_gang_id=owner.id,
        from_gang_id=giver.id,
        to_gang_id=taker.id,
        returned_home=returned_home,
    )
