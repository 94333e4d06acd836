"""Helpers of the hostile-input and permission tests: the command catalogue, strategies, checks.

The catalogue is read from the fake Discord's registry of the commands the
real bot synced (``arena.fake.commands``), never written out by hand, so a
command added to a cog is fuzzed and checked without touching these tests.

A **snapshot** is every row of every table of the bot's SQLite file, read in
one read transaction beside the running bot (WAL lets a reader in while the
bot writes). Two equal snapshots mean nothing at all was stored: no roster
change, no ledger row, no sequence revision.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from fakediscord import FakeDiscord, InteractionResult, Message, Upload
from fakediscord.common import JsonObj

# Discord's client sends integers in JavaScript's safe range when a command
# declares no bounds; nothing outside it can arrive.
DISCORD_INT_MIN = -(2**53)
DISCORD_INT_MAX = 2**53
# Discord's own ceiling for a string option's value (and the fake's default).
DISCORD_STRING_MAX = 6000
# What a free-text option may declare before a pasted essay is a storage and
# display problem: names are capped at 100, a Yaktribe URL at 500.
SENSIBLE_STRING_MAX = 500
# The unexpected-error answer of bot/errors.py: a crash, whatever it says after.
CRASH_MARK = "Something went wrong"
# A refusal is a sentence or two; a name it quotes is at most 100 characters
# (escaped, so up to twice that). Anything near a full message is a dump.
SHORT_ANSWER = 1000

_OPTION_TYPES = {3: "string", 4: "integer", 5: "boolean", 6: "user", 7: "channel", 8: "role",
                 9: "mentionable", 10: "number", 11: "attachment"}


# ---------------------------------------------------------------------------- catalogue


@dataclass(frozen=True)
class OptionSpec:
    """One option of a registered command, as Discord's client would enforce it."""

    name: str
    type: int
    required: bool
    min_length: int | None = None
    max_length: int | None = None
    min_value: int | float | None = None
    max_value: int | float | None = None
    choices: tuple[Any, ...] = ()
    autocomplete: bool = False
    channel_types: tuple[int, ...] = ()

    @property
    def type_name(self) -> str:
        return _OPTION_TYPES.get(self.type, str(self.type))

    @property
    def free_text(self) -> bool:
        """A string the user types (not a fixed choice)."""
        return self.type == 3 and not self.choices

    @property
    def length_bounds(self) -> tuple[int, int]:
        low = self.min_length if self.min_length is not None else 0
        return low, self.max_length if self.max_length is not None else DISCORD_STRING_MAX

    @property
    def value_bounds(self) -> tuple[int, int]:
        """The integer range a client can send: declared bounds inside Discord's own."""
        low = DISCORD_INT_MIN if self.min_value is None else int(self.min_value)
        high = DISCORD_INT_MAX if self.max_value is None else int(self.max_value)
        return low, high

    @classmethod
    def from_schema(cls, raw: JsonObj) -> OptionSpec:
        return cls(
            name=raw["name"], type=raw["type"], required=bool(raw.get("required")),
            min_length=raw.get("min_length"), max_length=raw.get("max_length"),
            min_value=raw.get("min_value"), max_value=raw.get("max_value"),
            choices=tuple(c["value"] for c in raw.get("choices") or []),
            autocomplete=bool(raw.get("autocomplete")),
            channel_types=tuple(raw.get("channel_types") or ()),
        )


@dataclass(frozen=True)
class CommandSpec:
    """A leaf slash command: ``path`` is what the driver takes ("gang create")."""

    path: str
    options: tuple[OptionSpec, ...]
    default_member_permissions: str | None = None

    @property
    def top(self) -> str:
        return self.path.split()[0]

    def option(self, name: str) -> OptionSpec:
        return next(o for o in self.options if o.name == name)

    @property
    def required(self) -> tuple[OptionSpec, ...]:
        return tuple(o for o in self.options if o.required)


def catalogue(fake: FakeDiscord, guild_id: int | None = None) -> list[CommandSpec]:
    """Every slash command a member of ``guild_id`` can run, leaves of groups expanded."""
    found: dict[str, CommandSpec] = {}
    for scope in (None, guild_id) if guild_id is not None else (None,):
        for command in fake.commands.list_scope(scope):
            if command.get("type", 1) != 1:
                continue  # context-menu commands take no options
            for path, leaf in _leaves(command, (command["name"],)):
                found[" ".join(path)] = CommandSpec(
                    path=" ".join(path),
                    options=tuple(OptionSpec.from_schema(o) for o in leaf.get("options") or []),
                    default_member_permissions=command.get("default_member_permissions"),
                )
    return [found[path] for path in sorted(found)]


def _leaves(node: JsonObj, path: tuple[str, ...]) -> Iterable[tuple[tuple[str, ...], JsonObj]]:
    subs = [o for o in node.get("options") or [] if o.get("type") in (1, 2)]
    if not subs:
        yield path, node
    for sub in subs:
        yield from _leaves(sub, (*path, sub["name"]))


# ---------------------------------------------------------------------------- strategies

# Fragments a hostile player pastes. ``{user}`` and ``{role}`` become real ids of the
# guild (19 digits, so they are real mentions Discord would deliver).
FRAGMENTS: tuple[str, ...] = (
    "@everyone", "@here", "<@{user}>", "<@!{user}>", "<@&{role}>", "<@123>", "<@&456>",
    "<#{channel}>", "**bold**", "__under__", "*", "_", "~~", "`", "```py\nx\n```", "||spoiler||",
    "> quote", "# Heading", "-# small", "[link](https://evil.example)", "https://evil.example",
    "\\", "\\*", "'", '"', "`;", "'; DROP TABLE gangs; --", "\" OR 1=1 --", "%", "%s%n",
    "{0}{name}", "${jndi:x}", "NULL", "\x00", "\x07", "\x1b[31m", "\r\n", "\n", "\t",
    "\u200b", "\u202e", "\ufeff", "\u0301" * 8, "🎲", "🏳️‍🌈", "ｗｉｄｅ", "İ", "ß", "   ",
    "../../etc/passwd", "<script>", "&amp;", ":skull:", "<:emoji:123>", "@" * 3,
)

# Characters from everywhere in Unicode except lone surrogates, which JSON over
# UTF-8 cannot carry (Discord could not send them either).
_ANY_CHAR = st.characters(exclude_categories=["Cs"])


def hostile_text(
    low: int, high: int, *, user_id: int, role_id: int, channel_id: int,
    pool: Sequence[str] = (),
) -> st.SearchStrategy[str]:
    """Strings a client could send for an option of ``low..high`` characters.

    Mixes real names (``pool``) with nasty fragments, arbitrary Unicode
    including control characters, and strings exactly at the length limit
    made of characters that escaping doubles.
    """
    fragments = [f.replace("{user}", str(user_id)).replace("{role}", str(role_id))
                 .replace("{channel}", str(channel_id)) for f in FRAGMENTS]
    pieces = st.one_of(st.sampled_from(fragments), st.text(_ANY_CHAR, max_size=12))
    mixed = st.lists(pieces, min_size=1, max_size=6).map("".join)
    real = st.sampled_from(list(pool)) if pool else st.nothing()
    decorated = (st.tuples(st.sampled_from(fragments), real, st.sampled_from(fragments))
                 .map(lambda t: "".join(t))) if pool else st.nothing()
    at_limit = st.sampled_from(["*", "_", "\\", "@everyone ", f"<@&{role_id}>",
                                "x", "é", "🎲", "\x00"]).map(
        lambda unit: (unit * (high // max(1, len(unit)) + 1))[:high])
    any_text = st.text(_ANY_CHAR, min_size=low, max_size=min(high, 300))
    chosen = st.one_of(real, real, decorated, mixed, mixed, at_limit, any_text)
    return chosen.map(lambda s: s[:high]).filter(lambda s: len(s) >= low)


def hostile_int(low: int, high: int) -> st.SearchStrategy[int]:
    """Integers a client could send: the bounds, zero, signs, and huge values."""
    special = [low, high, 0, -1, 1, 2, 4, 6, 10, 99, 100, 1000, 10**6, 10**6 + 1, 2**31 - 1, 2**31,
               2**32, 2**53, -(2**31), -(2**53), high - 1, low + 1]
    inside = sorted({n for n in special if low <= n <= high})
    return st.one_of(st.sampled_from(inside), st.integers(low, high))


def beyond_int(spec: OptionSpec) -> list[int]:
    """Integers just outside what ``spec`` lets a client send (the driver must refuse them)."""
    low, high = spec.value_bounds
    return [low - 1, high + 1]


def option_values(
    command: CommandSpec,
    *,
    pools: Mapping[str, Sequence[str]],
    users: Sequence[str],
    roles: Sequence[str],
    channels: Sequence[str],
    ids: Mapping[str, int],
) -> st.SearchStrategy[dict[str, Any]]:
    """Values for ``command``'s options, drawn as described in ``build`` below."""

    def for_option(spec: OptionSpec) -> st.SearchStrategy[Any]:
        if spec.choices:
            return st.sampled_from(list(spec.choices))
        if spec.type == 3:
            low, high = spec.length_bounds
            return hostile_text(low, high, user_id=ids["user"], role_id=ids["role"],
                                channel_id=ids["channel"], pool=pools.get(spec.name, ()))
        if spec.type == 4:
            return hostile_int(*spec.value_bounds)
        if spec.type == 10:
            low, high = spec.value_bounds
            return st.floats(low, high, allow_nan=False, allow_infinity=False)
        if spec.type == 5:
            return st.booleans()
        if spec.type == 6:
            return st.sampled_from(list(users))
        if spec.type == 7:
            return st.sampled_from(list(channels))
        if spec.type == 8:
            return st.sampled_from(list(roles))
        if spec.type == 11:
            return hostile_upload()
        raise AssertionError(f"/{command.path} option {spec.name}: no strategy for "
                             f"{spec.type_name} options; add one to tests/e2e/hostile.py")

    def realistic(spec: OptionSpec) -> st.SearchStrategy[Any]:
        # A pool's first name is the one that fits the others' first names (the gang of
        # the campaign, its fighter), so most aimed examples name things that exist.
        pool = list(pools[spec.name])
        return st.one_of(st.just(pool[0]), st.just(pool[0]), st.sampled_from(pool))

    def named(spec: OptionSpec) -> bool:
        return spec.type == 3 and bool(pools.get(spec.name))

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        """Three examples in four aim at one option: it gets a hostile value, the names
        around it are real and the other optional options are left out, so the hostile
        value gets past "there is no gang called ..." into the code behind it. The
        rest send every option hostile (each optional one half the time)."""
        values: dict[str, Any] = {}
        # Aimed mostly at what is stored or computed (new names, texts, numbers), less
        # at the names that find things (a wrong one is simply not found).
        unnamed = [o for o in command.options if not named(o)] or list(command.options)
        any_option = st.sampled_from(command.options) if command.options else st.none()
        free = st.sampled_from(unnamed) if unnamed else st.none()
        aimed = draw(st.one_of(st.none(), any_option, free, free), label="aimed at")
        for spec in command.options:
            if aimed is None:
                if spec.required or draw(st.booleans(), label=f"sends {spec.name}"):
                    values[spec.name] = draw(for_option(spec), label=spec.name)
            elif spec is aimed:
                values[spec.name] = draw(for_option(spec), label=spec.name)
            elif named(spec) and (spec.required or draw(
                    st.sampled_from([True, True, True, False]), label=f"sends {spec.name}")):
                values[spec.name] = draw(realistic(spec), label=spec.name)
            elif spec.required:
                values[spec.name] = draw(for_option(spec), label=spec.name)
        return values

    return build()


def hostile_upload() -> st.SearchStrategy[Upload]:
    """Files a player could attach: garbage, broken JSON, JSON of the wrong shape, CSV."""
    bodies = st.one_of(
        st.binary(max_size=200),
        st.sampled_from([
            b"", b"{", b"[]", b"null", b'{"campaign": 1}', b'{"gang": {"name": "@everyone"}}',
            b'{"format": "munda-arbitrator/gang", "version": 999}',
            b"name,category,cost,availability\n@everyone,Basic,-5,Common\n",
            b"name,category,cost,availability\n" + b"x," * 50 + b"\n",
            b"\x1f\x8b\x08\x00broken gzip", b"'; DROP TABLE gangs; --",
        ]),
    )
    names = st.sampled_from(["gang.json", "campaign.json", "post.csv", "x.json.gz",
                             "@everyone.json", "../../evil.json", "a" * 90 + ".json"])
    return st.builds(Upload, names, bodies)


# ---------------------------------------------------------------------------- snapshots


# Columns the bot updates after the fact, whatever the user did next: the outbox's
# delivery bookkeeping of messages owed earlier. What is owed (a new row) still counts.
VOLATILE_COLUMNS: dict[str, frozenset[str]] = {
    "outbox": frozenset({"attempts", "due_at", "last_error", "delivered_at", "message_id",
                         "delivered_channel_id", "failed_at"}),
}


def snapshot(database: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, read in one transaction beside the bot."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10.0)
    try:
        connection.execute("BEGIN")
        tables = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name")]
        rows: dict[str, list[tuple[Any, ...]]] = {}
        for table in tables:
            volatile = VOLATILE_COLUMNS.get(table, frozenset())
            info = [(row[1], str(row[2]).upper()) for row in
                    connection.execute(f'PRAGMA table_info("{table}")') if row[1] not in volatile]
            # BLOBs (an action's compressed undo snapshot, written once with its row) are
            # compared by length, which SQLite reads without loading them: a new or removed
            # row shows in the other columns anyway, and reading megabytes per check would
            # make every check slow.
            columns = [f'length("{name}")' if kind == "BLOB" else f'"{name}"'
                       for name, kind in info]
            listed = ", ".join(columns)
            # Ordered by every column, so equal contents read equal whatever the storage order.
            order = ", ".join(str(i) for i in range(1, len(columns) + 1))
            rows[table] = connection.execute(
                f'SELECT {listed} FROM "{table}" ORDER BY {order}').fetchall()
        connection.execute("COMMIT")
        return rows
    finally:
        connection.close()


def pending_deliveries(database: Path) -> int:
    """Messages the bot owes and has not delivered yet (0 without an outbox)."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10.0)
    try:
        found = connection.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'outbox'"
        ).fetchone()[0]
        if not found:
            return 0
        return int(connection.execute(
            "SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL"
        ).fetchone()[0])
    finally:
        connection.close()


async def settle(database: Path, *, quiet: float = 0.02, timeout: float = 15.0) -> None:
    """Wait until the bot owes no message and the database has stopped changing, so that
    what an earlier interaction set going (a delivery, a post after the answer) is not
    taken for the next one's doing."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last = snapshot(database)
    while True:
        await asyncio.sleep(quiet)
        now = snapshot(database)
        if now == last and pending_deliveries(database) == 0:
            return
        if loop.time() > deadline:
            raise AssertionError(f"the bot kept changing its database for {timeout} s "
                                 f"({pending_deliveries(database)} messages owed)")
        last = now


def snapshot_difference(
    before: Mapping[str, list[tuple[Any, ...]]], after: Mapping[str, list[tuple[Any, ...]]]
) -> str:
    """What changed between two snapshots, briefly ("" when nothing did)."""
    lines: list[str] = []
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, []), after.get(table, [])
        if old == new:
            continue
        gone = [r for r in old if r not in new]
        came = [r for r in new if r not in old]
        lines.append(f"{table}: -{len(gone)} +{len(came)} rows; first new: "
                     f"{repr(came[:1])[:300]}; first gone: {repr(gone[:1])[:300]}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- checks

# An @everyone or @here Discord would deliver: escaping puts a zero-width space after "@".
_RAW_MASS_MENTION = re.compile(r"@(everyone|here)")


def mention_problems(message: Message) -> list[str]:
    """Why ``message`` could ping someone ([] when it cannot)."""
    problems: list[str] = []
    rules = message.allowed_mentions
    if rules is None:
        problems.append("sent without allowed_mentions (Discord would parse every mention)")
    else:
        if rules.get("parse"):
            problems.append(f"allowed_mentions parses {rules['parse']}")
        if rules.get("users") or rules.get("roles"):
            problems.append(f"allowed_mentions names users {rules.get('users')} "
                            f"roles {rules.get('roles')}")
    if message.pinged_user_ids():
        problems.append(f"pings users {message.pinged_user_ids()}")
    shown = message.content + "\n" + message.embed_text()
    if _RAW_MASS_MENTION.search(shown):
        problems.append("shows an unescaped @everyone/@here")
    return problems


def bot_messages(fake: FakeDiscord, *, after_id: int = 0) -> list[Message]:
    """Every message the bot has sent since message id ``after_id`` (ephemeral ones too)."""
    bot_id = fake.world.bot.id
    return [m for m in fake.world.messages.values()
            if m.author.id == bot_id and m.id > after_id and not m.deleted]


def newest_message_id(fake: FakeDiscord) -> int:
    return max(fake.world.messages, default=0)


def edit_counts(fake: FakeDiscord) -> dict[int, int]:
    """How often each message has been edited so far (to see what an interaction touched)."""
    return {m.id: m.edits for m in fake.world.messages.values()}


def touched_messages(fake: FakeDiscord, newest: int, edits: Mapping[int, int]) -> list[Message]:
    """The bot's messages posted or edited since ``newest``/``edits`` (ephemeral ones too)."""
    bot_id = fake.world.bot.id
    return [m for m in fake.world.messages.values()
            if m.author.id == bot_id and not m.deleted
            and (m.id > newest or m.edits > edits.get(m.id, m.edits))]


def public_effects(fake: FakeDiscord, newest: int, edits: Mapping[int, int]) -> list[Message]:
    """Messages others can see that were posted or edited since ``newest``/``edits``."""
    return [m for m in touched_messages(fake, newest, edits) if not m.ephemeral]


@dataclass
class Verdict:
    """How the bot answered one interaction."""

    refused: bool
    text: str
    public: list[Message] = field(default_factory=list)


def answer_messages(result: InteractionResult) -> list[Message]:
    """What the bot said in reply: new messages, or the clicked message it rewrote.

    After a click the "original" is the clicked message; it is an answer only when
    the bot updated it (callback 7), not when it merely acknowledged (6).
    """
    kind = result.callback_type
    said = [m for m in result.followups]
    if result.message is not None and kind in (4, 5, 7) and result.message not in said:
        said.insert(0, result.message)
    return said


async def finished(fake: FakeDiscord, result: InteractionResult, edits: Mapping[int, int],
                   timeout: float = 10.0) -> None:
    """After a click acknowledged without a word (a deferred update), wait for what
    follows: a follow-up message (a refusal, a note) or the clicked message rewritten."""
    if result.callback_type != 6 or result.message is None:
        return
    clicked = result.message
    before = edits.get(clicked.id, clicked.edits)
    await fake.world.notifier.wait_for(
        lambda: bool(result.followups) or clicked.edits > before,
        timeout=timeout, what=f"the bot to finish answering {result.record.label!r}")


def judge(result: InteractionResult, touched: Sequence[Message]) -> Verdict:
    """Read the answer: a refusal is ephemeral words and nothing else.

    An ephemeral answer with buttons (a question: Confirm or Cancel), a file
    (an export) or an embed (/help) is not a refusal, nor is anything that posted
    a message others see.
    """
    answers = answer_messages(result)
    text = "\n".join(m.content + "\n" + m.embed_text() for m in answers)
    public = [m for m in touched if not m.ephemeral]
    refused = bool(answers) and not public and all(
        m.ephemeral and not m.components and not m.attachments and not m.embeds
        for m in answers)
    return Verdict(refused=refused, text=text, public=public)


def crash_problems(verdict: Verdict, result: InteractionResult) -> list[str]:
    """An answer that is a crash, a dump, or a reply Discord would have rejected."""
    problems: list[str] = []
    if CRASH_MARK in verdict.text:
        problems.append(f"the unexpected-error answer: {verdict.text[:300]!r}")
    if "Traceback" in verdict.text:
        problems.append("a traceback in the answer")
    if result.errors:
        problems.append(f"responses Discord would reject: {result.errors}")
    if verdict.refused and len(verdict.text) > SHORT_ANSWER:
        problems.append(f"a refusal of {len(verdict.text)} characters")
    return problems


def log_problems(log_text: str) -> list[str]:
    """Lines of the bot's log that show an error nobody expected."""
    marks = ("Traceback", "unexpected error", "Ignoring exception", "Task exception")
    return [line for line in log_text.splitlines() if any(m in line for m in marks)]


def describe(command: str, values: Mapping[str, Any], user: str, guild: str) -> str:
    shown = {k: (v if not isinstance(v, str) or len(v) < 80 else v[:77] + "...")
             for k, v in values.items()}
    return f"{user} in {guild}: /{command} {shown!r}"

