"""Test plugin for the Python SDK: echo, a raised exception, an endless loop, a memory bomb,
one capability call, and a counter kept in the host's state."""

from dataclasses import dataclass, field
from typing import Annotated, Literal

from warden_sdk import Field, Plugin, capture, state

plugin = Plugin()

# Lives as long as the instance: a cache of one conversation, never another's.
calls = 0


@dataclass
class EchoArgs:
    text: Annotated[str, "The text to return."]


@plugin.tool(read_only=True, idempotent=True)
def echo(args: EchoArgs) -> str:
    """Return `text` unchanged."""
    return args.text


@dataclass
class Options:
    """Nested options."""

    mode: Literal["fast", "slow"] = "fast"
    """How to go."""
    tags: list[str] = field(default_factory=list)


@dataclass
class ShapeArgs:
    count: Annotated[int, Field(description="How many, 1 to 10.", minimum=1, maximum=10)]
    ratio: float | None = None
    """An optional ratio."""
    options: Options | None = None


@plugin.tool(read_only=True)
def shape(args: ShapeArgs) -> dict[str, object]:
    """Echo typed arguments back as structured output."""
    opts = args.options or Options()
    return {"count": args.count, "ratio": args.ratio, "mode": opts.mode, "tags": opts.tags}


@plugin.tool()
def count() -> str:
    """Count this conversation's calls in the host's state, and this instance's in memory."""
    global calls
    calls += 1
    kept = (state.get_json("count") or 0) + 1
    state.set_json("count", kept)
    return f"kept {kept}, in memory {calls}"


@plugin.tool()
def boom() -> str:
    """Raise an uncaught exception."""
    raise ValueError("the fixture exploded on purpose")


@plugin.tool()
def spin() -> str:
    """Loop forever."""
    n = 0
    while True:
        n += 1


@plugin.tool()
def hog() -> str:
    """Allocate without bound."""
    chunks = []
    while True:
        chunks.append(bytearray(8 * 1024 * 1024))


@dataclass
class StatusArgs:
    url: Annotated[str, "The URL to GET through the host."]


@plugin.tool(read_only=True, open_world=True)
def status(args: StatusArgs) -> str:
    """GET a URL through the host and return its HTTP status."""
    return f"HTTP {capture.http_get(args.url, timeout_ms=5000).status}"


Tools, Resources, Prompts, Completions = plugin.export()
