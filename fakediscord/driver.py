"""The test-facing API: act as Discord users and observe what the bot does.

Every wait has a timeout and raises :class:`WaitTimeout` naming what it waited for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

from fakediscord import store
from fakediscord.common import SELECT_TYPES, CallbackType, InteractionType, JsonObj, Perm
from fakediscord.entities import Channel, Message, User
from fakediscord.errors import CommandInputError, FakeDiscordError, WaitTimeout
from fakediscord.interactions import InteractionRecord
from fakediscord.messages import Upload
from fakediscord.modals import fill_modal
from fakediscord.options import build_command_data
from fakediscord.result import Choice, InteractionResult
from fakediscord.services import Services
from fakediscord.world import Guild, GuildRef, Member, Role, UserRef

ChannelRef = Channel | str | int
MessageRef = Message | InteractionResult | int


class BotResponseError(FakeDiscordError):
    """The bot's first response was rejected as Discord would reject it (late, malformed...).

    Raised as soon as the rejection happens, even if the bot might retry afterwards.
    """


class Driver:
    def __init__(self, services: Services, *, timeout: float = 5.0) -> None:
        self.services = services
        self.world = services.world
        self.timeout = timeout

    # -- resolving references ---------------------------------------------

    def _where(self, guild: GuildRef | None, channel: ChannelRef) -> tuple[Guild | None, Channel]:
        g = self.world.guild(guild) if guild is not None else None
        ch = self.world.channel(channel, g)
        if g is None and ch.guild_id is not None:
            g = self.world.guilds[ch.guild_id]
        if g is not None and ch.guild_id != g.id:
            raise CommandInputError(f"channel {ch.name!r} is not in guild {g.name!r}")
        return g, ch

    def _message(self, ref: MessageRef) -> Message:
        if isinstance(ref, InteractionResult):
            if ref.message is None:
                raise CommandInputError(f"{ref.record.label} produced no message to interact with")
            ref = ref.message
        if isinstance(ref, int):
            found = self.world.messages.get(ref)
            if found is None:
                raise CommandInputError(f"no message with id {ref}")
            ref = found
        if ref.deleted:
            raise CommandInputError(f"message {ref.id} has been deleted")
        return ref

    def _invoker(self, guild: Guild | None, user: UserRef) -> User:
        u = self.world.user(user)
        if guild is not None:
            guild.member(u)  # raises unless a member
        return u

    # -- slash commands ---------------------------------------------------

    async def slash(
        self,
        guild: GuildRef | None,
        channel: ChannelRef,
        user: UserRef,
        command: str,
        /,
        *,
        options: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        wait_deferred: bool = True,
        **values: Any,
    ) -> InteractionResult:
        """Run ``/command`` (``"campaign territory add"`` for subcommands) as ``user``.

        Options come as keyword arguments (or ``options=`` for names that clash with
        this signature). Returns once the bot has responded; after a "thinking" defer
        it also waits for the deferred message to be filled in unless told not to.
        """
        g, ch = self._where(guild, channel)
        invoker = self._invoker(g, user)
        resolved = self.services.commands.resolve(g.id if g else None, command)
        self._check_permission(resolved.command, g, invoker)
        merged = {**(options or {}), **values}
        data = build_command_data(self.world, g, invoker, resolved, merged)
        shown = " ".join(
            f"{spec['name']}:{_display(merged[spec['name']])}"
            for spec in resolved.options
            if merged.get(spec["name"]) is not None
        )
        label = f"/{resolved.qualified_name} {shown}".rstrip()
        record = self.services.interactions.create(
            InteractionType.APPLICATION_COMMAND,
            invoker,
            ch,
            data,
            label=label,
            command_name=resolved.qualified_name,
        )
        return await self._run(record, timeout, wait_deferred)

    def _check_permission(self, command: JsonObj, guild: Guild | None, user: User) -> None:
        required = command.get("default_member_permissions")
        if required is None or guild is None:
            return
        needed = int(required)
        perms = guild.permissions_for(user.id)
        # "0" means administrators only; otherwise every listed bit is needed.
        allowed = bool(perms & Perm.ADMINISTRATOR) if needed == 0 else perms & needed == needed
        if not allowed:
            raise CommandInputError(
                f"{user.username} lacks permissions {needed} required by /{command['name']}; "
                "Discord would not offer them the command"
            )

    async def autocomplete(
        self,
        guild: GuildRef | None,
        channel: ChannelRef,
        user: UserRef,
        command: str,
        /,
        *,
        focused: str,
        options: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        **values: Any,
    ) -> list[Choice]:
        """Type into option ``focused`` of ``/command``; returns the bot's suggestions."""
        g, ch = self._where(guild, channel)
        invoker = self._invoker(g, user)
        resolved = self.services.commands.resolve(g.id if g else None, command)
        merged = {**(options or {}), **values}
        data = build_command_data(self.world, g, invoker, resolved, merged, focused=focused)
        record = self.services.interactions.create(
            InteractionType.AUTOCOMPLETE,
            invoker,
            ch,
            data,
            label=f"autocomplete /{resolved.qualified_name} {focused}={merged.get(focused, '')!r}",
            command_name=resolved.qualified_name,
        )
        result = await self._run(record, timeout, wait_deferred=False)
        return result.choices

    # -- components and modals --------------------------------------------

    async def click(
        self,
        message: MessageRef,
        custom_id: str,
        user: UserRef,
        *,
        timeout: float | None = None,
        wait_deferred: bool = True,
    ) -> InteractionResult:
        """Press a button, found by custom_id or by its label."""
        msg, comp = self._component_of(message, custom_id, {2}, "a button")
        if comp.get("style") in (5, 6):
            raise CommandInputError(
                f"{custom_id!r} is a link/premium button; it sends no interaction"
            )
        if comp.get("disabled"):
            raise CommandInputError(f"button {comp.get('label') or custom_id!r} is disabled")
        data: JsonObj = {"custom_id": comp["custom_id"], "component_type": 2}
        label = f"clicked [{comp.get('label') or comp['custom_id']}]"
        return await self._component(msg, user, data, label, timeout, wait_deferred)

    async def select(
        self,
        message: MessageRef,
        custom_id: str,
        values: Sequence[Any],
        user: UserRef,
        *,
        timeout: float | None = None,
        wait_deferred: bool = True,
    ) -> InteractionResult:
        """Choose ``values`` in a select menu (option values, or labels for string selects)."""
        msg, comp = self._component_of(message, custom_id, SELECT_TYPES, "a select menu")
        kind = comp["type"]
        if comp.get("disabled"):
            raise CommandInputError(f"select {custom_id!r} is disabled")
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise CommandInputError(
                f"select {custom_id!r} takes {lo}..{hi} values, got {len(values)}"
            )
        guild = self.world.guilds.get(msg.guild_id) if msg.guild_id else None
        data: JsonObj = {"custom_id": comp["custom_id"], "component_type": kind}
        data.update(self._select_values(comp, list(values), guild))
        label = f"selected {data['values']} in {comp.get('placeholder') or comp['custom_id']!r}"
        return await self._component(msg, user, data, label, timeout, wait_deferred)

    def _component_of(
        self, message: MessageRef, custom_id: str, kinds: Container[int], what: str
    ) -> tuple[Message, JsonObj]:
        """The message and its component ``custom_id`` (or label), which must be ``what``."""
        msg = self._message(message)
        comp = msg.component(custom_id)
        if comp.get("type") not in kinds:
            raise CommandInputError(f"{custom_id!r} is not {what} (type {comp.get('type')})")
        return msg, comp

    def _select_values(self, comp: JsonObj, values: list[Any], guild: Guild | None) -> JsonObj:
        kind = comp["type"]
        if kind == 3:
            options = comp.get("options") or []
            chosen: list[str] = []
            for value in values:
                match = next((o for o in options if value in (o["value"], o["label"])), None)
                if match is None:
                    raise CommandInputError(
                        f"select {comp['custom_id']!r} has no option {value!r}; "
                        f"options: {[o['value'] for o in options]}"
                    )
                chosen.append(match["value"])
            return {"values": chosen}
        resolved: dict[str, dict[str, JsonObj]] = {}
        ids: list[str] = []
        for value in values:
            as_role = kind == 6 or (kind == 7 and guild is not None and _is_role(guild, value))
            if kind == 8:
                channel = self.world.channel(value, guild)
                payload = {**channel.to_payload(), "permissions": "0"}
                resolved.setdefault("channels", {})[str(channel.id)] = payload
                ids.append(str(channel.id))
            elif as_role:
                if guild is None:
                    raise CommandInputError("role selects need a guild")
                role = guild.role(value)
                resolved.setdefault("roles", {})[str(role.id)] = role.to_payload()
                ids.append(str(role.id))
            else:
                user = self.world.user(value)
                resolved.setdefault("users", {})[str(user.id)] = user.to_payload()
                if guild is not None and user.id in guild.members:
                    member = guild.members[user.id].to_payload(
                        with_user=False, with_permissions=True
                    )
                    resolved.setdefault("members", {})[str(user.id)] = member
                ids.append(str(user.id))
        return {"values": ids, "resolved": resolved}

    async def _component(
        self,
        msg: Message,
        user: UserRef,
        data: JsonObj,
        label: str,
        timeout: float | None,
        wait_deferred: bool,
    ) -> InteractionResult:
        guild = self.world.guilds.get(msg.guild_id) if msg.guild_id else None
        invoker = self._invoker(guild, user)
        if msg.ephemeral and msg.ephemeral_to is not None and msg.ephemeral_to is not invoker:
            raise CommandInputError(
                f"message {msg.id} is ephemeral to {msg.ephemeral_to.username}; "
                f"{invoker.username} cannot see it"
            )
        return await self._send_component(msg, invoker, data, label, timeout, wait_deferred)

    async def forge(
        self, message: MessageRef, custom_id: str, user: UserRef, values: list[str] | None = None
    ) -> InteractionResult:
        """Send what a press of ``custom_id`` (a choice of option ``values`` for a select)
        would send, as ``user``, whoever may see the message: a replayed or forged
        custom_id, which Discord lets through and the bot must refuse by itself."""
        msg = self._message(message)
        comp = msg.component(custom_id)
        data: JsonObj = {"custom_id": comp["custom_id"], "component_type": comp.get("type", 2)}
        if values is not None:
            data["values"] = values
        invoker = self.world.user(user)
        return await self._send_component(msg, invoker, data, f"forged {comp['custom_id']}",
                                          None, True)

    async def _send_component(self, msg: Message, invoker: User, data: JsonObj, label: str,
                              timeout: float | None, wait_deferred: bool) -> InteractionResult:
        record = self.services.interactions.create(
            InteractionType.MESSAGE_COMPONENT, invoker, msg.channel, data,
            label=f"{invoker.display_name} {label}", source_message=msg,
        )
        return await self._run(record, timeout, wait_deferred)

    async def submit_modal(
        self,
        opened: InteractionResult,
        fields: Mapping[str, Any],
        user: UserRef | None = None,
        *,
        timeout: float | None = None,
        wait_deferred: bool = True,
    ) -> InteractionResult:
        """Fill in and submit the modal the bot opened in ``opened``.

        ``fields`` maps each input's custom_id (or its label) to the typed text, or to
        a list of values for selects inside the modal.
        """
        modal = opened.modal
        if modal is None:
            raise CommandInputError(f"{opened.record.label} did not open a modal")
        invoker = self.world.user(user) if user is not None else opened.record.user
        if invoker is not opened.record.user:
            raise CommandInputError("only the user the modal was shown to can submit it")
        components = fill_modal(modal, fields)
        data: JsonObj = {"custom_id": modal["custom_id"], "components": components}
        record = self.services.interactions.create(
            InteractionType.MODAL_SUBMIT,
            invoker,
            opened.record.channel,
            data,
            label=f"{invoker.display_name} submitted {modal.get('title')!r}",
            source_message=opened.record.source_message,
        )
        return await self._run(record, timeout, wait_deferred)

    # -- running an interaction -------------------------------------------

    async def _run(
        self, record: InteractionRecord, timeout: float | None, wait_deferred: bool
    ) -> InteractionResult:
        limit = self.timeout if timeout is None else timeout

        def on_sent() -> None:
            if record.dispatched_at is None:
                record.dispatched_at = time.perf_counter()

        guild_id = record.guild.id if record.guild else None
        self.services.gateway.dispatch_interaction(guild_id, record.payload, on_sent)

        def answered() -> bool:
            return record.callback_type is not None or bool(record.errors)

        try:
            await self.world.notifier.wait_for(
                answered, timeout=limit, what=f"the bot to respond to {record.label!r}"
            )
        except WaitTimeout as exc:
            if record.dispatched_at is None:
                hint = "the dispatch never reached the bot: it is not connected to the gateway"
            else:
                hint = "the bot received it but never answered; did the handler raise?"
            raise WaitTimeout(f"{exc} (interaction {record.id}): {hint}") from None
        if record.callback_type is None:
            raise BotResponseError(
                f"Discord rejected the bot's response to {record.label!r}: {record.errors}"
            )
        result = InteractionResult(self.services, record, timeout=self.timeout)
        if wait_deferred and record.callback_type == CallbackType.DEFERRED_CHANNEL_MESSAGE:
            await result.wait_until_filled(limit)
        return result

    # -- plain messages ---------------------------------------------------

    async def say(
        self, channel: ChannelRef, user: UserRef, content: str, *, guild: GuildRef | None = None
    ) -> Message:
        """Post a message as a user (dispatched to the bot as MESSAGE_CREATE)."""
        g, ch = self._where(guild, channel)
        author = self._invoker(g, user)
        return store.post_message(self.world, ch, author, {"content": content})

    def messages(
        self, channel: ChannelRef, *, guild: GuildRef | None = None, include_ephemeral: bool = True
    ) -> list[Message]:
        _, ch = self._where(guild, channel)
        return [m for m in ch.messages if include_ephemeral or not m.ephemeral]

    def last_message(self, channel: ChannelRef, *, guild: GuildRef | None = None) -> Message:
        found = self.messages(channel, guild=guild)
        if not found:
            raise FakeDiscordError(f"channel {channel!r} has no messages")
        return found[-1]

    def dm_channel(self, user: UserRef) -> Channel:
        """The DM channel between the bot and ``user`` (created on first use, as on Discord)."""
        return self.world.dm_channel(self.world.user(user))

    def threads(self, channel: ChannelRef, *, guild: GuildRef | None = None) -> list[Channel]:
        _, ch = self._where(guild, channel)
        return [c for c in self.world.channels.values() if c.is_thread and c.parent_id == ch.id]

    async def wait_for_message(
        self,
        channel: ChannelRef,
        check: Callable[[Message], bool] | None = None,
        *,
        guild: GuildRef | None = None,
        timeout: float | None = None,
    ) -> Message:
        """Wait for a message posted after this call (optionally matching ``check``)."""
        _, ch = self._where(guild, channel)
        before = {m.id for m in ch.messages}

        def found() -> Message | None:
            for message in ch.messages:
                if message.id not in before and (check is None or check(message)):
                    return message
            return None

        return await self.world.notifier.wait_for(
            found,
            timeout=self.timeout if timeout is None else timeout,
            what=f"a new message in #{ch.name}",
        )

    def channel(self, channel: ChannelRef, *, guild: GuildRef | None = None) -> Channel:
        """The channel named (or given) in ``guild``."""
        return self._where(guild, channel)[1]

    def transcript(self, channel: ChannelRef, *, guild: GuildRef | None = None) -> str:
        _, ch = self._where(guild, channel)
        return self.services.transcript(ch)

    def latencies(self) -> list[float]:
        """Dispatch-to-first-callback seconds for every answered interaction, in order."""
        return [r.latency for r in self.services.interactions.all() if r.latency is not None]


def _is_role(guild: Guild, value: Any) -> bool:
    if isinstance(value, Role):
        return True
    return any(value in (r.id, r.name) for r in guild.roles.values())


def _display(value: Any) -> str:
    if isinstance(value, User):
        return value.username
    if isinstance(value, Member):
        return value.display_name
    if isinstance(value, Role):
        return f"@{value.name}"
    if isinstance(value, Channel):
        return f"#{value.name}"
    if isinstance(value, Upload):
        return value.filename
    return str(value)
