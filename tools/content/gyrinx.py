"""The Gyrinx YAML seed (Apache-2.0): fighter entries with stats, cost and category.

Read only to cross-check the necrovox figures (necrovox wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

FIGHTERS = Path("necromunda-2018/data/fighter")


@dataclass(frozen=True)
class GyrinxFighter:
    house: str
    name: str
    category: str
    cost: int | None
    stats: dict[str, int]
    source: str


def fighters(root: Path) -> list[GyrinxFighter]:
    """Every fighter entry, in file then entry order."""
    found: list[GyrinxFighter] = []
    for path in sorted((root / FIGHTERS).glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for entry in data.get("fighter", []) or []:
            stats = {str(k): int(v) for k, v in (entry.get("stats") or {}).items()}
            cost = entry.get("cost")
            found.append(GyrinxFighter(
                house=str(entry.get("house", "")), name=str(entry.get("type", "")),
                category=str(entry.get("category", "")),
                cost=int(cost) if isinstance(cost, int) else None, stats=stats,
                source="gyrinx/" + path.relative_to(root).as_posix()))
    return found
