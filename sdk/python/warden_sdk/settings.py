"""The plugin's settings from the admin's manifest (`[plugin.settings]`), through the standard
`wasi:config/store` interface: add "settings" to `[tool.warden] imports`. Read-only and the same
for every client. A string setting reads as written, any other value (number, table, array)
as JSON text, so `get_json` reads both. Settings are not secrets: credentials stay in the
host's grants.

    from warden_sdk import settings

    greeting = settings.get("greeting") or "Hi"
    rows = (settings.get_json("limits") or {}).get("rows", 20)
"""

from __future__ import annotations

import json
from typing import Any

from ._capability import binding


class SettingsError(Exception):
    """The host could not read the plugin's settings: `kind` is `upstream` or `io`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"the plugin's settings cannot be read: {message}")
        self.kind = kind


def _store() -> Any:
    return binding("settings")


def _call(function: Any, *args: Any) -> Any:
    try:
        return function(*args)
    except Exception as e:  # noqa: BLE001 - only the bindings' Err is translated
        error = getattr(e, "value", None)
        if type(e).__name__ != "Err" or error is None:
            raise
        kind = "io" if type(error).__name__.endswith("Io") else "upstream"
        raise SettingsError(kind, str(getattr(error, "value", error))) from None


def get(key: str) -> str | None:
    """The setting `key` as text (a string as written, another value as JSON), or None."""
    return _call(_store().get, key)


def get_json(key: str) -> Any:
    """The setting `key` decoded from JSON, or None; a string setting that is not JSON is that
    string."""
    text = get(key)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def all() -> dict[str, str]:  # noqa: A001 - the module's own name for it
    """Every setting, key -> text, sorted by key."""
    return dict(sorted(_call(_store().get_all)))
