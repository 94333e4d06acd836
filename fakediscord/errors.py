"""Exceptions raised by the fake Discord server and its driver."""

from __future__ import annotations

from typing import Any


class FakeDiscordError(Exception):
    """Base class for every error the fake raises towards test code."""


class WaitTimeout(FakeDiscordError, TimeoutError):
    """A driver wait expired; the message names what was being awaited."""


class CommandInputError(FakeDiscordError):
    """The driver was asked to invoke something a real Discord client would refuse to send."""


class NotConnected(FakeDiscordError):
    """No bot session exists that could receive a gateway dispatch."""


class ApiError(Exception):
    """A REST failure, rendered as Discord's JSON error body by the HTTP layer."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def not_found(what: str, code: int) -> ApiError:
    return ApiError(404, code, f"Unknown {what}")


def invalid_form(detail: str, field: str = "_errors") -> ApiError:
    """400 Invalid Form Body, the error under its dotted ``field`` path nested as Discord
    nests it (``embeds.0.title`` -> ``{"embeds": {"0": {"title": {"_errors": [...]}}}}``)."""
    errors: dict[str, Any] = {"_errors": [{"code": "BASE_TYPE_INVALID", "message": detail}]}
    if field != "_errors":
        for part in reversed(field.split(".")):
            errors = {part: errors}
    return ApiError(400, 50035, f"Invalid Form Body: {detail}", errors)


def error_paths(errors: dict[str, Any], prefix: str = "") -> list[str]:
    """The dotted paths of the fields a 50035 body names (as discord.py flattens them)."""
    paths: list[str] = []
    for key, value in errors.items():
        if key == "_errors":
            paths.append(prefix)
        elif isinstance(value, dict):
            paths += error_paths(value, f"{prefix}.{key}" if prefix else key)
    return paths
