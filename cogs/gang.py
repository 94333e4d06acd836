"""/gang: found a gang, show its roster, list, edit, transfer and delete gangs;
import one from Yaktribe or a gang file, export one.

Anyone may found gangs (they own them); only the owner or an Arbitrator of
the campaign may change one (bot/call.py). Credits change through /stash,
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

from bot.call import Call, Interaction
from bot.cog import BotCog, adds
from bot.importing import gangflow
from bot.importing.gangdoc import gang_document
from bot.importing.preview import preview
from bot.importing.uploads import file_stem, json_file, read_source
from bot.options import CampaignName, GangName, HouseName, NewName
from bot.render import safe
from bot.slash import slash
from bot.storage import new_id
from bot.ui import checked, clean_name, lines_embeds
from bot.ui.confirm import Confirmed, confirm_view, confirmation
from bot.ui.import_questions import ANSWER, ANSWER_PARAMS, IMPORT_GANG, answer_clicked, import_view
from bot.ui.pictures import (
    captor_names,
    member_name,
    png_files,
    roster_stem,
    shows_roster_card,
)
from bot.ui.roster import roster_embeds
from bot.ui.routes import register
from bot.weapon_rows import known_lines
from rules.errors import InvalidRequest, NotFound
from rules.models import Alignment, FighterStatus, Gang
from rules.ruleset import RuleSet

if TYPE_CHECKING:
    pass

AlignmentChoice = Literal["Law Abiding", "Outlaw"]

DELETE_GANG = "delete-gang"


def house_of(ruleset: RuleSet, typed: str) -> str:
    """The House List's own spelling when the rule set has it; otherwise what was typed."""
    name = clean_name(typed, "House")
    known = next((h.house for h in ruleset.houses if h.house.casefold() == name.casefold()), None)
    return known or name


def gang_line(gang: Gang) -> str:
    return (f"**{safe(gang.name)}**: {safe(gang.house)}, {gang.alignment.value}, owner "
            f"<@{gang.owner}>; Gang Rating {gang.rating}, {gang.credits} credits")


def edit_lines(before: Gang, after: Gang) -> list[str]:
    """"label: before → after" for each field /gang edit changes."""
    return [
        f"{label}: {safe(str(old))} → {safe(str(new))}"
        for label, old, new in (
            ("name", before.name, after.name),
            ("alignment", before.alignment.value, after.alignment.value),
            ("reputation", before.reputation, after.reputation),
            ("battles fought", before.battles_fought, after.battles_fought),
        )
        if old != new
    ] or ["nothing changed"]


class GangCog(BotCog, commands.GroupCog, group_name="gang",
              group_description="Gangs and their rosters"):
    async def cog_load(self) -> None:
        await super().cog_load()
        confirmation(DELETE_GANG, self._delete_confirmed)
        confirmation(IMPORT_GANG, self._import_confirmed)
        register(ANSWER, *ANSWER_PARAMS, handler=answer_clicked, only="user")

    # ------------------------------------------------------------------ create

    @slash("create", "Found a gang in a campaign",
           name="the gang's name (unique in the campaign)",
           house="House or gang type (suggestions from the campaign's rule set)",
           credits="starting credits in the Stash (default 1000)")
    async def create(
        self,
        call: Call,
        name: NewName,
        house: HouseName,
        alignment: AlignmentChoice,
        credits: app_commands.Range[int, 0, 10_000] = 1000,
        campaign: CampaignName | None = None,
    ) -> None:
        if not 0 <= credits <= 10_000:
            raise InvalidRequest("Starting credits must be between 0 and 10000.")
        async with call.write(campaign) as s:
            gang = checked(lambda: Gang(
                id=new_id(), name=clean_name(name, "gang name"), house=house_of(s.ruleset, house),
                owner=s.by, alignment=Alignment(alignment), credits=credits,
            ), "gang")
            created = await s.tx.create_gang(s.campaign.id, gang, actor=s.by)
        await call.say(
            f"**{safe(created.name)}** ({safe(created.house)}, {created.alignment.value}) "
            f"joins {safe(s.campaign.name)} with {created.credits} credits. "
            f"Owner: {call.mention}."
        )

    # ------------------------------------------------------------------ show and list

    @slash("show", "A gang's roster",
           card="attach the roster card as PNG pages (default: the campaign's setting)")
    async def show(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None,
        card: bool | None = None,
    ) -> None:
        async with call.read(campaign) as s:
            shown = await s.gang(gang)
            captured = any(f.status is FighterStatus.CAPTURED for f in shown.fighters)
            captors = {g.id: g.name for g in await s.gangs()} if captured else {}
            held = await s.territories(controller=shown.id)
            captives = await s.tx.captives_held_by(s.campaign.id, shown.id)
        vehicles = s.ruleset.vehicle_profiles(
            v.vehicle_type for v in [*shown.vehicles, *shown.stash_vehicles])
        embeds = roster_embeds(
            shown, s.campaign.name, captors, territories=[t.name for t in held],
            captives=[(f.name, g.name) for g, f in captives], vehicle_profiles=vehicles,
        )
        if not shows_roster_card(card, s.campaign, self.bot.config.pictures.roster_card):
            await call.answer_embeds(embeds)
            return
        await call.draw_publicly()
        owner = await member_name(call.interaction, shown.owner)
        pages = await call.pictures.roster_card(
            shown, owner_name=owner, gang_names=captor_names(shown, captors),
            weapon_profiles=known_lines(s.ruleset, shown), vehicle_profiles=vehicles,
            guild=call.guild_id,
        )
        await call.answer_files(embeds, png_files(pages, roster_stem(shown)))

    @slash("list", "The gangs of a campaign", owner="only this player's gangs")
    async def list_(
        self,
        call: Call,
        owner: discord.User | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.read(campaign) as s:
            gangs = await s.gangs(owner=str(owner.id) if owner else None)
        whose = f" belonging to {owner.mention}" if owner else ""
        lines = [gang_line(g) for g in gangs] or [f"No gangs{whose} yet: found one with "
                                                  "/gang create."]
        await call.answer_embeds(lines_embeds(f"{safe(s.campaign.name)}: gangs", lines,
                                              colour=discord.Colour.dark_gold()))

    # ------------------------------------------------------------------ edit

    @slash("edit", "Rename a gang or correct its record",
           name="new name", battles_fought="battles fought so far")
    async def edit(
        self,
        call: Call,
        gang: GangName,
        name: NewName | None = None,
        alignment: AlignmentChoice | None = None,
        reputation: app_commands.Range[int, 1, 1000] | None = None,
        battles_fought: app_commands.Range[int, 0, 10_000] | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        update = {key: value for key, value in (
            ("name", None if name is None else clean_name(name, "gang name")),
            ("alignment", None if alignment is None else Alignment(alignment)),
            ("reputation", reputation), ("battles_fought", battles_fought),
        ) if value is not None}
        if battles_fought is not None and not 0 <= battles_fought <= 10_000:
            raise InvalidRequest("Battles fought must be between 0 and 10000.")
        if not update:
            raise InvalidRequest("Nothing to change: give a new name, alignment, reputation "
                                 "or battles fought.")
        async with call.write(campaign) as s:
            current = await s.own_gang(gang)
            edited = checked(
                lambda: Gang.model_validate({**current.model_dump(by_alias=True), **update}),
                "gang",
            )
            saved = await s.update_gang(edited, title="Edit gang")
        await call.say(f"**{safe(saved.name)}** updated: " + "; ".join(edit_lines(current, saved))
                       + ".")

    # ------------------------------------------------------------------ transfer

    @slash("transfer", "Give a gang to another player", user="its new owner")
    async def transfer(
        self,
        call: Call,
        gang: GangName,
        user: discord.User,
        campaign: CampaignName | None = None,
    ) -> None:
        if user.bot:
            raise InvalidRequest("A gang cannot belong to a bot.")
        async with call.write(campaign) as s:
            current = await s.own_gang(gang)
            if current.owner == str(user.id):
                # answer_error escapes refusals, mentions included: names go in as typed,
                # and the owner by name (an escaped mention would show as "<@123>").
                raise InvalidRequest(f"{current.name} already belongs to {user.display_name}.")
            saved = await s.tx.transfer_gang(s.campaign.id, current.id, str(user.id), actor=s.by)
        await call.say(f"**{safe(saved.name)}** now belongs to {user.mention} "
                       f"(was <@{current.owner}>).")

    # ------------------------------------------------------------------ delete

    @slash("delete", "Delete a gang (asks for confirmation)")
    async def delete(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None
    ) -> None:
        async with call.read(campaign) as s:
            target = await s.own_gang(gang)
        fighters = sum(1 for f in target.fighters if f.on_roster)
        await call.tell(
            f"Delete **{safe(target.name)}** from {safe(s.campaign.name)}, with its {fighters} "
            f"{'fighter' if fighters == 1 else 'fighters'}, vehicles, Stash and "
            f"{target.credits} credits? Its Territories become unclaimed.",
            view=confirm_view(DELETE_GANG, s.campaign.id, target.id, call.actor.user_id),
        )

    async def _delete_confirmed(
        self, interaction: Interaction, campaign_id: str, gang_id: str
    ) -> Confirmed:
        """The Confirm button: check again (time has passed) and delete in one transaction."""
        try:
            async with Call.of(interaction).write_in(campaign_id) as s:
                target = await s.tx.get_gang(campaign_id, gang_id)
                s.require_control(target)
                await s.tx.delete_gang(campaign_id, gang_id, actor=s.by)
        except NotFound:
            return Confirmed("That gang is already gone; nothing was deleted.")
        return Confirmed(
            f"**{safe(target.name)}** has been deleted.",
            announcement=f"{interaction.user.mention} deleted the gang **{safe(target.name)}** "
            f"from {safe(s.campaign.name)}.",
        )

    # ------------------------------------------------------------------ import and export

    @slash("import", "Bring in a gang from Yaktribe or a gang file",
           file="the gang's JSON export (Yaktribe, or a /gang export file)",
           url="or the address of the Yaktribe JSON export",
           name="call the gang this instead of the name in the file",
           owner="the player it belongs to (Arbitrators only; default: you)",
           categories="types the rule data lacks (else the preview asks): Cult Alpha=Leader")
    async def import_(
        self,
        call: Call,
        file: discord.Attachment | None = None,
        url: app_commands.Range[str, 1, 500] | None = None,
        name: NewName | None = None,
        owner: discord.User | None = None,
        categories: app_commands.Range[str, 1, 500] | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        rename = clean_name(name, "gang name") if name is not None else None
        if owner is not None and owner.bot:
            raise InvalidRequest("A gang cannot belong to a bot.")
        # Downloading can take longer than Discord's three seconds for an answer.
        await call.defer()
        data = await read_source(file, url, self.bot.config.importing)
        owner_id = str(owner.id) if owner is not None else call.actor.ledger_id
        for_other = owner_id != call.actor.ledger_id
        read_for = await call.campaign(campaign)
        if for_other:
            call.actor.require_arbitrator(read_for)
        parsed = await gangflow.read(data, read_for, owner=owner_id, categories=categories)
        async with call.write(campaign) as s:
            if for_other:
                s.require_arbitrator()
            token, staged, existing = await gangflow.stage(
                s.tx, s.campaign, parsed, call.actor, read_for=read_for, rename=rename
            )
        question = preview(staged, existing, s.campaign.name)
        report = {"file": question.report} if question.report is not None else {}
        await call.tell(question.content, embeds=question.embeds, **report,
                        view=import_view(s.campaign.id, token, call.actor.user_id, staged))

    async def _import_confirmed(
        self, interaction: Interaction, campaign_id: str, token: str
    ) -> Confirmed:
        call = Call.of(interaction)
        async with call.write_server() as tx:
            return await gangflow.confirm(tx, campaign_id, token, call.actor,
                                          mention=interaction.user.mention)

    @slash("export", "A gang as a JSON file (see /gang import)")
    async def export(
        self, call: Call, gang: GangName, campaign: CampaignName | None = None
    ) -> None:
        async with call.read(campaign) as s:
            shown = await s.gang(gang)
            territories = await s.territories(controller=shown.id)
        document = gang_document(call.guild_id, s.campaign, shown, territories)
        file = json_file(document.model_dump_json(indent=2, by_alias=True).encode(),
                         file_stem(shown.name, "gang"), call.interaction.filesize_limit)
        # A file for the one who asked: the roster itself is public through /gang show.
        await call.tell(f"**{safe(shown.name)}** as a gang file: /gang import reads it back, "
                        "here or on another server.", file=file)


setup = adds(GangCog)
