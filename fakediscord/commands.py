"""Registered application commands, kept exactly as the bot synced them."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from fakediscord import limits
from fakediscord.common import JsonObj, Snowflakes
from fakediscord.errors import ApiError, CommandInputError, invalid_form

GLOBAL_LIMIT = 100


@dataclass(frozen=True)
class ResolvedCommand:
    """A command path resolved against the registered schema."""

    command: JsonObj
    path: tuple[str, ...]
    chain: tuple[JsonObj, ...]
    leaf: JsonObj

    @property
    def qualified_name(self) -> str:
        return " ".join(self.path)

    @property
    def options(self) -> list[JsonObj]:
        return list(self.leaf.get("options") or [])


class CommandRegistry:
    """Global commands live under scope ``None``; guild commands under the guild id."""

    def __init__(self, ids: Snowflakes, application_id: int) -> None:
        self._ids = ids
        self._application_id = application_id
        self._scopes: dict[int | None, dict[tuple[str, int], JsonObj]] = {}
        self.sync_count = 0

    def list_scope(self, guild_id: int | None) -> list[JsonObj]:
        return list(self._scopes.get(guild_id, {}).values())

    def _store(self, guild_id: int | None, data: JsonObj, previous: JsonObj | None) -> JsonObj:
        stored = copy.deepcopy(data)
        stored.setdefault("type", 1)
        stored.setdefault("options", [])
        stored.setdefault("default_member_permissions", None)
        stored.setdefault("nsfw", False)
        # Overwriting a command with the same name keeps its id, as Discord does.
        stored["id"] = previous["id"] if previous else str(self._ids.next())
        stored["application_id"] = str(self._application_id)
        stored["version"] = str(self._ids.next())
        if guild_id is not None:
            stored["guild_id"] = str(guild_id)
        else:
            stored.pop("guild_id", None)
        return stored

    def overwrite(self, guild_id: int | None, commands: object) -> list[JsonObj]:
        if not isinstance(commands, list):
            raise invalid_form("expected a list of commands")
        if len(commands) > GLOBAL_LIMIT:
            raise invalid_form(f"at most {GLOBAL_LIMIT} commands")
        seen: set[tuple[str, int]] = set()
        for i, cmd in enumerate(commands):
            limits.check_command(cmd, str(i))
            key = (cmd["name"], cmd.get("type", 1))
            if key in seen:
                raise invalid_form(f"duplicate command name {cmd['name']!r}", str(i))
            seen.add(key)
        old = self._scopes.get(guild_id, {})
        new: dict[tuple[str, int], JsonObj] = {}
        for cmd in commands:
            key = (cmd["name"], cmd.get("type", 1))
            new[key] = self._store(guild_id, cmd, old.get(key))
        self._scopes[guild_id] = new
        self.sync_count += 1
        return list(new.values())

    def upsert(self, guild_id: int | None, cmd: object) -> JsonObj:
        limits.check_command(cmd)
        assert isinstance(cmd, dict)
        scope = self._scopes.setdefault(guild_id, {})
        key = (cmd["name"], cmd.get("type", 1))
        scope[key] = self._store(guild_id, cmd, scope.get(key))
        self.sync_count += 1
        return scope[key]

    def get(self, guild_id: int | None, command_id: str) -> JsonObj:
        for cmd in self._scopes.get(guild_id, {}).values():
            if cmd["id"] == command_id:
                return cmd
        raise ApiError(404, 10063, "Unknown application command")

    def edit(self, guild_id: int | None, command_id: str, patch: JsonObj) -> JsonObj:
        current = self.get(guild_id, command_id)
        merged = {**current, **patch}
        limits.check_command(merged)
        self.delete(guild_id, command_id)
        return self.upsert(guild_id, merged)

    def delete(self, guild_id: int | None, command_id: str) -> None:
        scope = self._scopes.get(guild_id, {})
        for key, cmd in list(scope.items()):
            if cmd["id"] == command_id:
                del scope[key]
                self.sync_count += 1
                return
        raise ApiError(404, 10063, "Unknown application command")

    def find(self, guild_id: int | None, name: str, kind: int = 1) -> JsonObj | None:
        """Guild commands shadow global ones of the same name, as in the Discord client."""
        for scope in (guild_id, None):
            found = self._scopes.get(scope, {}).get((name, kind))
            if found is not None:
                return found
        return None

    def visible_names(self, guild_id: int | None) -> list[str]:
        names = {key[0] for scope in (guild_id, None) for key in self._scopes.get(scope, {})}
        return sorted(names)

    def resolve(self, guild_id: int | None, path: str) -> ResolvedCommand:
        parts = tuple(path.strip().lstrip("/").split())
        if not parts:
            raise CommandInputError("empty command path")
        command = self.find(guild_id, parts[0])
        if command is None:
            raise CommandInputError(
                f"no slash command {parts[0]!r} is registered for this guild; "
                f"registered: {self.visible_names(guild_id)}"
            )
        node = command
        chain: list[JsonObj] = []
        for depth, part in enumerate(parts[1:], start=1):
            subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
            match = next((o for o in subs if o["name"] == part), None)
            if match is None:
                raise CommandInputError(
                    f"/{' '.join(parts[:depth])} has no subcommand {part!r}; "
                    f"available: {[o['name'] for o in subs]}"
                )
            node = match
            chain.append(match)
        leftover = [o["name"] for o in node.get("options") or [] if o.get("type") in (1, 2)]
        if leftover:
            raise CommandInputError(
                f"/{' '.join(parts)} is a group; pick one of its subcommands: {leftover}"
            )
        return ResolvedCommand(command=command, path=parts, chain=tuple(chain), leaf=node)
