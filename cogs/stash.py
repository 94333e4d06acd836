"""/stash: put items and credits into a gang's Stash, take them out, and show it.

Credits never go negative: removing more than the Stash holds is refused
with both amounts, and one call adds at most 10,000 credits (a typo guard;
the Stash itself holds up to 1,000,000, the model's cap). An item and
credits given in one call are one roster edit, so the ledger shows them as
one action and undo takes both back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from discord.ext import commands

from bot.call import Call, Scope
from bot.cog import BotCog, adds
from bot.lookup import pick_item
from bot.options import CampaignName, GangName, StashItem, TradingPostItem
from bot.render import safe
from bot.slash import slash
from bot.storage import new_id
from bot.ui import bounded, lines_embeds, typed_item
from bot.ui.fighter import item_line
from bot.ui.ledger import gang_change_lines
from rules.errors import InsufficientCredits, InvalidRequest
from rules.models import Gang
from rules.tradingpost import MAX_CREDITS, catalogue_entry, gain
from rules.wording import possessive

if TYPE_CHECKING:
    pass

MAX_CREDITS_PER_CALL = 10_000
StashKind = Literal["weapon", "wargear", "armour", "vehicle upgrade"]


def stash_lines(gang: Gang) -> list[str]:
    lines = [f"💰 **{gang.credits:,}** credits"]
    lines += [f"• {item_line(item)}" for item in gang.stash]
    lines += [
        f"• 🚗 {safe(v.name)} ({safe(v.vehicle_type) or 'vehicle'}, {v.total_cost} credits, "
        "waiting for a crew)"
        for v in gang.stash_vehicles
    ]
    if not gang.stash and not gang.stash_vehicles:
        lines.append("No equipment in the Stash.")
    lines.append(f"Stash value {gang.stash_value:,} · wealth {gang.wealth:,} credits")
    return lines


class StashCog(BotCog, commands.GroupCog, group_name="stash", group_description="A gang's Stash"):
    @slash("add", "Put an item and/or credits into a Stash",
           gang="the gang whose Stash it is", item="an item to put in the Stash",
           cost="the item's value (default: its Trading Post price)",
           credits="credits to add (1 to 10,000)")
    async def add(
        self,
        call: Call,
        gang: GangName,
        item: TradingPostItem | None = None,
        cost: int | None = None,
        kind: StashKind | None = None,
        two_slots: bool | None = None,
        credits: int | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        _require_something(item, credits)
        if item is None and (cost is not None or kind is not None or two_slots is not None):
            raise InvalidRequest("cost, kind and two_slots describe an item; give the item too.")
        bounded(credits, 1, MAX_CREDITS_PER_CALL, "Credits added in one go")

        def put_in(s: Scope, after: Gang, name: str) -> str:
            entry, _source = catalogue_entry(s.ruleset, after, None, name)
            added = typed_item(new_id(), name, entry, cost, kind, two_slots)
            after.stash = [*after.stash, added]
            return added.name

        await _change_stash(call, campaign, gang, "Into the Stash",
                            (credits, gain), (item, put_in))

    @slash("remove", "Take an item and/or credits out of a Stash",
           gang="the gang whose Stash it is", item="an item to take out (it leaves the gang)",
           credits="credits to take out")
    async def remove(
        self,
        call: Call,
        gang: GangName,
        item: StashItem | None = None,
        credits: int | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        _require_something(item, credits)
        bounded(credits, 1, MAX_CREDITS, "Credits taken out")
        await _change_stash(call, campaign, gang, "Out of the Stash",
                            (credits, _withdraw), (item, _take_out))

    @slash("show", "Show a gang's Stash: credits, items, vehicles",
           gang="the gang whose Stash to show")
    async def show(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None
    ) -> None:
        async with call.read(campaign) as s:
            target = await s.gang(gang)
        title = f"{possessive(safe(target.name))} Stash"
        await call.answer_embeds(lines_embeds(title, stash_lines(target)))


def _require_something(item: str | None, credits: int | None) -> None:
    if item is None and credits is None:
        raise InvalidRequest("Give an item, credits, or both.")


def _withdraw(gang: Gang, credits: int) -> None:
    if credits > gang.credits:
        raise InsufficientCredits(f"{possessive(gang.name)} Stash holds {gang.credits:,} "
                                  f"credits; {credits:,} cannot be taken out.")
    gang.credits -= credits


def _take_out(_s: Scope, gang: Gang, name: str) -> str:
    taken = pick_item(gang.stash, name, f"{possessive(gang.name)} Stash")
    gang.stash = [i for i in gang.stash if i.id != taken.id]
    return taken.name


CreditsMove = tuple[int | None, Callable[[Gang, int], None]]
# The item named (if any) and what moves it; the move answers the item's name.
ItemMove = tuple[str | None, Callable[[Scope, Gang, str], str]]


async def _change_stash(call: Call, campaign: str | None, gang: str, title: str,
                        credits: CreditsMove, item: ItemMove) -> None:
    """Credits and/or an item into or out of the named gang's Stash: one roster edit,
    titled with what moved; the answer shows before → after."""
    async with call.write(campaign) as s:
        before = await s.own_gang(gang)
        after = before.model_copy(deep=True)
        what = []
        amount, move_credits = credits
        if amount is not None:
            move_credits(after, amount)
            what.append(f"{amount} credits")
        named, move_item = item
        if named is not None:
            what.append(move_item(s, after, named))
        stored = await s.update_gang(after, title=f"{title}: {', '.join(what)}")
    await call.answer(f"{possessive(safe(stored.name))} Stash", gang_change_lines(before, stored))


setup = adds(StashCog)
