"""Host memory per request byte, for every argument shape of a plain-export tool (the
`shapes` test guest): the shapes, how one call is measured (the warden process's VmHWM,
reset through /proc/PID/clear_refs just before the call, over its VmRSS then), and, run
as a script, the table in docs/src/benchmarks.md:

    cargo build --release -p warden -p warden-tests
    .venv/bin/python tests/e2e/request_memory.py
"""

from __future__ import annotations

import base64
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

REPO = Path(__file__).resolve().parents[2]
WASM_DIR = REPO / "target" / "wasm" / "wasm32-wasip2" / "wasm-component"
MIB = 1 << 20


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


@dataclass
class Shape:
    name: str
    tool: str
    # About `n` bytes of JSON arguments, and the count the tool answers for them.
    build: Callable[[int], tuple[dict[str, Any], int]]


def _bytes(n: int) -> tuple[dict[str, Any], int]:
    data = os.urandom(n * 3 // 4)
    return {"data": base64.b64encode(data).decode()}, len(data)


def _string(n: int) -> tuple[dict[str, Any], int]:
    return {"text": "a" * n}, n


def _strings(n: int) -> tuple[dict[str, Any], int]:
    count = n // len('"abcdefgh",')
    return {"items": ["abcdefgh"] * count}, count


def _records(n: int) -> tuple[dict[str, Any], int]:
    count = n // len('{"x":1,"y":2},')
    return {"points": [{"x": 1, "y": 2}] * count}, count


def _nested(n: int) -> tuple[dict[str, Any], int]:
    rows = n // len("[1,2,3],")
    return {"rows": [[1, 2, 3]] * rows}, 3 * rows


def _numbers(n: int) -> tuple[dict[str, Any], int]:
    count = n // len("123456,")
    return {"rows": [[123456] * count]}, count


SHAPES = [
    Shape("list<u8> (base64)", "count_bytes", _bytes),
    Shape("string", "count_text", _string),
    Shape("list<string>", "count_strings", _strings),
    Shape("list<record>", "count_points", _records),
    Shape("list<list<u32>>", "count_cells", _nested),
    Shape("list<u32> (6 digits)", "count_cells", _numbers),
]


def shapes_manifest() -> str:
    wasm = Path(os.environ.get("SHAPES_WASM", WASM_DIR / "warden_guest_shapes.wasm"))
    if not wasm.is_file():
        raise FileNotFoundError(f"{wasm}; run `cargo build --release -p warden -p warden-tests` first")
    return f'[[plugin]]\nname = "shapes"\nsource = "{wasm}"\nlimits = {{ memory = "256MiB", call_timeout = "120s" }}\n'


def _status(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


async def measure(w: Any, shape: Shape, n: int) -> tuple[Any, int, int, int]:
    """Call `shape` with about `n` bytes: (result, expected count, request bytes, peak bytes
    the host took for it)."""
    args, expected = shape.build(n)
    size = len(json.dumps(args, separators=(",", ":")))
    # The instance and the wire's buffers exist before the measure.
    await w.call(shape.tool, shape.build(1024)[0])
    Path(f"/proc/{w.pid}/clear_refs").write_text("5")
    before = _status(w.pid, "VmRSS")
    from mcp import MCPError

    try:
        result = await w.call(shape.tool, args, timeout=120)
    except MCPError as e:
        # Refused on the wire (too heavy to parse), as a protocol error.
        result = Refused([SimpleNamespace(text=f"{e.error.code}: {e.error.message}")])
    return result, expected, size, _status(w.pid, "VmHWM") - before


@dataclass
class Refused:
    """A protocol error, shaped as a tool error for the measure's callers."""

    content: list[Any]
    is_error: bool = True
    structured_content: Any = None


async def _table() -> None:
    import anyio
    import psutil
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    @dataclass
    class W:
        session: Any
        pid: int

        async def call(self, tool: str, args: dict[str, Any], timeout: float = 120) -> Any:
            with anyio.fail_after(timeout):
                return await self.session.call_tool(tool, args)

    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "warden.toml"
        manifest.write_text(f'[server]\naudit_log = "audit.jsonl"\n\n{shapes_manifest()}')
        binary = os.environ.get("WARDEN_BIN", str(REPO / "target" / "release" / "warden"))
        print("| shape | request | host peak | host bytes per byte | answer |")
        print("|---|---:|---:|---:|---|")
        for shape in SHAPES:
            for mib in (0.25, 1, 4, 16):
                params = StdioServerParameters(command=binary, args=["serve", "--manifest", str(manifest)], cwd=tmp)
                with open(os.devnull, "w") as errlog:
                    async with stdio_client(params, errlog=errlog) as (read, write):
                        async with ClientSession(read, write) as session:
                            await session.initialize()
                            pid = next(
                                c.pid for c in psutil.Process().children(recursive=True) if str(manifest) in c.cmdline()
                            )
                            result, expected, size, peak = await measure(W(session, pid), shape, int(mib * MIB))
                answer = (
                    "refused: " + text_of(result).split(":", 1)[-1].strip()[:60] + "..."
                    if result.is_error
                    else ("ok" if result.structured_content == {"result": expected} else "WRONG")
                )
                print(
                    f"| {shape.name} | {size / MIB:.2f} MiB | {peak / MIB:.0f} MiB | {peak / size:.1f} | {answer} |",
                    flush=True,
                )


if __name__ == "__main__":
    import anyio

    sys.exit(anyio.run(_table))
