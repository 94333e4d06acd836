"""No import circles among the project's own modules.

A circle makes import order matter, hides which module is the lower one, and
tempts the next change into a function-local import. The graph is read from the
source, not from ``sys.modules``, so imports under ``if TYPE_CHECKING:`` and
inside functions count as edges too: a reader meets them the same way.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "cogs", "rules", "fakediscord", "demo")
# The product: what a host runs. It never reaches the fake Discord or the demo built on it.
PRODUCT = ("bot", "cogs", "rules")
TEST_DOUBLES = ("fakediscord", "demo")


def project_modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the packages under root."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def imported_names(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """The dotted names the module imports; `from a import b` means a.b when that is a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(part for part in [*parent, base] if part)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield submodule if submodule in modules else base


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a name counts as its longest module prefix)."""
    modules = project_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_names(name, path, modules):
            parts = imported.split(".")
            prefixes = (".".join(parts[:end]) for end in range(len(parts), 0, -1))
            target = next((prefix for prefix in prefixes if prefix in modules), None)
            if target is not None and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def tangles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of two or more modules: each is one or more circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = stack[stack.index(node):]
            del stack[stack.index(node):]
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def shortest_circle(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path from the component's first module back to itself."""
    start = component[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & set(component)):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no circle through {start} in {component}")


def described(tangle: list[str], graph: dict[str, set[str]], root: Path) -> str:
    """A shortest circle's files, then the other files caught in the same tangle."""
    modules = project_modules(root)
    circle = shortest_circle(tangle, graph)
    text = " -> ".join(str(modules[name].relative_to(root)) for name in circle)
    others = [str(modules[name].relative_to(root)) for name in tangle if name not in circle]
    return text + (f" (and through {', '.join(others)})" if others else "")


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def check_the_reader_on_a_known_tree(tmp_path: Path) -> None:
    """Circles through TYPE_CHECKING, function-local and relative imports are found."""
    write(tmp_path, {
        "bot/__init__.py": "",
        "bot/ui/__init__.py": "",
        "bot/ui/routes.py": "from typing import TYPE_CHECKING\n"
                            "if TYPE_CHECKING:\n    from ..app import MundaBot\n",
        "bot/app.py": "def run() -> None:\n    from bot.ui import routes\n",
        "rules/__init__.py": "from rules.dice import roll\n",
        "rules/dice.py": "import rules.tables\n",
        "rules/tables.py": "from . import dice\n",
        "cogs/__init__.py": "from rules import dice\n",
        "fakediscord/__init__.py": "import bot.app\n",
        "cogs/gang.py": "import cogs.roster\nimport cogs.stash\n",
        "cogs/roster.py": "from cogs.gang import setup\n",
        "cogs/stash.py": "from cogs import roster\n",
    })
    graph = import_graph(tmp_path)
    assert graph["cogs"] == {"rules.dice"}
    assert graph["rules"] == {"rules.dice"}
    assert graph["fakediscord"] == {"bot.app"}
    assert graph["cogs.roster"] == {"cogs.gang"}
    found = tangles(graph)
    assert sorted(described(tangle, graph, tmp_path) for tangle in found) == [
        "bot/app.py -> bot/ui/routes.py -> bot/app.py",
        "cogs/gang.py -> cogs/roster.py -> cogs/gang.py (and through cogs/stash.py)",
        "rules/dice.py -> rules/tables.py -> rules/dice.py",
    ]


def test_the_project_has_no_import_circles(tmp_path: Path) -> None:
    check_the_reader_on_a_known_tree(tmp_path)
    graph = import_graph(ROOT)
    assert "bot.storage.outbox" in graph["bot.storage.repository"]  # from bot.storage import outbox
    found = tangles(graph)
    assert not found, "import circles:\n" + "\n".join(
        described(tangle, graph, ROOT) for tangle in found)


def in_packages(module: str, packages: tuple[str, ...]) -> bool:
    return module.split(".")[0] in packages


def reaches_the_fake(graph: dict[str, set[str]]) -> list[str]:
    """Each import of the fake Discord or the demo by a module of the product, as a line."""
    return sorted(f"{name} imports {target}" for name, targets in graph.items()
                  if in_packages(name, PRODUCT)
                  for target in targets if in_packages(target, TEST_DOUBLES))


def test_the_product_never_imports_the_fake_discord_or_the_demo(tmp_path: Path) -> None:
    write(tmp_path, {
        "bot/__init__.py": "",
        "bot/__main__.py": "def main() -> None:\n    from demo.campaign import run_demo\n",
        "cogs/__init__.py": "",
        "rules/__init__.py": "",
        "fakediscord/__init__.py": "from bot import app\n",
        "bot/app.py": "",
        "demo/__init__.py": "",
        "demo/campaign.py": "from fakediscord import Driver\nimport bot.app\n",
    })
    assert reaches_the_fake(import_graph(tmp_path)) == ["bot.__main__ imports demo.campaign"]
    # The launcher alone may start the demo, and only from inside its function (a lazy import).
    found = [line for line in reaches_the_fake(import_graph(ROOT))
             if not line.startswith("bot.__main__ imports demo.")]
    assert not found, "the product imports its test double:\n" + "\n".join(found)
    # ...and starting the bot loads neither (the launcher's import waits for `demo`).
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, bot.__main__, bot.app\n"
         "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fakediscord', 'demo')))"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, check=True)
    assert loaded.stdout.strip() == "[]", loaded.stdout
