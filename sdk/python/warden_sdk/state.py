"""What the plugin keeps between calls. Always granted.

An instance of the plugin serves one conversation only, but a call may run in a fresh one (a
parallel call, after a trap or 30 idle seconds), so module globals are a cache, never seen by
another client's call. Keep what must outlive a call here: the host holds it per conversation (an MCP session, or a stateless client), so
each agent reads only its own. A write is kept at once and stays when the call later fails;
calls of one conversation may run at the same time, and each key is written whole (the last
write wins), so keep what two calls may change under different keys. The manifest's
`limits.state` bounds a conversation's values (4 MiB by default).

    from warden_sdk import state

    n = (state.get_json("count") or 0) + 1
    state.set_json("count", n)
"""

from __future__ import annotations

import json
from typing import Any

from ._bindings import plugin_interface


class StateError(Exception):
    """A write was refused: `kind` is `limit-reached` (over `limits.state`) or `invalid-key`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _bindings() -> Any:
    return plugin_interface("state")


def get(key: str) -> bytes | None:
    """The bytes kept under `key` in this conversation, or None."""
    value = _bindings().get(key)
    return None if value is None else bytes(value)


def set(key: str, value: bytes | str) -> None:  # noqa: A001 - the interface's own name
    """Keeps `value` under `key`, replacing what was there; raises `StateError` when refused."""
    data = value.encode() if isinstance(value, str) else bytes(value)
    try:
        _bindings().set(key, data)
    except Exception as e:  # noqa: BLE001 - only the bindings' Err is translated
        error = getattr(e, "value", None)
        if type(e).__name__ != "Err" or error is None:
            raise
        kind = "limit-reached" if "LimitReached" in type(error).__name__ else "invalid-key"
        raise StateError(kind, str(getattr(error, "value", error))) from None


def delete(key: str) -> None:
    """Forgets `key` (nothing happens if it is not kept)."""
    _bindings().delete(key)


def keys(prefix: str = "") -> list[str]:
    """Every kept key that starts with `prefix`, sorted."""
    return list(_bindings().keys(prefix))


def get_json(key: str) -> Any:
    """The value kept under `key`, decoded from JSON, or None."""
    data = get(key)
    return None if data is None else json.loads(data)


def set_json(key: str, value: Any) -> None:
    """Keeps `value` under `key`, encoded as JSON."""
    set(key, json.dumps(value))
