"""Where componentize-py put the generated module of a WIT interface.

componentize-py names an imported interface's module after the interface (`context`,
`types`) unless two interfaces of the resolved packages share that name; then each is
qualified with its namespace and package (`warden_plugin_types`, `wasi_http_types`). Which
happens depends on the plugin's imports: `warden:plugin/types` is `types` in a world that
imports nothing or only `settings`, and `warden_plugin_types` once a capability package with a
`types` interface of its own is in the world. So no module path is written down: the SDK asks
for the interface and this finds it under either name.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

# Interface name in `[tool.warden] imports` -> (namespace, package, interface). `settings` is
# the standard `wasi:config/store`, `http` the standard `wasi:http/outgoing-handler`. The
# build reads the same table.
INTERFACES: dict[str, tuple[str, str, str]] = {
    "capture/http": ("warden", "capture", "http"),
    "capture/page": ("warden", "capture", "page"),
    "browser": ("warden", "browser", "browser"),
    "terminal": ("warden", "terminal", "terminal"),
    "sftp": ("warden", "sftp", "sftp"),
    "rdp": ("warden", "rdp", "desktop"),
    "settings": ("wasi", "config", "store"),
    "http": ("wasi", "http", "outgoing-handler"),
}


def _snake(name: str) -> str:
    return name.replace("-", "_").replace(".", "_")


def module_names(namespace: str, package: str, interface: str) -> tuple[str, str]:
    """The two names the module of `namespace:package/interface` may have: qualified first."""
    return (f"{_snake(namespace)}_{_snake(package)}_{_snake(interface)}", _snake(interface))


class NotImported(ModuleNotFoundError):
    """The world does not import the interface (no generated module under either name)."""


def imported(namespace: str, package: str, interface: str) -> ModuleType:
    """The generated module of the imported interface `namespace:package/interface`.

    Raises `NotImported` when the world does not import it; any other import error as it is."""
    for name in module_names(namespace, package, interface):
        path = f"wit_world.imports.{name}"
        try:
            return importlib.import_module(path)
        except ModuleNotFoundError as e:
            if e.name != path:  # the module exists but something it imports does not
                raise
    raise NotImported(f"the component does not import {namespace}:{package}/{interface}", name=f"wit_world.imports.{interface}")


def plugin_interface(interface: str) -> ModuleType:
    """A `warden:plugin` interface every plugin has: `types`, `context`, `state`."""
    return imported("warden", "plugin", interface)


def preload() -> None:
    """Import every generated module of the world's imports, now.

    componentize-py's generated code exists only while the build pre-initializes the
    component: the snapshot keeps the modules imported by then and nothing else. Its runtime
    imports each module that defines a type (a record, a resource) on its own, but a module of
    functions alone (`outgoing_handler`, `monotonic_clock`) is never imported unless the
    app does it, and a lazy import at the first call would fail with the import missing. The
    SDK reaches interfaces lazily (a plugin pays for what it calls), so `plugin.export()`, which
    runs during pre-initialization, calls this."""
    imports = importlib.import_module("wit_world.imports")
    for found in pkgutil.iter_modules(imports.__path__):
        importlib.import_module(f"wit_world.imports.{found.name}")
