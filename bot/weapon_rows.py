"""A weapon's profile lines as the official roster sheet lists them, for every view of a
roster (the /fighter show text and the picture card read the same rows)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rules.models import Item, WeaponProfile

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


def weapon_profiles(weapon: Item, known: Mapping[str, WeaponProfile]) -> list[WeaponProfile]:
    """The weapon's own profile lines, else the one ``known`` (casefolded name -> profile)
    gives for its name."""
    if weapon.profiles:
        return list(weapon.profiles)
    given = known.get(weapon.name.casefold())
    return [given] if given is not None else []


def weapon_rows(weapons: Iterable[Item],
                known: Mapping[str, WeaponProfile] | None = None) -> list[WeaponRow]:
    """One row per profile line of each weapon, in the weapons' order."""
    rows: list[WeaponRow] = []
    for weapon in weapons:
        profiles = weapon_profiles(weapon, known or {})
        if not profiles:
            rows.append(WeaponRow(weapon, None, first=True))
        rows += [WeaponRow(weapon, p, first=index == 0) for index, p in enumerate(profiles)]
    return rows
