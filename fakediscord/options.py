"""Turn driver keyword arguments into the ``data`` of an application-command interaction.

Values are checked against the registered schema the way the Discord client
would (required options, choices, ranges, channel types), so a test cannot send
something a real user could not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakediscord.commands import ResolvedCommand
from fakediscord.common import JsonObj
from fakediscord.entities import Attachment, Channel, User
from fakediscord.errors import CommandInputError, FakeDiscordError
from fakediscord.messages import Upload
from fakediscord.world import Guild, Member, Role, World

# INTEGER and NUMBER options carry values between -2**53 and 2**53 (Discord's docs).
DISCORD_NUMBER_LIMIT = 2**53

OPTION_TYPE_NAMES = {
    3: "string",
    4: "integer",
    5: "boolean",
    6: "user",
    7: "channel",
    8: "role",
    9: "mentionable",
    10: "number",
    11: "attachment",
}


class _Builder:
    def __init__(self, world: World, guild: Guild | None, invoker: User, where: str) -> None:
        self.world = world
        self.guild = guild
        self.invoker = invoker
        self.where = where
        self.resolved: dict[str, dict[str, JsonObj]] = {}

    def fail(self, spec: JsonObj, problem: str) -> CommandInputError:
        return CommandInputError(f"{self.where} option {spec['name']!r}: {problem}")

    def _put(self, kind: str, key: int, payload: JsonObj) -> None:
        self.resolved.setdefault(kind, {})[str(key)] = payload

    def _resolve_user(self, value: Any) -> int:
        user = self.world.user(value)
        self._put("users", user.id, user.to_payload())
        if self.guild is not None and user.id in self.guild.members:
            member = self.guild.members[user.id]
            self._put("members", user.id, member.to_payload(with_user=False, with_permissions=True))
        return user.id

    def _resolve_role(self, value: Any) -> int:
        if self.guild is None:
            raise CommandInputError(f"{self.where}: role options need a guild")
        role = self.guild.role(value)
        self._put("roles", role.id, role.to_payload())
        return role.id

    def _resolve_channel(self, spec: JsonObj, value: Any) -> int:
        channel = self.world.channel(value, self.guild)
        allowed = spec.get("channel_types")
        if allowed and channel.type not in allowed:
            raise self.fail(spec, f"channel type {channel.type} not in {allowed}")
        payload = channel.to_payload()
        perms = self.guild.permissions_for(self.invoker.id) if self.guild else 0
        payload["permissions"] = str(perms)
        self._put("channels", channel.id, payload)
        return channel.id

    def _resolve_attachment(self, spec: JsonObj, value: Any) -> int:
        if not isinstance(value, Upload):
            raise self.fail(spec, "attachment options take an Upload(filename, data)")
        attachment_id = self.world.ids.next()
        attachment = Attachment(
            id=attachment_id,
            filename=value.filename,
            data=value.data,
            url=f"{self.world.http_root}/attachments/0/{attachment_id}/{value.filename}",
            content_type=value.content_type,
        )
        self.world.uploads[attachment_id] = attachment
        self._put("attachments", attachment_id, attachment.to_payload())
        return attachment_id

    def _check_choice(self, spec: JsonObj, value: Any) -> Any:
        choices = spec.get("choices")
        if not choices:
            return value
        for choice in choices:
            if choice["value"] == value:
                return value
        for choice in choices:
            if choice["name"] == value:
                return choice["value"]
        raise self.fail(spec, f"{value!r} is not one of {[c['value'] for c in choices]}")

    def _check_range(self, spec: JsonObj, value: Any) -> None:
        lo, hi = spec.get("min_value"), spec.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(spec, f"{value!r} outside {lo}..{hi}")
        # Discord's own range for numbers, declared bounds or not.
        if not -DISCORD_NUMBER_LIMIT <= value <= DISCORD_NUMBER_LIMIT:
            raise self.fail(spec, f"{value!r} outside Discord's ±2**53")

    def convert(self, spec: JsonObj, value: Any) -> Any:
        kind = spec["type"]
        if kind == 3:
            if not isinstance(value, str):
                raise self.fail(spec, f"expected a string, got {value!r}")
            lo, hi = spec.get("min_length", 0), spec.get("max_length", 6000)
            if not lo <= len(value) <= hi:
                raise self.fail(spec, f"length {len(value)} outside {lo}..{hi}")
            return self._check_choice(spec, value)
        if kind in (4, 10):
            ok = (int,) if kind == 4 else (int, float)
            if isinstance(value, bool) or not isinstance(value, ok):
                value = self._check_choice(spec, value)
                if isinstance(value, bool) or not isinstance(value, ok):
                    raise self.fail(spec, f"expected {OPTION_TYPE_NAMES[kind]}, got {value!r}")
            self._check_range(spec, value)
            return self._check_choice(spec, value)
        if kind == 5:
            if not isinstance(value, bool):
                raise self.fail(spec, f"expected a bool, got {value!r}")
            return value
        try:
            return self._convert_entity(spec, value)
        except FakeDiscordError as exc:
            if isinstance(exc, CommandInputError):
                raise
            raise self.fail(spec, str(exc)) from None

    def _convert_entity(self, spec: JsonObj, value: Any) -> str:
        kind = spec["type"]
        if kind == 6:
            return str(self._resolve_user(value))
        if kind == 7:
            return str(self._resolve_channel(spec, value))
        if kind == 8:
            return str(self._resolve_role(value))
        if kind == 9:
            if isinstance(value, Role):
                return str(self._resolve_role(value))
            if isinstance(value, User | Member):
                return str(self._resolve_user(value))
            raise self.fail(spec, "mentionable options take a User, Member or Role object")
        if kind == 11:
            return str(self._resolve_attachment(spec, value))
        raise self.fail(spec, f"unsupported option type {kind}")


def _raw_value(value: Any) -> Any:
    if isinstance(value, User | Member | Role | Channel):
        return str(value.id)
    if isinstance(value, Upload):
        return value.filename
    return value


def build_command_data(
    world: World,
    guild: Guild | None,
    invoker: User,
    command: ResolvedCommand,
    values: Mapping[str, Any],
    *,
    focused: str | None = None,
) -> JsonObj:
    where = f"/{command.qualified_name}"
    specs = {spec["name"]: spec for spec in command.options}
    unknown = sorted(set(values) - set(specs))
    if unknown:
        raise CommandInputError(f"{where} has no option(s) {unknown}; options: {list(specs)}")
    if focused is not None and focused not in specs:
        raise CommandInputError(f"{where} has no option {focused!r} to focus")
    if focused is not None and not specs[focused].get("autocomplete"):
        raise CommandInputError(f"{where} option {focused!r} does not use autocomplete")
    builder = _Builder(world, guild, invoker, where)
    leaf: list[JsonObj] = []
    for name, spec in specs.items():
        if name not in values or values[name] is None:
            if spec.get("required") and focused is None:
                raise CommandInputError(f"{where} is missing required option {name!r}")
            continue
        option: JsonObj = {"name": name, "type": spec["type"]}
        if focused is None:
            option["value"] = builder.convert(spec, values[name])
        elif name == focused:
            # Discord sends whatever the user has typed so far, always as text.
            option["value"] = str(values[name])
            option["focused"] = True
        else:
            option["value"] = _raw_value(values[name])
        leaf.append(option)
    if focused is not None and focused not in values:
        leaf.append({"name": focused, "type": specs[focused]["type"], "value": "", "focused": True})

    nested = leaf
    for node in reversed(command.chain):
        nested = [{"name": node["name"], "type": node["type"], "options": nested}]
    data: JsonObj = {
        "id": command.command["id"],
        "name": command.command["name"],
        "type": command.command.get("type", 1),
        "options": nested,
    }
    if command.command.get("guild_id"):
        data["guild_id"] = command.command["guild_id"]
    if builder.resolved and focused is None:
        data["resolved"] = builder.resolved
    return data
