"""Buttons and selects of a post-battle run: persistent, stateless, named by their custom ids.

Every component is a :class:`discord.ui.DynamicItem` whose custom id names
the campaign, the battle and the stage or gang it belongs to, e.g.
``munda:pb:confirm:<campaign_id>:<battle_id>:<stage_no>``. Nothing is kept in
memory: a click loads the run from storage, so buttons keep working after a
restart once the cog has called ``bot.add_dynamic_items(*DYNAMIC_ITEMS)``.

discord.py only logs what a dynamic item raises, so each callback answers
every refusal itself with :func:`bot.errors.answer_error`, like a slash
command's. The work is :mod:`bot.battle.engine`'s; this module draws the
components and routes clicks.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.battle.render import injuries_text
from bot.battle.state import GangReport, PostBattleRun, StageRecord
from bot.errors import answer_error
from bot.ui.custom_ids import ID, StoredId, build, resolve_match
from rules.data import default_ruleset
from rules.dice import parse
from rules.errors import InvalidRequest
from rules.injuries import injury_table_for
from rules.models import Fighter, FighterStatus, Gang, Vehicle
from rules.ruleset import InjuryEffect, InjuryEffectKind, InjuryEntry, InjuryTable, RuleSet
from rules.wording import possessive
from rules.world import World
from rules.wrapup import check_injuries_rolled

Interaction = discord.Interaction[Any]

_RUN = rf"(?P<campaign>{ID}):(?P<battle>{ID})"
PER_SELECT = 25  # Discord's limit of options in one select
SELECTS_PER_PAGE = 2
PER_PAGE = PER_SELECT * SELECTS_PER_PAGE
MAX_ENEMIES_OOA = 24  # options 0..24 fill one select
LABEL_MAX = 100
PLACEHOLDER_MAX = 150
INJURIES = "inj"  # the section where injuries rolled at the table are entered
NOT_ROLLED = "-"  # the result select's "not rolled at the table: the bot rolls it"
# One option says "not rolled at the table"; the rest are the table's results.
MAX_RESULTS = PER_SELECT - 1


# --------------------------------------------------------------------------- report scope


@dataclass(frozen=True)
class ReportScope:
    """One gang's report panel: who it can name, and what the panel shows now."""

    run: PostBattleRun
    gang_index: int
    gang: Gang
    fighters: list[Fighter]  # those who could have fought
    vehicles: list[Vehicle]
    enemies: list[tuple[str, str]]  # (gang id, name), in the battle's order
    ruleset: RuleSet  # the campaign's: its injury tables fill the injury select

    @property
    def report(self) -> GangReport:
        return self.run.reports[self.gang.id]


def eligible_fighters(run: PostBattleRun, gang: Gang) -> list[Fighter]:
    """Fighters that could have fought: on the roster, not a captive, not In Recovery."""
    return [
        f for f in gang.fighters
        if f.on_roster and f.status is not FighterStatus.CAPTURED
        and f.id not in run.in_recovery_before
    ]


def report_scope(
    run: PostBattleRun, world: World, gang_index: int, ruleset: RuleSet | None = None
) -> ReportScope:
    """One gang's panel; ``ruleset`` is the campaign's (None: the default set, for tests)."""
    gang = world.gang(run.gang_ids[gang_index])
    enemies = [(g, world.gang(g).name) for g in run.gang_ids if g != gang.id]
    return ReportScope(
        run=run, gang_index=gang_index, gang=gang,
        fighters=eligible_fighters(run, gang), vehicles=list(gang.vehicles), enemies=enemies,
        ruleset=ruleset or default_ruleset(),
    )


def sections(scope: ReportScope) -> list[tuple[str, str]]:
    """(value, label) of each part of the report the section select offers."""
    found = [("psi", "Prone & Seriously Injured")]
    if scope.report.bottled_out:
        found.append(("fled", "Fled whilst Prone & Seriously Injured"))
    found += [("ooa", "Out of Action"), ("web", "Out of Action while Webbed")]
    if out_of_action(scope):
        found.append((INJURIES, "Lasting Injuries rolled at the table"))
    found.append(("crit", "Critical Injury suffered"))
    if scope.vehicles:
        found += [("wreck", "Vehicles Wrecked"), ("aband", "Vehicles abandoned")]
    found.append(("enemies", "Enemies taken Out of Action"))
    if len(scope.run.gang_ids) > 2:
        found += [
            (f"by{index}", f"Taken Out of Action by {name}"[:LABEL_MAX])
            for index, (_gang_id, name) in enumerate(scope.enemies)
        ]
    return found


def current_section(scope: ReportScope) -> str:
    known = [value for value, _ in sections(scope)]
    return scope.report.section if scope.report.section in known else "psi"


def enemy_of(scope: ReportScope, section: str) -> str | None:
    if section.startswith("by") and section[2:].isdigit():
        index = int(section[2:])
        if index < len(scope.enemies):
            return scope.enemies[index][0]
    return None


def section_items(scope: ReportScope, section: str) -> list[tuple[str, str, bool]]:
    """(value, label, chosen) of every option the section offers, across all pages."""
    report = scope.report
    marks = report.fighters
    if section in ("wreck", "aband"):
        chosen = report.wrecked if section == "wreck" else report.abandoned
        return [(v.id, v.name, v.id in chosen) for v in scope.vehicles]
    if section == "enemies":
        return [(str(n), str(n), n == report.enemies_out_of_action)
                for n in range(MAX_ENEMIES_OOA + 1)]
    if section == "fled":
        pool = [f for f in scope.fighters if f.id in marks and marks[f.id].prone_seriously_injured]
    elif section.startswith("by"):
        pool = [f for f in scope.fighters if f.id in marks and marks[f.id].out_of_action]
    else:
        pool = scope.fighters
    flag = {
        "psi": "prone_seriously_injured", "fled": "fled_prone_seriously_injured",
        "ooa": "out_of_action", "web": "webbed", "crit": "critical_injury",
    }.get(section)
    enemy = enemy_of(scope, section)
    items: list[tuple[str, str, bool]] = []
    for fighter in pool:
        mark = marks.get(fighter.id)
        if flag is not None:
            chosen_now = bool(mark is not None and getattr(mark, flag))
        else:
            chosen_now = mark is not None and enemy is not None and mark.taken_by == enemy
        items.append((fighter.id, fighter.name, chosen_now))
    return items


def page_count(scope: ReportScope, section: str) -> int:
    if section == "enemies":
        return 1
    if section == INJURIES:  # one select of fighters; the result select takes the other row
        return max(1, -(-len(out_of_action(scope)) // PER_SELECT))
    return max(1, -(-len(section_items(scope, section)) // PER_PAGE))


def current_page(scope: ReportScope, section: str) -> int:
    return min(scope.report.page, page_count(scope, section) - 1)


def slot_items(
    scope: ReportScope, section: str, page: int, slot: int
) -> list[tuple[str, str, bool]]:
    items = section_items(scope, section)
    if section == "enemies":
        return items if slot == 0 else []
    start = page * PER_PAGE + slot * PER_SELECT
    return items[start:start + PER_SELECT]


# --------------------------------------------------------------------------- injuries at the table
#
# Many groups roll a Lasting Injury at the table when a fighter goes down. In the
# "Lasting Injuries rolled at the table" section a player picks an Out of Action
# fighter, then its result in a select filled from the campaign rule set's table for
# that fighter (the crew table for Crew). A pick replaces the result, except after a
# result that gives more rolls (Multiple Injuries): then each pick adds one of its
# extra results. Every pick is checked as the Wrap-up will check it
# (rules.wrapup.check_injuries_rolled), so an impossible list is refused in the panel
# and never stored. Left unset, the Wrap-up rolls the injury as before.


def out_of_action(scope: ReportScope) -> list[Fighter]:
    """The fighters the report has Out of Action (Webbed ones included), in roster order."""
    marks = scope.report.fighters
    return [f for f in scope.fighters
            if (mark := marks.get(f.id)) is not None and mark.out_of_action]


def injury_target(scope: ReportScope) -> Fighter | None:
    """The fighter whose results the injury select shows: the one picked, else the first."""
    down = out_of_action(scope)
    picked = next((f for f in down if f.id == scope.report.injury_fighter), None)
    return picked or (down[0] if down else None)


def injury_results(table: InjuryTable) -> list[InjuryEntry]:
    """The results the injury select offers: the table's, each name once, in table order.

    The shipped tables have at most 19 results; one select holds 24 besides "not
    rolled", so a longer table would lose its last results here (and be rolled by
    the bot in the Wrap-up instead).
    """
    seen: dict[str, InjuryEntry] = {}
    for entry in sorted(table.entries, key=lambda e: e.low):
        seen.setdefault(entry.name.casefold(), entry)
    return list(seen.values())[:MAX_RESULTS]


def _faces(table: InjuryTable, entry: InjuryEntry) -> str:
    span = str(entry.low) if entry.low == entry.high else f"{entry.low}-{entry.high}"
    return f"{table.dice} {span}"


def _more_rolls(entry: InjuryEntry) -> InjuryEffect | None:
    """The effect of a result that gives more results (Multiple Injuries), if it is one."""
    return next((e for e in entry.effects if e.kind is InjuryEffectKind.MULTIPLE), None)


def _entry(table: InjuryTable, name: str) -> InjuryEntry | None:
    return next((e for e in table.entries if e.name.casefold() == name.casefold()), None)


def _extra_results(effect: InjuryEffect) -> tuple[int, int]:
    """The fewest and the most extra results ``effect`` gives (D3: 1 to 3)."""
    expression = (effect.expression or "1").strip()
    if expression.isdigit():
        return int(expression), int(expression)
    dice = parse(expression)
    if dice.d66:
        return 11, 66
    return dice.count * dice.multiplier, dice.count * dice.sides * dice.multiplier


def _results_left(table: InjuryTable, names: Sequence[str]) -> int | None:
    """How many more extra results the list may take, or None when a pick replaces it."""
    first = _entry(table, names[0]) if names else None
    more = _more_rolls(first) if first is not None else None
    if more is None:
        return None
    return max(0, _extra_results(more)[1] - (len(names) - 1))


def _restart_hint(fighter: Fighter) -> str:
    return (f"Nothing was changed. Pick \"Not rolled at the table\" for {fighter.name} to "
            "enter the results again from the start.")


def pick_injury_fighter(scope: ReportScope, values: Sequence[str]) -> bool:
    """Show another Out of Action fighter's results; the report itself does not change."""
    if not values:
        return False
    if values[0] not in {f.id for f in out_of_action(scope)}:
        raise InvalidRequest("That fighter is no longer reported Out of Action.")
    scope.report.injury_fighter = values[0]
    return False


def enter_injury(scope: ReportScope, fighter_id: str, values: Sequence[str]) -> bool:
    """A pick in the injury select for ``fighter_id``; True when the report changed.

    Refuses (InvalidRequest, nothing changed) a fighter no longer Out of Action,
    a name not in its table, and any list the Wrap-up would refuse.
    """
    fighter = next((f for f in out_of_action(scope) if f.id == fighter_id), None)
    if fighter is None:
        raise InvalidRequest("That fighter is no longer reported Out of Action: pick the "
                             "fighter again in the report.")
    if not values:
        return False
    mark = scope.report.fighters[fighter.id]
    if values[0] == NOT_ROLLED:
        chosen: list[str] = []
    else:
        table = injury_table_for(fighter, scope.ruleset)
        entry = _entry(table, values[0])
        if entry is None:
            raise InvalidRequest(f"{values[0]} is not a result of {table.name}, the table "
                                 f"{fighter.name} rolls on. {_restart_hint(fighter)}")
        adding = _results_left(table, mark.injuries_rolled) is not None
        chosen = [*mark.injuries_rolled, entry.name] if adding else [entry.name]
        try:
            check_injuries_rolled(fighter, scope.ruleset, chosen)
        except InvalidRequest as refusal:
            raise InvalidRequest(f"{refusal.message} {_restart_hint(fighter)}") from refusal
    scope.report.injury_fighter = fighter.id
    if chosen == mark.injuries_rolled:
        return False
    mark.injuries_rolled = chosen
    return True


def check_injuries(scope: ReportScope) -> None:
    """Before Submit: every list as the Wrap-up reads it, and Multiple Injuries complete.

    The rules accept Multiple Injuries with fewer extra results than its dice can
    give; with none at all nothing would be applied, which no roll can do, so the
    panel asks for them.
    """
    for fighter in out_of_action(scope):
        names = scope.report.fighters[fighter.id].injuries_rolled
        if not names:
            continue
        entries = check_injuries_rolled(fighter, scope.ruleset, names)
        more = _more_rolls(entries[0])
        fewest = _extra_results(more)[0] if more is not None else 0
        if len(entries) - 1 < fewest:
            raise InvalidRequest(
                f"{possessive(fighter.name)} {entries[0].name} gives at least {fewest} more "
                "result(s): enter them in \"Lasting Injuries rolled at the table\", or pick "
                "\"Not rolled at the table\" to let the bot roll in the Wrap-up."
            )


def _injury_placeholder(fighter: Fighter, table: InjuryTable, names: Sequence[str]) -> str:
    who = fighter.name[:40]
    if not names:
        text = f"{who}: result rolled at the table? (unset: the bot rolls it)"
    else:
        left = _results_left(table, names)
        if left is None:
            text = f"{who}: {names[0]}; pick another result to replace it"
        elif left:
            text = f"{who}: {injuries_text(names)}; pick its next extra result ({left} more)"
        else:
            text = f"{who}: {injuries_text(names)} (complete)"
    return text[:PLACEHOLDER_MAX]


# --------------------------------------------------------------------------- drawing


def report_view(scope: ReportScope, arbitrated: bool = True) -> discord.ui.View:
    """The report panel of one gang: section, its selects, toggles, Submit."""
    view = discord.ui.View(timeout=None)
    run, index = scope.run, scope.gang_index
    section = current_section(scope)
    page = current_page(scope, section)
    view.add_item(ReportSection(run.campaign_id, run.battle_id, index,
                                sections(scope), section))
    if section == INJURIES:
        _add_injury_selects(view, scope, page)
    else:
        for slot in range(SELECTS_PER_PAGE):
            items = slot_items(scope, section, page, slot)
            if not items and slot > 0:
                break
            view.add_item(ReportPick(run.campaign_id, run.battle_id, index, section, slot,
                                     items, single=section == "enemies"))
    pages = page_count(scope, section)
    if pages > 1:
        view.add_item(ReportPage(run.campaign_id, run.battle_id, index, "prev",
                                 disabled=page == 0, label=f"◀ Page {page}"))
        view.add_item(ReportPage(run.campaign_id, run.battle_id, index, "next",
                                 disabled=page >= pages - 1, label=f"Page {page + 2} ▶"))
    report = scope.report
    view.add_item(ReportToggle(run.campaign_id, run.battle_id, index, "bottled",
                               f"Bottled out: {'yes' if report.bottled_out else 'no'}"))
    view.add_item(ReportToggle(run.campaign_id, run.battle_id, index, "left",
                               f"Models left: {'yes' if report.models_left else 'no'}"))
    view.add_item(ReportSubmit(run.campaign_id, run.battle_id, index,
                               resubmit=report.submitted))
    if arbitrated:
        view.add_item(StageCancel(run.campaign_id, run.battle_id, 0, row=4))
    return view


def _add_injury_selects(view: discord.ui.View, scope: ReportScope, page: int) -> None:
    """The fighter select (one page of the Out of Action fighters) and its result select."""
    run, index = scope.run, scope.gang_index
    target = injury_target(scope)
    marks = scope.report.fighters
    fighters = out_of_action(scope)[page * PER_SELECT:(page + 1) * PER_SELECT]
    view.add_item(ReportInjuryFighter(run.campaign_id, run.battle_id, index, [
        (f.id, f.name, injuries_text(marks[f.id].injuries_rolled) or "not rolled at the table",
         target is not None and f.id == target.id)
        for f in fighters
    ]))
    if target is None:
        return
    table = injury_table_for(target, scope.ruleset)
    view.add_item(ReportInjury(
        run.campaign_id, run.battle_id, index, target.id,
        [(e.name, e.name, _faces(table, e)) for e in injury_results(table)],
        _injury_placeholder(target, table, marks[target.id].injuries_rolled),
    ))


def stage_view(run: PostBattleRun, record: StageRecord, names: dict[str, str]) -> discord.ui.View:
    """Confirm for players; Undo, Cancel and Confirm-for-a-player for Arbitrators."""
    view = discord.ui.View(timeout=None)
    view.add_item(StageConfirm(run.campaign_id, run.battle_id, record.number))
    view.add_item(StageUndo(run.campaign_id, run.battle_id, record.number))
    view.add_item(StageCancel(run.campaign_id, run.battle_id, record.number))
    awaited = [g for g in run.gang_ids if g not in record.confirmations]
    if awaited:
        view.add_item(StageBehalf(run.campaign_id, run.battle_id, record.number,
                                  [(g, names.get(g, g)) for g in awaited]))
    return view


def really_view(kind: str, campaign_id: str, battle_id: str, stage_no: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(StageReally(kind, campaign_id, battle_id, stage_no))
    return view


def _option(value: str, label: str, chosen: bool) -> discord.SelectOption:
    return discord.SelectOption(label=(label or value)[:LABEL_MAX], value=value[:LABEL_MAX],
                                default=chosen)


# --------------------------------------------------------------------------- items


def _run_id(kind: str, campaign_id: str, battle_id: str, *rest: str | int) -> str:
    """The custom id of a run's component: ``munda:pb:<kind>:<campaign>:<battle>:<rest>``."""
    return build("munda", "pb", *kind.split(":"), StoredId(campaign_id), StoredId(battle_id),
                 *rest)


async def _route(interaction: Interaction, work: Awaitable[None]) -> None:
    """Run a click's work; any failure is answered ephemerally (nothing changed)."""
    try:
        await work
    except Exception as error:
        await answer_error(interaction, error)


class ReportSection(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"munda:pb:sec:{_RUN}:(?P<gang>[0-3])",
):
    def __init__(self, campaign_id: str, battle_id: str, gang_index: int,
                 options: Sequence[tuple[str, str]] = (), current: str = "psi") -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=_run_id("sec", campaign_id, battle_id, gang_index),
            placeholder="Report which part?",
            options=[_option(v, label, v == current) for v, label in options],
            row=0,
        )
        super().__init__(select)
        self.campaign_id, self.battle_id, self.gang_index = campaign_id, battle_id, gang_index

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReportSection:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["gang"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        chosen = list(self.item.values)
        await _route(interaction, engine.edit_report(
            interaction, self.campaign_id, self.battle_id, self.gang_index,
            engine.ReportEdit(kind="section", section=chosen[0] if chosen else "psi"),
        ))


class ReportPick(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"munda:pb:pick:{_RUN}:(?P<gang>[0-3]):(?P<section>[a-z0-9]{{1,8}}):(?P<slot>[01])",
):
    def __init__(self, campaign_id: str, battle_id: str, gang_index: int, section: str,
                 slot: int, items: Sequence[tuple[str, str, bool]] = (),
                 single: bool = False) -> None:
        options = [_option(v, label, chosen) for v, label, chosen in items]
        empty = not options
        if empty:
            options = [discord.SelectOption(label="nobody to choose", value="-")]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=_run_id("pick", campaign_id, battle_id, gang_index, section, slot),
            placeholder=_PLACEHOLDERS.get(section[:2] if section.startswith("by") else section,
                                          "Choose"),
            min_values=0 if not single else 1,
            max_values=1 if single or empty else len(options),
            options=options,
            disabled=empty,
            row=1 + slot,
        )
        super().__init__(select)
        self.campaign_id, self.battle_id, self.gang_index = campaign_id, battle_id, gang_index
        self.section, self.slot = section, slot

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReportPick:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["gang"]), match["section"],
                   int(match["slot"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.edit_report(
            interaction, self.campaign_id, self.battle_id, self.gang_index,
            engine.ReportEdit(kind="pick", section=self.section, slot=self.slot,
                              values=[v for v in self.item.values if v != "-"]),
        ))


class ReportInjuryFighter(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"munda:pb:injf:{_RUN}:(?P<gang>[0-3])",
):
    """Which Out of Action fighter's injuries rolled at the table the panel shows."""

    def __init__(self, campaign_id: str, battle_id: str, gang_index: int,
                 fighters: Sequence[tuple[str, str, str, bool]] = ()) -> None:
        options = [
            discord.SelectOption(label=name[:LABEL_MAX], value=fid,
                                 description=results[:LABEL_MAX], default=chosen)
            for fid, name, results, chosen in fighters
        ] or [discord.SelectOption(label="nobody Out of Action", value=NOT_ROLLED)]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=_run_id("injf", campaign_id, battle_id, gang_index),
            placeholder="Fighter Out of Action whose injury was rolled at the table",
            options=options, disabled=not fighters, row=1,
        )
        super().__init__(select)
        self.campaign_id, self.battle_id, self.gang_index = campaign_id, battle_id, gang_index

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReportInjuryFighter:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["gang"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.edit_report(
            interaction, self.campaign_id, self.battle_id, self.gang_index,
            engine.ReportEdit(kind="injfighter", values=list(self.item.values)),
        ))


class ReportInjury(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"munda:pb:inj:{_RUN}:(?P<gang>[0-3]):(?P<fighter>{ID})",
):
    """The Lasting Injury result rolled at the table for one fighter (named in the id).

    No option is marked chosen: a pick of the same result again must still reach
    the bot (a second Eye Injury among Multiple Injuries' extras). The
    placeholder and the report say what is entered.
    """

    def __init__(self, campaign_id: str, battle_id: str, gang_index: int, fighter_id: str,
                 results: Sequence[tuple[str, str, str]] = (),
                 placeholder: str = "Result rolled at the table") -> None:
        options = [discord.SelectOption(
            label="Not rolled at the table (the bot rolls it)", value=NOT_ROLLED,
            description="Clears what was entered for this fighter")]
        options += [
            discord.SelectOption(label=label[:LABEL_MAX], value=value[:LABEL_MAX],
                                 description=faces[:LABEL_MAX])
            for value, label, faces in results
        ]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=_run_id("inj", campaign_id, battle_id, gang_index, StoredId(fighter_id)),
            placeholder=placeholder[:PLACEHOLDER_MAX], options=options, row=2,
        )
        super().__init__(select)
        self.campaign_id, self.battle_id, self.gang_index = campaign_id, battle_id, gang_index
        self.fighter_id = fighter_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReportInjury:
        campaign, battle, fighter = await resolve_match(interaction, match, "battle", "fighter")
        return cls(campaign, battle, int(match["gang"]), fighter)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.edit_report(
            interaction, self.campaign_id, self.battle_id, self.gang_index,
            engine.ReportEdit(kind="injury", fighter=self.fighter_id,
                              values=list(self.item.values)),
        ))


_PLACEHOLDERS = {
    "psi": "Fighters Prone & Seriously Injured at the end",
    "fled": "Fighters that fled whilst Prone & Seriously Injured",
    "ooa": "Fighters Out of Action",
    "web": "Fighters Out of Action while Webbed",
    "crit": "Fighters that suffered a Critical Injury",
    "wreck": "Vehicles Wrecked",
    "aband": "Vehicles abandoned by fleeing crew",
    "enemies": "How many enemies this gang took Out of Action",
    "by": "Fighters this enemy took Out of Action",
}


class ReportToggle(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"munda:pb:tog:{_RUN}:(?P<gang>[0-3]):(?P<what>bottled|left)",
):
    def __init__(self, campaign_id: str, battle_id: str, gang_index: int, what: str,
                 label: str = "Toggle") -> None:
        super().__init__(discord.ui.Button(
            label=label, style=discord.ButtonStyle.secondary, row=3,
            custom_id=_run_id("tog", campaign_id, battle_id, gang_index, what),
        ))
        self.campaign_id, self.battle_id, self.gang_index = campaign_id, battle_id, gang_index
        self.what = what

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReportToggle:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["gang"]), match["what"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.edit_report(
            interaction, self.campaign_id, self.battle_id, self.gang_index,
            engine.ReportEdit(kind=self.what),
        ))


class ReportPage(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"munda:pb:page:{_RUN}:(?P<gang>[0-3]):(?P<dir>prev|next)",
):
    def __init__(self, campaign_id: str, battle_id: str, gang_index: int, direction: str,
                 disabled: bool = False, label: str = "Page") -> None:
        super().__init__(discord.ui.Button(
            label=label, style=discord.ButtonStyle.secondary, row=3, disabled=disabled,
            custom_id=_run_id("page", campaign_id, battle_id, gang_index, direction),
        ))
        self.campaign_id, self.battle_id, self.gang_index = campaign_id, battle_id, gang_index
        self.direction = direction

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReportPage:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["gang"]), match["dir"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.edit_report(
            interaction, self.campaign_id, self.battle_id, self.gang_index,
            engine.ReportEdit(kind=self.direction),
        ))


class ReportSubmit(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"munda:pb:submit:{_RUN}:(?P<gang>[0-3])",
):
    def __init__(self, campaign_id: str, battle_id: str, gang_index: int,
                 resubmit: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label="Submit again" if resubmit else "Submit", style=discord.ButtonStyle.success,
            row=4, custom_id=_run_id("submit", campaign_id, battle_id, gang_index),
        ))
        self.campaign_id, self.battle_id, self.gang_index = campaign_id, battle_id, gang_index

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReportSubmit:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["gang"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.submit_report(
            interaction, self.campaign_id, self.battle_id, self.gang_index,
        ))


class StageConfirm(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"munda:pb:confirm:{_RUN}:(?P<stage>[0-9]{{1,4}})",
):
    def __init__(self, campaign_id: str, battle_id: str, stage_no: int) -> None:
        super().__init__(discord.ui.Button(
            label="Confirm", emoji="✅", style=discord.ButtonStyle.success, row=0,
            custom_id=_run_id("confirm", campaign_id, battle_id, stage_no),
        ))
        self.campaign_id, self.battle_id, self.stage_no = campaign_id, battle_id, stage_no

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> StageConfirm:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["stage"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.press_confirm(
            interaction, self.campaign_id, self.battle_id, self.stage_no, None,
        ))


class StageBehalf(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"munda:pb:behalf:{_RUN}:(?P<stage>[0-9]{{1,4}})",
):
    def __init__(self, campaign_id: str, battle_id: str, stage_no: int,
                 gangs: Sequence[tuple[str, str]] = ()) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=_run_id("behalf", campaign_id, battle_id, stage_no),
            placeholder="Arbitrator: confirm on a player's behalf",
            options=[_option(g, name, False) for g, name in gangs],
            row=1,
        )
        super().__init__(select)
        self.campaign_id, self.battle_id, self.stage_no = campaign_id, battle_id, stage_no

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> StageBehalf:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["stage"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        values = list(self.item.values)
        await _route(interaction, engine.press_confirm(
            interaction, self.campaign_id, self.battle_id, self.stage_no,
            values[0] if values else None, on_behalf=True,
        ))


class StageUndo(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"munda:pb:undo:{_RUN}:(?P<stage>[0-9]{{1,4}})",
):
    def __init__(self, campaign_id: str, battle_id: str, stage_no: int) -> None:
        super().__init__(discord.ui.Button(
            label="Undo", emoji="↩️", style=discord.ButtonStyle.secondary, row=0,
            custom_id=_run_id("undo", campaign_id, battle_id, stage_no),
        ))
        self.campaign_id, self.battle_id, self.stage_no = campaign_id, battle_id, stage_no

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> StageUndo:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["stage"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.ask_really(
            interaction, "undo", self.campaign_id, self.battle_id, self.stage_no,
        ))


class StageCancel(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"munda:pb:cancel:{_RUN}:(?P<stage>[0-9]{{1,4}})",
):
    def __init__(self, campaign_id: str, battle_id: str, stage_no: int, row: int = 0) -> None:
        super().__init__(discord.ui.Button(
            label="Cancel sequence", style=discord.ButtonStyle.danger, row=row,
            custom_id=_run_id("cancel", campaign_id, battle_id, stage_no),
        ))
        self.campaign_id, self.battle_id, self.stage_no = campaign_id, battle_id, stage_no

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> StageCancel:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(campaign, battle, int(match["stage"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        await _route(interaction, engine.ask_really(
            interaction, "cancel", self.campaign_id, self.battle_id, self.stage_no,
        ))


class StageReally(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"munda:pb:really:(?P<kind>undo|cancel):{_RUN}:(?P<stage>[0-9]{{1,4}})",
):
    """The second click an Arbitrator gives before an undo or a cancel."""

    def __init__(self, kind: str, campaign_id: str, battle_id: str, stage_no: int) -> None:
        label = "Yes, undo" if kind == "undo" else "Yes, cancel the sequence"
        super().__init__(discord.ui.Button(
            label=label, style=discord.ButtonStyle.danger,
            custom_id=_run_id(f"really:{kind}", campaign_id, battle_id, stage_no),
        ))
        self.kind = kind
        self.campaign_id, self.battle_id, self.stage_no = campaign_id, battle_id, stage_no

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> StageReally:
        campaign, battle = await resolve_match(interaction, match, "battle")
        return cls(match["kind"], campaign, battle, int(match["stage"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        from bot.battle import engine

        if self.kind == "undo":
            work = engine.press_undo(interaction, self.campaign_id, self.battle_id, self.stage_no)
        else:
            work = engine.press_cancel(interaction, self.campaign_id, self.battle_id)
        await _route(interaction, work)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ReportSection, ReportPick, ReportInjuryFighter, ReportInjury, ReportToggle, ReportPage,
    ReportSubmit,
    StageConfirm, StageBehalf, StageUndo, StageCancel, StageReally,
)


def gang_names(world: World) -> dict[str, str]:
    return {gang_id: gang.name for gang_id, gang in world.gangs.items()}

