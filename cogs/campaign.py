"""/campaign: start campaigns, show standings, change settings, manage Territories.

Who may do what (see docs/commands-campaign-gang.md):
- ``/campaign create``: members with Manage Server, or anyone while the server
  has no campaign yet (so a new group can start without an admin); the
  creator becomes an Arbitrator of the new campaign.
- ``/campaign settings`` with changes, ``territory add`` and ``territory
  assign``: Arbitrators only. ``settings`` without changes only shows them.
- ``show``, ``list``, ``territory list``, ``tradingpost show``: anyone.
- ``export``, ``tradingpost import`` and ``clear``: Arbitrators of the campaign.
- ``delete``: Arbitrators of the campaign, after a Confirm button (docs/privacy.md).
- ``import``: members with Manage Server, Arbitrators of a campaign of this
  server, or anyone while the server has no campaign (as ``create``); the
  importer becomes an Arbitrator of the imported campaign.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot import failpoints
from bot import ruledata as ruledata_flow
from bot.battle.publish import deliver_owed, show_campaign_deleted
from bot.battle.state import Phase
from bot.battle.store import runs_of
from bot.call import Call, Interaction, Scope
from bot.cog import BotCog, adds
from bot.cycle_end import handles_cycle_end  # noqa: F401  (registers the end timers')
from bot.cycles import (
    CYCLE_CLAUSE,
    downtime_gangs,
    downtime_places,
    end_cycle,
    record,
    standings_now,
    start_campaign,
    stored_calendar,
    undo_calendar,
)
from bot.downtime.clicks import deliver, downtime_thread
from bot.downtime.engine import act as act_in_downtime
from bot.downtime.engine import gangs_to_open, open_downtime
from bot.errors import Refused
from bot.importing.campaigndoc import grant_for, release_campaign
from bot.importing.files import prepare_campaign_file, read_trading_post_file
from bot.importing.uploads import file_stem, json_file, read_attachment
from bot.lookup import first_named, pick
from bot.options import (
    CampaignName,
    CampaignTypeName,
    FighterName,
    GangName,
    NewName,
    PhaseName,
    PromotionType,
    TerritoryName,
    TerritoryTemplate,
)
from bot.pictures import Measure, chart_series
from bot.render import clip, safe
from bot.rulesets import check_ruleset_name, ruleset_for
from bot.slash import slash, value_choices
from bot.storage import Campaign, TradingPostEntry
from bot.ui import checked, clean_name, lines_embeds
from bot.ui.campaign import (
    SettingsChange,
    availability_counts,
    campaign_line,
    contents,
    import_notes,
    ledger_naming,
    new_territory,
    settings_changes,
    settings_embed,
    territory_details,
    territory_lines,
    trading_post_lines,
)
from bot.ui.confirm import Confirmed, confirm_view, confirmation
from bot.ui.cycles import calendar_lines, limits_line, parse_when, stamp
from bot.ui.pictures import chart_caption, png_files
from bot.ui.roster import standings_embeds
from rules.cycles import extend, set_limits, set_phase_cycles
from rules.cycles import plan as plan_cycle
from rules.data import available_rulesets
from rules.dice import SecureRoller
from rules.downtime import FRESH_RECRUITMENT_CREDITS, promote
from rules.errors import InvalidRequest, NotFound
from rules.models import DEFAULT_RULESET, CampaignSettings, ScenarioDie
from rules.names import name_taken, same_name
from rules.steps import DowntimeStep
from rules.tradingpost import type_template
from rules.wording import count

if TYPE_CHECKING:
    from bot.app import MundaBot

Die = Literal["D6", "D4"]
MeasureChoice = Literal["Gang Rating", "Wealth", "Reputation", "Credits"]

RULESET_CHOICES = value_choices(available_rulesets())
MESSAGE_MAX = 2000
MAX_RECRUITMENT_CREDITS = 10_000
DELETE_CAMPAIGN = "delete-campaign"
IMPORT_RULE_DATA = "import-rule-data"


class CampaignCog(BotCog, commands.GroupCog, group_name="campaign", group_description="Campaigns"):
    territory = app_commands.Group(name="territory", description="Territories of a campaign")
    tradingpost = app_commands.Group(
        name="tradingpost", description="The campaign's own Trading Post"
    )
    ruledata = app_commands.Group(
        name="ruledata", description="The campaign's own House Lists, weapons, skills..."
    )
    downtime = app_commands.Group(
        name="downtime", description="Downtime between the campaign's phases"
    )
    cycle = app_commands.Group(
        name="cycle", description="The campaign's cycles: start, dates, end, undo"
    )

    async def cog_load(self) -> None:
        await super().cog_load()
        confirmation(DELETE_CAMPAIGN, self._delete_confirmed)
        confirmation(IMPORT_RULE_DATA, self._rule_data_confirmed)

    # ------------------------------------------------------------------ create

    @slash("create", "Start a campaign on this server",
           name="the campaign's name", report_channel="channel where battle reports are posted")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def create(
        self,
        call: Call,
        name: NewName,
        scenario_die: Die = "D6",
        ruleset: str = DEFAULT_RULESET,
        report_channel: discord.TextChannel | None = None,
    ) -> None:
        settings = checked(lambda: CampaignSettings(
            name=clean_name(name, "campaign name"), scenario_die=ScenarioDie(scenario_die),
            ruleset=check_ruleset_name(ruleset),
            # The bot's setting is only where a new campaign starts; /campaign settings
            # changes it for this campaign.
            roster_cards=self.bot.config.pictures.roster_card,
        ), "campaign")
        async with call.write_server() as tx:
            call.actor.require_may_start(await tx.list_campaigns())
            campaign = await tx.create_campaign(
                settings, arbitrator_user_ids=[call.actor.user_id],
                report_channel_id=report_channel.id if report_channel else None,
            )
        default = " It is the server's default campaign." if campaign.is_default else ""
        await call.say(
            f"Campaign **{safe(campaign.name)}** has begun, with {call.mention} "
            f"as its Arbitrator.{default} Players join with /gang create.",
            embed=settings_embed(campaign),
        )

    # ------------------------------------------------------------------ show and list

    @slash("show", "Standings: every gang by Gang Rating")
    async def show(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as s:
            gangs, territories = await s.gangs(), await s.territories()
        await call.answer_embeds(standings_embeds(s.campaign.name, gangs, territories))

    @slash("chart", "A line chart of the gangs over the battles",
           measure="what to chart (default Gang Rating)",
           gang="only this gang (default: every gang that fought)")
    async def chart(
        self,
        call: Call,
        measure: MeasureChoice = "Gang Rating",
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.read(campaign) as s:
            only = await s.gang(gang) if gang is not None else None
            changes = await s.tx.roster_changes(s.campaign.id)
        await call.draw_publicly()
        # Replaying a long ledger is work too: on the pictures' thread, off the event loop.
        series = await call.pictures.run(chart_series, changes, guild=call.guild_id)
        if only is not None:
            series = [line for line in series if line.gang_id == only.id]
        chosen = Measure(measure)
        whose = only.name if only is not None else s.campaign.name
        png = await call.pictures.campaign_chart(series, chosen, title=f"{whose}: {chosen}",
                                                 guild=call.guild_id)
        stem = f"chart-{file_stem(whose, 'campaign')}"
        await call.answer_files([], png_files([png], stem),
                                content=chart_caption(whose, chosen, series))

    @slash("list", "Every campaign on this server")
    async def list_(self, call: Call) -> None:
        async with call.read_server() as tx:
            campaigns = await tx.list_campaigns()
            if not campaigns:
                raise NotFound("This server has no campaign yet; start one with /campaign create.")
            lines = [campaign_line(c, len(await tx.list_gangs(c.id))) for c in campaigns]
        await call.answer_embeds(
            lines_embeds("Campaigns on this server", lines, colour=discord.Colour.blue())
        )

    # ------------------------------------------------------------------ cycles

    @slash("start", "Start the campaign's first cycle and draw its challenge order",
           under=cycle, campaign_type="phases, cycles and Triumphs, from the rule data",
           ends="cycle 1's end: 2026-01-12 19:00 (campaign's time zone) or 7d (default: the "
                "type's length)",
           channel="where the cycle posts go (default: the report channel, else here)")
    async def cycle_start(
        self, call: Call, campaign_type: CampaignTypeName = "Dominion",
        ends: app_commands.Range[str, 1, 40] | None = None,
        channel: discord.TextChannel | None = None, campaign: CampaignName | None = None,
    ) -> None:
        now = self.bot.clock.now()
        async with call.write(campaign) as s:
            s.require_arbitrator()
            zone = await self._time_zone(s)
            ends_at = parse_when(ends, now, zone) if ends else None
            where = (channel.id if channel else s.campaign.report_channel_id
                     or call.interaction.channel_id or 0)
            started = await start_campaign(s.tx, s.campaign, campaign_type, where, now,
                                           SecureRoller(), actor=s.by, ends_at=ends_at)
        self.bot.timers.kick()
        await deliver_owed(self.bot, call.guild_id)
        await call.say(f"**{safe(s.campaign.name)}**: cycle {started.number} has begun, "
                       f"until {stamp(started.ends_at)}. Its post is in <#{where}>.")

    @staticmethod
    async def _time_zone(s: Scope) -> str:
        """The zone typed dates are read in: the campaign's, as /schedule reads times."""
        return (await s.tx.calendar_settings(s.campaign.id)).time_zone

    @slash("show", "The campaign's cycles, dates and this cycle's challenges", under=cycle)
    async def cycle_show(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as s:
            calendar, _ = await stored_calendar(s.tx, s.campaign)
            names = {g.id: g.name for g in await s.gangs()}
            territories = {t.id: t.name for t in await s.territories()}
        await call.answer_embeds(lines_embeds(f"{safe(s.campaign.name)}: cycles",
                                              calendar_lines(calendar, names, territories),
                                              colour=discord.Colour.dark_gold()))

    @slash("set", "Set a cycle's dates (the open cycle's end, or a cycle to come)",
           under=cycle, number="the cycle's number",
           starts="when it starts: 2026-01-12, 2026-01-12 19:00 (campaign's time zone) or 7d",
           ends="when it ends: 2026-01-19, 2026-01-19 19:00 (campaign's time zone) or 14d")
    async def cycle_set(
        self, call: Call, number: app_commands.Range[int, 1, 52],
        starts: app_commands.Range[str, 1, 40] | None = None,
        ends: app_commands.Range[str, 1, 40] | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        if starts is None and ends is None:
            raise InvalidRequest("Give the cycle's start, its end, or both.")
        now = self.bot.clock.now()
        async with call.write(campaign) as s:
            s.require_arbitrator()
            zone = await self._time_zone(s)
            starts_at = parse_when(starts, now, zone) if starts else None
            ends_at = parse_when(ends, now, zone) if ends else None
            calendar, revision = await stored_calendar(s.tx, s.campaign)
            changed = plan_cycle(calendar, number, starts_at, ends_at)
            when = (f"{stamp(starts_at) if starts_at else 'its start as it was'} to "
                    f"{stamp(ends_at) if ends_at else 'its end as it was'}")
            await record(s.tx, s.campaign, changed, revision, actor=s.by,
                         clause=CYCLE_CLAUSE, title=f"Cycle {number} dates set",
                         notes=[f"Cycle {number}: {when}."])
        self.bot.timers.kick()
        await call.say(f"**{safe(s.campaign.name)}**, cycle {number}: {when}.")

    @slash("extend", "Move the open cycle's end later", under=cycle,
           until="the new end: 2026-01-19, 2026-01-19 19:00 (campaign's time zone) or 3d")
    async def cycle_extend(
        self, call: Call, until: app_commands.Range[str, 1, 40],
        campaign: CampaignName | None = None,
    ) -> None:
        now = self.bot.clock.now()
        async with call.write(campaign) as s:
            s.require_arbitrator()
            ends_at = parse_when(until, now, await self._time_zone(s))
            calendar, revision = await stored_calendar(s.tx, s.campaign)
            changed = extend(calendar, ends_at)
            number = changed.open_cycle().number
            await record(s.tx, s.campaign, changed, revision, actor=s.by,
                         clause=CYCLE_CLAUSE, title=f"Cycle {number} extended",
                         notes=[f"Cycle {number} now ends {stamp(ends_at)}."])
        self.bot.timers.kick()
        await call.say(f"**{safe(s.campaign.name)}**: cycle {number} now ends "
                       f"{stamp(ends_at)} ({stamp(ends_at, 'R')}).")

    @slash("end", "End the open cycle now: what waits lapses, the next cycle opens",
           under=cycle)
    async def cycle_end(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as r:
            r.require_arbitrator()
            calendar, _ = await stored_calendar(r.tx, r.campaign)
            number = calendar.open_cycle().number
            gangs = await downtime_gangs(r.tx, r.campaign, calendar)
        # Public and acknowledged now: the threads of a Downtime it opens, then its posts
        # (the standings' chart is drawn as they are sent) come before the answer.
        await call.draw_publicly()
        places = await downtime_places(self.bot, calendar.channel_id, gangs)
        async with call.write_in(r.campaign.id) as s:
            s.require_arbitrator()
            await end_cycle(s.tx, s.campaign, number, self.bot.clock.now(), SecureRoller(),
                            actor=s.by, places=places)
            after, _ = await stored_calendar(s.tx, s.campaign)
        self.bot.timers.kick()
        failpoints.hit(failpoints.AFTER_CYCLE_STORED)
        await deliver_owed(self.bot, call.guild_id)
        following = ("The campaign is over: the Triumphs are posted." if after.current is None
                     else f"Cycle {number + 1} has begun.")
        await call.say(f"**{safe(s.campaign.name)}**: cycle {number} has ended. {following}")

    @slash("phase", "Change how many cycles a phase of this campaign lasts", under=cycle,
           phase="the phase (Occupation, Takeover...)", cycles="how many cycles it lasts")
    async def cycle_phase(
        self, call: Call, phase: PhaseName, cycles: app_commands.Range[int, 1, 52],
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.write(campaign) as s:
            s.require_arbitrator()
            calendar, revision = await stored_calendar(s.tx, s.campaign)
            changed = set_phase_cycles(calendar, phase, cycles)
            _, found = changed.campaign_type.phase_named(phase)
            total = changed.campaign_type.total_cycles
            await record(s.tx, s.campaign, changed, revision, actor=s.by,
                         clause=CYCLE_CLAUSE, title=f"{found.name}: {cycles} cycles",
                         notes=[f"The {found.name} phase lasts {count(cycles, 'cycle')}; "
                                f"the campaign {count(total, 'cycle')}."])
        await call.say(f"**{safe(s.campaign.name)}**: the {safe(found.name)} phase lasts "
                       f"{count(cycles, 'cycle')}; the campaign {count(total, 'cycle')}.")

    @slash("limits", "Change how many challenges a gang makes a cycle, and one battle a cycle",
           under=cycle,
           challenges="challenges a gang makes a cycle before its battles are played (0: any)",
           one_battle="a gang in a waiting challenge cannot be challenged again this cycle")
    async def cycle_limits(
        self, call: Call, challenges: app_commands.Range[int, 0, 20] | None = None,
        one_battle: bool | None = None, campaign: CampaignName | None = None,
    ) -> None:
        async with call.write(campaign) as s:
            s.require_arbitrator()
            calendar, revision = await stored_calendar(s.tx, s.campaign)
            changed = set_limits(calendar, challenges, one_battle)
            said = limits_line(changed.campaign_type)
            await record(s.tx, s.campaign, changed, revision, actor=s.by,
                         clause=CYCLE_CLAUSE, title="Challenge limits changed", notes=[said])
        await call.say(f"**{safe(s.campaign.name)}**: {said}")

    @slash("undo", "Undo the last change of the cycles or challenges", under=cycle)
    async def cycle_undo(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.write(campaign) as s:
            s.require_arbitrator()
            undone = await undo_calendar(s.tx, s.campaign, self.bot.clock.now(), actor=s.by)
        self.bot.timers.kick()
        await deliver_owed(self.bot, call.guild_id)
        await call.say(f"**{safe(s.campaign.name)}**: undone: {safe(undone, 200)}. Posts "
                       "already made stay in the channel.")

    @slash("standings", "Each gang's Territories, battles, wins, rating and the Triumphs' race")
    async def standings(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as s:
            embeds = await standings_now(s.tx, s.campaign)
        await call.answer_embeds(embeds)

    # ------------------------------------------------------------------ settings

    @slash("settings", "Show or change a campaign's settings",
           name="rename the campaign",
           clear_report_channel="post battle reports where each battle was started again",
           arbitrator_add="make this member an Arbitrator",
           arbitrator_remove="this member is no longer an Arbitrator",
           arbitrator_role="members of this role are Arbitrators",
           clear_arbitrator_role="no role makes Arbitrators any more",
           scenario_die="die for the scenario roll", ruleset="rule data set to play with",
           default="make this the server's default campaign",
           roster_cards="attach the roster card to /gang show unless the player says otherwise")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def settings(
        self,
        call: Call,
        campaign: CampaignName | None = None,
        name: NewName | None = None,
        report_channel: discord.TextChannel | None = None,
        clear_report_channel: bool = False,
        arbitrator_add: discord.User | None = None,
        arbitrator_remove: discord.User | None = None,
        arbitrator_role: discord.Role | None = None,
        clear_arbitrator_role: bool = False,
        scenario_die: Die | None = None,
        ruleset: str | None = None,
        default: bool | None = None,
        roster_cards: bool | None = None,
    ) -> None:
        change = SettingsChange(name, report_channel, clear_report_channel, arbitrator_add,
                                arbitrator_remove, arbitrator_role, clear_arbitrator_role,
                                scenario_die, ruleset, default, roster_cards)
        async with call.write(campaign) as s:
            found = s.campaign
            if change.changes_anything:
                s.require_arbitrator()
                found = await s.tx.update_campaign(change.applied_to(s.campaign))
                if default:
                    found = await s.tx.set_default_campaign(found.id)
                naming = ledger_naming(call.interaction.guild, change.named_users)
                if changed := settings_changes(s.campaign, found, naming):
                    # Who changed what, in the ledger like every other change to a campaign.
                    await s.tx.add_note(
                        found.id, "Campaign settings changed: " + "; ".join(changed), actor=s.by
                    )
        content = "Settings saved." if change.changes_anything else None
        await call.say(content, embed=settings_embed(found))

    # ------------------------------------------------------------------ territories

    @slash("add", "Add a Territory to the campaign", under=territory,
           name="the Territory's name",
           income="income after each battle: a dice expression (D6x10) or credits (15)",
           template="copy income and boons from the rule set's Territory of this name")
    async def territory_add(
        self,
        call: Call,
        name: NewName,
        income: app_commands.Range[str, 1, 32] | None = None,
        template: TerritoryTemplate | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        territory_name = clean_name(name, "Territory name")
        async with call.write(campaign) as s:
            s.require_arbitrator()
            source = None if template is None else pick(
                s.ruleset.territories, template,
                f"The rule set {s.campaign.settings.ruleset} has no Territory called '{template}'.",
            )
            territory = new_territory(territory_name, source, income)
            if taken := first_named(await s.territories(), territory_name):
                raise InvalidRequest(name_taken("Territory", territory_name, taken.name,
                                                f"in {s.campaign.name}"))
            added = await s.tx.add_territory(s.campaign.id, territory, actor=s.by)
        await call.say(clip(f"Territory **{safe(added.name)}** added to {safe(s.campaign.name)}: "
                            f"{territory_details(added)}.", MESSAGE_MAX))

    @slash("list", "Every Territory of the campaign and who holds it", under=territory)
    async def territory_list(
        self, call: Call, campaign: CampaignName | None = None
    ) -> None:
        async with call.read(campaign) as s:
            territories = await s.territories()
            holders = {g.id: g.name for g in await s.gangs()}
        await call.answer_embeds(lines_embeds(f"{safe(s.campaign.name)}: Territories",
                                              territory_lines(territories, holders),
                                              colour=discord.Colour.dark_green()))

    @slash("assign", "Give a Territory to a gang, or unclaim it", under=territory,
           gang="the gang that now holds it (leave empty to make it unclaimed)")
    async def territory_assign(
        self,
        call: Call,
        territory: TerritoryName,
        gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.write(campaign) as s:
            s.require_arbitrator()
            target = pick(await s.territories(), territory,
                          f"There is no Territory called '{territory}' in {s.campaign.name}.")
            holder = await s.gang(gang) if gang else None
            await s.tx.assign_territory(s.campaign.id, target.id, holder.id if holder else None,
                                        actor=s.by)
        where = f"now held by **{safe(holder.name)}**" if holder else "now unclaimed"
        await call.say(f"**{safe(target.name)}** is {where}.")

    # ------------------------------------------------------------------ export and import

    @slash("export", "The whole campaign as a JSON file")
    async def export(self, call: Call, campaign: CampaignName | None = None) -> None:
        found = await _arbitrated(call, campaign)
        document = await call.storage.read(call.guild_id).export_campaign(found.id)
        file = json_file(document.model_dump_json(by_alias=True).encode(),
                         file_stem(found.name, "campaign"), call.interaction.filesize_limit)
        # A backup for the Arbitrator who asked, not a post for the channel.
        await call.tell(f"**{safe(found.name)}**: {contents(document)}. /campaign import "
                        "restores it on any server.", file=file)

    @slash("import", "Restore a campaign from its export file",
           file="the file /campaign export made (.json or .json.gz)",
           name="give it this name here (default: its own)")
    async def import_(
        self, call: Call, file: discord.Attachment, name: NewName | None = None
    ) -> None:
        async with call.read_server() as tx:
            call.actor.require_may_import(await tx.list_campaigns())
        new_name = clean_name(name, "campaign name") if name is not None else None
        await call.defer()
        prepared = await prepare_campaign_file(
            await read_attachment(file, self.bot.config.importing)
        )
        document = prepared.document
        wanted = new_name or document.campaign.settings.name
        check_ruleset_name(document.campaign.settings.ruleset)
        if call.interaction.guild is None:
            raise Refused("Campaigns are imported inside a server.")
        grant = await grant_for(document, call.interaction.guild, call.actor.user_id)
        async with call.write_server() as tx:
            if any(same_name(c.name, wanted) for c in await tx.list_campaigns()):
                raise InvalidRequest(
                    f"There is already a campaign called '{wanted}' here; import it with "
                    "the name option to call it something else."
                )
            imported = await tx.import_campaign(
                prepared, actor=call.actor.ledger_id, name=new_name, grant=grant
            )
        summary = f"Campaign **{safe(imported.name)}** imported: {contents(document)}."
        notes = import_notes(document, grant)
        # Only now: releasing empties the document, a slice at a time off the loop.
        await release_campaign(prepared)
        await call.tell(f"{summary} {notes} See /campaign show.")
        await call.say(f"{call.mention}: {summary}")

    # ------------------------------------------------------------------ delete

    @slash("delete", "Delete a campaign and everything in it (asks first)")
    async def delete(self, call: Call, campaign: CampaignName | None = None) -> None:
        async with call.read(campaign) as s:
            s.require_arbitrator()
            gangs = count(len(await s.gangs()), "gang")
            battles = count(len(await s.tx.list_battles(s.campaign.id, limit=None)), "battle")
        await call.tell(
            f"Delete **{safe(s.campaign.name)}** and everything in it: {gangs}, "
            f"{battles}, its Territories, its ledger and any battle in progress? "
            "This cannot be undone; /campaign export first keeps a copy.",
            view=confirm_view(DELETE_CAMPAIGN, s.campaign.id, s.campaign.id, call.actor.user_id),
        )

    async def _delete_confirmed(
        self, interaction: Interaction, campaign_id: str, _target: str
    ) -> Confirmed:
        """The Confirm button: check again (time has passed) and delete in one transaction."""
        try:
            async with Call.of(interaction).write_in(campaign_id) as s:
                s.require_arbitrator()
                # Read in the delete's transaction: no step can be posted in between.
                open_runs = [run for run in await runs_of(s.tx, campaign_id)
                             if run.in_progress or (run.phase is Phase.FINISHED
                             and any(map(run.has_open_deferral, run.gang_ids)))]
                await s.tx.delete_campaign(campaign_id)
        except NotFound:
            return Confirmed("That campaign is already gone; nothing was deleted.")
        name = s.campaign.name

        async def unbutton() -> None:
            # Their buttons would only answer that the campaign is gone.
            await show_campaign_deleted(self.bot, open_runs, name)

        return Confirmed(
            f"**{safe(name)}** has been deleted, with everything in it.",
            announcement=f"{interaction.user.mention} deleted the campaign **{safe(name)}**.",
            after=unbutton,
        )

    # ------------------------------------------------------------------ Downtime

    @slash("open", "Open Downtime: every gang's Downtime steps, each in a thread of its own",
           under=downtime,
           credits="Fresh Recruitment credits each gang gains (Dominion: 250)",
           arbitrator_confirms="each step also needs an Arbitrator's Confirm (default: no)")
    async def downtime_open(
        self, call: Call, campaign: CampaignName | None = None,
        credits: app_commands.Range[int, 0, MAX_RECRUITMENT_CREDITS] = FRESH_RECRUITMENT_CREDITS,
        arbitrator_confirms: bool = False,
    ) -> None:
        async with call.read(campaign) as s:
            s.require_arbitrator()
            gangs = await gangs_to_open(s.tx, s.campaign)
        # The answer names every gang's thread: public, like the threads themselves.
        await call.draw_publicly()
        places = {gang.id: await downtime_thread(call.interaction.channel, gang.name)
                  for gang in gangs}
        async with call.write_in(s.campaign.id) as w:
            w.require_arbitrator()
            runs = await open_downtime(
                w.tx, w.campaign, by=w.by, channel_id=call.interaction.channel_id or 0,
                places={g: p for g, p in places.items() if p is not None}, budget=credits,
                arbitrator_confirms=arbitrator_confirms, gang_ids=[g.id for g in gangs])
        await deliver(call)
        who = "its owner and an Arbitrator" if arbitrator_confirms else "its owner"
        lines = [f"{safe(run.gang_name)}: <#{run.channel_id}>" for run in runs]
        # The threads in embeds, paged: many gangs of long names outgrow a message's content.
        await call.answer_embeds(
            lines_embeds("Downtime threads", lines),
            content=f"Downtime is open in **{safe(w.campaign.name)}** for "
                    f"{count(len(runs), 'gang')}; each step is confirmed by {who}.")

    @slash("promote", "Promote a Juve or Prospect with 3+ advancements, in Downtime",
           under=downtime, to="the type it becomes (its fighter entry's Promotion)")
    async def downtime_promote(
        self, call: Call, fighter: FighterName, to: PromotionType, gang: GangName | None = None,
        campaign: CampaignName | None = None,
    ) -> None:
        async with call.write(campaign) as s:
            owner, who = await s.own_fighter(fighter, gang)
            template = type_template(s.ruleset, owner, to)
            _run, result = await act_in_downtime(
                s.tx, s.campaign, owner, DowntimeStep.PROMOTIONS,
                lambda world: promote(world, owner.id, who.id, to, template), by=s.by)
        await deliver(call)
        await call.answer_result(result)

    # ------------------------------------------------------------------ Trading Post

    @slash("import", "Give the campaign its own Trading Post", under=tradingpost,
           file="CSV (name,category,cost,availability) or JSON list of items")
    async def tradingpost_import(
        self, call: Call, file: discord.Attachment,
        campaign: CampaignName | None = None,
    ) -> None:
        found, data = await self._arbitrators_file(call, campaign, file)
        parsed = await read_trading_post_file(data, file.filename)
        entries = parsed.entries
        async with call.write_in(found.id) as s:
            s.require_arbitrator()
            own = s.campaign.trading_post
            replaced = (f"the rule set's {len(s.ruleset.trading_post)} items" if own is None
                        else f"its own list of {len(own)}")
            await s.tx.set_trading_post(
                s.campaign.id, entries, actor=s.by,
                note=f"Trading Post imported from {file.filename[:80]}: {len(entries)} items, "
                f"replacing {replaced}.",
            )
        counts = availability_counts(entries)
        ignored = (
            f" Columns not read: {', '.join(safe(c, 30) for c in parsed.ignored_columns)}."
            if parsed.ignored_columns else ""
        )
        await call.tell(f"Imported {len(entries)} items ({counts}) from {safe(file.filename)}, "
                        f"replacing {replaced}.{ignored} See /campaign tradingpost show.")
        await call.say(
            f"{call.mention} gave **{safe(s.campaign.name)}** its own Trading Post: "
            f"{len(entries)} items ({counts}). Seek Rare & Illegal rolls list from it now."
        )

    @slash("show", "The Trading Post the campaign plays with", under=tradingpost)
    async def tradingpost_show(
        self, call: Call, campaign: CampaignName | None = None
    ) -> None:
        found = await call.campaign(campaign)
        if found.trading_post is not None:
            entries, source = found.trading_post, "its own Trading Post"
        else:
            entries = [TradingPostEntry(**e.model_dump()) for e in ruleset_for(found).trading_post]
            source = f"the rule set {safe(found.settings.ruleset)}"
        embeds = lines_embeds(f"{safe(found.name)}: Trading Post", trading_post_lines(entries),
                              colour=discord.Colour.dark_teal())
        for embed in embeds:
            embed.set_footer(text=f"{len(entries)} items, from {source}"[:200])
        await call.answer_embeds(embeds)

    @slash("clear", "Play with the rule set's Trading Post again", under=tradingpost)
    async def tradingpost_clear(
        self, call: Call, campaign: CampaignName | None = None
    ) -> None:
        async with call.write(campaign) as s:
            s.require_arbitrator()
            if s.campaign.trading_post is None:
                raise InvalidRequest(
                    f"{s.campaign.name} already plays with its rule set's Trading Post."
                )
            await s.tx.set_trading_post(
                s.campaign.id, None, actor=s.by,
                note=f"Own Trading Post of {len(s.campaign.trading_post)} items removed; the "
                "rule set's is used again.",
            )
        await call.say(f"**{safe(s.campaign.name)}** plays with the Trading Post of its rule set "
                       f"{safe(s.campaign.settings.ruleset)} again.")

    # ------------------------------------------------------------------ rule data

    @slash("import", "Load the campaign's own rule data (TOML/JSON)", under=ruledata,
           file="a rule data file (docs/rule-data.md): House Lists, weapons, skills...")
    async def ruledata_import(
        self, call: Call, file: discord.Attachment,
        campaign: CampaignName | None = None,
    ) -> None:
        found, data = await self._arbitrators_file(call, campaign, file)
        async with call.write_in(found.id) as s:
            s.require_arbitrator()
            token, lines = await ruledata_flow.stage(s.tx, s.campaign, data, file.filename,
                                                     s.by)
        question = (f"Import {safe(file.filename)} into **{safe(s.campaign.name)}**?\n"
                    + "\n".join(f"• {safe(line)}" for line in lines))
        await call.tell(clip(question, MESSAGE_MAX),
                        view=confirm_view(IMPORT_RULE_DATA, s.campaign.id, token,
                                          call.actor.user_id))

    async def _arbitrators_file(
        self, call: Call, campaign: str | None, file: discord.Attachment
    ) -> tuple[Campaign, bytes]:
        """The named campaign, for one of its Arbitrators, and the file uploaded for it."""
        found = await _arbitrated(call, campaign)
        return found, await read_attachment(file, self.bot.config.importing)

    async def _rule_data_confirmed(
        self, interaction: discord.Interaction[MundaBot], campaign_id: str, token: str
    ) -> Confirmed:
        async with Call.of(interaction).write_server() as tx:
            return await ruledata_flow.confirm(tx, campaign_id, token, interaction)

    @slash("export", "The campaign's rule data as a file", under=ruledata,
           own_only="only the campaign's own content, not the shipped set's (default: all)",
           file_format="json or toml: the same content, and either imports again (default: json)")
    @app_commands.rename(file_format="format")
    async def ruledata_export(
        self, call: Call, own_only: bool = False,
        file_format: ruledata_flow.ExportFormat = "json", campaign: CampaignName | None = None,
    ) -> None:
        found = await call.campaign(campaign)
        attachment = ruledata_flow.export_file(
            found, own_only=own_only, file_format=file_format,
            stem=file_stem(found.name, "campaign") + "-rule-data",
            limit=self.bot.config.importing.max_import_bytes)
        await call.tell(
            f"The rule data of **{safe(found.name)}**"
            + (" (its own only)." if own_only else " (everything it plays with)."),
            file=attachment,
        )


async def _arbitrated(call: Call, campaign: str | None) -> Campaign:
    """The named campaign, for one of its Arbitrators, acknowledged privately: what follows
    (a file to read or write) can take longer than Discord's three seconds."""
    found = await call.campaign(campaign)
    call.actor.require_arbitrator(found)
    await call.defer()
    return found


setup = adds(CampaignCog)
