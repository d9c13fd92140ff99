"""`Plugin` and `Tool`: what a plugin serves, and the export to the component's interfaces."""

from __future__ import annotations

import inspect
import json
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Literal, get_type_hints

from . import _schema
from ._errors import CapabilityError, ToolError
from ._output import Content, ToolOutput, into_output

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
    ) -> None:
        self.name = name
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
    then export once at module level:

        Tools, Resources, Prompts, Completions = plugin.export()
    """

    def __init__(self) -> None:
        self.tools: dict[str, Tool] = {}

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
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: the function becomes a tool named `name` (default: the function's
        name); its docstring is the description unless `description` is given. A function
        returning a dataclass or TypedDict declares its output schema; one returning a
        `ToolOutput` with structured content names the type with `output=`."""

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
                )
            )
            return function

        return register

    def call(self, name: str, arguments: str | dict[str, Any]) -> ToolOutput:
        """Runs tool `name`; every exception comes out as a `ToolError`."""
        tool = self.tools.get(name)
        if tool is None:
            raise ToolError.not_found(f"no tool `{name}`; this plugin serves: {', '.join(self.tools)}")
        try:
            return tool.call(arguments)
        except ToolError:
            raise
        except CapabilityError as e:
            raise e.to_tool_error() from None
        except RecursionError as e:
            raise ToolError.failed(f"RecursionError: {e}") from None
        except MemoryError:
            raise ToolError.failed("MemoryError: the tool ran out of memory (limits.memory)") from None
        except Exception as e:  # noqa: BLE001 - every exception becomes a tool error, never a trap
            frame = traceback.extract_tb(e.__traceback__)[-1:] if e.__traceback__ else []
            where = f" (at {frame[0].filename.rsplit('/', 1)[-1]}:{frame[0].lineno})" if frame else ""
            raise ToolError.failed(f"{type(e).__name__}: {e}{where}") from None

    def export(self) -> tuple[type, type, type, type]:
        """The four export classes componentize-py looks for in the app module:
        `Tools, Resources, Prompts, Completions = plugin.export()`."""
        from ._export import export_classes

        return export_classes(self)
