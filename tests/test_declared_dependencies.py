"""Every third-party package the code imports is declared in pyproject.toml.

An import that works only because another dependency happens to pull the
package in (aiohttp and yarl came with discord.py) breaks the day that
dependency stops doing so.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRST_PARTY = ("bot", "cogs", "rules", "fakediscord", "demo")


def normalised(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def imported_modules(paths: list[Path]) -> dict[str, Path]:
    """Top-level names of absolute imports, with a file that imports each."""
    found: dict[str, Path] = {}
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.partition(".")[0], path)
    return found


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = set()
    for requirement in project.get("dependencies", []):
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        assert match, f"unreadable dependency {requirement!r}"
        names.add(normalised(match.group(1)))
    return names


def test_every_imported_distribution_is_declared() -> None:
    sources = [p for package in FIRST_PARTY for p in (ROOT / package).rglob("*.py")]
    assert any(p.parts[-2] == "fakediscord" for p in sources)
    modules = imported_modules(sources)
    third_party = {
        name: path for name, path in modules.items()
        if name not in sys.stdlib_module_names and name not in FIRST_PARTY
    }
    distributions = importlib.metadata.packages_distributions()
    wanted = declared()
    missing = []
    for name, path in sorted(third_party.items()):
        owners = distributions.get(name)
        if not owners:
            missing.append(f"{name} (imported in {path.relative_to(ROOT)}; not installed)")
        elif not any(normalised(owner) in wanted for owner in owners):
            missing.append(f"{name} from {owners[0]} (imported in {path.relative_to(ROOT)})")
    assert not missing, "imported but not declared in pyproject.toml: " + ", ".join(missing)
    assert third_party  # the walk found the code's imports (discord at least)
