"""Build a modal-submit payload that mirrors the modal the bot sent.

Discord echoes the modal's layout back (action rows or labels around each input),
and discord.py walks that layout to find inputs, so the shape must match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fakediscord.common import JsonObj
from fakediscord.errors import CommandInputError
from fakediscord.limits import walk_components


def _inputs(modal: JsonObj) -> dict[str, str]:
    """custom_id -> label for every input, labels coming from the input or its Label wrapper."""
    found: dict[str, str] = {}
    for comp in walk_components(modal.get("components") or []):
        if comp.get("type") == 18 and isinstance(comp.get("component"), dict):
            inner = comp["component"]
            if inner.get("custom_id"):
                found[inner["custom_id"]] = comp.get("label") or inner.get("label") or ""
        elif comp.get("custom_id") and comp["custom_id"] not in found:
            found[comp["custom_id"]] = comp.get("label") or ""
    return found


def fill_modal(modal: JsonObj, fields: Mapping[str, Any]) -> list[JsonObj]:
    inputs = _inputs(modal)
    by_id: dict[str, Any] = {}
    for key, value in fields.items():
        if key in inputs:
            by_id[key] = value
            continue
        matches = [cid for cid, label in inputs.items() if label == key]
        if len(matches) != 1:
            raise CommandInputError(
                f"modal {modal.get('title')!r} has no input {key!r}; inputs: "
                + ", ".join(f"{label or '?'}={cid!r}" for cid, label in inputs.items())
            )
        by_id[matches[0]] = value
    return [_fill(comp, by_id, modal) for comp in modal.get("components") or []]


def _fill(comp: JsonObj, values: dict[str, Any], modal: JsonObj) -> JsonObj:
    kind = comp.get("type")
    out: JsonObj = {"type": kind}
    if "id" in comp:
        out["id"] = comp["id"]
    if kind == 1:
        out["components"] = [_fill(c, values, modal) for c in comp.get("components") or []]
    elif kind == 18:
        out["component"] = _fill(comp["component"], values, modal)
    elif kind == 4:
        out["custom_id"] = comp["custom_id"]
        out["value"] = _text_value(comp, values)
    elif kind in (3, 5, 6, 7, 8, 22):
        out["custom_id"] = comp["custom_id"]
        chosen = values.get(comp["custom_id"], [])
        picked = chosen if isinstance(chosen, list | tuple) else [chosen]
        out["values"] = [_option_value(comp, v) for v in picked]
    elif kind == 21:
        out["custom_id"] = comp["custom_id"]
        chosen = values.get(comp["custom_id"])
        out["value"] = None if chosen is None else _option_value(comp, chosen)
    elif kind == 23:
        out["custom_id"] = comp["custom_id"]
        out["value"] = bool(values.get(comp["custom_id"], comp.get("default", False)))
    return out


def _option_value(comp: JsonObj, value: Any) -> str:
    """Options may be picked by value or by label; ids are passed through for entity selects."""
    for option in comp.get("options") or []:
        if value in (option.get("value"), option.get("label")):
            return str(option["value"])
    if comp.get("options"):
        raise CommandInputError(f"modal input {comp['custom_id']!r} has no option {value!r}")
    return str(getattr(value, "id", value))


def _text_value(comp: JsonObj, values: dict[str, Any]) -> str:
    custom_id = comp["custom_id"]
    value = str(values.get(custom_id, comp.get("value") or ""))
    if comp.get("required", True) and not value:
        raise CommandInputError(f"modal input {custom_id!r} is required")
    lo, hi = comp.get("min_length", 0), comp.get("max_length", 4000)
    if value and not lo <= len(value) <= hi:
        raise CommandInputError(f"modal input {custom_id!r} must be {lo}..{hi} characters")
    return value
