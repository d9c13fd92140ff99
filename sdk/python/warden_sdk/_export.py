"""The component's exports (`tools`, `resources`, `prompts`, `completions`, and `groups` when
the world has it) over componentize-py's generated `wit_world` bindings. Imported only inside a
build."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ._bindings import plugin_interface, preload
from ._errors import ToolError
from ._group import Group
from ._output import Content, ToolOutput
from .prompt import Completion, CompletionRef, Prompt, PromptResult
from .resource import Resource, ResourceTemplate

GROUPS_LINE = "Tools, Resources, Prompts, Completions, Groups = plugin.export()"


# What the glue reads of a plugin, by shape: `_plugin` imports this module to export, so this
# one names no class of `_plugin` and the import goes one way. Read-only properties, so a
# `Plugin`'s narrower types (a `dict`, a `Literal` task) still fit.


class ExportedAnnotations(Protocol):
    @property
    def read_only(self) -> bool: ...
    @property
    def destructive(self) -> bool: ...
    @property
    def idempotent(self) -> bool: ...
    @property
    def open_world(self) -> bool: ...


class ExportedTool(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def description(self) -> str: ...
    @property
    def input_schema(self) -> dict[str, Any]: ...
    @property
    def output_schema(self) -> dict[str, Any] | None: ...
    @property
    def annotations(self) -> ExportedAnnotations: ...
    @property
    def task(self) -> str: ...


class Exported(Protocol):
    """A plugin as the export glue uses it: what it lists and the calls that serve it."""

    @property
    def tools(self) -> Mapping[str, ExportedTool]: ...
    @property
    def resources(self) -> Sequence[tuple[Resource, Any]]: ...
    @property
    def templates(self) -> Sequence[tuple[ResourceTemplate, Any]]: ...
    @property
    def prompts(self) -> Mapping[str, tuple[Prompt, Any]]: ...
    def resolve_groups(self) -> list[Group]: ...
    def call(self, name: str, arguments: str) -> ToolOutput: ...
    def read_resource(self, uri: str) -> list[Content]: ...
    def get_prompt(self, name: str, arguments: dict[str, str]) -> PromptResult: ...
    def complete(self, target: CompletionRef, argument: str, value: str, context: dict[str, str]) -> Completion: ...


def export_classes(plugin: Exported) -> tuple[type, ...]:
    from componentize_py_types import Err
    from wit_world import exports
    from wit_world.exports import completions, prompts, resources

    preload()
    t = plugin_interface("types")
    # Checked now, while the build pre-initializes the module: a wrong group fails the build.
    declared = plugin.resolve_groups()
    with_groups = hasattr(exports, "Groups")
    if declared and not with_groups:
        raise RuntimeError(f"this plugin declares tool groups but does not export them: end the module with\n    {GROUPS_LINE}")

    def wit_error(e: ToolError) -> Any:
        case = {
            "invalid-arguments": t.ToolError_InvalidArguments,
            "access-denied": t.ToolError_AccessDenied,
            "not-found": t.ToolError_NotFound,
            "timeout": t.ToolError_Timeout,
            "failed": t.ToolError_Failed,
        }[e.kind]
        return Err(case(e.message))

    def block(c: Content) -> Any:
        if c.kind == "text":
            return t.ContentBlock_Text(c.text)
        if c.kind == "image":
            return t.ContentBlock_Image(t.Media(c.mime_type or "application/octet-stream", c.data))
        if c.kind == "audio":
            return t.ContentBlock_Audio(t.Media(c.mime_type or "application/octet-stream", c.data))
        body = t.ResourceBody_Blob(c.data) if c.data else t.ResourceBody_Text(c.text)
        return t.ContentBlock_Resource(t.EmbeddedResource(c.uri, c.mime_type, body))

    def output(out: ToolOutput) -> Any:
        structured = None if out.structured is None else json.dumps(out.structured, ensure_ascii=False)
        return t.ToolOutput([block(c) for c in out.content], structured)

    def guard(function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except ToolError as e:
            raise wit_error(e) from None
        except BaseException as e:  # noqa: BLE001 - a conversion failure is still a tool error
            raise wit_error(ToolError.failed(f"{type(e).__name__}: {e}")) from None

    class Tools(exports.Tools):
        def list_tools(self) -> list[Any]:
            return [
                t.ToolInfo(
                    name=tool.name,
                    title=tool.title,
                    description=tool.description,
                    input_schema=json.dumps(tool.input_schema),
                    output_schema=None if tool.output_schema is None else json.dumps(tool.output_schema),
                    annotations=t.Annotations(
                        read_only=tool.annotations.read_only,
                        destructive=tool.annotations.destructive,
                        idempotent=tool.annotations.idempotent,
                        open_world=tool.annotations.open_world,
                    ),
                    task=t.TaskSupport[tool.task.upper()],
                )
                for tool in plugin.tools.values()
            ]

        def call_tool(self, name: str, arguments: str) -> Any:
            return guard(lambda: output(plugin.call(name, arguments)))

    class Resources(exports.Resources):
        def list_resources(self) -> list[Any]:
            return [
                resources.ResourceInfo(r.uri, r.name, r.description, r.mime_type) for r, _ in plugin.resources
            ]

        def list_templates(self) -> list[Any]:
            return [
                resources.ResourceTemplate(r.uri_template, r.name, r.description, r.mime_type)
                for r, _ in plugin.templates
            ]

        def read_resource(self, uri: str) -> list[Any]:
            def read() -> list[Any]:
                out = []
                for c in plugin.read_resource(uri):
                    body = t.ResourceBody_Blob(c.data) if c.data else t.ResourceBody_Text(c.text)
                    out.append(t.EmbeddedResource(c.uri or uri, c.mime_type, body))
                return out

            return guard(read)

    class Prompts(exports.Prompts):
        def list_prompts(self) -> list[Any]:
            return [
                prompts.PromptInfo(
                    p.name,
                    p.title,
                    p.description,
                    [prompts.PromptArgument(a.name, a.description, a.required) for a in p.arguments],
                )
                for p, _ in plugin.prompts.values()
            ]

        def get_prompt(self, name: str, arguments: list[tuple[str, str]]) -> Any:
            def get() -> Any:
                filled = plugin.get_prompt(name, dict(arguments))
                messages = [prompts.PromptMessage(prompts.Role[m.role.upper()], block(m.content)) for m in filled.messages]
                return prompts.Prompt(filled.description, messages)

            return guard(get)

    class Completions(exports.Completions):
        def complete(self, target: Any, argument: str, value: str, context: list[tuple[str, str]]) -> Any:
            kind = "prompt" if isinstance(target, completions.CompletionRef_Prompt) else "resource-template"

            def run() -> Any:
                found = plugin.complete(CompletionRef(kind, target.value), argument, value, dict(context))
                return completions.Completion(found.values, found.total, found.has_more)

            return guard(run)

    if not with_groups:
        return Tools, Resources, Prompts, Completions

    from wit_world.exports import groups as wit_groups

    class Groups(exports.Groups):  # type: ignore[name-defined,misc]
        def groups(self) -> list[Any]:
            return [
                wit_groups.ToolGroup(g.name, g.summary, list(g.tools), [wit_groups.CapabilityKind[c.name] for c in g.needs])
                for g in declared
            ]

    return Tools, Resources, Prompts, Completions, Groups
