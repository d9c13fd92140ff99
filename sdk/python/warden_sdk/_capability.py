"""Capability calls over the generated bindings: a bindings `Err(error)` comes out as a typed
`CapabilityError`, for module functions and for the methods of the resources they return."""

from __future__ import annotations

import functools
from typing import Any, Callable

from ._bindings import INTERFACES, NotImported, imported
from ._errors import reraise


def binding(interface: str) -> Any:
    """The generated module of `interface` (a name of `[tool.warden] imports`), or an error
    that names the import to declare."""
    try:
        return imported(*INTERFACES[interface])
    except NotImported:
        raise RuntimeError(
            f"this plugin does not import `{interface}`: add it to `[tool.warden] imports` in "
            "pyproject.toml and rebuild"
        ) from None


def _wrap_value(value: Any) -> Any:
    # Resources (sessions, pages, desktops) are context managers in the bindings.
    if hasattr(value, "__exit__") and not isinstance(value, (str, bytes)):
        return Handle(value)
    return value


def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return _wrap_value(function(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - only bindings errors are translated
            reraise(e)

    return call


class Handle:
    """A resource from the host (page, session, desktop) whose methods raise
    `CapabilityError`. The generated object is `raw`. Usable as a context manager."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.raw, name)
        return wrap(value) if callable(value) else value

    def __enter__(self) -> Handle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.raw.__exit__(*exc)


def module_getattr(interface: str) -> Callable[[str], Any]:
    """A PEP 562 `__getattr__` for an SDK module that mirrors the interface's bindings:
    functions are wrapped, types (records, enums, variant cases) are passed through."""

    def get(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(binding(interface), name)
        if callable(value) and not isinstance(value, type):
            return wrap(value)
        return value

    return get
