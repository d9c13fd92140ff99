"""Errors: `ToolError` (what a tool raises or returns) and `CapabilityError` (what a host
capability raises; it becomes a `ToolError` of the matching kind when left uncaught)."""

from __future__ import annotations

from typing import Any, Literal, NoReturn

ToolErrorKind = Literal["invalid-arguments", "access-denied", "not-found", "timeout", "failed"]

_TOOL_KIND_TEXT = {
    "invalid-arguments": "invalid arguments",
    "access-denied": "access denied",
    "not-found": "not found",
    "timeout": "timeout",
    "failed": "failed",
}


class ToolError(Exception):
    """Why a tool call failed. The host turns it into an MCP result with `isError: true` and a
    text that starts with the kind, e.g. ``invalid arguments: `name` must not be empty``.

    Write the message for the agent that called the tool: what went wrong, what to do."""

    kind: ToolErrorKind
    message: str

    def __init__(self, kind: ToolErrorKind, message: str) -> None:
        if kind not in _TOOL_KIND_TEXT:
            raise ValueError(f"unknown tool error kind {kind!r}; use one of {sorted(_TOOL_KIND_TEXT)}")
        super().__init__(message)
        self.kind = kind
        self.message = message

    @classmethod
    def invalid_arguments(cls, message: str) -> ToolError:
        return cls("invalid-arguments", message)

    @classmethod
    def access_denied(cls, message: str) -> ToolError:
        return cls("access-denied", message)

    @classmethod
    def not_found(cls, message: str) -> ToolError:
        return cls("not-found", message)

    @classmethod
    def timeout(cls, message: str) -> ToolError:
        return cls("timeout", message)

    @classmethod
    def failed(cls, message: str) -> ToolError:
        return cls("failed", message)

    def __str__(self) -> str:
        return f"{_TOOL_KIND_TEXT[self.kind]}: {self.message}"

    def __repr__(self) -> str:
        return f"ToolError({self.kind!r}, {self.message!r})"


CapabilityErrorKind = Literal[
    "access-denied",
    "limit-reached",
    "not-found",
    "stale-element",
    "gone",
    "timeout",
    "invalid-argument",
    "io",
]

_CAP_KIND_TEXT = {
    "access-denied": "access denied",
    "limit-reached": "limit reached",
    "not-found": "not found",
    "stale-element": "stale element",
    "gone": "gone",
    "timeout": "timeout",
    "invalid-argument": "invalid argument",
    "io": "i/o error",
}

# Same mapping as the Rust SDK's `From<CapabilityError> for ToolError`.
_CAP_TO_TOOL: dict[str, ToolErrorKind] = {
    "access-denied": "access-denied",
    "not-found": "not-found",
    "stale-element": "not-found",
    "gone": "not-found",
    "timeout": "timeout",
    "invalid-argument": "invalid-arguments",
    "limit-reached": "failed",
    "io": "failed",
}


class CapabilityError(Exception):
    """Why a call to a host capability (capture, browser, terminal, sftp, rdp) failed. Act on
    `kind`; the message is for the agent. `access-denied` and `limit-reached` messages name
    the manifest key that would allow the call: keep them intact when passing them on.

    Subclasses exist per kind (`AccessDenied`, `NotFound`, ...) so `except` can pick one."""

    kind: CapabilityErrorKind
    message: str

    def __init__(self, kind: CapabilityErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return f"{_CAP_KIND_TEXT[self.kind]}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def to_tool_error(self) -> ToolError:
        """The tool error an uncaught capability error becomes: access-denied, not-found and
        timeout keep their kind; stale-element and gone are not-found; invalid-argument is
        invalid-arguments; limit-reached and io are failed. The message is kept."""
        return ToolError(_CAP_TO_TOOL[self.kind], self.message)


def _kind_class(kind: CapabilityErrorKind, name: str) -> type[CapabilityError]:
    def __init__(self: CapabilityError, message: str) -> None:
        CapabilityError.__init__(self, kind, message)

    return type(name, (CapabilityError,), {"__init__": __init__, "__doc__": f"A `{kind}` capability error."})


AccessDenied = _kind_class("access-denied", "AccessDenied")
LimitReached = _kind_class("limit-reached", "LimitReached")
NotFound = _kind_class("not-found", "NotFound")
StaleElement = _kind_class("stale-element", "StaleElement")
Gone = _kind_class("gone", "Gone")
Timeout = _kind_class("timeout", "Timeout")
InvalidArgument = _kind_class("invalid-argument", "InvalidArgument")
Io = _kind_class("io", "Io")

_BY_WIT_CASE: dict[str, type[CapabilityError]] = {
    "Error_AccessDenied": AccessDenied,
    "Error_LimitReached": LimitReached,
    "Error_NotFound": NotFound,
    "Error_StaleElement": StaleElement,
    "Error_Gone": Gone,
    "Error_Timeout": Timeout,
    "Error_InvalidArgument": InvalidArgument,
    "Error_Io": Io,
}


def capability_error(wit_error: Any) -> CapabilityError:
    """The `CapabilityError` for a `warden:types/errors.error` value from the bindings."""
    cls = _BY_WIT_CASE.get(type(wit_error).__name__)
    if cls is None:
        return Io(f"unexpected error from the host: {wit_error!r}")
    return cls(str(getattr(wit_error, "value", "")))


def reraise(err: BaseException) -> NoReturn:
    """Re-raises a bindings `Err(error)` as a `CapabilityError` (anything else unchanged)."""
    value = getattr(err, "value", None)
    if type(err).__name__ == "Err" and value is not None:
        raise capability_error(value) from None
    raise err
