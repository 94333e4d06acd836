"""Requests checked against Discord's own OpenAPI spec (the part kept in spec/openapi.json,
written by tools/discord_spec.py): a body of the wrong shape, or past a limit the spec
gives, is refused as Discord refuses it (400, code 50035, the field named), and the
fake's own answers can be checked against the spec's responses.

The spec allows extra fields almost everywhere, so it catches wrong shapes and limits,
not unknown fields; rules it does not state (an EXTERNAL event needs an end time) are the
route's own checks.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

from fakediscord.common import JsonObj
from fakediscord.errors import ApiError

_PARAMETER = re.compile(r"\{[^}]+\}")
_MISSING = re.compile(r"^'([^']+)' is a required property$")


class Spec:
    """The kept part of the spec: its operations by method and path template."""

    def __init__(self, document: JsonObj) -> None:
        self.document = document

    @classmethod
    @cache
    def shipped(cls) -> Spec:
        text = (resources.files("fakediscord") / "spec" / "openapi.json").read_text("utf-8")
        return cls(json.loads(text))

    def operation(self, method: str, template: str) -> JsonObj | None:
        """The spec's operation for ``method`` on ``template`` (path parameters named as
        the route names them: only their places must agree)."""
        shape = _PARAMETER.sub("{}", template)
        for path, operations in self.document["paths"].items():
            if _PARAMETER.sub("{}", path) == shape:
                found: JsonObj | None = operations.get(method.lower())
                return found
        return None

    def _problems(self, schema: JsonObj, value: Any) -> list[tuple[str, str]]:
        # References are "#/components/...": resolved against a root that holds them.
        root = {"components": self.document["components"], "allOf": [schema]}
        validator = Draft202012Validator(root)
        return sorted(_named(error) for error in _closest(list(validator.iter_errors(value))))

    def request_problems(self, method: str, template: str, body: Any) -> list[tuple[str, str]]:
        """(dotted field, message) of everything wrong with ``body`` as the request's."""
        operation = self.operation(method, template)
        if operation is None or "requestBody" not in operation:
            return []
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        return self._problems(schema, body)

    def response_problems(self, method: str, template: str, status: int,
                          body: Any) -> list[tuple[str, str]]:
        """What is wrong with ``body`` as the spec's answer ``status`` to the request."""
        operation = self.operation(method, template)
        if operation is None:
            return [("", f"the spec has no {method} {template}")]
        answer = operation["responses"].get(str(status))
        if answer is None:
            return [("", f"the spec gives {method} {template} no {status} answer")]
        content = answer.get("content")
        if content is None:
            return [] if body is None else [("", "the spec's answer has no body")]
        return self._problems(content["application/json"]["schema"], body)


def _named(error: Any) -> tuple[str, str]:
    """(dotted field, message); a missing field is named itself, as Discord names it."""
    path = [str(part) for part in error.absolute_path]
    missing = _MISSING.match(error.message) if error.validator == "required" else None
    if missing:
        return ".".join([*path, missing.group(1)]), "This field is required"
    return ".".join(path), error.message


def _closest(errors: list[Any]) -> list[Any]:
    """The errors to name: for a body valid under none of a ``oneOf`` (an EXTERNAL, STAGE
    or VOICE event), those of the branch it came closest to, so the field is named."""
    named: list[Any] = []
    for error in errors:
        if error.validator in ("oneOf", "anyOf") and error.context:
            branches: dict[Any, list[Any]] = {}
            for inner in error.context:
                branches.setdefault(inner.relative_schema_path[0], []).append(inner)
            named += _closest(min(branches.values(), key=len))
        else:
            named.append(error)
    return named


def form_error(problems: list[tuple[str, str]]) -> ApiError:
    """Discord's Invalid Form Body for ``problems``, each under its field."""
    errors: JsonObj = {}
    for field, message in problems:
        node = errors
        for part in field.split(".") if field else []:
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": "BASE_TYPE_INVALID", "message": message})
    first = problems[0]
    return ApiError(400, 50035, f"Invalid Form Body: {first[0] or 'body'}: {first[1]}", errors)


def check_request(method: str, template: str, body: Any) -> None:
    """Refuse ``body`` as Discord would if the spec says it is wrong."""
    problems = Spec.shipped().request_problems(method, template, body)
    if problems:
        raise form_error(problems)
