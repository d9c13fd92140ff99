"""Services of the call in progress: progress, logging, cancellation. Always granted."""

from __future__ import annotations

from typing import Literal

Level = Literal["debug", "info", "warning", "error"]


def progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Reports progress of the current call: forwarded to the client as an MCP progress
    notification when it asked for progress; otherwise dropped."""
    from wit_world.imports import context

    context.progress(float(done), None if total is None else float(total), message)


def log(level: Level, message: str) -> None:
    """Writes a log line into the host's log (tagged with the plugin) and to the client as an
    MCP logging notification at or above the level it asked for."""
    from wit_world.imports import context

    context.log(context.LogLevel[level.upper()], message)


def conversation() -> str:
    """An opaque id of this call's conversation (its MCP session, or its client on the
    stateless wire; empty for stdio). `state` is already scoped by it."""
    from wit_world.imports import context

    return str(context.conversation())


def cancelled() -> bool:
    """True once the client has cancelled the current call: long loops should return early."""
    from wit_world.imports import context

    return bool(context.cancelled())


def as_task() -> bool:
    """Go on as a task (see the Rust SDK's `context::as_task`); true if the call is a task."""
    from wit_world.imports import context

    return bool(context.as_task())
