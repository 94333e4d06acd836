"""Rule data sets: the ones shipped with the bot, and a campaign's own directory.

A data set is a directory of ``*.toml`` files, each a rule data file in the
format a campaign imports (docs/rule-data.md), read by the same reader
(:mod:`rules.ruledata_reader`): a set is one such file cut into parts by
table. ``manifest.toml`` must be there; it names the set and may name a
``base`` set it is laid over as a campaign's file is laid over its shipped
set (:func:`rules.ruledata.apply_rule_data`). So ``core-2018-injuries``
holds only its fighter injury table, and a campaign directory can replace
one table of ``core-2023`` with a two-line manifest and one file. A set
without a base must give every table.

Decisions:

- A dice table, the scenarios, the advancements and the Hanger-on limits are
  replaced whole, never merged entry by entry: what is played is what the
  set's file says. House Lists, items, skill sets, Hangers-on and
  Territories replace or extend the base's by name.
- The same table defined in two files of one set is an error, not a silent
  choice of one of them.
- A set's name is its manifest's ``name``, else its directory's name; the
  description comes from the base when the set gives none.
- ``base`` is a shipped set's name, or a directory relative to the set.
- A string passed to :func:`load_ruleset` is a shipped set's name first,
  otherwise the path of a directory. The bot must only pass paths it chose
  (a campaign's own data directory), never text typed by a player.
- Beyond the schema, the loader checks what would otherwise fail in the
  middle of a game: dice tables that miss a result, names that a result
  refers to but the table lacks, dice expressions it cannot roll, duplicate
  scenario rolls and gaps in the Gangers' 2D6 table.
- Loaded sets are plain models; treat them as read-only (``default_ruleset``
  hands out one shared, cached object).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rules.dice import parse
from rules.errors import InvalidRequest, NotFound, problems_found
from rules.models import DEFAULT_RULESET, PROFILE_STATS, BoonKind, FighterCategory, Territory
from rules.names import loosely_same
from rules.ruledata import RuleData, apply_rule_data
from rules.ruledata_reader import parse_document, rule_data_from
from rules.ruleset import InjuryEffect, InjuryEffectKind, InjuryTable, RuleSet

MANIFEST = "manifest.toml"
# The key of a manifest that names the set this one is laid over.
_BASE_KEY = "base"
# A manifest's lists of the base the set replaces whole instead of merging by name
# (a new edition's House Lists do not keep the old one's types), and its sources
# (for people: repository, commit, licence).
_REPLACES_KEY = "replaces"
_SOURCES_KEY = "sources"
_REPLACEABLE = ("houses", "trading_post", "skill_sets", "hangers_on", "territories")
# Keys that describe a file rather than give a table.
_ABOUT_THE_FILE = frozenset({"format", "version"})


@dataclass(frozen=True)
class _Source:
    """Where one data set's files are."""

    root: Traversable
    label: str  # shown in messages: "core-2023" or the directory's path
    default_name: str
    path: Path | None  # a directory on disk (campaign data), for relative bases

    @property
    def key(self) -> str:
        return f"dir:{self.path.resolve()}" if self.path is not None else f"shipped:{self.label}"

    def file_label(self, filename: str) -> str:
        return str(self.path / filename) if self.path is not None else f"{self.label}/{filename}"


@dataclass(frozen=True)
class _Table:
    """One top-level value and the file that defined it."""

    value: Any
    file: str


def available_rulesets() -> list[str]:
    """Names of the data sets shipped with the bot."""
    root = _shipped_root()
    return sorted(
        entry.name
        for entry in root.iterdir()
        if entry.is_dir() and entry.joinpath(MANIFEST).is_file()
    )


def load_ruleset(name_or_path: str | Path) -> RuleSet:
    """Load a shipped set by name, or a campaign's directory, and validate it.

    Raises :class:`InvalidRequest` naming the file and the problem on bad data,
    :class:`NotFound` for an unknown name.
    """
    source = _resolve(name_or_path)
    ruleset, tables = _build(source, chain=())
    _check_consistency(ruleset, tables)
    return ruleset


def check_ruleset(ruleset: RuleSet, label: str) -> None:
    """The loader's consistency checks on a set built in memory (a campaign's own content
    over a shipped set); ``label`` names the source in the message."""
    _check_consistency(ruleset, {key: _Table(None, label) for key in RuleSet.model_fields})


@functools.cache
def default_ruleset() -> RuleSet:
    """The default set (the shipped Necromunda content), loaded once."""
    return load_ruleset(DEFAULT_RULESET)


# --------------------------------------------------------------------------- finding sets


def _shipped_root() -> Traversable:
    # Package data, not a path relative to the repository: works from a wheel too.
    return resources.files("rules").joinpath("data")


def _shipped(name: str) -> _Source:
    return _Source(root=_shipped_root().joinpath(name), label=name, default_name=name, path=None)


def _directory(path: Path) -> _Source:
    return _Source(root=path, label=str(path), default_name=path.name, path=path)


def _resolve(name_or_path: str | Path) -> _Source:
    if isinstance(name_or_path, str) and name_or_path in available_rulesets():
        return _shipped(name_or_path)
    path = Path(name_or_path)
    if path.is_dir():
        return _directory(path)
    shipped = ", ".join(available_rulesets())
    raise NotFound(
        f"There is no rule data set called '{name_or_path}' "
        f"(shipped sets: {shipped}; or give a directory)."
    )


def _resolve_base(base: object, source: _Source, manifest: str) -> _Source:
    if not isinstance(base, str) or not base.strip():
        raise InvalidRequest(f"{manifest}: 'base' must be the name of a rule data set.")
    if base in available_rulesets():
        return _shipped(base)
    if source.path is not None and (source.path / base).is_dir():
        return _directory(source.path / base)
    raise InvalidRequest(
        f"{manifest}: the base set '{base}' does not exist "
        f"(shipped sets: {', '.join(available_rulesets())})."
    )


# --------------------------------------------------------------------------- reading files


def _build(source: _Source, chain: tuple[str, ...]) -> tuple[RuleSet, dict[str, _Table]]:
    """The set's content over its base's (and the base's base...), and which file gave
    each table of the rule set."""
    if source.key in chain:
        raise InvalidRequest(f"{source.label}: its 'base' leads back to itself.")
    own, files, base, replaces = _read_set(source)
    manifest = source.file_label(MANIFEST)
    if base is None:
        ruleset = _validate(source, own, files)
    else:
        base_set, base_files = _build(_resolve_base(base, source, manifest),
                                      (*chain, source.key))
        base_set = base_set.model_copy(update={key: [] for key in replaces})
        ruleset = apply_rule_data(base_set, own)
        ruleset = ruleset.model_copy(update={"description": own.description
                                             or base_set.description})
        files = {**base_files, **files}
    name = own.name or source.default_name
    return ruleset.model_copy(update={"name": name}), files


def _read_set(source: _Source
              ) -> tuple[RuleData, dict[str, _Table], object | None, list[str]]:
    """The set's files read as one rule data file, the file of each table, the ``base``
    and the base's lists the set replaces whole."""
    if not source.root.joinpath(MANIFEST).is_file():
        raise InvalidRequest(f"{source.label} is not a rule data set: it has no {MANIFEST}.")
    files = sorted(
        (entry for entry in source.root.iterdir()
         if entry.is_file() and entry.name.endswith(".toml")),
        key=lambda entry: entry.name,
    )
    given: dict[str, Any] = {}
    tables: dict[str, _Table] = {}
    base: object | None = None
    replaces: list[str] = []
    for entry in files:
        label = source.file_label(entry.name)
        raw = _read_file(entry, label)
        for key in (_BASE_KEY, _REPLACES_KEY, _SOURCES_KEY):
            if key in raw and entry.name != MANIFEST:
                raise InvalidRequest(f"{label}: '{key}' belongs in {MANIFEST}.")
        if _BASE_KEY in raw:
            base = raw.pop(_BASE_KEY)
        if _REPLACES_KEY in raw:
            replaces = _replaced(raw.pop(_REPLACES_KEY), label)
        if not isinstance(raw.pop(_SOURCES_KEY, []), list):
            raise InvalidRequest(f"{label}: 'sources' must be a list of tables.")
        content = rule_data_from(raw, label)
        for key in content.model_fields_set - _ABOUT_THE_FILE:
            if key in given:
                raise InvalidRequest(
                    f"{label}: '{key}' is already defined in {tables[key].file}; "
                    "define each table in one file only."
                )
            given[key] = getattr(content, key)
            tables[key] = _Table(given[key], label)
    whole = rule_data_from(given, source.label)
    for key in ("weapons", "wargear"):
        if key in tables:
            tables["trading_post"] = tables[key]
    if replaces and base is None:
        raise InvalidRequest(f"{source.file_label(MANIFEST)}: 'replaces' needs a 'base'.")
    return whole, tables, base, replaces


def _replaced(value: object, label: str) -> list[str]:
    if not isinstance(value, list) or any(v not in _REPLACEABLE for v in value):
        raise InvalidRequest(f"{label}: 'replaces' lists some of {', '.join(_REPLACEABLE)}.")
    return [str(v) for v in value]


def _read_file(entry: Traversable, label: str) -> dict[str, Any]:
    try:
        data = entry.read_bytes()
    except OSError as exc:
        raise InvalidRequest(f"{label} cannot be read: {exc.strerror}.") from None
    raw = parse_document(data, entry.name, label)
    if not isinstance(raw, dict):
        raise InvalidRequest(f"{label} is not a table of rule data.")
    return raw


# --------------------------------------------------------------------------- validation


def _validate(source: _Source, content: RuleData, tables: dict[str, _Table]) -> RuleSet:
    """A set without a base: its content must give every table a rule set has."""
    values: dict[str, Any] = {
        "name": content.name or source.default_name,
        "description": content.description,
        "trading_post": content.equipment,
        **{key: getattr(content, key)
           for key in ("houses", "skill_sets", "hangers_on", "territories", "campaign_types")},
        **content.whole_tables,
    }
    try:
        return RuleSet.model_validate(values)
    except ValidationError as exc:
        raise problems_found(f"The rule data set {source.label} is not valid",
                             [_describe(error, tables) for error in exc.errors()]) from None


def _describe(error: Any, tables: dict[str, _Table]) -> str:
    loc: tuple[int | str, ...] = tuple(error["loc"])
    key = str(loc[0]) if loc else ""
    if error["type"] == "missing" and len(loc) == 1:
        return f"the table '{key}' is missing: no file of the set or its base defines it"
    where = _format_loc(loc)
    if key in tables:
        return f"{tables[key].file}: {where}: {error['msg']}"
    return f"{where}: {error['msg']}"


def _format_loc(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _check_consistency(ruleset: RuleSet, tables: dict[str, _Table]) -> None:
    for key in ("fighter_injuries", "crew_injuries", "lasting_damage"):
        table: InjuryTable = getattr(ruleset, key)
        problem = _injury_table_problem(table)
        if problem:
            raise InvalidRequest(f"{tables[key].file}: {key}: {problem}")
    problem = _scenario_problem(ruleset)
    if problem:
        raise InvalidRequest(f"{tables['scenarios'].file}: scenarios: {problem}")
    problem = _ganger_table_problem(ruleset)
    if problem:
        file = tables["ganger_advancements"].file
        raise InvalidRequest(f"{file}: ganger_advancements: {problem}")
    for advancement in ruleset.advancements:
        bad = [stat for stat in advancement.stats if stat.lower() not in PROFILE_STATS]
        if bad:
            raise InvalidRequest(
                f"{tables['advancements'].file}: advancements: '{advancement.name}' names "
                f"unknown characteristics {bad}."
            )
    for template in ruleset.hangers_on:
        if template.category not in (FighterCategory.HANGER_ON, FighterCategory.BRUTE):
            raise InvalidRequest(
                f"{tables['hangers_on'].file}: hangers_on: {template.fighter_type} is a "
                f"{template.category.value}, not a Hanger-on or Brute."
            )
    problem = _skill_sets_problem(ruleset)
    if problem:
        raise InvalidRequest(f"{tables['skill_sets'].file}: skill_sets: {problem}")
    for territory in ruleset.territories:
        file = tables["territories"].file if "territories" in tables else "territories"
        if not territory.income.strip().isdigit():
            _check_expression(territory.income, file, f"the income of {territory.name}")
        problem = _territory_problem(territory, ruleset)
        if problem:
            raise InvalidRequest(f"{file}: territories: {territory.name}: {problem}")


def _territory_problem(territory: Territory, ruleset: RuleSet) -> str | None:
    income_rules = territory.income_max_dice is not None or territory.income_double_injures
    if income_rules:
        if territory.income.strip().isdigit():
            return "rules about its income dice need an income in dice"
        dice = parse(territory.income)
        if territory.income_max_dice is not None and territory.income_max_dice < dice.count:
            return f"income_max_dice is below the {dice.count} dice of its income"
    givers = [e for e in territory.boon_effects
              if e.kind in (BoonKind.RECRUIT_ROLL, BoonKind.FREE_HANGER_ON)]
    if len(givers) > 1:
        return "at most one Boon effect may give a fighter"
    for effect in territory.boon_effects:
        if effect.kind in (BoonKind.CREDITS, BoonKind.RECRUIT_ROLL):
            if not effect.expression:
                return f"its {effect.kind.value} Boon needs an expression"
            if not effect.expression.strip().isdigit():
                try:
                    parse(effect.expression)
                except InvalidRequest as exc:
                    return exc.message
        if effect.kind is BoonKind.RECRUIT_ROLL and not effect.recruits:
            return "its recruit roll names no recruit"
        if effect.kind is BoonKind.FREE_HANGER_ON:
            wanted = effect.fighter_type or ""
            offered = [t.fighter_type for t in ruleset.hangers_on
                       if loosely_same(t.fighter_type, wanted)]
            offered += [t.fighter_type for h in ruleset.houses for t in h.fighters
                        if loosely_same(t.fighter_type, wanted)]
            if not offered:
                return f"its free Hanger-on {effect.fighter_type!r} is not in the rule set"
        if effect.kind is BoonKind.MANUAL and not effect.text.strip():
            return "a manual Boon must say what the players do"
    return None


def _skill_sets_problem(ruleset: RuleSet) -> str | None:
    names = [s.name.casefold() for s in ruleset.skill_sets]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        return f"more than one skill set called {repeated}"
    for skill_set in ruleset.skill_sets:
        skills = [s.casefold() for s in skill_set.skills]
        if len(set(skills)) != len(skills):
            return f"{skill_set.name} names a skill twice"
    return None


def _possible_results(table: InjuryTable) -> list[int]:
    dice = parse(table.dice)
    if dice.d66:
        return [tens * 10 + units for tens in range(1, 7) for units in range(1, 7)]
    if dice.multiplier != 1:
        raise InvalidRequest(f"{table.name}: a table is rolled without a multiplier.")
    return list(range(dice.count, dice.count * dice.sides + 1))


def _injury_table_problem(table: InjuryTable) -> str | None:
    try:
        results = _possible_results(table)
    except InvalidRequest as exc:
        return exc.message
    names = {entry.name for entry in table.entries}
    missing = [n for n in results if not any(e.low <= n <= e.high for e in table.entries)]
    if missing:
        return f"no entry for the results {missing}"
    for entry in table.entries:
        for effect in entry.effects:
            problem = _effect_problem(effect, names)
            if effect.repeat_as is not None and effect.repeat_as not in names:
                problem = f"repeats as '{effect.repeat_as}', which the table does not have"
            if problem:
                return f"'{entry.name}' {problem}"
    return None


def _effect_problem(effect: InjuryEffect, names: set[str]) -> str | None:
    kind, stat, expression, reroll = effect.kind, effect.stat, effect.expression, effect.reroll
    if kind is InjuryEffectKind.STAT and (stat is None or stat.lower() not in PROFILE_STATS):
        return f"changes an unknown characteristic {stat!r}"
    if kind is InjuryEffectKind.SKILL and not effect.skill:
        return "grants a skill without naming it"
    if kind is InjuryEffectKind.AFTER_BATTLE and not effect.on_results:
        return "rolls after each battle but names no result that brings Convalescence"
    if kind in (InjuryEffectKind.XP, InjuryEffectKind.MULTIPLE, InjuryEffectKind.AFTER_BATTLE):
        if not expression:
            return f"needs an expression for its {kind.value} effect"
        if not expression.strip().isdigit():
            try:
                parse(expression)
            except InvalidRequest as exc:
                return exc.message
    unknown = [name for name in reroll if name not in names]
    if unknown:
        return f"re-rolls {unknown}, which the table does not have"
    if kind is InjuryEffectKind.MULTIPLE and set(reroll) >= names:
        return "re-rolls every result of the table, so its extra rolls could never end"
    return None


def _scenario_problem(ruleset: RuleSet) -> str | None:
    rolls = [scenario.roll for scenario in ruleset.scenarios]
    repeated = sorted({roll for roll in rolls if rolls.count(roll) > 1})
    if repeated:
        return f"more than one scenario for the roll {repeated}"
    for scenario in ruleset.scenarios:
        if scenario.min_gangs > scenario.max_gangs:
            return (f"{scenario.name} needs at least {scenario.min_gangs} gangs "
                    f"but takes at most {scenario.max_gangs}")
    return None


def _ganger_table_problem(ruleset: RuleSet) -> str | None:
    for result in range(2, 13):
        hits = [e.name for e in ruleset.ganger_advancements.entries if e.low <= result <= e.high]
        if len(hits) != 1:
            return f"the 2D6 result {result} matches {len(hits)} entries, not exactly one"
    return None


def _check_expression(expression: str, file: str, what: str) -> None:
    try:
        parse(expression)
    except InvalidRequest as exc:
        raise InvalidRequest(f"{file}: {what}: {exc.message}") from None
