"""What /campaign shows and reads: settings and their changes, Territories, the Trading Post.

Pure functions over stored records, so the cog stays a thin adapter:
:class:`SettingsChange` turns the options of ``/campaign settings`` into the
changed campaign (refusing contradictions), :func:`settings_changes` says
what changed for the ledger, and the ``*_lines`` helpers write what the
embeds list. Every user-supplied name is escaped here (``safe``) except in
ledger text, which the ledger escapes itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import discord

from bot.render import safe
from bot.rulesets import check_ruleset_name
from bot.storage import Campaign, CampaignDocument, TradingPostEntry, new_id
from bot.storage.exporting import ImportGrant
from bot.ui import checked, clean_name
from rules.dice import parse
from rules.errors import InvalidRequest
from rules.models import CampaignSettings, ScenarioDie, Territory

# A flat Territory income above this is surely a typo (the richest pay D6x10).
MAX_FLAT_INCOME = 1000


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
        ("Roster cards", roster_cards_text(campaign.settings.roster_cards)),
    ]


def roster_cards_text(setting: bool | None) -> str:
    if setting is None:
        return "the bot's default"
    return "on" if setting else "off"


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


@dataclass(frozen=True)
class SettingsChange:
    """The options of ``/campaign settings``: what to change, as typed."""

    name: str | None = None
    report_channel: discord.abc.Snowflake | None = None
    clear_report_channel: bool = False
    arbitrator_add: discord.User | None = None
    arbitrator_remove: discord.User | None = None
    arbitrator_role: discord.abc.Snowflake | None = None
    clear_arbitrator_role: bool = False
    scenario_die: str | None = None
    ruleset: str | None = None
    default: bool | None = None
    roster_cards: bool | None = None

    @property
    def changes_anything(self) -> bool:
        given = (self.name, self.report_channel, self.arbitrator_add, self.arbitrator_remove,
                 self.arbitrator_role, self.scenario_die, self.ruleset, self.default,
                 self.roster_cards)
        return (any(value is not None for value in given) or self.clear_report_channel
                or self.clear_arbitrator_role)

    @property
    def named_users(self) -> dict[int, str]:
        """The users the change names, for the ledger's text."""
        return {u.id: u.display_name for u in (self.arbitrator_add, self.arbitrator_remove) if u}

    def applied_to(self, campaign: Campaign) -> Campaign:
        """The campaign with this change (not stored; ``default`` is the caller's to set)."""
        if self.report_channel and self.clear_report_channel:
            raise InvalidRequest("Set a report channel or clear it, not both.")
        if self.arbitrator_role and self.clear_arbitrator_role:
            raise InvalidRequest("Set an Arbitrator role or clear it, not both.")
        if self.default is False and campaign.is_default:
            raise InvalidRequest(
                "A server always has a default campaign: make another campaign the default "
                "instead."
            )
        update: dict[str, object] = {}
        if self.name is not None:
            update["name"] = clean_name(self.name, "campaign name")
        if self.scenario_die is not None:
            update["scenario_die"] = ScenarioDie(self.scenario_die)
        if self.ruleset is not None:
            update["ruleset"] = check_ruleset_name(self.ruleset)
        if self.roster_cards is not None:
            update["roster_cards"] = self.roster_cards
        settings = checked(
            lambda: CampaignSettings.model_validate({**campaign.settings.model_dump(), **update}),
            "campaign setting",
        )
        return campaign.model_copy(update={
            "settings": settings, "arbitrator_user_ids": self._arbitrators(campaign),
            "arbitrator_role_id": _kept_or_set(campaign.arbitrator_role_id, self.arbitrator_role,
                                               self.clear_arbitrator_role),
            "report_channel_id": _kept_or_set(campaign.report_channel_id, self.report_channel,
                                              self.clear_report_channel),
        })

    def _arbitrators(self, campaign: Campaign) -> list[int]:
        arbitrators = list(campaign.arbitrator_user_ids)
        if self.arbitrator_add is not None:
            if self.arbitrator_add.bot:
                raise InvalidRequest("A bot cannot be an Arbitrator.")
            if self.arbitrator_add.id not in arbitrators:
                arbitrators.append(self.arbitrator_add.id)
        if self.arbitrator_remove is not None:
            if self.arbitrator_remove.id not in arbitrators:
                raise InvalidRequest(
                    f"{self.arbitrator_remove.display_name} is not a named Arbitrator of "
                    f"{campaign.name}."
                )
            arbitrators.remove(self.arbitrator_remove.id)
        return arbitrators


def _kept_or_set(current: int | None, given: discord.abc.Snowflake | None,
                 clear: bool) -> int | None:
    if given is not None:
        return given.id
    return None if clear else current


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


def new_territory(name: str, template: Territory | None, income: str | None) -> Territory:
    """A Territory called ``name``: the income and boons of ``template`` (the rule set's,
    with the rules the bot applies: its income's dice choice and double, its Boons'
    effects), ``income`` as typed over its income."""
    fields: dict[str, object] = {}
    if template is not None:
        fields = template.model_dump(include={
            "income", "boons", "can_be_staked", "income_only_for", "income_max_dice",
            "income_double_injures", "boon_effects"})
    if income is not None:
        fields["income"] = check_income(income)
    return checked(
        lambda: Territory.model_validate({"id": new_id(), "name": name, **fields}), "Territory"
    )


def territory_details(territory: Territory) -> str:
    income = territory.income if territory.income != "0" else "no income"
    if territory.income_only_for is not None and territory.income != "0":
        income = f"{income} ({territory.income_only_for.value} gangs only)"
    parts = [f"income {income}" if territory.income != "0" else income]
    if not territory.can_be_staked:
        parts.append("cannot be staked")
    if territory.boons:
        parts.append("boons: " + "; ".join(safe(b, 200) for b in territory.boons))
    return ", ".join(parts)


def territory_lines(territories: list[Territory], holders: dict[str, str]) -> list[str]:
    """Each Territory, by name, with the gang holding it (``holders``: gang id to name)."""
    lines = []
    for territory in sorted(territories, key=lambda t: t.name.casefold()):
        holder = holders.get(territory.controller or "")
        held = f"held by {safe(holder)}" if holder else "unclaimed"
        lines.append(f"**{safe(territory.name)}**: {held}; {territory_details(territory)}")
    return lines or ["No Territories yet: an Arbitrator adds them with /campaign territory add."]


def campaign_line(campaign: Campaign, gangs: int) -> str:
    mark = " (default)" if campaign.is_default else ""
    return (f"**{safe(campaign.name)}**{mark}: {counted(gangs, 'gang', 'gangs')}, rule set "
            f"{safe(campaign.settings.ruleset)}, scenario die "
            f"{campaign.settings.scenario_die.value}")


def counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def contents(document: CampaignDocument) -> str:
    return ", ".join((
        counted(len(document.gangs), "gang", "gangs"),
        counted(len(document.territories), "Territory", "Territories"),
        counted(len(document.battles), "battle", "battles"),
        counted(len(document.ledger), "ledger entry", "ledger entries"),
    ))


def import_notes(document: CampaignDocument, grant: ImportGrant) -> str:
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


def availability_counts(entries: list[TradingPostEntry]) -> str:
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry.availability.rarity.value] = counts.get(entry.availability.rarity.value, 0) + 1
    return ", ".join(f"{count} {rarity}" for rarity, count in counts.items())


def trading_post_lines(entries: list[TradingPostEntry]) -> list[str]:
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
