"""/campaign: start campaigns, show standings, change settings, manage Territories.

Who may do what (see docs/commands-campaign-gang.md):
- ``/campaign create``: members with Manage Server, or anyone while the server
  has no campaign yet (so a new group can start without an admin); the
  creator becomes an Arbitrator of the new campaign.
- ``/campaign settings`` with changes, ``territory add`` and ``territory
  assign``: Arbitrators only. ``settings`` without changes only shows them.
- ``show``, ``list``, ``territory list``, ``tradingpost show``: anyone.
- ``export``, ``tradingpost import`` and ``clear``: Arbitrators of the campaign.
- ``import``: members with Manage Server, Arbitrators of a campaign of this
  server, or anyone while the server has no campaign (as ``create``); the
  importer becomes an Arbitrator of the imported campaign.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.autocomplete import campaign_names, gang_names, territory_names, territory_templates
from bot.context import (
    actor_of,
    guild_id_of,
    is_arbitrator,
    is_server_manager,
    require_arbitrator,
    resolve_campaign,
    storage_of,
)
from bot.errors import Refused
from bot.importing.campaigndoc import grant_for, prepare_campaign_file, release_campaign
from bot.importing.tradingpost import read_trading_post_file
from bot.importing.uploads import file_stem, json_file, read_attachment
from bot.render import paginate, safe
from bot.rulesets import check_ruleset_name, ruleset_for
from bot.storage import Campaign, CampaignDocument, TradingPostEntry, Transaction, new_id
from bot.storage.exporting import ImportGrant
from bot.ui import checked, clean_name, send_embeds
from bot.ui.roster import clip, standings_embeds
from rules.data import available_rulesets
from rules.dice import parse
from rules.errors import InvalidRequest, NotFound
from rules.models import CampaignSettings, ScenarioDie, Territory
from rules.names import name_taken, same_name

if TYPE_CHECKING:
    from bot.app import MundaBot

Interaction = discord.Interaction["MundaBot"]
Name = app_commands.Range[str, 1, 100]
Die = Literal["D6", "D4"]

RULESET_CHOICES = [app_commands.Choice(name=n, value=n) for n in available_rulesets()]
MESSAGE_MAX = 2000
# A flat Territory income above this is surely a typo (the richest pay D6x10).
MAX_FLAT_INCOME = 1000


async def campaign_in(tx: Transaction, name: str | None) -> Campaign:
    """The named campaign, or the server's default, inside an open transaction."""
    if name:
        return await tx.get_campaign_by_name(name)
    return await tx.get_default_campaign()


@dataclass(frozen=True)
class Naming:
    """How users, roles and channels are written: mentions for an embed (the default)."""

    user: Callable[[int], str] = "<@{}>".format
    role: Callable[[int], str] = "<@&{}>".format
    channel: Callable[[int], str] = "<#{}>".format


def ledger_naming(guild: discord.Guild | None, known_users: dict[int, str]) -> Naming:
    """Names for the ledger, whose text is escaped (a mention would show as its code):
    the server's names, ``known_users`` (e.g. the command's own arguments), else ids."""

    def user(uid: int) -> str:
        member = guild.get_member(uid) if guild else None
        name = member.display_name if member else known_users.get(uid)
        return f"@{name}" if name else f"user {uid}"

    def role(rid: int) -> str:
        found = guild.get_role(rid) if guild else None
        return f"@{found.name}" if found else f"role {rid}"

    def channel(cid: int) -> str:
        found = guild.get_channel(cid) if guild else None
        return f"#{found.name}" if found else f"channel {cid}"

    return Naming(user, role, channel)


def settings_fields(
    campaign: Campaign, naming: Naming = Naming(), escape: Callable[[str], str] = safe
) -> list[tuple[str, str]]:
    """The settings as (label, value), as the embed shows them (the ledger escapes its text
    itself: it passes ``escape=str``)."""
    arbitrators = ", ".join(map(naming.user, campaign.arbitrator_user_ids)) or "none named"
    role = naming.role(campaign.arbitrator_role_id) if campaign.arbitrator_role_id else "none"
    channel = (naming.channel(campaign.report_channel_id) if campaign.report_channel_id
               else "none")
    return [
        ("Name", escape(campaign.name)),
        ("Default campaign", "yes" if campaign.is_default else "no"),
        ("Rule set", escape(campaign.settings.ruleset)),
        ("Scenario die", campaign.settings.scenario_die.value),
        ("Arbitrators", arbitrators[:1024]),
        ("Arbitrator role", role),
        ("Report channel", channel),
    ]


def settings_changes(before: Campaign, after: Campaign, naming: Naming) -> list[str]:
    """"Scenario die: D6 → D4" for each setting that differs; Arbitrators added and removed."""
    old = dict(settings_fields(before, naming, str))
    lines = [f"{label}: {old[label]} → {value}"
             for label, value in settings_fields(after, naming, str)
             if label != "Arbitrators" and old[label] != value]
    for verb, now, then in (("added", after, before), ("removed", before, after)):
        users = [naming.user(u) for u in now.arbitrator_user_ids
                 if u not in then.arbitrator_user_ids]
        if users:
            lines.append(f"Arbitrators {verb}: {', '.join(users)}")
    return lines


def settings_embed(campaign: Campaign) -> discord.Embed:
    embed = discord.Embed(title=f"{safe(campaign.name)}: settings", colour=discord.Colour.blue())
    for label, value in settings_fields(campaign)[1:]:  # the name is the title
        embed.add_field(name=label, value=value, inline=label != "Arbitrators")
    embed.set_footer(text="Members with Manage Server are Arbitrators of every campaign here.")
    return embed


def check_income(text: str) -> str:
    """A Territory income: a flat number of credits or a dice expression the rules can roll."""
    # Written the way the data sets write it: "D6x10".
    income = text.strip().upper().replace("×", "X").replace("X", "x")
    if re.fullmatch(r"[0-9]{1,9}", income):
        if int(income) > MAX_FLAT_INCOME:
            raise InvalidRequest(f"A flat income is at most {MAX_FLAT_INCOME} credits.")
        return str(int(income))
    parse(income)  # raises a readable InvalidRequest for anything it cannot roll
    return income


class CampaignCog(commands.GroupCog, group_name="campaign", group_description="Campaigns"):
    territory = app_commands.Group(name="territory", description="Territories of a campaign")
    tradingpost = app_commands.Group(
        name="tradingpost", description="The campaign's own Trading Post"
    )

    def __init__(self, bot: MundaBot) -> None:
        self.bot = bot
        super().__init__()

    # ------------------------------------------------------------------ create

    @app_commands.command(name="create", description="Start a campaign on this server")
    @app_commands.describe(
        name="the campaign's name",
        scenario_die="die for the scenario roll (default D6)",
        ruleset="rule data set to play with (default core-2023)",
        report_channel="channel where battle reports are posted",
    )
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def create(
        self,
        interaction: Interaction,
        name: Name,
        scenario_die: Die = "D6",
        ruleset: str = "core-2023",
        report_channel: discord.TextChannel | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        settings = checked(
            lambda: CampaignSettings(
                name=clean_name(name, "campaign name"),
                scenario_die=ScenarioDie(scenario_die),
                ruleset=check_ruleset_name(ruleset),
            ),
            "campaign",
        )
        async with storage_of(interaction).transaction(guild_id) as tx:
            existing = await tx.list_campaigns()
            if existing and not is_server_manager(interaction):
                raise Refused(
                    "This server already has a campaign; only members with Manage Server "
                    "can start another one."
                )
            campaign = await tx.create_campaign(
                settings,
                arbitrator_user_ids=[interaction.user.id],
                report_channel_id=report_channel.id if report_channel else None,
            )
        default = " It is the server's default campaign." if campaign.is_default else ""
        await interaction.response.send_message(
            f"Campaign **{safe(campaign.name)}** has begun, with {interaction.user.mention} "
            f"as its Arbitrator.{default} Players join with /gang create.",
            embed=settings_embed(campaign),
        )

    # ------------------------------------------------------------------ show and list

    @app_commands.command(name="show", description="Standings: every gang by Gang Rating")
    @app_commands.describe(campaign="campaign (default: the server's default campaign)")
    @app_commands.autocomplete(campaign=campaign_names)
    async def show(self, interaction: Interaction, campaign: Name | None = None) -> None:
        found = await resolve_campaign(interaction, campaign)
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        gangs = await storage.list_gangs(guild_id, found.id)
        territories = await storage.list_territories(guild_id, found.id)
        await send_embeds(interaction, standings_embeds(found.name, gangs, territories))

    @app_commands.command(name="list", description="Every campaign on this server")
    async def list_(self, interaction: Interaction) -> None:
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        campaigns = await storage.list_campaigns(guild_id)
        if not campaigns:
            raise NotFound("This server has no campaign yet; start one with /campaign create.")
        lines = []
        for campaign in campaigns:
            gangs = await storage.list_gangs(guild_id, campaign.id)
            mark = " (default)" if campaign.is_default else ""
            lines.append(
                f"**{safe(campaign.name)}**{mark}: {len(gangs)} "
                f"{'gang' if len(gangs) == 1 else 'gangs'}, rule set "
                f"{safe(campaign.settings.ruleset)}, scenario die "
                f"{campaign.settings.scenario_die.value}"
            )
        embeds = [
            discord.Embed(title="Campaigns on this server", description=page,
                          colour=discord.Colour.blue())
            for page in paginate(lines)
        ]
        await send_embeds(interaction, embeds)

    # ------------------------------------------------------------------ settings

    @app_commands.command(name="settings", description="Show or change a campaign's settings")
    @app_commands.describe(
        campaign="campaign (default: the server's default campaign)",
        name="rename the campaign",
        report_channel="channel for battle reports",
        clear_report_channel="stop posting battle reports",
        arbitrator_add="make this member an Arbitrator",
        arbitrator_remove="this member is no longer an Arbitrator",
        arbitrator_role="members of this role are Arbitrators",
        clear_arbitrator_role="no role makes Arbitrators any more",
        scenario_die="die for the scenario roll",
        ruleset="rule data set to play with",
        default="make this the server's default campaign",
    )
    @app_commands.autocomplete(campaign=campaign_names)
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def settings(
        self,
        interaction: Interaction,
        campaign: Name | None = None,
        name: Name | None = None,
        report_channel: discord.TextChannel | None = None,
        clear_report_channel: bool = False,
        arbitrator_add: discord.User | None = None,
        arbitrator_remove: discord.User | None = None,
        arbitrator_role: discord.Role | None = None,
        clear_arbitrator_role: bool = False,
        scenario_die: Die | None = None,
        ruleset: str | None = None,
        default: bool | None = None,
    ) -> None:
        changes = (name, report_channel, arbitrator_add, arbitrator_remove, arbitrator_role,
                   scenario_die, ruleset, default)
        changing = any(c is not None for c in changes) or clear_report_channel or (
            clear_arbitrator_role
        )
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            if changing:
                require_arbitrator(found, interaction)
                before = found
                found = await self._apply_settings(
                    tx, found, name=name, report_channel=report_channel,
                    clear_report_channel=clear_report_channel, arbitrator_add=arbitrator_add,
                    arbitrator_remove=arbitrator_remove, arbitrator_role=arbitrator_role,
                    clear_arbitrator_role=clear_arbitrator_role, scenario_die=scenario_die,
                    ruleset=ruleset, default=default,
                )
                named = {u.id: u.display_name for u in (arbitrator_add, arbitrator_remove) if u}
                changed = settings_changes(before, found,
                                           ledger_naming(interaction.guild, named))
                if changed:
                    # Who changed what, in the ledger like every other change to a campaign.
                    await tx.add_note(found.id, "Campaign settings changed: " + "; ".join(changed),
                                      actor=actor_of(interaction))
        content = "Settings saved." if changing else None
        await interaction.response.send_message(content, embed=settings_embed(found))

    async def _apply_settings(
        self,
        tx: Transaction,
        campaign: Campaign,
        *,
        name: str | None,
        report_channel: discord.TextChannel | None,
        clear_report_channel: bool,
        arbitrator_add: discord.User | None,
        arbitrator_remove: discord.User | None,
        arbitrator_role: discord.Role | None,
        clear_arbitrator_role: bool,
        scenario_die: str | None,
        ruleset: str | None,
        default: bool | None,
    ) -> Campaign:
        if report_channel and clear_report_channel:
            raise InvalidRequest("Set a report channel or clear it, not both.")
        if arbitrator_role and clear_arbitrator_role:
            raise InvalidRequest("Set an Arbitrator role or clear it, not both.")
        if default is False and campaign.is_default:
            raise InvalidRequest(
                "A server always has a default campaign: make another campaign the default "
                "instead."
            )
        update: dict[str, object] = {}
        if name is not None:
            update["name"] = clean_name(name, "campaign name")
        if scenario_die is not None:
            update["scenario_die"] = ScenarioDie(scenario_die)
        if ruleset is not None:
            update["ruleset"] = check_ruleset_name(ruleset)
        settings = checked(
            lambda: CampaignSettings.model_validate({**campaign.settings.model_dump(), **update}),
            "campaign setting",
        )
        arbitrators = list(campaign.arbitrator_user_ids)
        if arbitrator_add is not None:
            if arbitrator_add.bot:
                raise InvalidRequest("A bot cannot be an Arbitrator.")
            if arbitrator_add.id not in arbitrators:
                arbitrators.append(arbitrator_add.id)
        if arbitrator_remove is not None:
            if arbitrator_remove.id not in arbitrators:
                raise InvalidRequest(
                    f"{arbitrator_remove.display_name} is not a named Arbitrator of "
                    f"{campaign.name}."
                )
            arbitrators.remove(arbitrator_remove.id)
        role_id = campaign.arbitrator_role_id
        if arbitrator_role is not None:
            role_id = arbitrator_role.id
        elif clear_arbitrator_role:
            role_id = None
        channel_id = campaign.report_channel_id
        if report_channel is not None:
            channel_id = report_channel.id
        elif clear_report_channel:
            channel_id = None
        updated = await tx.update_campaign(campaign.model_copy(update={
            "settings": settings, "arbitrator_user_ids": arbitrators,
            "arbitrator_role_id": role_id, "report_channel_id": channel_id,
        }))
        if default:
            updated = await tx.set_default_campaign(updated.id)
        return updated

    # ------------------------------------------------------------------ territories

    @territory.command(name="add", description="Add a Territory to the campaign")
    @app_commands.describe(
        name="the Territory's name",
        income="income after each battle: a dice expression (D6x10) or credits (15)",
        template="copy income and boons from the rule set's Territory of this name",
        campaign="campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(template=territory_templates, campaign=campaign_names)
    async def territory_add(
        self,
        interaction: Interaction,
        name: Name,
        income: app_commands.Range[str, 1, 32] | None = None,
        template: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        territory_name = clean_name(name, "Territory name")
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            require_arbitrator(found, interaction)
            fields: dict[str, object] = {}
            if template is not None:
                source = next(
                    (t for t in ruleset_for(found).territories
                     if same_name(t.name, template)),
                    None,
                )
                if source is None:
                    raise NotFound(
                        f"The rule set {found.settings.ruleset} has no Territory called "
                        f"'{template}'."
                    )
                fields = {"income": source.income, "boons": list(source.boons),
                          "can_be_staked": source.can_be_staked,
                          "income_only_for": source.income_only_for}
            if income is not None:
                fields["income"] = check_income(income)
            existing = await tx.list_territories(found.id)
            holder = next((t for t in existing if same_name(t.name, territory_name)), None)
            if holder is not None:
                raise InvalidRequest(
                    name_taken("Territory", territory_name, holder.name, f"in {found.name}")
                )
            territory = checked(
                lambda: Territory.model_validate(
                    {"id": new_id(), "name": territory_name, **fields}
                ),
                "Territory",
            )
            added = await tx.add_territory(found.id, territory, actor=actor_of(interaction))
        await interaction.response.send_message(clip(
            f"Territory **{safe(added.name)}** added to {safe(found.name)}: "
            f"{_territory_details(added)}.", MESSAGE_MAX
        ))

    @territory.command(name="list", description="Every Territory of the campaign and who holds it")
    @app_commands.describe(campaign="campaign (default: the server's default campaign)")
    @app_commands.autocomplete(campaign=campaign_names)
    async def territory_list(self, interaction: Interaction, campaign: Name | None = None) -> None:
        found = await resolve_campaign(interaction, campaign)
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        territories = await storage.list_territories(guild_id, found.id)
        holders = {g.id: g.name for g in await storage.list_gangs(guild_id, found.id)}
        lines = []
        for territory in sorted(territories, key=lambda t: t.name.casefold()):
            holder = holders.get(territory.controller or "")
            held = f"held by {safe(holder)}" if holder else "unclaimed"
            lines.append(f"**{safe(territory.name)}**: {held}; {_territory_details(territory)}")
        if not lines:
            lines = ["No Territories yet: an Arbitrator adds them with /campaign territory add."]
        embeds = [
            discord.Embed(title=f"{safe(found.name)}: Territories", description=page,
                          colour=discord.Colour.dark_green())
            for page in paginate(lines)
        ]
        await send_embeds(interaction, embeds)

    @territory.command(name="assign", description="Give a Territory to a gang, or unclaim it")
    @app_commands.describe(
        territory="the Territory",
        gang="the gang that now holds it (leave empty to make it unclaimed)",
        campaign="campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(
        territory=territory_names, gang=gang_names, campaign=campaign_names
    )
    async def territory_assign(
        self,
        interaction: Interaction,
        territory: Name,
        gang: Name | None = None,
        campaign: Name | None = None,
    ) -> None:
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            require_arbitrator(found, interaction)
            target = next(
                (t for t in await tx.list_territories(found.id) if same_name(t.name, territory)),
                None,
            )
            if target is None:
                raise NotFound(
                    f"There is no Territory called '{territory}' in {found.name}."
                )
            holder = await tx.get_gang_by_name(found.id, gang) if gang else None
            await tx.assign_territory(
                found.id, target.id, holder.id if holder else None, actor=actor_of(interaction)
            )
        where = f"now held by **{safe(holder.name)}**" if holder else "now unclaimed"
        await interaction.response.send_message(f"**{safe(target.name)}** is {where}.")

    # ------------------------------------------------------------------ export and import

    @app_commands.command(name="export", description="The whole campaign as a JSON file")
    @app_commands.describe(campaign="campaign (default: the server's default campaign)")
    @app_commands.autocomplete(campaign=campaign_names)
    async def export(self, interaction: Interaction, campaign: Name | None = None) -> None:
        found = await resolve_campaign(interaction, campaign)
        require_arbitrator(found, interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        document = await storage_of(interaction).export_campaign(
            guild_id_of(interaction), found.id
        )
        file = json_file(
            document.model_dump_json(by_alias=True).encode(),
            file_stem(found.name, "campaign"), interaction.filesize_limit,
        )
        # A backup for the Arbitrator who asked, not a post for the channel.
        await interaction.followup.send(
            f"**{safe(found.name)}**: {_contents(document)}. /campaign import restores it on "
            "any server.",
            file=file, ephemeral=True,
        )

    @app_commands.command(name="import", description="Restore a campaign from its export file")
    @app_commands.describe(
        file="the file /campaign export made (.json or .json.gz)",
        name="give it this name here (default: its own)",
    )
    async def import_(
        self, interaction: Interaction, file: discord.Attachment, name: Name | None = None
    ) -> None:
        storage, guild_id = storage_of(interaction), guild_id_of(interaction)
        existing = await storage.list_campaigns(guild_id)
        allowed = not existing or is_server_manager(interaction) or any(
            is_arbitrator(c, interaction) for c in existing
        )
        if not allowed:
            raise Refused(
                "Only members with Manage Server or an Arbitrator can import a campaign here."
            )
        new_name = clean_name(name, "campaign name") if name is not None else None
        await interaction.response.defer(ephemeral=True, thinking=True)
        prepared = await prepare_campaign_file(
            await read_attachment(file, self.bot.config.importing)
        )
        document = prepared.document
        wanted = new_name or document.campaign.settings.name
        check_ruleset_name(document.campaign.settings.ruleset)
        guild = interaction.guild
        if guild is None:
            raise Refused("Campaigns are imported inside a server.")
        grant = await grant_for(document, guild, interaction.user.id)
        async with storage.transaction(guild_id) as tx:
            if any(same_name(c.name, wanted) for c in await tx.list_campaigns()):
                raise InvalidRequest(
                    f"There is already a campaign called '{wanted}' here; import it with "
                    "the name option to call it something else."
                )
            imported = await tx.import_campaign(
                prepared, actor=actor_of(interaction), name=new_name, grant=grant
            )
        summary = f"Campaign **{safe(imported.name)}** imported: {_contents(document)}."
        notes = _import_notes(document, grant)
        await release_campaign(prepared)
        await interaction.followup.send(
            f"{summary} {notes} See /campaign show.", ephemeral=True
        )
        await interaction.followup.send(f"{interaction.user.mention}: {summary}")

    # ------------------------------------------------------------------ Trading Post

    @tradingpost.command(name="import", description="Give the campaign its own Trading Post")
    @app_commands.describe(
        file="CSV (name,category,cost,availability) or JSON list of items",
        campaign="campaign (default: the server's default campaign)",
    )
    @app_commands.autocomplete(campaign=campaign_names)
    async def tradingpost_import(
        self, interaction: Interaction, file: discord.Attachment, campaign: Name | None = None
    ) -> None:
        found = await resolve_campaign(interaction, campaign)
        require_arbitrator(found, interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await read_attachment(file, self.bot.config.importing)
        parsed = await read_trading_post_file(data, file.filename)
        entries = parsed.entries
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await tx.get_campaign(found.id)
            require_arbitrator(found, interaction)
            before = len(found.trading_post) if found.trading_post is not None else None
            replaced = (
                f"the rule set's {len(ruleset_for(found).trading_post)} items"
                if before is None else f"its own list of {before}"
            )
            await tx.set_trading_post(
                found.id, entries, actor=actor_of(interaction),
                note=f"Trading Post imported from {file.filename[:80]}: {len(entries)} items, "
                f"replacing {replaced}.",
            )
        counts = _availability_counts(entries)
        ignored = (
            f" Columns not read: {', '.join(safe(c, 30) for c in parsed.ignored_columns)}."
            if parsed.ignored_columns else ""
        )
        await interaction.followup.send(
            f"Imported {len(entries)} items ({counts}) from {safe(file.filename)}, replacing "
            f"{replaced}.{ignored} See /campaign tradingpost show.",
            ephemeral=True,
        )
        await interaction.followup.send(
            f"{interaction.user.mention} gave **{safe(found.name)}** its own Trading Post: "
            f"{len(entries)} items ({counts}). Seek Rare & Illegal rolls list from it now."
        )

    @tradingpost.command(name="show", description="The Trading Post the campaign plays with")
    @app_commands.describe(campaign="campaign (default: the server's default campaign)")
    @app_commands.autocomplete(campaign=campaign_names)
    async def tradingpost_show(
        self, interaction: Interaction, campaign: Name | None = None
    ) -> None:
        found = await resolve_campaign(interaction, campaign)
        if found.trading_post is not None:
            entries = found.trading_post
            source = "its own Trading Post"
        else:
            entries = [TradingPostEntry(**e.model_dump()) for e in ruleset_for(found).trading_post]
            source = f"the rule set {safe(found.settings.ruleset)}"
        lines = _trading_post_lines(entries)
        embeds = [
            discord.Embed(
                title=f"{safe(found.name)}: Trading Post", description=page,
                colour=discord.Colour.dark_teal(),
            ).set_footer(text=f"{len(entries)} items, from {source}"[:200])
            for page in paginate(lines)
        ]
        await send_embeds(interaction, embeds)

    @tradingpost.command(name="clear", description="Play with the rule set's Trading Post again")
    @app_commands.describe(campaign="campaign (default: the server's default campaign)")
    @app_commands.autocomplete(campaign=campaign_names)
    async def tradingpost_clear(
        self, interaction: Interaction, campaign: Name | None = None
    ) -> None:
        async with storage_of(interaction).transaction(guild_id_of(interaction)) as tx:
            found = await campaign_in(tx, campaign)
            require_arbitrator(found, interaction)
            if found.trading_post is None:
                raise InvalidRequest(
                    f"{found.name} already plays with its rule set's Trading Post."
                )
            await tx.set_trading_post(
                found.id, None, actor=actor_of(interaction),
                note=f"Own Trading Post of {len(found.trading_post)} items removed; the rule "
                "set's is used again.",
            )
        await interaction.response.send_message(
            f"**{safe(found.name)}** plays with the Trading Post of its rule set "
            f"{safe(found.settings.ruleset)} again."
        )


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _contents(document: CampaignDocument) -> str:
    return ", ".join((
        _counted(len(document.gangs), "gang", "gangs"),
        _counted(len(document.territories), "Territory", "Territories"),
        _counted(len(document.battles), "battle", "battles"),
        _counted(len(document.ledger), "ledger entry", "ledger entries"),
    ))


def _import_notes(document: CampaignDocument, grant: ImportGrant) -> str:
    """What the import did not take from the file as it was (docs/importing.md)."""
    notes = ["You are its Arbitrator; its history is marked as imported."]
    if document.campaign.report_channel_id is not None and grant.report_channel_id is None:
        notes.append("Its report channel is not one of this server's: set one in "
                     "/campaign settings.")
    if document.campaign.arbitrator_role_id is not None and grant.arbitrator_role_id is None:
        notes.append("Its Arbitrator role is not one of this server's.")
    others = sum(1 for gang in document.gangs if gang.owner not in grant.owners)
    if others:
        notes.append(f"Gangs whose owner is not a member here are yours now ({others}); "
                     "/gang transfer gives them away.")
    return " ".join(notes)


def _availability_counts(entries: list[TradingPostEntry]) -> str:
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry.availability.rarity.value] = counts.get(entry.availability.rarity.value, 0) + 1
    return ", ".join(f"{count} {rarity}" for rarity, count in counts.items())


def _trading_post_lines(entries: list[TradingPostEntry]) -> list[str]:
    """Items grouped under their categories (in the file's order), cheapest first within."""
    groups: dict[str, list[TradingPostEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.category or entry.kind.value.capitalize(), []).append(entry)
    lines: list[str] = []
    for category, items in groups.items():
        lines.append(f"**{safe(category)}**")
        for item in sorted(items, key=lambda e: (e.cost, e.name.casefold())):
            slots = ", two weapon slots" if item.two_slots else ""
            lines.append(
                f"{safe(item.name)}: {item.cost} credits, {item.availability}{slots}"
            )
    return lines or ["The Trading Post is empty."]


def _territory_details(territory: Territory) -> str:
    income = territory.income if territory.income != "0" else "no income"
    if territory.income_only_for is not None and territory.income != "0":
        income = f"{income} ({territory.income_only_for.value} gangs only)"
    parts = [f"income {income}" if territory.income != "0" else income]
    if not territory.can_be_staked:
        parts.append("cannot be staked")
    if territory.boons:
        parts.append("boons: " + "; ".join(safe(b, 200) for b in territory.boons))
    return ", ".join(parts)


async def setup(bot: MundaBot) -> None:
    await bot.add_cog(CampaignCog(bot))
