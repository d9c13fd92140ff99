"""The admin listener (`[admin] listen`, `--admin`): Prometheus metrics that agree with the
audit log, liveness and readiness probes, counters that survive a manifest reload, and what
the listener must never do (share the MCP port, show tokens or arguments). Per-client limits
of the HTTP transport: 429 with Retry-After, and one client over its limit does not slow the
others."""

from __future__ import annotations

import os
import subprocess
import time

import anyio
import httpx2
import pytest

from ops_helpers import (
    audit_counts,
    free_port,
    get,
    mcp_session,
    metric_counts,
    scrape,
    serve,
    subtract,
    total,
)

# Alone, after the parallel tests (tests/run): a request the host refuses (401, 429) before
# reading its body can find its kept-alive connection closed by the host (hyper closes a
# connection whose request body was left unread), and a loaded machine widens that window.
pytestmark = [pytest.mark.anyio, pytest.mark.serial]

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def clients_block(**clients: str) -> str:
    """[server.http.clients.NAME] blocks: NAME = extra TOML lines (the token comes from NAME_TOKEN)."""
    return "".join(
        f'[server.http.clients.{name}]\ntoken_env = "{name.upper()}_TOKEN"\n{extra}\n\n' for name, extra in clients.items()
    )


def ops_manifest(write_manifest, helpers, echo_wasm, hostile_wasm, admin: str | None = None, clients: str = ""):
    body = f'[admin]\nlisten = "{admin}"\n\n' if admin else ""
    body += clients
    body += helpers.plugin_block("echo", echo_wasm, 'tools = { allow = ["*"], deny = ["count"] }')
    body += helpers.plugin_block("hostile", hostile_wasm, 'limits = { call_timeout = "1s" }')
    return write_manifest(body)


async def test_metrics_agree_with_the_audit_log_and_leak_nothing(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, hostile_wasm
):
    token = "alice-token-" + os.urandom(12).hex()
    secret_arg = "ARGUMENT-" + os.urandom(8).hex()
    admin = f"127.0.0.1:{free_port()}"
    manifest = ops_manifest(write_manifest, helpers, echo_wasm, hostile_wasm, admin=admin, clients=clients_block(alice=""))
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with serve(warden_bin, manifest.path, {**warden_env, "ALICE_TOKEN": token}, f"127.0.0.1:{port}"):
        assert get(f"http://{admin}/healthz")[0] == 200
        assert get(f"http://{admin}/readyz")[0] == 200
        before = scrape(admin)
        async with mcp_session(url, headers={"Authorization": f"Bearer {token}"}) as session:
            for _ in range(3):
                result = await session.call_tool("echo", {"text": secret_arg})
                assert not result.is_error
            assert (await session.call_tool("panic", {})).is_error
            assert (await session.call_tool("spin", {})).is_error
            assert (await session.call_tool("connect", {"addr": "127.0.0.1:9"})).is_error
        after = scrape(admin)

        # The listener is not the MCP endpoint, and the MCP port has no admin endpoints.
        status, _, _ = get(f"http://{admin}/mcp")
        assert status == 404, status
        async with httpx2.AsyncClient() as client:
            on_mcp_port = await client.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {token}"})
            assert on_mcp_port.status_code == 404, on_mcp_port.text
            posted = await client.post(f"http://{admin}/mcp", json=INIT, headers=ACCEPT)
            assert posted.status_code in (404, 405), posted.text

        _, raw, _ = get(f"http://{admin}/metrics")
    assert token not in raw and secret_arg not in raw and "127.0.0.1:9" not in raw, "metrics leak"

    lines = manifest.audit_lines()
    from_audit = audit_counts(lines)
    from_metrics = subtract(metric_counts(after), metric_counts(before))
    assert from_metrics == from_audit, (from_metrics, from_audit)
    assert from_audit["calls"][("tool_call", "echo", "echo", "ok")] == 3
    assert from_audit["restarts"]["hostile"] == 2, from_audit
    assert from_audit["denials"], "the socket attempt was not denied"
    assert total(after, "warden_limit_hits_total", limit="call_timeout", scope="hostile") == 1
    assert total(after, "warden_call_duration_seconds_count", plugin="echo", tool="echo") == 3
    assert total(after, "warden_ready") == 1
    assert total(after, "warden_sessions_active", kind="browser") == 0


async def test_counters_survive_a_manifest_reload(warden_bin, warden_env, write_manifest, helpers, echo_wasm, hostile_wasm):
    admin = f"127.0.0.1:{free_port()}"
    manifest = ops_manifest(write_manifest, helpers, echo_wasm, hostile_wasm, admin=admin)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with serve(warden_bin, manifest.path, warden_env, f"127.0.0.1:{port}") as proc:
        async with mcp_session(url) as session:
            assert not (await session.call_tool("echo", {"text": "before"})).is_error
        before = scrape(admin)
        assert total(before, "warden_calls_total", tool="echo") == 1
        manifest.path.write_text(manifest.path.read_text() + "\n# edited\n")
        log = manifest.path.parent / f"serve-127.0.0.1_{port}.log"
        deadline = time.monotonic() + 30
        while "manifest reloaded" not in log.read_text():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.05)
        async with mcp_session(url) as session:
            assert not (await session.call_tool("echo", {"text": "after"})).is_error
        after = scrape(admin)
    assert total(after, "warden_calls_total", tool="echo") == 2, after
    assert total(after, "warden_manifest_reloads_total", result="applied") == 1
    assert total(after, "warden_ready") == 1


def test_the_admin_listener_refuses_the_mcp_address(warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    port = free_port()
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    out = subprocess.run(
        [str(warden_bin), "serve", "--manifest", str(manifest.path), "--http", f"127.0.0.1:{port}", "--admin", f"127.0.0.1:{port}"],
        env={**os.environ, **warden_env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0 and "address of its own" in out.stderr, out.stderr


def test_limits_and_admin_errors_name_the_line(warden_bin, warden_env, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(
        '[admin]\nlisten = "not-an-address"\n\n'
        + clients_block(alice='rate = "lots"\nmax_concurrent = 0')
        + helpers.plugin_block("echo", echo_wasm)
    )
    out = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(manifest.path)],
        env={**os.environ, **warden_env, "ALICE_TOKEN": "x" * 20},
        capture_output=True,
        text=True,
        timeout=60,
    )
    err = out.stdout + out.stderr
    assert out.returncode != 0, err
    name = manifest.path.name
    assert f'{name}:5:' in err and "admin.listen" in err, err
    assert f"{name}:9:" in err and "clients.alice.rate" in err and '"20/s"' in err, err
    assert f"{name}:10:" in err and "clients.alice.max_concurrent" in err, err


async def test_rate_and_concurrency_limits_answer_429_per_client(
    warden_bin, warden_env, write_manifest, helpers, echo_wasm, hostile_wasm
):
    tokens = {name: f"{name}-token-{os.urandom(12).hex()}" for name in ("alice", "bob", "carol")}
    admin = f"127.0.0.1:{free_port()}"
    manifest = ops_manifest(
        write_manifest,
        helpers,
        echo_wasm,
        hostile_wasm,
        admin=admin,
        clients=clients_block(alice='rate = "5/s"', bob="", carol="max_concurrent = 1"),
    )
    env = {**warden_env, **{f"{n.upper()}_TOKEN": t for n, t in tokens.items()}}
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    auth = {name: {**ACCEPT, "Authorization": f"Bearer {t}"} for name, t in tokens.items()}
    with serve(warden_bin, manifest.path, env, f"127.0.0.1:{port}"):
        async with httpx2.AsyncClient(timeout=30) as client:
            # alice floods: past her burst of 5 she is answered 429 with a Retry-After.
            flood = [await client.post(url, json=INIT, headers=auth["alice"]) for _ in range(20)]
            statuses = [r.status_code for r in flood]
            assert statuses[:5] == [200] * 5, statuses
            limited = [r for r in flood if r.status_code == 429]
            assert len(limited) >= 10, statuses
            assert all(int(r.headers["retry-after"]) >= 1 for r in limited), limited[0].headers
            assert "rate limit of 5/s" in limited[0].text, limited[0].text

            # ...while bob, flooding at the same time, is never limited.
            async def alice_floods():
                for _ in range(50):
                    await client.post(url, json=INIT, headers=auth["alice"])

            bob = []

            async def bob_calls():
                for _ in range(20):
                    bob.append((await client.post(url, json=INIT, headers=auth["bob"])).status_code)

            async with anyio.create_task_group() as tg:
                tg.start_soon(alice_floods)
                tg.start_soon(bob_calls)
            assert bob == [200] * 20, bob

        # carol may have one request in flight: a second one while a slow call runs is 429.
        async with mcp_session(url, headers={"Authorization": f"Bearer {tokens['carol']}"}) as session:
            async with httpx2.AsyncClient(timeout=30) as client:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(session.call_tool, "spin", {})
                    await anyio.sleep(0.4)
                    second = await client.post(url, json=INIT, headers=auth["carol"])
                assert second.status_code == 429, second.text
                assert "max_concurrent" in second.text and second.headers["retry-after"] == "1"
                # Once the slow call is answered, the permit is back (when its stream closes).
                with anyio.fail_after(5):
                    while (again := await client.post(url, json=INIT, headers=auth["carol"])).status_code == 429:
                        await anyio.sleep(0.05)
                assert again.status_code == 200, again.text
        metrics = scrape(admin)
    assert total(metrics, "warden_limit_hits_total", limit="rate", scope="alice") >= 10
    assert total(metrics, "warden_limit_hits_total", limit="concurrency", scope="carol") == 1
    assert total(metrics, "warden_limit_hits_total", scope="bob") == 0
