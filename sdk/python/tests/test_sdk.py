"""The SDK's pure-Python parts, natively: schemas, argument checks, errors, results, the world
the build generates. (Everything that needs the bindings runs in tests/e2e/test_plugin_python.py.)"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Literal, NotRequired, TypedDict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warden_sdk import AccessDenied, Capability, CapabilityError, Field, Group, Plugin, ToolError, ToolOutput  # noqa: E402
from warden_sdk import build  # noqa: E402
from warden_sdk._errors import capability_error  # noqa: E402

WIT = Path(__file__).resolve().parents[3] / "wit"


class Color(Enum):
    RED = "red"
    BLUE = "blue"


@dataclass
class Inner:
    depth: int
    """How deep."""


@dataclass
class Args:
    name: Annotated[str, "Who."]
    count: Annotated[int, Field(minimum=0, maximum=5)] = 1
    color: Color = Color.RED
    mode: Literal["a", "b"] | None = None
    inner: Inner | None = None
    tags: list[str] = field(default_factory=list)


class TdArgs(TypedDict):
    url: Annotated[str, "A URL."]
    limit: NotRequired[int]


@dataclass
class Result:
    ok: bool
    note: str | None = None


plugin = Plugin()


@plugin.tool(title="Run", read_only=True)
def run(args: Args) -> Result:
    """Run it."""
    return Result(ok=args.count > 0, note=f"{args.name}:{args.color.value}:{args.tags}")


@plugin.tool()
def typed(args: TdArgs) -> str:
    return f"{args['url']} {args.get('limit')}"


@plugin.tool()
def denied() -> str:
    raise AccessDenied("capture.http_hosts does not allow x; add it")


@plugin.tool()
def crash() -> str:
    return {}["missing"]


def test_schema_from_hints():
    tool = plugin.tools["run"]
    assert tool.description == "Run it." and tool.title == "Run" and tool.annotations.read_only
    s = tool.input_schema
    assert s["required"] == ["name"]
    assert s["properties"]["name"] == {"description": "Who.", "type": "string"}
    assert s["properties"]["count"] == {"type": "integer", "minimum": 0, "maximum": 5, "default": 1}
    assert s["properties"]["color"] == {"enum": ["red", "blue"], "default": "red"}
    assert s["properties"]["mode"] == {"enum": ["a", "b"]}
    assert s["properties"]["inner"]["properties"]["depth"] == {"description": "How deep.", "type": "integer"}
    assert tool.output_schema == {
        "type": "object",
        "properties": {"ok": {"type": "boolean"}, "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "required": ["ok", "note"],
    }
    td = plugin.tools["typed"].input_schema
    assert td["required"] == ["url"] and td["properties"]["limit"] == {"type": "integer"}


def test_arguments_are_checked_and_converted():
    out = plugin.call("run", '{"name": "x", "color": "blue", "tags": ["t"], "inner": {"depth": 2}}')
    assert out.structured == {"ok": True, "note": "x:blue:['t']"}
    assert plugin.call("typed", {"url": "u"}).content[0].text == "u None"
    cases = {
        '{"count": 1}': "missing field `name`",
        '{"name": 1}': "`name` must be a string, got number 1",
        '{"name": "x", "count": 9}': "`count` must be at most 5",
        '{"name": "x", "color": "green"}': "`color` must be one of 'red', 'blue'",
        '{"name": "x", "inner": {}}': "missing field `inner.depth`",
        '{"name": "x", "tags": [1]}': "`tags[0]` must be a string",
        '{"name": "x", "nope": 1}': "unknown field `nope`",
        '{"name": true}': "`name` must be a string, got boolean true",
    }
    for args, message in cases.items():
        with pytest.raises(ToolError) as e:
            plugin.call("run", args)
        assert e.value.kind == "invalid-arguments" and message in e.value.message, (args, e.value)


def test_errors_become_tool_errors():
    with pytest.raises(ToolError) as e:
        plugin.call("denied", "{}")
    assert e.value.kind == "access-denied" and str(e.value).startswith("access denied: capture.http_hosts")
    with pytest.raises(ToolError) as e:
        plugin.call("crash", "{}")
    assert e.value.kind == "failed" and e.value.message.startswith("KeyError: 'missing'")
    with pytest.raises(ToolError) as e:
        plugin.call("nothing", "{}")
    assert e.value.kind == "not-found" and "run" in e.value.message


def test_capability_error_kinds_map_like_the_rust_sdk():
    @dataclass
    class Error_Gone:  # the shape of a generated variant case
        value: str

    err = capability_error(Error_Gone("the browser exited"))
    assert isinstance(err, CapabilityError) and err.kind == "gone" and str(err) == "gone: the browser exited"
    assert err.to_tool_error().kind == "not-found"
    mapping = {"limit-reached": "failed", "io": "failed", "invalid-argument": "invalid-arguments", "timeout": "timeout"}
    for kind, tool_kind in mapping.items():
        assert CapabilityError(kind, "m").to_tool_error().kind == tool_kind


def test_results():
    assert ToolOutput.json({"a": 1}).structured == {"a": 1}
    with pytest.raises(ToolError):
        ToolOutput.json([1])


def test_world_imports_only_the_listed_interfaces():
    text = build.world_text(WIT, ["capture/http", "terminal"])
    assert "import context;" in text and "import state;" in text
    assert "import warden:capture/http@0.1.0;" in text and "import warden:terminal/terminal@0.1.0;" in text
    assert "browser" not in text and "sftp" not in text
    for export in ("tools", "resources", "prompts", "completions"):
        assert f"export {export};" in text
    with pytest.raises(build.BuildError, match="unknown import `shell`"):
        build.world_text(WIT, ["shell"])
    # The plugin's settings are the standard wasi:config/store.
    assert "import wasi:config/store@0.2.0-rc.1;" in build.world_text(WIT, ["settings"])
    assert "groups" not in text
    assert "    export groups;\n}" in build.world_text(WIT, [], groups=True)


def test_groups_a_tool_joins_by_name_by_decorator_or_as_the_rest():
    p = Plugin()
    p.group("files", "read and write files", tools=["get"], needs=[Capability.SFTP, "sftp"])
    p.group("misc", "everything else")

    @p.tool(group="files")
    def put() -> str:
        return "p"

    @p.tool()
    def get() -> str:
        return "g"

    @p.tool()
    def ping() -> str:
        return "pong"

    assert p.resolve_groups() == [
        Group("files", "read and write files", ["put", "get"], [Capability.SFTP]),
        Group("misc", "everything else", ["ping"], []),
    ]
    assert Plugin().resolve_groups() == []


def test_group_mistakes_say_what_to_fix():
    p = Plugin()
    with pytest.raises(ValueError, match=r"group name 'Files' is invalid: use \[a-z0-9_-\]\{1,32\}"):
        p.group("Files", "x")
    with pytest.raises(ValueError, match="give a one-line summary"):
        p.group("files", " ")
    with pytest.raises(ValueError, match=r"unknown capability 'ftp' in needs=; use some of: Capability.BROWSER"):
        p.group("files", "x", needs=["ftp"])
    with pytest.raises(TypeError, match="takes a list of tool names"):
        p.group("files", "x", tools="get")  # type: ignore[arg-type]
    p.group("files", "x", tools=["get", "gte"])
    with pytest.raises(ValueError, match="group `files` is declared twice"):
        p.group("files", "y")

    @p.tool()
    def get() -> str:
        return ""

    with pytest.raises(ValueError, match=r"group `files` names tool `gte`, which this plugin does not have \(its tools: get\)"):
        p.resolve_groups()

    q = Plugin()
    q.group("a", "x", tools=["t"])

    @q.tool(group="b")
    def t() -> str:
        return ""

    with pytest.raises(ValueError, match=r'tool `t` is in group `b`, which the plugin does not declare: add plugin.group\("b"'):
        q.resolve_groups()
    q.group("b", "y")
    with pytest.raises(ValueError, match="tool `t` is in two groups, `a` and `b`"):
        q.resolve_groups()

    r = Plugin()
    r.group("a", "x").group("b", "y")
    with pytest.raises(ValueError, match="groups `a` and `b` are both given no tools"):
        r.resolve_groups()


def test_the_build_exports_groups_when_the_module_binds_groups(tmp_path: Path):
    app = tmp_path / "app.py"
    app.write_text("Tools, Resources, Prompts, Completions = plugin.export()\n")
    assert not build.exports_groups(tmp_path, "app")
    app.write_text("Tools, Resources, Prompts, Completions, Groups = plugin.export()\n")
    assert build.exports_groups(tmp_path, "app")
    # Only a top-level binding counts; a package's __init__ is read too.
    app.write_text("def f():\n    Groups = 1\n")
    assert not build.exports_groups(tmp_path, "app")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("(Tools, Resources, Prompts, Completions, Groups) = plugin.export()\n")
    assert build.exports_groups(tmp_path, "pkg")
    assert not build.exports_groups(tmp_path, "missing")
    # Syntax newer than the build's Python (componentize-py runs its own): read line by line.
    newer = "x = f'{\"\\n\".join([])}'\n"
    app.write_text(newer + "Tools, Resources, Prompts, Completions, Groups = plugin.export()\n")
    assert build.exports_groups(tmp_path, "app")
    app.write_text(newer + "def f():\n    Groups = 1\nTools, Resources, Prompts, Completions = plugin.export()\n")
    assert not build.exports_groups(tmp_path, "app")
