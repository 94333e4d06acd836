"""Reading a rule data file (docs/rule-data.md): TOML or JSON text into :class:`RuleData`.

One reader for every such file: a campaign's attachment (``/campaign ruledata
import``) and each file of a shipped data set (``rules/data``), so the shipped
content is held to the format a campaign's own is. A refusal names the line
of a syntax error, or the field with the names of the entries it sits in.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from pydantic import ValidationError

from rules import jsontext
from rules.errors import InvalidRequest, problems_found
from rules.limits import MAX_JSON_VALUES, MAX_NUMBER_DIGITS
from rules.ruledata import RuleData, rule_data_of
from rules.ruleset import RuleSet

_TOML_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")
# Keys whose value names a list entry, in the order they are tried.
_NAME_KEYS = ("house", "fighter_type", "vehicle_type", "name", "id")
WHAT = "rule data"


def read_rule_data(data: bytes, filename: str, label: str | None = None) -> RuleData:
    """The file's content, or a refusal that names its line or field.

    ``label`` names the file in messages (the file name, cut short, if not given).
    """
    label = label or filename[:80] or "the file"
    return rule_data_from(parse_document(data, filename, label), label)


def parse_document(data: bytes, filename: str, label: str) -> Any:
    """The file's TOML or JSON as plain values; JSON when it is named so or starts with ``{``."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidRequest(f"{label} is not UTF-8 text.") from None
    as_json = filename.lower().endswith(".json") or text.lstrip().startswith("{")
    if as_json:
        # Commas bound the values before the C decoder reads them all in one go.
        if text.count(",") >= MAX_JSON_VALUES:
            raise jsontext.too_many_values(WHAT, label)
        try:
            return jsontext.loads(text, WHAT, subject=label)
        except json.JSONDecodeError as error:
            raise InvalidRequest(f"{label}, line {error.lineno}, column {error.colno}: "
                                 f"not valid JSON ({error.msg}).") from None
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise InvalidRequest(f"{label} is nested too deeply to be {WHAT}.") from None
    except ValueError as error:
        if not isinstance(error, tomllib.TOMLDecodeError):
            # Python's own bound on the digits of a number (4300) raises a bare ValueError.
            raise InvalidRequest(f"{label} holds a number of more than {MAX_NUMBER_DIGITS} "
                                 f"digits, too long to be {WHAT}.") from None
        message = str(error)
        where = _TOML_LINE.search(message)
        place = f", line {where.group(1)}, column {where.group(2)}" if where else ""
        reason = _TOML_LINE.sub("", message).strip()
        raise InvalidRequest(f"{label}{place}: not valid TOML ({reason}).") from None


def rule_data_from(raw: Any, label: str) -> RuleData:
    """Plain values checked against the format; a refusal names each bad field.

    The values are counted, their nesting and numbers bounded (:mod:`rules.limits`)
    before the model reads them; the model bounds every list, text and number.
    """
    jsontext.check_plain(raw, WHAT, subject=label)
    try:
        return RuleData.model_validate(raw)
    except ValidationError as error:
        raise problems_found(f"{label} is not valid rule data",
                             [_problem(e, raw) for e in error.errors()]) from None


def check_exportable(ruleset: RuleSet, label: str) -> None:
    """Refuse content that, laid over its base, makes a rule set whose export could not be
    imported again: a file within every bound plus the shipped set may exceed one."""
    subject = f"{label} over the rule set it is laid over"
    try:
        whole = rule_data_of(ruleset)
    except ValidationError as error:
        raise problems_found(f"{subject} would make more than one rule data file may hold, "
                             "so its export could not be imported back",
                             [_problem(e, None) for e in error.errors()]) from None
    exported = whole.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    jsontext.check_plain(exported, WHAT, subject=subject)


def _problem(error: Any, raw: Any) -> str:
    """``houses[1] (House Quill) > fighters[2] (Matriarch) > profile: <message>``."""
    parts: list[str] = []
    node = raw
    for step in error["loc"]:
        if isinstance(step, int):
            node = node[step] if isinstance(node, list) and step < len(node) else None
            named = _entry_name(node)
            if parts:
                parts[-1] += f"[{step + 1}]" + (f" ({named})" if named else "")
            continue
        node = node.get(step) if isinstance(node, dict) else None
        parts.append(str(step))
    where = " > ".join(parts) or "the file"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}"


def _entry_name(node: Any) -> str | None:
    if not isinstance(node, dict):
        return None
    for key in _NAME_KEYS:
        value = node.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:60]
    return None
