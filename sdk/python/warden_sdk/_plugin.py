"""`Plugin` and `Tool`: what a plugin serves, and the export to the component's interfaces."""

from __future__ import annotations

import inspect
import json
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Literal, TypeVar, get_type_hints

from . import _schema
from ._errors import CapabilityError, ToolError
from ._group import Capability, Group, new_group, resolve
from ._output import Content, ToolOutput, into_output
from .context import AskError
from .prompt import Completion, CompletionRef, Prompt, PromptArgument, PromptResult, into_prompt_result
from .resource import Resource, ResourceTemplate, into_contents, match_template

ResourceReader = Callable[[str], Any]
TemplateReader = Callable[[str, dict[str, str]], Any]
PromptFiller = Callable[[dict[str, str]], Any]
Completer = Callable[[CompletionRef, str, str, dict[str, str]], Any]

TaskSupport = Literal["never", "optional", "required"]


@dataclass
class Annotations:
    """Hints for MCP clients, mirrored into the tool's `annotations`."""

    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False


class Tool:
    """One tool: a name, a function taking one typed argument (a dataclass or TypedDict, or
    nothing) and returning a result, and the description the model reads.

    The input schema is generated from the argument type's hints; arguments are checked
    against them before the function runs."""

    def __init__(
        self,
        name: str,
        function: Callable[..., Any],
        *,
        title: str | None = None,
        description: str | None = None,
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        open_world: bool = False,
        task: TaskSupport = "never",
        output: type | None = None,
        group: str | None = None,
    ) -> None:
        self.name = name
        self.group = group
        self.function = function
        self.title = title
        self.description = description if description is not None else inspect.cleandoc(function.__doc__ or "")
        self.annotations = Annotations(read_only, destructive, idempotent, open_world)
        self.task: TaskSupport = task
        hints = get_type_hints(function, include_extras=True)
        params = list(inspect.signature(function).parameters)
        if len(params) > 1:
            raise TypeError(f"tool `{name}`: the function takes one argument (a dataclass or TypedDict), or none")
        self.args_type: type | None = hints.get(params[0]) if params else None
        if params and self.args_type is None:
            raise TypeError(f"tool `{name}`: annotate the argument with its dataclass or TypedDict")
        defs: dict[str, Any] = {}
        if self.args_type is None:
            self.input_schema: dict[str, Any] = {"type": "object", "properties": {}}
        else:
            self.input_schema = _schema.record(self.args_type).schema(defs)
        # The result's schema: `output=`, or a dataclass / TypedDict return annotation.
        ret = output if output is not None else hints.get("return")
        if ret is not None and _schema.is_record(ret) and ret not in (ToolOutput, Content):
            self.output_schema: dict[str, Any] | None = _schema.record(ret).schema(defs, output=True)
        else:
            self.output_schema = None

    def call(self, arguments: str | dict[str, Any]) -> ToolOutput:
        """Checks the arguments and runs the function (also usable in unit tests)."""
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as e:
                raise ToolError.invalid_arguments(f"the arguments are not valid JSON: {e}") from None
        if self.args_type is None:
            if not isinstance(arguments, dict):
                raise ToolError.invalid_arguments("the arguments must be a JSON object")
            return into_output(self.function())
        try:
            parsed = _schema.record(self.args_type).parse(arguments, "")
        except _schema.ArgumentError as e:
            raise ToolError.invalid_arguments(str(e)) from None
        return into_output(self.function(parsed))


class Plugin:
    """Everything a plugin serves. Declare tools with `@plugin.tool(...)` (or `add_tool`),
    resources with `@plugin.resource` and `@plugin.resource_template`, prompts with
    `@plugin.prompt` and completions with `@plugin.completion`, tool groups with
    `plugin.group`, then export once at module level:

        Tools, Resources, Prompts, Completions = plugin.export()

    (a plugin that declares groups adds `Groups`: `Tools, ..., Completions, Groups = ...`).
    """

    def __init__(self) -> None:
        self.tools: dict[str, Tool] = {}
        self.resources: list[tuple[Resource, ResourceReader]] = []
        self.templates: list[tuple[ResourceTemplate, TemplateReader]] = []
        self.prompts: dict[str, tuple[Prompt, PromptFiller]] = {}
        self.completer: Completer | None = None
        self.groups: list[Group] = []

    def add_tool(self, tool: Tool) -> Plugin:
        if tool.name in self.tools:
            raise ValueError(f"tool `{tool.name}` is declared twice")
        self.tools[tool.name] = tool
        return self

    def tool(
        self,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        open_world: bool = False,
        task: TaskSupport = "never",
        output: type | None = None,
        group: str | None = None,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: the function becomes a tool named `name` (default: the function's
        name); its docstring is the description unless `description` is given. A function
        returning a dataclass or TypedDict declares its output schema; one returning a
        `ToolOutput` with structured content names the type with `output=`. `group` puts
        it in a group of `plugin.group`."""

        def register(function: Callable[..., Any]) -> Callable[..., Any]:
            self.add_tool(
                Tool(
                    name or function.__name__,
                    function,
                    title=title,
                    description=description,
                    read_only=read_only,
                    destructive=destructive,
                    idempotent=idempotent,
                    open_world=open_world,
                    task=task,
                    output=output,
                    group=group,
                )
            )
            return function

        return register

    def group(
        self,
        name: str,
        summary: str,
        *,
        tools: list[str] | None = None,
        needs: list[Capability | str] | None = None,
    ) -> Plugin:
        """Declares a group of tools, which the manifest lists or offers by name (`tools =
        { groups = [...], offer = [...] }`). `summary` is one line on what its tools are for
        (agents read it); `needs` the grant kinds they use (unlisted when none is granted).
        Its tools are the ones `tools` names and the ones declared with
        `@plugin.tool(group=name)`; a group that gets none takes every tool in no other group.
        A tool in no group is in `default`."""
        if any(g.name == name for g in self.groups):
            raise ValueError(f"group `{name}` is declared twice")
        self.groups.append(new_group(name, summary, tools, needs))
        return self

    def resolve_groups(self) -> list[Group]:
        """The groups as the host gets them, each with its tools; raises `ValueError` when a
        group names a tool the plugin lacks, a tool is in two groups or names an undeclared one,
        or two groups get no tools."""
        return resolve(self.groups, {name: tool.group for name, tool in self.tools.items()})

    def resource(
        self, uri: str, name: str, *, description: str | None = None, mime_type: str | None = None
    ) -> Callable[[ResourceReader], ResourceReader]:
        """Decorator: the function reads the static resource at `uri`. It gets the URI and
        returns a `str` (text), `bytes` (a blob), or `Content.resource_text` /
        `resource_blob` blocks."""

        def register(read: ResourceReader) -> ResourceReader:
            if any(r.uri == uri for r, _ in self.resources):
                raise ValueError(f"resource `{uri}` is declared twice")
            self.resources.append((Resource(uri, name, description, mime_type), read))
            return read

        return register

    def resource_template(
        self, uri_template: str, name: str, *, description: str | None = None, mime_type: str | None = None
    ) -> Callable[[TemplateReader], TemplateReader]:
        """Decorator: the function reads the resources that match `uri_template` (such as
        `notes://{id}`). It gets the URI and the values of the template's variables by name,
        and returns what a `resource` reader returns."""

        def register(read: TemplateReader) -> TemplateReader:
            self.templates.append((ResourceTemplate(uri_template, name, description, mime_type), read))
            return read

        return register

    def prompt(
        self,
        name: str | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
        arguments: list[PromptArgument] | None = None,
    ) -> Callable[[PromptFiller], PromptFiller]:
        """Decorator: the function fills in prompt `name` (default: the function's name; its
        docstring is the description unless `description` is given). It gets the arguments
        as a dict (required ones checked present) and returns a `PromptResult`, a list of
        `PromptMessage`, or a `str` (one user message)."""

        def register(fill: PromptFiller) -> PromptFiller:
            prompt_name = name or fill.__name__
            if prompt_name in self.prompts:
                raise ValueError(f"prompt `{prompt_name}` is declared twice")
            text = description if description is not None else (inspect.cleandoc(fill.__doc__ or "") or None)
            self.prompts[prompt_name] = (Prompt(prompt_name, title, text, list(arguments or [])), fill)
            return fill

        return register

    def completion(self, complete: Completer) -> Completer:
        """Decorator: the function completes prompt arguments and template variables. It gets
        what is completed (`CompletionRef`), the argument's name, the value typed so far and
        the arguments already chosen, and returns a `Completion` or a list of values. Without
        one, every completion is empty."""
        self.completer = complete
        return complete

    def call(self, name: str, arguments: str | dict[str, Any]) -> ToolOutput:
        """Runs tool `name`; every exception comes out as a `ToolError`."""
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError.not_found(f"no tool `{name}`; this plugin serves: {', '.join(self.tools)}")
        return guarded(tool.call, arguments)

    def read_resource(self, uri: str) -> list[Content]:
        """Reads the resource at `uri`: a static resource with that exact URI, else the first
        template that matches. Every exception comes out as a `ToolError`."""
        for resource, read in self.resources:
            if resource.uri == uri:
                return guarded(lambda: into_contents(read(uri), uri, resource.mime_type))
        for template, read_t in self.templates:
            found = match_template(template.uri_template, uri)
            if found is not None:
                return guarded(lambda: into_contents(read_t(uri, found), uri, template.mime_type))
        raise ToolError.not_found(f"this plugin has no resource `{uri}`")

    def get_prompt(self, name: str, arguments: dict[str, str]) -> PromptResult:
        """Fills prompt `name` with `arguments`, as the host's `get-prompt` does."""
        entry = self.prompts.get(name)
        if entry is None:
            raise ToolError.not_found(f"this plugin has no prompt `{name}`")
        prompt, fill = entry
        prompt.check(arguments)
        return guarded(lambda: into_prompt_result(fill(dict(arguments))))

    def complete(self, target: CompletionRef, argument: str, value: str, context: dict[str, str]) -> Completion:
        """Completes `argument` of `target` from `value`, as the host's `complete` does."""
        completer = self.completer
        if completer is None:
            return Completion()

        def run() -> Completion:
            found = completer(target, argument, value, dict(context))
            if isinstance(found, Completion):
                return found.capped()
            values = [str(v) for v in found]
            return Completion(values, len(values)).capped()

        return guarded(run)

    def export(self) -> tuple[type, ...]:
        """The export classes componentize-py looks for in the app module:
        `Tools, Resources, Prompts, Completions = plugin.export()`; a plugin that declares
        groups exports them too: `Tools, Resources, Prompts, Completions, Groups =
        plugin.export()` (the build adds the `groups` export when the module binds `Groups`)."""
        from ._export import export_classes

        return export_classes(self)


R = TypeVar("R")


def guarded(function: Callable[..., R], *args: Any) -> R:
    """Runs `function`; every exception comes out as a `ToolError`, never a trap."""
    try:
        return function(*args)
    except ToolError:
        raise
    except CapabilityError as e:
        raise e.to_tool_error() from None
    except AskError as e:
        raise ToolError.failed(str(e)) from None
    except RecursionError as e:
        raise ToolError.failed(f"RecursionError: {e}") from None
    except MemoryError:
        raise ToolError.failed("MemoryError: the call ran out of memory (limits.memory)") from None
    except Exception as e:  # noqa: BLE001 - every exception becomes a tool error, never a trap
        frame = traceback.extract_tb(e.__traceback__)[-1:] if e.__traceback__ else []
        where = f" (at {frame[0].filename.rsplit('/', 1)[-1]}:{frame[0].lineno})" if frame else ""
        raise ToolError.failed(f"{type(e).__name__}: {e}{where}") from None
