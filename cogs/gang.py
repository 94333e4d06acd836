"""/gang: found a gang, show its roster, list, edit, transfer and delete gangs;
import one from Yaktribe or a gang file, export one.

Anyone may found gangs (they own them); only the owner or an Arbitrator of
the campaign may change one (bot/context.py). Credits change through /stash,
fighters through /fighter: this cog only edits the gang's own fields.
Importing is the same: anyone may import a gang of their own, re-importing
changes a gang (owner or Arbitrator), importing for another player is for
Arbitrators (docs/importing.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, gang_names, house_names
from bot.context import (
    actor_of,
    guild_id_of,
    require_arbitrator,
    require_gang_control,
    resolve_campaign,
    storage_of,
)
from bot.importing import gangflow
from bot.importing.gangdoc import gang_document
from bot.importing.preview import preview
from bot.importing.uploads import file_stem, json_file, read_source
from bot.render import paginate, safe
from bot.rulesets import ruleset_for
from bot.storage import Campaign, Transaction, new_id
from bot.ui import checked, clean_name, send_embeds
from bot.ui.confirm import Confirmed, confirm_view, confirmation
from bot.ui.roster import roster_embeds
from rules.errors import InvalidRequest, NotFound
from rules.models import Alignment, FighterStatus, Gang
from rules.ruleset import RuleSet

if TYPE_CHECKING:
    from bot.app import MundaBot

Interaction = discord.Interaction["MundaBot"]
Name = app_commands.Range[str, 1, 100]
AlignmentChoice = Literal["Law Abiding", "Outlaw"]

DELETE_GANG = "delete-gang"
IMPORT_GANG = "import-gang"
CAMPAIGN_HELP = "campaign (default: the server's default campaign)"


async def campaign_in(tx: Transaction, name: str | None) -> Campaign:
    """The named campaign, or the server's default, inside an open transaction."""
    if name:
        return await tx.get_campaign_by_name(name)
    return await tx.get_default_campaign()


def house_of(ruleset: RuleSet, typed: str) -> str:
    """The House List's own spelling when the rule set has it; otherwise what was typed."""
    name = clean_name(typed, "House")
    known = next((h.house for h in ruleset.houses if h.house.casefold() == name.casefold()), None)
    return known or name


class GangCog(commands.GroupCog, group_name="gang", group_description="Gangs and their rosters"):
    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        confirmation(DELETE_GANG, self._delete_confirmed)
        confirmation(IMPORT_GANG, self._import_confirmed)

    # ------------------------------------------------------------------ create

    @app_commands.command(name="create", description="Found a gang in a campaign")
    @app_commands.describe(
        name="the gang's name (unique in the campaign)",
        house="House or gang type (suggestions from the campaign's rule set)",
        alignment="Law Abiding or Outlaw",
        credits="starting credits in the Stash (default 1000)",
        campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(house=house_names, campaign=campaign_names)
    async def create(
        self,
        interaction: Interaction,
        name: Name,
        house: Name,
        alignment: AlignmentChoice,
        credits: app_commands.Range[int, 0, 10_000] = 1000,
        campaign: Name | None = None,
    ) -> None:
        if not 0 <= credits <= 10_000:
            raise InvalidRequest("Starting credits must be between 0 and 10000.")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            gang = checked(
                lambda: Gang(
                    id=new_id(),
                    name=clean_name(name, "gang name"),
                    house=house_of(ruleset_for(found), house),
                    owner=actor_of(interaction),
                    alignment=Alignment(alignment),
                    credits=credits,
                ),
                "gang",
            )
            created = await tx.create_gang(found.id, gang, actor=actor_of(interaction))
        await interaction.response.send_message(
            f"**{safe(created.name)}** ({safe(created.house)}, {created.alignment.value}) "
            f"joins {safe(found.name)} with {created.credits} credits. "
            f"Owner: {interaction.user.mention}."
        )

    # ------------------------------------------------------------------ show and list

    @app_commands.command(name="show", description="A gang's roster")
    @app_commands.describe(gang="the gang", campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def show(
        self, interaction: Interaction, gang: Name, campaign: Name | None = None
    ) -> None:
        found = await resolve_campaign(interaction, campaign)
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        shown = await storage.get_gang_by_name(guild_id, found.id, gang)
        captor_names: dict[str, str] = {}
        if any(f.status is FighterStatus.CAPTURED for f in shown.fighters):
            captor_names = {g.id: g.name for g in await storage.list_gangs(guild_id, found.id)}
        held = await storage.list_territories(guild_id, found.id, controller=shown.id)
        captives = await storage.captives_held_by(guild_id, found.id, shown.id)
        embeds = roster_embeds(
            shown, found.name, captor_names,
            territories=[t.name for t in held],
            captives=[(f.name, g.name) for g, f in captives],
        )
        await send_embeds(interaction, embeds)

    @app_commands.command(name="list", description="The gangs of a campaign")
    @app_commands.describe(owner="only this player's gangs", campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(campaign=campaign_names)
    async def list_(
        self,
        interaction: Interaction,
        owner: discord.User | None = None,
        campaign: Name | None = None,
    ) -> None:
        found = await resolve_campaign(interaction, campaign)
        gangs = await storage_of(interaction).list_gangs(
            guild_id_of(interaction), found.id, owner=str(owner.id) if owner else None
        )
        lines = [
            f"**{safe(g.name)}**: {safe(g.house)}, {g.alignment.value}, owner <@{g.owner}>; "
            f"Gang Rating {g.rating}, {g.credits} credits"
            for g in gangs
        ]
        if not lines:
            whose = f" belonging to {owner.mention}" if owner else ""
            lines = [f"No gangs{whose} yet: found one with /gang create."]
        embeds = [
            discord.Embed(title=f"{safe(found.name)}: gangs", description=page,
                          colour=discord.Colour.dark_gold())
            for page in paginate(lines)
        ]
        await send_embeds(interaction, embeds)

    # ------------------------------------------------------------------ edit

    @app_commands.command(name="edit", description="Rename a gang or correct its record")
    @app_commands.describe(
        gang="the gang",
        name="new name",
        alignment="Law Abiding or Outlaw",
        reputation="Reputation (1 or more)",
        battles_fought="battles fought so far",
        campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def edit(
        self,
        interaction: Interaction,
        gang: Name,
        name: Name | None = None,
        alignment: AlignmentChoice | None = None,
        reputation: app_commands.Range[int, 1, 1000] | None = None,
        battles_fought: app_commands.Range[int, 0, 10_000] | None = None,
        campaign: Name | None = None,
    ) -> None:
        update: dict[str, object] = {}
        if name is not None:
            update["name"] = clean_name(name, "gang name")
        if alignment is not None:
            update["alignment"] = Alignment(alignment)
        if reputation is not None:
            update["reputation"] = reputation
        if battles_fought is not None:
            if not 0 <= battles_fought <= 10_000:
                raise InvalidRequest("Battles fought must be between 0 and 10000.")
            update["battles_fought"] = battles_fought
        if not update:
            raise InvalidRequest("Nothing to change: give a new name, alignment, reputation "
                                 "or battles fought.")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            current = await tx.get_gang_by_name(found.id, gang)
            require_gang_control(found, current, interaction)
            edited = checked(
                lambda: Gang.model_validate({**current.model_dump(by_alias=True), **update}),
                "gang",
            )
            saved = await tx.update_gang(
                found.id, edited, actor=actor_of(interaction), title="Edit gang"
            )
        changes = [
            f"{label}: {safe(str(before))} → {safe(str(after))}"
            for label, before, after in (
                ("name", current.name, saved.name),
                ("alignment", current.alignment.value, saved.alignment.value),
                ("reputation", current.reputation, saved.reputation),
                ("battles fought", current.battles_fought, saved.battles_fought),
            )
            if before != after
        ] or ["nothing changed"]
        await interaction.response.send_message(
            f"**{safe(saved.name)}** updated: " + "; ".join(changes) + "."
        )

    # ------------------------------------------------------------------ transfer

    @app_commands.command(name="transfer", description="Give a gang to another player")
    @app_commands.describe(gang="the gang", user="its new owner", campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def transfer(
        self,
        interaction: Interaction,
        gang: Name,
        user: discord.User,
        campaign: Name | None = None,
    ) -> None:
        if user.bot:
            raise InvalidRequest("A gang cannot belong to a bot.")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            current = await tx.get_gang_by_name(found.id, gang)
            require_gang_control(found, current, interaction)
            if current.owner == str(user.id):
                # answer_error escapes refusals, mentions included: names go in as typed,
                # and the owner by name (an escaped mention would show as "<@123>").
                raise InvalidRequest(
                    f"{current.name} already belongs to {user.display_name}."
                )
            saved = await tx.transfer_gang(
                found.id, current.id, str(user.id), actor=actor_of(interaction)
            )
        await interaction.response.send_message(
            f"**{safe(saved.name)}** now belongs to {user.mention} "
            f"(was <@{current.owner}>)."
        )

    # ------------------------------------------------------------------ delete

    @app_commands.command(name="delete", description="Delete a gang (asks for confirmation)")
    @app_commands.describe(gang="the gang", campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def delete(
        self, interaction: Interaction, gang: Name, campaign: Name | None = None
    ) -> None:
        found = await resolve_campaign(interaction, campaign)
        target = await storage_of(interaction).get_gang_by_name(
            guild_id_of(interaction), found.id, gang
        )
        require_gang_control(found, target, interaction)
        fighters = sum(1 for f in target.fighters if f.on_roster)
        await interaction.response.send_message(
            f"Delete **{safe(target.name)}** from {safe(found.name)}, with its {fighters} "
            f"{'fighter' if fighters == 1 else 'fighters'}, vehicles, Stash and "
            f"{target.credits} credits? Its Territories become unclaimed.",
            view=confirm_view(DELETE_GANG, found.id, target.id, interaction.user.id),
            ephemeral=True,
        )

    async def _delete_confirmed(
        self, interaction: discord.Interaction[MundaBot], campaign_id: str, gang_id: str
    ) -> Confirmed:
        """The Confirm button: check again (time has passed) and delete in one transaction."""
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            try:
                found = await tx.get_campaign(campaign_id)
                target = await tx.get_gang(campaign_id, gang_id)
            except NotFound:
                return Confirmed("That gang is already gone; nothing was deleted.")
            require_gang_control(found, target, interaction)
            await tx.delete_gang(campaign_id, gang_id, actor=actor_of(interaction))
        return Confirmed(
            f"**{safe(target.name)}** has been deleted.",
            announcement=f"{interaction.user.mention} deleted the gang **{safe(target.name)}** "
            f"from {safe(found.name)}.",
        )

    # ------------------------------------------------------------------ import and export

    @app_commands.command(name="import", description="Bring in a gang from Yaktribe or a gang file")
    @app_commands.describe(
        file="the gang's JSON export (Yaktribe, or a /gang export file)",
        url="or the address of the Yaktribe JSON export",
        name="call the gang this instead of the name in the file",
        owner="the player it belongs to (Arbitrators only; default: you)",
        categories="types the rule data lacks: Cult Alpha=Leader; Neophyte Hybrid=Ganger",
        campaign=CAMPAIGN_HELP,
    )
    @app_commands.autocomplete(campaign=campaign_names)
    async def import_(
        self,
        interaction: Interaction,
        file: discord.Attachment | None = None,
        url: app_commands.Range[str, 1, 500] | None = None,
        name: Name | None = None,
        owner: discord.User | None = None,
        categories: app_commands.Range[str, 1, 500] | None = None,
        campaign: Name | None = None,
    ) -> None:
        rename = clean_name(name, "gang name") if name is not None else None
        if owner is not None and owner.bot:
            raise InvalidRequest("A gang cannot belong to a bot.")
        # Downloading can take longer than Discord's three seconds for an answer.
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await read_source(file, url, self.bot.config.importing)
        owner_id = str(owner.id) if owner is not None else actor_of(interaction)
        read_for = await resolve_campaign(interaction, campaign)
        if owner_id != actor_of(interaction):
            require_arbitrator(read_for, interaction)
        parsed = await gangflow.read(data, read_for, owner=owner_id, categories=categories)
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            if owner_id != actor_of(interaction):
                require_arbitrator(found, interaction)
            token, staged, existing = await gangflow.stage(
                tx, found, parsed, interaction, read_for=read_for, rename=rename
            )
        question = preview(staged, existing, found.name)
        view = confirm_view(IMPORT_GANG, found.id, token, interaction.user.id)
        if question.report is None:
            await interaction.followup.send(
                question.content, embeds=question.embeds, view=view, ephemeral=True
            )
        else:
            await interaction.followup.send(
                question.content, embeds=question.embeds, view=view, file=question.report,
                ephemeral=True,
            )

    async def _import_confirmed(
        self, interaction: discord.Interaction[MundaBot], campaign_id: str, token: str
    ) -> Confirmed:
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            return await gangflow.confirm(tx, campaign_id, token, interaction)

    @app_commands.command(name="export", description="A gang as a JSON file (see /gang import)")
    @app_commands.describe(gang="the gang", campaign=CAMPAIGN_HELP)
    @app_commands.autocomplete(gang=gang_names, campaign=campaign_names)
    async def export(
        self, interaction: Interaction, gang: Name, campaign: Name | None = None
    ) -> None:
        found = await resolve_campaign(interaction, campaign)
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        shown = await storage.get_gang_by_name(guild_id, found.id, gang)
        territories = await storage.list_territories(guild_id, found.id, controller=shown.id)
        document = gang_document(guild_id, found, shown, territories)
        file = json_file(
            document.model_dump_json(indent=2, by_alias=True).encode(),
            file_stem(shown.name, "gang"), interaction.filesize_limit,
        )
        # A file for the one who asked: the roster itself is public through /gang show.
        await interaction.response.send_message(
            f"**{safe(shown.name)}** as a gang file: /gang import reads it back, here or on "
            "another server.",
            file=file, ephemeral=True,
        )


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(GangCog(bot))
