"""Discord's documented size limits, enforced so that the fake rejects what Discord rejects.

A bot that passes tests against a lenient fake but gets ``400 Invalid Form Body``
in production is the failure mode this module exists to prevent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fakediscord.common import SELECT_TYPES, JsonObj
from fakediscord.errors import ApiError, invalid_form

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
ROW_ITEMS_MAX = 5
V2_COMPONENTS_MAX = 40  # every component of a components v2 message, nested ones included
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
SELECT_PLACEHOLDER_MAX = 150
OPTION_TEXT_MAX = 100  # a select option's label, value and description
CHOICES_MAX = 25
CHOICE_TEXT_MAX = 100  # a command or autocomplete choice's name, and its value if a string
COMMAND_CHARS_MAX = 8000
MODAL_TITLE_MAX = 45
TEXT_INPUT_VALUE_MAX = 4000
TEXT_INPUT_PLACEHOLDER_MAX = 100
THREAD_ARCHIVE_MINUTES = (60, 1440, 4320, 10080)
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")
ATTACHMENTS_MAX = 10  # files on one message
UPLOAD_BYTES_MAX = 10 * 1024 * 1024  # a request's files together, on a server without boosts

# Per embed: (path inside the embed, limit).
_EMBED_FIELD_LIMITS = (
    (("title",), 256), (("description",), 4096), (("footer", "text"), 2048),
    (("author", "name"), 256),
)


def _fail(detail: str, field: str) -> ApiError:
    return invalid_form(detail, field)


def walk_components(components: list[JsonObj]) -> Iterator[JsonObj]:
    """Every component, depth first, including v2 containers, sections and labels."""
    for _path, comp in walk_with_paths(components, "components"):
        yield comp


def walk_with_paths(components: list[JsonObj], prefix: str) -> Iterator[tuple[str, JsonObj]]:
    """Every component with its field path (``components.0.components.2``), depth first."""
    for i, comp in enumerate(components):
        yield from _walk_one(comp, f"{prefix}.{i}")


def _walk_one(comp: JsonObj, path: str) -> Iterator[tuple[str, JsonObj]]:
    yield path, comp
    yield from walk_with_paths(comp.get("components") or [], f"{path}.components")
    for key in ("accessory", "component"):
        child = comp.get(key)
        if isinstance(child, dict):
            yield from _walk_one(child, f"{path}.{key}")


def _text(obj: JsonObj, *path: str) -> str:
    value: Any = obj
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else ""


def _embed_chars(embed: JsonObj) -> int:
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "")
    total += len((embed.get("author") or {}).get("name") or "")
    for fld in embed.get("fields") or []:
        total += len(fld.get("name") or "") + len(fld.get("value") or "")
    return total


def check_embeds(embeds: list[JsonObj]) -> None:
    if len(embeds) > EMBEDS_MAX:
        raise _fail(f"at most {EMBEDS_MAX} embeds", "embeds")
    total = 0
    for i, embed in enumerate(embeds):
        for path, limit in _EMBED_FIELD_LIMITS:
            if len(_text(embed, *path)) > limit:
                field = ".".join(path)
                raise _fail(f"embed {field} longer than {limit}", f"embeds.{i}.{field}")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            raise _fail("at most 25 embed fields", f"embeds.{i}.fields")
        for j, fld in enumerate(fields):
            if not fld.get("name") or not fld.get("value"):
                raise _fail("embed field name and value are required", f"embeds.{i}.fields.{j}")
            if len(fld["name"]) > 256 or len(fld["value"]) > 1024:
                raise _fail("embed field too long (256/1024)", f"embeds.{i}.fields.{j}")
        total += _embed_chars(embed)
    if total > EMBED_TOTAL_MAX:
        raise _fail(f"embeds total {total} characters > {EMBED_TOTAL_MAX}", "embeds")


def _check_button(comp: JsonObj, where: str) -> None:
    if len(comp.get("label") or "") > BUTTON_LABEL_MAX:
        raise _fail(f"button label longer than {BUTTON_LABEL_MAX}", where)
    is_link = comp.get("style") == 5
    if is_link and not comp.get("url"):
        raise _fail("link buttons need a url", where)
    if not is_link and comp.get("style") != 6 and not comp.get("custom_id"):
        raise _fail("non-link buttons need a custom_id", where)
    if not comp.get("label") and not comp.get("emoji"):
        raise _fail("buttons need a label or an emoji", where)


def _check_select(comp: JsonObj, where: str) -> None:
    options = comp.get("options")
    if len(comp.get("placeholder") or "") > SELECT_PLACEHOLDER_MAX:
        raise _fail(f"select placeholder longer than {SELECT_PLACEHOLDER_MAX}",
                    f"{where}.placeholder")
    if comp.get("type") == 3:
        if not options or len(options) > SELECT_OPTIONS_MAX:
            raise _fail(f"string selects need 1..{SELECT_OPTIONS_MAX} options", f"{where}.options")
        values = [o.get("value") for o in options]
        if len(set(values)) != len(values):
            raise _fail("select option values must be unique", f"{where}.options")
        for j, opt in enumerate(options):
            for key in ("label", "value"):
                if not 1 <= len(opt.get(key) or "") <= OPTION_TEXT_MAX:
                    raise _fail(f"select option {key} must be 1..{OPTION_TEXT_MAX} characters",
                                f"{where}.options.{j}.{key}")
            if len(opt.get("description") or "") > OPTION_TEXT_MAX:
                raise _fail(f"select option description longer than {OPTION_TEXT_MAX}",
                            f"{where}.options.{j}.description")
    lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
    if not 0 <= lo <= 25:
        raise _fail(f"min_values must be 0..25, not {lo}", f"{where}.min_values")
    if not 1 <= hi <= 25 or hi < lo:
        raise _fail(f"max_values must be {max(lo, 1)}..25, not {hi}", f"{where}.max_values")
    if options and hi > len(options):
        raise _fail(f"max_values {hi} is more than the {len(options)} options",
                    f"{where}.max_values")
    if options and lo > len(options):
        raise _fail(f"min_values {lo} is more than the {len(options)} options",
                    f"{where}.min_values")


def _check_text_input(comp: JsonObj, where: str) -> None:
    if not comp.get("custom_id"):
        raise _fail("text inputs need a custom_id", f"{where}.custom_id")
    if len(comp.get("label") or "") > MODAL_TITLE_MAX:
        raise _fail(f"text input label must be at most {MODAL_TITLE_MAX} characters",
                    f"{where}.label")
    if len(comp.get("value") or "") > TEXT_INPUT_VALUE_MAX:
        raise _fail(f"text input value longer than {TEXT_INPUT_VALUE_MAX}", f"{where}.value")
    if len(comp.get("placeholder") or "") > TEXT_INPUT_PLACEHOLDER_MAX:
        raise _fail(f"text input placeholder longer than {TEXT_INPUT_PLACEHOLDER_MAX}",
                    f"{where}.placeholder")
    lo, hi = comp.get("min_length"), comp.get("max_length")
    if lo is not None and not 0 <= lo <= TEXT_INPUT_VALUE_MAX:
        raise _fail(f"min_length must be 0..{TEXT_INPUT_VALUE_MAX}", f"{where}.min_length")
    if hi is not None and not max(1, lo or 0) <= hi <= TEXT_INPUT_VALUE_MAX:
        raise _fail(f"max_length must be {max(1, lo or 0)}..{TEXT_INPUT_VALUE_MAX}",
                    f"{where}.max_length")


def check_components(components: list[JsonObj], *, v2: bool) -> None:
    if not v2 and len(components) > ACTION_ROWS_MAX:
        raise _fail(f"at most {ACTION_ROWS_MAX} action rows", "components")
    walked = list(walk_with_paths(components, "components"))
    if v2 and len(walked) > V2_COMPONENTS_MAX:
        raise _fail(f"at most {V2_COMPONENTS_MAX} components, nested ones included",
                    "components")
    seen: set[str] = set()
    for where, comp in walked:
        custom_id = comp.get("custom_id")
        if custom_id is not None:
            if not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
                raise _fail(f"custom_id must be 1..{CUSTOM_ID_MAX} characters",
                            f"{where}.custom_id")
            if custom_id in seen:
                raise _fail(f"duplicate custom_id {custom_id!r}", where)
            seen.add(custom_id)
        kind = comp.get("type")
        if kind == 1:
            children = comp.get("components") or []
            selects = [c for c in children if c.get("type") in SELECT_TYPES]
            if not children or len(children) > ROW_ITEMS_MAX or (selects and len(children) > 1):
                raise _fail("an action row holds 1..5 buttons or exactly one select", where)
        elif kind == 2:
            _check_button(comp, where)
        elif kind in SELECT_TYPES:
            _check_select(comp, where)


def check_message(
    content: str, embeds: list[JsonObj], components: list[JsonObj], flags: int, *, has_files: bool
) -> None:
    v2 = bool(flags & (1 << 15))
    if v2 and (content or embeds):
        raise _fail("components v2 messages cannot have content or embeds", "content")
    if len(content) > CONTENT_MAX:
        raise _fail(f"content must be at most {CONTENT_MAX} characters", "content")
    check_embeds(embeds)
    check_components(components, v2=v2)
    if not (content or embeds or components or has_files):
        raise ApiError(400, 50006, "Cannot send an empty message")


def check_uploads(attachments: int, uploaded_bytes: int) -> None:
    """A message's files: at most ten (400 Invalid Form Body, as Discord answers), and the
    request's uploads under the size limit (413, code 40005)."""
    if attachments > ATTACHMENTS_MAX:
        raise _fail(f"Must be {ATTACHMENTS_MAX} or fewer in length.", "attachments")
    if uploaded_bytes > UPLOAD_BYTES_MAX:
        raise ApiError(413, 40005, "Request entity too large")


def check_modal(data: JsonObj) -> None:
    title = data.get("title") or ""
    if not 1 <= len(title) <= MODAL_TITLE_MAX:
        raise _fail(f"modal title must be 1..{MODAL_TITLE_MAX} characters", "data.title")
    custom_id = data.get("custom_id") or ""
    if not 1 <= len(custom_id) <= CUSTOM_ID_MAX:
        raise _fail("modal custom_id must be 1..100 characters", "data.custom_id")
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        raise _fail("modals hold 1..5 top-level components", "data.components")
    for where, comp in walk_with_paths(components, "data.components"):
        if comp.get("type") == 4:
            _check_text_input(comp, where)
        elif comp.get("type") in (3, 5, 6, 7, 8):
            _check_select(comp, where)


def _check_choice_list(choices: list[JsonObj], where: str) -> None:
    for i, choice in enumerate(choices):
        if not 1 <= len(choice.get("name") or "") <= CHOICE_TEXT_MAX:
            raise _fail(f"choice name must be 1..{CHOICE_TEXT_MAX} characters",
                        f"{where}.{i}.name")
        value = choice.get("value")
        if isinstance(value, str) and len(value) > CHOICE_TEXT_MAX:
            raise _fail(f"choice value longer than {CHOICE_TEXT_MAX}", f"{where}.{i}.value")


def check_choices(choices: list[JsonObj]) -> None:
    if len(choices) > CHOICES_MAX:
        raise _fail(f"at most {CHOICES_MAX} autocomplete choices", "data.choices")
    _check_choice_list(choices, "data.choices")


def _check_option_list(options: list[JsonObj], where: str, depth: int) -> None:
    if len(options) > 25:
        raise _fail("at most 25 options", where)
    names = [o.get("name") for o in options]
    if len(set(names)) != len(names):
        raise _fail(f"duplicate option names {names}", where)
    seen_optional = False
    for i, opt in enumerate(options):
        here = f"{where}.{i}"
        name = opt.get("name") or ""
        if not COMMAND_NAME.match(name) or name != name.lower():
            raise _fail(f"invalid option name {name!r}", here)
        if not 1 <= len(opt.get("description") or "") <= 100:
            raise _fail(f"option {name!r} description must be 1..100 characters", here)
        kind = opt.get("type")
        if kind in (1, 2):
            if depth >= (2 if kind == 1 else 1):
                raise _fail(f"subcommand nesting too deep at {name!r}", here)
            _check_option_list(opt.get("options") or [], f"{here}.options", depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                raise _fail(f"required option {name!r} after an optional one", here)
        else:
            seen_optional = True
        if opt.get("autocomplete") and opt.get("choices"):
            raise _fail(f"option {name!r} has both choices and autocomplete", here)
        if len(opt.get("choices") or []) > CHOICES_MAX:
            raise _fail(f"option {name!r} has more than 25 choices", here)
        _check_choice_list(opt.get("choices") or [], f"{here}.choices")


def _command_chars(node: JsonObj) -> int:
    """Name, description and value characters of a command, its options and their choices."""
    total = sum(len(str(node.get(key) or "")) for key in ("name", "description", "value"))
    for child in [*(node.get("options") or []), *(node.get("choices") or [])]:
        if isinstance(child, dict):
            total += _command_chars(child)
    return total


def check_command(cmd: Any, where: str = "0") -> None:
    if not isinstance(cmd, dict):
        raise _fail("command must be an object", where)
    name = cmd.get("name") or ""
    kind = cmd.get("type", 1)
    if kind == 1:
        if not COMMAND_NAME.match(name) or name != name.lower():
            raise _fail(f"invalid command name {name!r}", f"{where}.name")
        if not 1 <= len(cmd.get("description") or "") <= 100:
            raise _fail(f"command {name!r} description must be 1..100 characters", where)
        _check_option_list(cmd.get("options") or [], f"{where}.options", 0)
        if _command_chars(cmd) > COMMAND_CHARS_MAX:
            raise _fail(f"command {name!r} has more than {COMMAND_CHARS_MAX} characters of "
                        "names, descriptions and values", where)
    elif not 1 <= len(name) <= 32:
        raise _fail(f"invalid context menu name {name!r}", f"{where}.name")


def check_thread_archive(body: JsonObj) -> None:
    minutes = body.get("auto_archive_duration")
    if minutes is not None and minutes not in THREAD_ARCHIVE_MINUTES:
        raise _fail(f"auto_archive_duration must be one of {THREAD_ARCHIVE_MINUTES}",
                    "auto_archive_duration")
