"""Write Warden tool plugins in Python.

A tool is a function whose one argument is a dataclass (or TypedDict) with type hints; the
SDK derives the tool's JSON Schema from the hints (descriptions from `Annotated[T, "..."]`
or attribute docstrings) and checks the arguments before the function runs. One line exports
the plugin for componentize-py:

    from dataclasses import dataclass
    from typing import Annotated
    from warden_sdk import Plugin, ToolError

    plugin = Plugin()

    @dataclass
    class HelloArgs:
        name: Annotated[str, "Who to greet."]

    @plugin.tool(title="Hello", read_only=True, idempotent=True)
    def hello(args: HelloArgs) -> str:
        \"\"\"Greet someone by name.\"\"\"
        if not args.name.strip():
            raise ToolError.invalid_arguments("`name` must not be empty")
        return f"Hello, {args.name}!"

    Tools, Resources, Prompts, Completions = plugin.export()

Build with `python -m warden_sdk build` (reads `[tool.warden]` in pyproject.toml).

Beside tools a plugin serves resources (`@plugin.resource`, `@plugin.resource_template`),
prompts (`@plugin.prompt`) and completions (`@plugin.completion`), and names tool groups
(`plugin.group`, `@plugin.tool(group=...)`) that the manifest lists or offers.

Host services: `context` (progress, log, cancelled, as_task, and asking the client: ask,
elicit, elicit_url, sample, list_roots, client_capabilities), `state` (what the plugin keeps between
calls, per conversation: module globals are only a cache), `capture` (http_get, capture_page),
`terminal`, `sftp`, `browser`, `rdp`, and `settings` (the admin's `[plugin.settings]`).
Capability calls raise `CapabilityError` (one subclass per kind); left uncaught it becomes the
matching `ToolError`. Any other exception becomes a `failed` tool error carrying its type and
message: a plugin never traps on an exception.
"""

from ._errors import (
    AccessDenied,
    CapabilityError,
    Gone,
    InvalidArgument,
    Io,
    LimitReached,
    NotFound,
    StaleElement,
    Timeout,
    ToolError,
)
from ._group import Capability, Group
from ._output import Content, ToolOutput
from ._plugin import Annotations, Plugin, TaskSupport, Tool
from ._schema import Field
from .context import AskError
from .prompt import Completion, CompletionRef, Prompt, PromptArgument, PromptMessage, PromptResult
from .resource import Resource, ResourceTemplate

__all__ = [
    "AccessDenied",
    "Annotations",
    "AskError",
    "Capability",
    "CapabilityError",
    "Completion",
    "CompletionRef",
    "Content",
    "Field",
    "Gone",
    "Group",
    "InvalidArgument",
    "Io",
    "LimitReached",
    "NotFound",
    "Plugin",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "PromptResult",
    "Resource",
    "ResourceTemplate",
    "StaleElement",
    "TaskSupport",
    "Timeout",
    "Tool",
    "ToolError",
    "ToolOutput",
]
