"""Hostile guest programs: limits, traps, no ambient authority, cancellation."""

from __future__ import annotations

import select
import socket
import time

import anyio
import pytest

pytestmark = pytest.mark.anyio

GRANT_KEY = "grants.capture.http_hosts"
OUTPUT_LIMIT = 256 * 1024
NOTE_ALLOWANCE = 4 * 1024


@pytest.fixture()
def hostile_manifest(write_manifest, helpers, echo_wasm, hostile_wasm):
    """echo (its `count` denied, so the names do not collide) + hostile with tight limits and no grants."""
    body = helpers.plugin_block("echo", echo_wasm, 'tools = { allow = ["*"], deny = ["count"] }')
    body += helpers.plugin_block(
        "hostile", hostile_wasm, 'limits = { call_timeout = "2s", memory = "64MiB", output = "256KiB" }'
    )
    return write_manifest(body)


def tool_calls(manifest, tool):
    return [line for line in manifest.audit_lines() if line["event"] == "tool_call" and line["tool"] == tool]


async def test_spin_times_out(start_warden, hostile_manifest, helpers):
    async with start_warden(hostile_manifest) as w:
        await w.assert_echo()
        started = time.monotonic()
        result = await w.call("spin", timeout=20)
        elapsed = time.monotonic() - started
        text = helpers.text_of(result)
        assert result.is_error, text
        assert text.startswith("timeout"), text
        assert "call_timeout" in text, text
        assert elapsed >= 1.5, f"spin returned after {elapsed:.2f}s, before its 2s call_timeout"
        await w.assert_echo()
        # The interrupted instance is usable again (or replaced).
        result = await w.call("count", timeout=10)
        assert not result.is_error, helpers.text_of(result)
        assert helpers.text_of(result).isdigit(), helpers.text_of(result)

    spins = tool_calls(hostile_manifest, "spin")
    assert len(spins) == 1, spins
    helpers.check_audit_line(spins[0])
    assert spins[0]["plugin"] == "hostile" and spins[0]["outcome"] == "timeout", spins[0]


async def test_alloc_bomb_is_contained(start_warden, hostile_manifest, helpers):
    async with start_warden(hostile_manifest) as w:
        result = await w.call("alloc_bomb", timeout=20)
        text = helpers.text_of(result)
        assert result.is_error, text
        assert text.startswith("plugin crashed") and "limits.memory" in text, text
        await w.assert_echo()
        result = await w.call("count", timeout=10)
        assert not result.is_error, helpers.text_of(result)
        # The server process itself stayed far below what an unbounded guest would reach.
        rss = w.process().memory_info().rss
        assert rss < 1024 * 1024 * 1024, f"warden RSS {rss} bytes after alloc_bomb"

    bombs = tool_calls(hostile_manifest, "alloc_bomb")
    assert len(bombs) == 1, bombs
    assert bombs[0]["outcome"] in ("trap", "tool_error"), bombs[0]


async def test_a_trap_leaves_nothing_behind(start_warden, hostile_manifest, helpers):
    async with start_warden(hostile_manifest) as w:
        # A static counter in the plugin's memory: the conversation's calls share an
        # instance while they return, and a trap drops it.
        assert [helpers.text_of(await w.call("count")) for _ in range(3)] == ["1", "2", "3"]

        result = await w.call("panic")
        text = helpers.text_of(result)
        assert result.is_error, text
        assert text.startswith("plugin crashed") and "other calls are not affected" in text, text
        await w.assert_echo()
        assert helpers.text_of(await w.call("count")) == "1"

    panics = tool_calls(hostile_manifest, "panic")
    assert len(panics) == 1 and panics[0]["outcome"] == "trap", panics


async def test_no_ambient_authority(start_warden, hostile_manifest, helpers, http_server):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        async with start_warden(hostile_manifest) as w:
            # Filesystem: nothing is preopened.
            for path in ("/etc/passwd", "warden.toml", str(hostile_manifest.path)):
                result = await w.call("read_file", {"path": path})
                text = helpers.text_of(result)
                assert result.is_error, f"read_file({path!r}) succeeded: {text[:200]}"
                assert "root:" not in text and "[[plugin]]" not in text, text
            await w.assert_echo()

            # Sockets: no raw network access, even to loopback.
            result = await w.call("connect", {"addr": f"127.0.0.1:{port}"})
            text = helpers.text_of(result)
            assert result.is_error, f"connect succeeded: {text}"
            readable, _, _ = select.select([listener], [], [], 0.3)
            assert not readable, "the guest's connection reached the listening socket"
            await w.assert_echo()

            # Environment: the host's variables are not visible.
            for name in ("HOME", "PATH", "WARDEN_CACHE_DIR"):
                result = await w.call("read_env", {"name": name})
                assert not result.is_error, helpers.text_of(result)
                assert helpers.text_of(result) == "unset", (name, helpers.text_of(result))

            # Host HTTP without a capture grant.
            result = await w.call("fetch", {"url": http_server.url("/body?hostile")})
            text = helpers.text_of(result)
            assert result.is_error, text
            assert text.startswith("access denied"), text
            assert GRANT_KEY in text, text
            assert http_server.requests == [], "the denied fetch reached the server"
            await w.assert_echo()
    finally:
        listener.close()

    lines = hostile_manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    denied = [line for line in lines if line["event"] == "capability_denied"]
    fetches = [d for d in denied if d["tool"] == "fetch"]
    assert len(fetches) == 1, denied
    assert fetches[0]["plugin"] == "hostile" and fetches[0]["capability"] == "capture.http", fetches[0]
    assert f"127.0.0.1:{http_server.port}" in fetches[0]["target"], fetches[0]
    sockets = [d for d in denied if d["tool"] == "connect"]
    assert sockets, f"no capability_denied line for the socket attempt: {denied}"
    assert all(d["capability"] == "wasi:sockets" for d in sockets), sockets
    # Creating the socket is refused, so no address was ever given to the host.
    assert [d["target"] for d in sockets] == ["a TCP socket"], sockets
    # An empty environment and no directories are what every instance is given: reading
    # them is no refusal (language runtimes read both at start), and no file was opened.
    capabilities = {d["capability"] for d in denied}
    assert not {"wasi:filesystem", "wasi:environment"} & capabilities, denied
    envs = tool_calls(hostile_manifest, "read_env")
    assert [e["outcome"] for e in envs] == ["ok"] * 3, envs


async def test_output_limits(start_warden, hostile_manifest, helpers):
    async with start_warden(hostile_manifest) as w:
        small = await w.call("flood", {"bytes": 1000})
        assert not small.is_error, helpers.text_of(small)[:200]
        assert helpers.text_of(small) == "x" * 1000

        result = await w.call("flood", {"bytes": 10_000_000}, timeout=30)
        text = helpers.text_of(result)
        assert len(text) <= OUTPUT_LIMIT + NOTE_ALLOWANCE, f"flood returned {len(text)} chars"
        # Either an error or a cut result; both name the limit so the agent knows why.
        assert "limits.output" in text, text[-500:]
        if not result.is_error:
            assert text.count("x") <= OUTPUT_LIMIT, len(text)
        await w.assert_echo()

        stderr_before = w.stderr_path.stat().st_size
        result = await w.call("stderr_flood", {"bytes": 10_000_000}, timeout=30)
        stderr_growth = w.stderr_path.stat().st_size - stderr_before
        print(f"stderr_flood: isError={result.is_error} text={helpers.text_of(result)[:100]!r} "
              f"server stderr grew by {stderr_growth} bytes")
        # Guest output goes to the host log, but a guest cannot flood it without bound.
        assert stderr_growth < 2 * 1024 * 1024, f"10 MB of guest stderr grew the server's log by {stderr_growth} bytes"
        await w.assert_echo()
        result = await w.call("count", timeout=10)
        assert not result.is_error, helpers.text_of(result)
        assert w.process().is_running()


async def test_two_plugins_spin_concurrently(start_warden, write_manifest, helpers, hostile_wasm):
    limits = 'limits = { call_timeout = "2s" }'
    body = helpers.plugin_block("hostile", hostile_wasm, limits)
    body += helpers.plugin_block("hostile2", hostile_wasm, f'tool_prefix = "b_"\n{limits}')
    manifest = write_manifest(body)
    async with start_warden(manifest) as w:
        listed = {t.name for t in (await w.session.list_tools()).tools}
        assert {"spin", "b_spin", "count", "b_count"} <= listed, listed

        results: dict[str, object] = {}
        ended: dict[str, float] = {}

        async def spin(name: str) -> None:
            results[name] = await w.call(name, timeout=20)
            ended[name] = time.monotonic()

        async with anyio.create_task_group() as tg:
            tg.start_soon(spin, "spin")
            tg.start_soon(spin, "b_spin")
            await anyio.sleep(0.3)
            started = time.monotonic()
            with anyio.fail_after(10):
                during = await w.session.list_tools()
                await w.session.send_ping()
            answered = time.monotonic()
            print(f"tools/list + ping answered in {answered - started:.3f}s while two guests spin")
            assert {t.name for t in during.tools} == listed

        assert set(results) == {"spin", "b_spin"}
        for name, result in results.items():
            text = helpers.text_of(result)
            assert result.is_error and text.startswith("timeout"), (name, text)
        assert answered < min(ended.values()), "tools/list waited for the spinning guests"

    spins = [line for line in manifest.audit_lines() if line["event"] == "tool_call"]
    assert sorted(line["plugin"] for line in spins) == ["hostile", "hostile2"], spins
    assert all(line["outcome"] == "timeout" for line in spins), spins


def _cpu_seconds(proc) -> float:
    times = proc.cpu_times()
    return times.user + times.system


async def _cancel_after(w, tool: str, delay: float) -> dict[str, float]:
    """Call `tool`, measure CPU while it runs, cancel the call after `delay` seconds."""
    proc = w.process()
    outcome: dict[str, object] = {}
    scope = anyio.CancelScope()

    async def run() -> None:
        with scope:
            outcome["result"] = await w.session.call_tool(tool, {})

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await anyio.sleep(0.2)
        c0 = _cpu_seconds(proc)
        await anyio.sleep(max(delay - 0.2, 0.1))
        c1 = _cpu_seconds(proc)
        scope.cancel()
    assert "result" not in outcome, f"{tool} returned before it was cancelled: {outcome}"
    return {"busy": c1 - c0}


async def _cpu_after_cancel(w) -> float:
    """CPU seconds the warden process uses in one second, half a second after the cancel."""
    proc = w.process()
    await anyio.sleep(0.5)
    c2 = _cpu_seconds(proc)
    await anyio.sleep(1.0)
    c3 = _cpu_seconds(proc)
    return c3 - c2


@pytest.fixture()
def slow_manifest(write_manifest, helpers, echo_wasm, hostile_wasm):
    body = helpers.plugin_block("echo", echo_wasm, 'tools = { allow = ["echo"] }')
    body += helpers.plugin_block("hostile", hostile_wasm, 'limits = { call_timeout = "60s" }')
    return write_manifest(body)


@pytest.mark.parametrize("tool", ["spin", "spin_checking"])
async def test_cancel_stops_guest(start_warden, slow_manifest, helpers, tool):
    async with start_warden(slow_manifest) as w:
        busy = await _cancel_after(w, tool, 0.8)
        print(f"{tool}: CPU while running {busy['busy']:.2f}s over 0.6s")
        # The measurement works: a running guest burns CPU.
        assert busy["busy"] > 0.1, f"no CPU use measured while {tool} ran: {busy}"

        idle = await _cpu_after_cancel(w)
        print(f"{tool}: CPU in the 1s after cancel {idle:.3f}s")
        assert idle < 0.3, f"warden used {idle:.2f}s CPU in 1s after {tool} was cancelled: the guest still runs"

        # The plugin is free again (calls into one instance are serialized).
        result = await w.call("count", timeout=10)
        assert not result.is_error, helpers.text_of(result)
        await w.assert_echo()

    lines = await helpers.wait_for(lambda: tool_calls(slow_manifest, tool), timeout=5)
    assert len(lines) == 1, lines
    helpers.check_audit_line(lines[0])
    expected = ("cancelled",) if tool == "spin" else ("cancelled", "ok")
    assert lines[0]["outcome"] in expected, lines[0]


async def test_a_hidden_tool_is_neither_listed_nor_callable(start_warden, write_manifest, helpers, echo_wasm):
    """`tools = [...]` is an allowlist enforced by the host: a tool left out cannot be reached
    by a client that knows its name."""
    from mcp import MCPError

    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm, 'tools = ["echo", "prog*"]'))
    async with start_warden(manifest) as w:
        listed = sorted(t.name for t in (await w.session.list_tools()).tools)
        assert listed == ["echo", "progress"], listed
        await w.assert_echo()
        for hidden in ("count", "log"):
            with pytest.raises(MCPError) as error:
                await w.call(hidden, {})
            assert f'unknown tool "{hidden}"' in str(error.value), error.value
    assert not tool_calls(manifest, "count"), "a hidden tool reached the plugin"


def test_a_memory_limit_below_the_plugins_start_names_the_size_to_set(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm
):
    """A `limits.memory` too small for the component's initial memory could never start it: the
    load error says how much to set, not the engine's words about its allocator."""
    import os
    import subprocess

    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm, 'limits = { memory = "64KiB" }'))
    checked = subprocess.run(
        [str(warden_bin), "check", "-m", str(manifest.path)],
        env={**os.environ, **warden_env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = checked.stdout + checked.stderr
    assert checked.returncode == 1, out
    assert "MiB of memory to start" in out and 'limits = { memory = "' in out, out
    assert "pooling allocator" not in out, out
