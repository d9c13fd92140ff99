"""What the benches share: a Warden served over stdio to the official MCP client, one timed call,
and the figures they print."""

from __future__ import annotations

import contextlib
import os
import statistics
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
WARDEN = Path(os.environ.get("WARDEN_BIN", REPO / "target" / "release" / "warden"))


@contextlib.asynccontextmanager
async def warden(manifest: Path, tmp: Path, env: dict[str, str] | None = None):
    """`warden serve` on `manifest` (run in `tmp`, its state there too), as an MCP session."""
    params = StdioServerParameters(
        command=str(WARDEN),
        args=["serve", "--manifest", str(manifest)],
        env={**os.environ, "RUST_LOG": "warn", "XDG_STATE_HOME": str(tmp / "state"), **(env or {})},
        cwd=str(tmp),
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


async def call(s: ClientSession, tool: str, args: dict) -> float:
    """Seconds one successful call took; a failed call stops the bench."""
    t0 = time.perf_counter()
    r = await s.call_tool(tool, args)
    dt = time.perf_counter() - t0
    if r.is_error:
        raise RuntimeError(f"{tool} failed: {r.content}")
    return dt


def ms(v: float) -> str:
    return f"{v * 1000:.2f} ms"


def p50(times: list[float]) -> float:
    return statistics.median(times)


def p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[18] if len(times) >= 2 else times[0]
