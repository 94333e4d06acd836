"""A weapon's profile lines as the official roster sheet lists them, for every view of a
roster (the /fighter show text and the picture card read the same rows)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rules.models import EquipmentKind, Gang, Item, WeaponProfile
from rules.ruleset import RuleSet

# A weapon's profile lines by its casefolded name, for weapons that carry none of their own.
KnownLines = Mapping[str, Sequence[WeaponProfile]]

# The sheet's figure columns, left to right: heading and the WeaponProfile field.
WEAPON_FIGURES: tuple[tuple[str, str], ...] = (
    ("Rng S", "short_range"), ("Rng L", "long_range"),
    ("Acc S", "short_accuracy"), ("Acc L", "long_accuracy"),
    ("S", "strength"), ("AP", "ap"), ("D", "damage"), ("Am", "ammo"),
)


@dataclass(frozen=True)
class WeaponRow:
    """One row of a weapon table: one profile line of a weapon (its ammo or variant), or the
    weapon alone when no profile is known for it."""

    weapon: Item
    profile: WeaponProfile | None
    # The weapon's first row carries its name; its other profile lines sit under it.
    first: bool

    @property
    def label(self) -> str:
        """"Combat shotgun (salvo ammo)" on a weapon's first row, "- shredder ammo" under it."""
        name = self.profile.name if self.profile is not None else ""
        if not self.first:
            return f"- {name or self.weapon.name}"
        return f"{self.weapon.name} ({name})" if name else self.weapon.name

    @property
    def figures(self) -> tuple[str, ...]:
        """The eight figures in the sheet's order; a blank box ("-") where none is known."""
        if self.profile is None:
            return tuple("-" for _ in WEAPON_FIGURES)
        return tuple(str(getattr(self.profile, field)) for _, field in WEAPON_FIGURES)

    @property
    def traits(self) -> str:
        return ", ".join(self.profile.traits) if self.profile is not None else ""


def weapon_profiles(weapon: Item, known: KnownLines) -> list[WeaponProfile]:
    """The weapon's own profile lines, else those ``known`` gives for its name."""
    if weapon.profiles:
        return list(weapon.profiles)
    return list(known.get(weapon.name.casefold(), ()))


def known_lines(ruleset: RuleSet, gang: Gang) -> dict[str, list[WeaponProfile]]:
    """The rule data's profile lines for the gang's weapons that carry none (an item written
    down by hand, or bought before the data gave its profile): the card and the text then
    show the same rows."""
    items = [*gang.stash, *(i for f in gang.fighters for i in f.equipment),
             *(i for v in [*gang.vehicles, *gang.stash_vehicles] for i in v.equipment)]
    return ruleset.weapon_lines({i.name for i in items
                                 if i.kind is EquipmentKind.WEAPON and not i.profiles})


def weapon_rows(weapons: Iterable[Item], known: KnownLines | None = None) -> list[WeaponRow]:
    """One row per profile line of each weapon, in the weapons' order."""
    rows: list[WeaponRow] = []
    for weapon in weapons:
        profiles = weapon_profiles(weapon, known or {})
        if not profiles:
            rows.append(WeaponRow(weapon, None, first=True))
        rows += [WeaponRow(weapon, p, first=index == 0) for index, p in enumerate(profiles)]
    return rows
