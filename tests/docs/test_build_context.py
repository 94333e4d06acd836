"""What `docker build .` sends into the image, computed with Docker's own .dockerignore rules:
no token, database URL, key, database or backup gets in, wherever in the folder it lies,
and everything the install needs does (docs/hosting.md, "In a container")."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parents[2]

# Files a host may well have beside the checkout when building: each must stay out.
SECRETS_A_HOST_MAY_LEAVE = [
    "token.env", "shards.env", ".env", ".env.production", "deploy/token.env",
    "docker/prod.env", "secrets/discord-token.txt", "tls/server.pem", "tls/server.key",
    "config.toml", "deploy/config.toml",
    "munda-arbitrator.db", "munda-arbitrator.db-wal", "munda-arbitrator.db.lock",
    "data/munda-arbitrator.db", "backups/munda-arbitrator-20260101-000000.db",
    "munda-2026-01-31.dump",
]
# What `pip install -e .` and the bot need in the image.
NEEDED = ["pyproject.toml", "README.md", "config.example.toml", "bot/__main__.py",
          "bot/storage/migrations/0001_roster.sql", "cogs/__init__.py", "rules/__init__.py"]


@dataclass(frozen=True)
class Pattern:
    """One line of a .dockerignore: a path pattern, or with `!` an exception to the ones above."""

    regex: re.Pattern[str]
    exception: bool

    def matches(self, path: str) -> bool:
        """The path itself or one of its parent folders matches (a folder left out leaves
        out what it holds)."""
        parts = path.split("/")
        return any(self.regex.fullmatch("/".join(parts[:end]))
                   for end in range(len(parts), 0, -1))


def pattern_regex(pattern: str) -> re.Pattern[str]:
    """Docker's glob: `*` and `?` stop at a slash, `**` crosses them (`**/` also matches
    nothing), `\\` quotes the next character, `[...]` is a class; anchored at both ends."""
    out, i = "", 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
            continue
        if pattern.startswith("**", i):
            out, i = out + ".*", i + 2
            continue
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        elif char == "[":
            end = pattern.index("]", i + 1)
            out += "[" + pattern[i + 1:end].replace("!", "^", 1) + "]"
            i = end
        else:
            out += re.escape(char)
        i += 1
    return re.compile(out)


def read_dockerignore(text: str) -> list[Pattern]:
    patterns = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        line = line.removeprefix("!").strip()
        # Docker cleans each pattern as a path and drops a leading slash: the
        # context's root is the only root.
        line = posixpath.normpath(line)
        if len(line) > 1:
            line = line.removeprefix("/")
        patterns.append(Pattern(pattern_regex(line), exception))
    return patterns


def left_out(path: str, patterns: list[Pattern]) -> bool:
    """The last pattern that matches decides; none matching keeps the file."""
    excluded = False
    for pattern in patterns:
        if pattern.exception != excluded:
            continue  # an exception can only bring back, a pattern only leave out
        if pattern.matches(path):
            excluded = not pattern.exception
    return excluded


def build_context(files: Iterable[str], dockerignore: str) -> set[str]:
    patterns = read_dockerignore(dockerignore)
    return {path for path in files if not left_out(path, patterns)}


def checkout_files() -> set[str]:
    found = set()
    for folder, _dirs, names in os.walk(ROOT):
        for name in names:
            found.add(Path(folder, name).relative_to(ROOT).as_posix())
    return found


def test_docker_matching_as_docker_does_it() -> None:
    # Docker's own documented examples and its differences from .gitignore.
    files = ["token.env", "deploy/token.env", "a/b/token.env", "backups/old/x.db",
             "README.md", "README-secret.md", "docs/README.md", "temp1", "x/temp2"]
    assert build_context(files, "*.env\n") == set(files) - {"token.env"}
    assert build_context(files, "**/*.env\n") == set(files) - {
        "token.env", "deploy/token.env", "a/b/token.env"}
    assert build_context(files, "/backups/\n") == set(files) - {"backups/old/x.db"}
    assert build_context(files, "*.md\n!README*.md\nREADME-secret.md\n") == (
        set(files) - {"README-secret.md"})
    assert build_context(files, "*/temp*\ntemp?\n") == set(files) - {"temp1", "x/temp2"}


def test_no_secret_or_data_file_enters_the_image() -> None:
    files = checkout_files() | set(SECRETS_A_HOST_MAY_LEAVE) | set(NEEDED)
    context = build_context(files, (ROOT / ".dockerignore").read_text("utf-8"))
    assert not context & set(SECRETS_A_HOST_MAY_LEAVE), context & set(SECRETS_A_HOST_MAY_LEAVE)
    assert set(NEEDED) <= context, set(NEEDED) - context
    assert not any(path.startswith((".git/", ".venv/")) for path in context)


def test_the_guide_keeps_the_token_out_of_the_build_folder() -> None:
    guide = (ROOT / "docs" / "hosting.md").read_text("utf-8")
    container = guide.split("## In a container", 1)[1].split("\n## ", 1)[0]
    env_files = re.findall(r"--env-file\s+(\S+)", container)
    assert env_files and all(path.startswith("/") for path in env_files), env_files
    assert ".dockerignore" in container
