"""Write the part of Discord's OpenAPI spec the fake Discord checks requests against.

    python -m tools.discord_spec ../shared/discord/openapi.json

keeps the paths of :data:`PATHS` (every operation under them) and the components they
refer to, directly or through others, in fakediscord/spec/openapi.json, beside the
spec's MIT licence; a route whose path is kept is checked (fakediscord/spec.py).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PATHS = ("/guilds/{guild_id}/scheduled-events",)
TARGET = Path(__file__).resolve().parent.parent / "fakediscord" / "spec"


def references(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from references(value)
    elif isinstance(node, list):
        for value in node:
            yield from references(value)


def trimmed(spec: dict[str, Any], prefixes: tuple[str, ...] = PATHS) -> dict[str, Any]:
    paths = {p: v for p, v in spec["paths"].items() if p.startswith(prefixes)}
    kept: dict[str, dict[str, Any]] = {}
    todo = list(references(paths))
    while todo:
        ref = todo.pop()
        section, name = ref.removeprefix("#/components/").split("/", 1)
        if name in kept.setdefault(section, {}):
            continue
        kept[section][name] = spec["components"][section][name]
        todo += references(kept[section][name])
    return {"openapi": spec["openapi"], "info": spec["info"], "paths": paths,
            "components": {section: dict(sorted(names.items()))
                           for section, names in sorted(kept.items())}}


def main(argv: list[str]) -> int:
    source = Path(argv[0])
    spec = json.loads(source.read_text("utf-8"))
    TARGET.mkdir(exist_ok=True)
    (TARGET / "openapi.json").write_text(json.dumps(trimmed(spec), indent=1) + "\n", "utf-8")
    shutil.copyfile(source.parent / "LICENSE", TARGET / "LICENSE")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
