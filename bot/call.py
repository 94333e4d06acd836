"""One slash command or click, as every command body sees it.

A :class:`Call` is made from the interaction once (``Call.of(interaction)``;
a slash command's body is handed it, bot/slash.py) and knows the server, the
actor (user id, roles, Manage Server), the storage, and how to answer. Its
two scopes open the campaign the command names (or the server's default one)
inside one transaction:

- ``async with call.write(campaign) as s:`` a write transaction: everything
  changed in the block commits together with its ledger rows, or nothing
  does;
- ``async with call.read(campaign) as s:`` a read transaction that never
  waits for writers.

A :class:`Scope` looks up gangs and fighters by name with the permission
check a change needs (``own_gang``, ``own_fighter``), applies a rules result
with the actor on its ledger rows, and hands the rule set the campaign
plays with. A command body is then: parse, look up, call the rules
function, apply, answer (docs/design.md has whole examples).

Who may do what (README, "Permissions"): a gang's owner edits their gang;
an Arbitrator (named users and/or a role) edits anything in their
campaign; members with Manage Server count as Arbitrators on their server,
so a group is never locked out when its Arbitrator leaves; everyone may
look.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import discord

from bot.errors import Refused
from bot.lookup import campaign_named, captive_in, fighter_in, pick_fighter, vehicle_in
from bot.pictures import PictureWorker
from bot.render import result_lines, safe
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Storage, Transaction
from bot.ui import send_embeds
from bot.ui.ledger import send_lines
from bot.ui.pictures import send_with_files
from rules.models import Fighter, Gang, Territory, Vehicle
from rules.ruleset import RuleSet
from rules.world import RuleResult, World

if TYPE_CHECKING:
    from bot.app import MundaBot

Interaction = discord.Interaction["MundaBot"]

_CACHE_KEY = "munda.call"
T = TypeVar("T")


@dataclass(frozen=True)
class Actor:
    """Who is acting, as far as permissions go; made from an interaction or a stored id."""

    user_id: int
    role_ids: tuple[int, ...] = ()
    manages_server: bool = False

    @property
    def ledger_id(self) -> str:
        """The ledger's "who": the Discord user id as text."""
        return str(self.user_id)

    def is_arbitrator(self, campaign: Campaign) -> bool:
        return self.manages_server or campaign.is_arbitrator(self.user_id, list(self.role_ids))

    def require_arbitrator(self, campaign: Campaign) -> None:
        if not self.is_arbitrator(campaign):
            raise Refused(f"Only an Arbitrator of {campaign.name} can do that.")

    def controls(self, campaign: Campaign, gang: Gang) -> bool:
        return gang.owner == self.ledger_id or self.is_arbitrator(campaign)

    def require_control(self, campaign: Campaign, gang: Gang) -> None:
        if not self.controls(campaign, gang):
            raise Refused(
                f"{gang.name} is not your gang; only its owner or an Arbitrator can change it."
            )

    def require_may_start(self, campaigns: Sequence[Campaign]) -> None:
        """Anyone starts a server's first campaign (a new group needs no admin); members
        with Manage Server start the others."""
        if campaigns and not self.manages_server:
            raise Refused(
                "This server already has a campaign; only members with Manage Server "
                "can start another one."
            )

    def require_may_import(self, campaigns: Sequence[Campaign]) -> None:
        """As :meth:`require_may_start`, and an Arbitrator of any campaign here may too."""
        if campaigns and not any(self.is_arbitrator(c) for c in campaigns):
            raise Refused(
                "Only members with Manage Server or an Arbitrator can import a campaign here."
            )


def actor_from(interaction: discord.Interaction[Any]) -> Actor:
    user = interaction.user
    roles = tuple(role.id for role in user.roles) if isinstance(user, discord.Member) else ()
    permissions = interaction.permissions
    return Actor(user.id, roles, permissions.manage_guild or permissions.administrator)


class Call:
    """What one interaction needs: where, who, storage, and how to answer."""

    def __init__(self, interaction: discord.Interaction[MundaBot]) -> None:
        self.interaction = interaction

    @classmethod
    def of(cls, interaction: Interaction) -> Call:
        """The interaction's Call, made once and kept on the interaction."""
        found = interaction.extras.get(_CACHE_KEY)
        if isinstance(found, Call):
            return found
        call = cls(interaction)
        interaction.extras[_CACHE_KEY] = call
        return call

    @property
    def guild_id(self) -> int:
        if self.interaction.guild_id is None:
            raise Refused("This command only works inside a server.")
        return self.interaction.guild_id

    @property
    def storage(self) -> Storage:
        return self.interaction.client.storage

    @property
    def pictures(self) -> PictureWorker:
        return self.interaction.client.pictures

    @cached_property
    def actor(self) -> Actor:
        return actor_from(self.interaction)

    @property
    def mention(self) -> str:
        """The one acting, as a public answer names them."""
        return self.interaction.user.mention

    @asynccontextmanager
    async def write_server(self) -> AsyncIterator[Transaction]:
        """A write transaction on the whole server (starting or importing a campaign)."""
        async with self.storage.transaction(self.guild_id) as tx:
            yield tx

    @asynccontextmanager
    async def read_server(self) -> AsyncIterator[Transaction]:
        """A read transaction on the whole server (its campaigns)."""
        async with self.storage.read_only(self.guild_id) as tx:
            yield tx

    @asynccontextmanager
    async def write(self, campaign: str | None = None) -> AsyncIterator[Scope]:
        """A write transaction in the named campaign (or the server's default one)."""
        async with self.storage.transaction(self.guild_id) as tx:
            yield Scope(self.actor, tx, await campaign_named(tx, campaign))

    @asynccontextmanager
    async def write_in(self, campaign_id: str) -> AsyncIterator[Scope]:
        """A write transaction in the campaign with this stored id (a button's, say)."""
        async with self.storage.transaction(self.guild_id) as tx:
            yield Scope(self.actor, tx, await tx.get_campaign(campaign_id))

    @asynccontextmanager
    async def read_in(self, campaign_id: str) -> AsyncIterator[Scope]:
        """A read transaction in the campaign with this stored id."""
        async with self.storage.read_only(self.guild_id) as tx:
            yield Scope(self.actor, tx, await tx.get_campaign(campaign_id))

    @asynccontextmanager
    async def read(self, campaign: str | None = None) -> AsyncIterator[Scope]:
        """A read transaction in the named campaign; it never waits for a writer."""
        async with self.storage.read_only(self.guild_id) as tx:
            yield Scope(self.actor, tx, await campaign_named(tx, campaign))

    async def campaign(self, name: str | None = None) -> Campaign:
        """The named campaign (or the server's default one), read on its own."""
        async with self.read(name) as s:
            return s.campaign

    async def answer(self, title: str, lines: Sequence[str]) -> None:
        """A public answer: a titled embed of lines (split over several if long)."""
        await send_lines(self.interaction, title, lines)

    async def answer_result(self, result: RuleResult, extra: str = "") -> None:
        """A rules result as players read it: rolls, changes and notes."""
        lines = result_lines(result) + ([extra] if extra else [])
        await send_lines(self.interaction, safe(result.title, 200), lines)

    async def answer_embeds(self, embeds: Sequence[discord.Embed], *, content: str = "") -> None:
        await send_embeds(self.interaction, embeds, content=content)

    async def answer_files(self, embeds: Sequence[discord.Embed], files: Sequence[discord.File],
                           *, content: str = "") -> None:
        """A public answer with files (a roster card's pages), ten files to a message."""
        await send_with_files(self.interaction, embeds, files, content=content)

    async def say(self, message: str | None, **kwargs: Any) -> None:
        """A public answer of plain text (a question with buttons, a short notice)."""
        response = self.interaction.response
        if response.is_done():
            await self.interaction.followup.send(
                discord.utils.MISSING if message is None else message, **kwargs
            )
        else:
            await response.send_message(message, **kwargs)

    async def tell(self, message: str, **kwargs: Any) -> None:
        """A private (ephemeral) answer, only for the one who asked."""
        await self.say(message, ephemeral=True, **kwargs)

    async def draw_publicly(self) -> None:
        """Acknowledge now, publicly ("thinking..."), while a picture is drawn.

        Every lookup that may refuse comes before this: a refusal after it could
        no longer be private.
        """
        if not self.interaction.response.is_done():
            await self.interaction.response.defer(thinking=True)

    async def defer(self) -> None:
        """Acknowledge now (Discord wants an answer within 3 s); what follows stays private.

        For commands whose answer comes later, in private, while everyone reads the
        outcome elsewhere (the post-battle commands post in the battle's thread).
        """
        if not self.interaction.response.is_done():
            await self.interaction.response.defer(ephemeral=True, thinking=True)


@dataclass
class Scope:
    """One campaign inside one transaction, seen by one actor."""

    actor: Actor
    tx: Transaction
    campaign: Campaign

    @property
    def ruleset(self) -> RuleSet:
        return ruleset_for(self.campaign)

    @property
    def by(self) -> str:
        """The actor as the ledger names them."""
        return self.actor.ledger_id

    @property
    def is_arbitrator(self) -> bool:
        return self.actor.is_arbitrator(self.campaign)

    def require_arbitrator(self) -> None:
        self.actor.require_arbitrator(self.campaign)

    def controls(self, gang: Gang) -> bool:
        """Whether the actor may change ``gang`` (its owner, or an Arbitrator)."""
        return self.actor.controls(self.campaign, gang)

    def require_control(self, gang: Gang) -> None:
        self.actor.require_control(self.campaign, gang)

    async def gang(self, name: str) -> Gang:
        return await self.tx.get_gang_by_name(self.campaign.id, name)

    async def own_gang(self, name: str) -> Gang:
        """A gang the actor may change (its owner, or an Arbitrator)."""
        gang = await self.gang(name)
        self.require_control(gang)
        return gang

    async def gangs(self, *, owner: str | None = None) -> list[Gang]:
        return await self.tx.list_gangs(self.campaign.id, owner=owner)

    async def territories(self, *, controller: str | None = None) -> list[Territory]:
        """The campaign's Territories, or those ``controller`` (a gang id) holds."""
        return await self.tx.list_territories(self.campaign.id, controller=controller)

    async def fighter(self, name: str, gang: str | None = None) -> tuple[Gang, Fighter]:
        """A fighter by name, in the named gang or anywhere in the campaign."""
        return await fighter_in(self.tx, self.campaign, name, gang)

    async def own_fighter(self, name: str, gang: str | None = None) -> tuple[Gang, Fighter]:
        """A fighter of a gang the actor may change."""
        return self._controlled(await self.fighter(name, gang))

    async def vehicle(self, name: str, gang: str | None = None) -> tuple[Gang, Vehicle]:
        """A vehicle by name (roster or Stash), in the named gang or anywhere."""
        return await vehicle_in(self.tx, self.campaign, name, gang)

    async def own_vehicle(self, name: str, gang: str | None = None) -> tuple[Gang, Vehicle]:
        """A vehicle of a gang the actor may change."""
        return self._controlled(await self.vehicle(name, gang))

    def _controlled(self, found: tuple[Gang, T]) -> tuple[Gang, T]:
        """``found`` (a gang and what it owns), once the actor may change the gang."""
        self.require_control(found[0])
        return found

    async def captive(self, name: str) -> tuple[Gang, Fighter, Gang]:
        """A captive by name: its gang, the captive, and the gang holding it."""
        return await captive_in(self.tx, self.campaign, name)

    def fighter_of(self, gang: Gang, name: str) -> Fighter:
        return pick_fighter(gang, name)

    async def world(self, *gangs: Gang) -> World:
        """The named gangs (and the campaign's territories) for a rules function."""
        return await self.tx.load_world(self.campaign.id, list(dict.fromkeys(g.id for g in gangs)))

    async def apply(self, result: RuleResult) -> None:
        """Store a rules result: its changes and its ledger rows, by the actor."""
        await self.tx.apply(self.campaign.id, result, actor=self.by)

    async def update_gang(self, gang: Gang, *, title: str) -> Gang:
        return await self.tx.update_gang(self.campaign.id, gang, actor=self.by, title=title)

    async def update_fighter(self, gang: Gang, fighter: Fighter) -> None:
        await self.tx.update_fighter(self.campaign.id, gang.id, fighter, actor=self.by)
