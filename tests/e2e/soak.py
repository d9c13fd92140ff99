"""Soak: many tool calls from concurrent clients over stdio and HTTP, mixing every plugin,
while the environment misbehaves; nothing may leak and every call must be answered.

Not part of the e2e suite (pytest collects `test_*.py`); run it with `tests/soak/run`
(`SOAK_SECONDS` sets the load phase, default 60). Two `warden serve` processes share the
load: one over streamable HTTP (CLIENTS - STDIO_WORKERS sessions) and one over stdio
(STDIO_WORKERS workers multiplexed on one session). Each worker loops over echo, terminal
execute (local PTY and SSH), SFTP write/read, browser navigate + snapshot, and http_get.
Meanwhile: manifest reloads, Chromium killed, sshd restarted, HTTP clients that hang up
mid-call. Sampled every second per warden process: RSS, open fds, child processes,
Chromium processes, and SSH session shells under sshd. Checked at the end: no call went
unanswered; the audit log has one `tool_call` line per answered call (give or take the
calls whose client hung up); fds, child processes, Chromium browsers and SSH shells are back
at their baseline (Chromium's helper processes within two of it) and
RSS is within a bound of it. The samples go to `soak.csv` in the test's directory and a
before/during/after table is printed.
"""

from __future__ import annotations

import contextlib
import csv
import os
import random
import subprocess
import time
from collections import Counter
from pathlib import Path

import anyio
import psutil
import pytest
from mcp import ClientSession

from browser_helpers import CHROMIUM, chromium_processes
from browser_site import start_site
from conftest import _make_http
from sshd import SSHD, start_sshd, stop_sshd
from test_http import free_port, http_warden, mcp_session

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

SECONDS = float(os.environ.get("SOAK_SECONDS", "60"))
CLIENTS = int(os.environ.get("SOAK_CLIENTS", "20"))
STDIO_WORKERS = CLIENTS // 4
CALL_TIMEOUT = 90


def manifest_body(sshd, root: Path, site_origin: str, http_port: int) -> str:
    return sshd.host_block() + f"""
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "echo"
source = "{os.environ.get('ECHO_WASM', Path(__file__).resolve().parents[2] / 'target/wasm/wasm32-wasip2/wasm-component/warden_guest_echo.wasm')}"

[[plugin]]
name = "terminal"
source = "builtin:terminal"
limits = {{ call_timeout = "60s" }}
grants.terminal = {{ local = true, ssh_hosts = ["box"] }}

[[plugin]]
name = "sftp"
source = "builtin:sftp"
grants.sftp = {{ hosts = ["box"], roots = ["{root}"], write = true }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site_origin}"] }}

[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = {{ http_hosts = ["127.0.0.1:{http_port}"] }}
"""


class Ledger:
    """Calls made, answers got, by outcome."""

    def __init__(self) -> None:
        self.calls = Counter()
        self.answered = Counter()
        self.errors = Counter()
        self.unanswered: list[str] = []
        self.hung_up = Counter()


def sample(proc: psutil.Process, sshd_holder: dict) -> dict:
    try:
        children = proc.children(recursive=True)
        chromium = chromium_processes(proc.pid)
        row = {
            "rss_mib": round(proc.memory_info().rss / 2**20, 1),
            "fds": proc.num_fds(),
            "children": len(children) - len(chromium),
            "browsers": sum(1 for c in chromium if is_browser_main(c)),
            "chromium": len(chromium),
        }
    except psutil.Error:
        row = {"rss_mib": 0, "fds": 0, "children": 0, "browsers": 0, "chromium": 0}
    with contextlib.suppress(psutil.Error):
        row["ssh_shells"] = len(sshd_holder["sshd"].shells())
    return row


def is_browser_main(p: psutil.Process) -> bool:
    """Chromium's browser process: the one started without `--type=` (renderers, the GPU
    process, utilities and zygotes carry one)."""
    with contextlib.suppress(psutil.Error):
        return not any(a.startswith("--type=") for a in p.cmdline())
    return False


def chromium_kinds(pid: int) -> dict[str, int]:
    """Chromium processes by `--type=` (renderer, gpu-process, utility, zygote; browser for
    the main one), printed beside the fd kinds to tell what moved."""
    kinds: Counter = Counter()
    for p in chromium_processes(pid):
        with contextlib.suppress(psutil.Error):
            kind = next((a.split("=", 1)[1] for a in p.cmdline() if a.startswith("--type=")), "browser")
            kinds[kind] += 1
    return dict(kinds)


def back_to_baseline(b: dict, s: dict) -> bool:
    """Whether a settled sample shows nothing left over: no PTY or other child process and no
    Chromium browser beyond the baseline. Chromium's helper processes may differ by up to
    two: it keeps a spare renderer warm at its own discretion and a restart after a kill can
    place sites in one more process. A leaked tab per call would be dozens more, a leaked
    browser shows in `browsers`."""
    return (
        s["children"] <= b["children"]
        and s["browsers"] <= b["browsers"]
        and s["chromium"] <= b["chromium"] + CHROMIUM_SLACK
    )


CHROMIUM_SLACK = 2


def fd_kinds(pid: int) -> dict[str, int]:
    """Open fds by kind (socket, pipe, anon_inode:..., a file's directory), to tell a leak
    from a pool when the count moves."""
    kinds: Counter = Counter()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                kinds[target.split(":[")[0] if ":[" in target else os.path.dirname(target)] += 1
    return dict(kinds)


def socket_peers(pid: int, names: dict[int, str]) -> dict[str, int]:
    """Open TCP sockets by what they connect to (`names`: port -> what listens there; a
    listening socket and its accepted connections count under `listen`), to tell a pool
    from a leak when the socket count moves."""
    kinds: Counter = Counter()
    with contextlib.suppress(psutil.Error):
        for c in psutil.Process(pid).net_connections(kind="inet"):
            if c.status == psutil.CONN_LISTEN or not c.raddr:
                kinds[f"listen:{c.laddr.port}"] += 1
            else:
                kinds[f"{names.get(c.raddr.port, 'to ' + str(c.raddr.port))} {c.status.lower()}"] += 1
    return dict(kinds)


async def worker(name: str, session: ClientSession, ledger: Ledger, ctx: dict, deadline: float, rng: random.Random):
    """Loop over the plugins until the deadline. Tool errors are answers too (Chromium or
    sshd may be down for a moment); only a call with no answer is a failure."""
    term = None

    async def call(tool: str, args: dict) -> object | None:
        ledger.calls[ctx["proc"]] += 1
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                result = await session.call_tool(tool, args)
        except TimeoutError:
            ledger.unanswered.append(f"{name}: {tool} {args}")
            return None
        except Exception as e:  # a JSON-RPC error is an answer
            ledger.answered[ctx["proc"]] += 1
            ledger.errors[f"{tool}: {type(e).__name__}"] += 1
            return None
        ledger.answered[ctx["proc"]] += 1
        if result.is_error:
            ledger.errors[tool] += 1
            return None
        return result

    while time.monotonic() < deadline:
        op = rng.choice(["echo", "echo", "terminal", "terminal", "sftp", "browser", "http"])
        if op == "echo":
            await call("echo", {"text": f"{name} {rng.random()}"})
        elif op == "terminal":
            # Terminal sessions are the plugin's until closed: one that failed is closed
            # before it is forgotten. sshd allows 4 channels per connection (SFTP takes
            # one), so every fifth worker uses SSH, the others a local PTY.
            if term is None:
                r = await call("terminal_open", {"host": "box"} if ctx["ssh"] else {})
                term = r.structured_content["id"] if r else None
            if term:
                r = await call("terminal_execute", {"session_id": term, "command": "echo soak; ls / | wc -l"})
                if r is None:
                    await call("terminal_close", {"session_id": term})
                    term = None
        elif op == "sftp":
            path = f"{name}.txt"
            text = f"{name} {rng.random()}\n" * rng.randint(1, 200)
            await call("sftp_write", {"host": "box", "path": path, "content": text})
            await call("sftp_read", {"host": "box", "path": path})
        elif op == "browser":
            r = await call("browse_navigate", {"url": ctx["site"].url("/")})
            if r is not None:
                await call("browse_snapshot", {})
        else:
            await call("http_get", {"url": ctx["http_url"]})
    if term:
        await call("terminal_close", {"session_id": term})


async def hang_up_mid_call(url: str, ledger: Ledger, deadline: float) -> None:
    """Clients that start a slow call and disconnect before its answer."""
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            async with mcp_session(url) as session:
                with anyio.move_on_after(0.5):
                    ledger.hung_up["http"] += 1
                    await session.call_tool("progress", {"steps": 50})
        await anyio.sleep(2)


async def chaos(manifests: list[Path], sshd_holder: dict, procs: list[psutil.Process], start: float, deadline: float, log: list[str]) -> None:
    span = deadline - start
    events = [
        (0.20, "reload"),
        (0.35, "kill-chromium"),
        (0.50, "restart-sshd"),
        (0.65, "reload"),
        (0.80, "kill-chromium"),
    ]
    for at, what in events:
        await anyio.sleep(max(0.0, start + at * span - time.monotonic()))
        if what == "reload":
            for m in manifests:
                m.write_text(m.read_text() + f"\n# reloaded at {time.time()}\n")
        elif what == "kill-chromium":
            for p in procs:
                for c in chromium_processes(p.pid):
                    with contextlib.suppress(psutil.Error):
                        c.kill()
        elif what == "restart-sshd":
            old = sshd_holder["sshd"]
            old.proc.kill()
            old.proc.wait()
            log_file = open(old.dir / "sshd-restarted.log", "w")
            old.proc = subprocess.Popen(
                [str(SSHD), "-D", "-e", "-f", str(old.dir / "sshd_config")], stdout=log_file, stderr=log_file
            )
        log.append(f"{time.monotonic() - start:6.1f}s {what}")


async def test_soak(tmp_path, warden_bin, warden_env, helpers):
    sshd = start_sshd(tmp_path / "sshd")
    sshd_holder = {"sshd": sshd}
    root = sshd.dir / "root"
    root.mkdir()
    site = start_site()
    http = _make_http()
    env = dict(warden_env)
    manifests = []
    for name in ("http", "stdio"):
        path = tmp_path / f"{name}.toml"
        path.write_text(
            f'[server]\naudit_log = "{name}-audit.jsonl"\n\n'
            + manifest_body(sshd, root, site.origin, http.port)
        )
        manifests.append(path)
    ledger = Ledger()
    rows: list[dict] = []
    chaos_log: list[str] = []
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        with http_warden(warden_bin, manifests[0], env, f"127.0.0.1:{port}") as http_proc:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=str(warden_bin), args=["serve", "--manifest", str(manifests[1])], env=env, cwd=str(tmp_path)
            )
            with open(tmp_path / "stdio-stderr.log", "w") as errlog:
                async with stdio_client(params, errlog=errlog) as (read, write):
                    async with ClientSession(read, write) as stdio_session:
                        await stdio_session.initialize()
                        stdio_pid = next(
                            c.pid
                            for c in psutil.Process().children(recursive=True)
                            if str(manifests[1]) in " ".join(c.cmdline())
                        )
                        procs = {"http": psutil.Process(http_proc.pid), "stdio": psutil.Process(stdio_pid)}
                        ctx_base = {"site": site, "http_url": http.url("/body")}

                        async def run_phase(seconds: float, phase: str, with_chaos: bool) -> None:
                            start = time.monotonic()
                            deadline = start + seconds
                            async with anyio.create_task_group() as tg:

                                async def sampler() -> None:
                                    while time.monotonic() < deadline + 1:
                                        for pname, p in procs.items():
                                            rows.append(
                                                {"t": round(time.monotonic() - t0, 1), "phase": phase, "proc": pname}
                                                | sample(p, sshd_holder)
                                            )
                                        await anyio.sleep(1)

                                tg.start_soon(sampler)
                                for i in range(CLIENTS - STDIO_WORKERS):

                                    async def http_client(i=i) -> None:
                                        async with mcp_session(url) as s:
                                            await worker(
                                                f"h{i}", s, ledger, {**ctx_base, "proc": "http", "ssh": i % 5 == 0}, deadline, random.Random(i)
                                            )

                                    tg.start_soon(http_client)
                                for i in range(STDIO_WORKERS):
                                    tg.start_soon(
                                        worker, f"s{i}", stdio_session, ledger, {**ctx_base, "proc": "stdio", "ssh": i % 5 == 0}, deadline, random.Random(100 + i)
                                    )
                                if with_chaos:
                                    tg.start_soon(hang_up_mid_call, url, ledger, deadline)
                                    tg.start_soon(chaos, manifests, sshd_holder, list(procs.values()), start, deadline, chaos_log)

                        t0 = time.monotonic()
                        # Warm-up: every plugin once per client, so Chromium and the SSH
                        # connections exist; the baseline is taken after it settles.
                        await run_phase(min(15.0, SECONDS / 4), "warmup", False)
                        await anyio.sleep(5)
                        baseline = {n: sample(p, sshd_holder) for n, p in procs.items()}
                        kinds_before = {n: fd_kinds(p.pid) for n, p in procs.items()}
                        peers = {sshd.port: "sshd", site.server.server_address[1]: "site", http.port: "http", port: "mcp"}
                        sockets_before = {n: socket_peers(p.pid, peers) for n, p in procs.items()}
                        chromium_before = {n: chromium_kinds(p.pid) for n, p in procs.items()}
                        await run_phase(SECONDS, "load", True)
                        # Everything the workers opened is closed; idle time lets the host
                        # reap what it reaps lazily.
                        await run_phase(min(15.0, SECONDS / 4), "after-load", False)
                        settled = {}
                        for _ in range(30):
                            await anyio.sleep(1)
                            settled = {n: sample(p, sshd_holder) for n, p in procs.items()}
                            if all(
                                settled[n]["fds"] <= baseline[n]["fds"] + 8
                                and back_to_baseline(baseline[n], settled[n])
                                for n in procs
                            ):
                                break
                        for n, p in procs.items():
                            rows.append({"t": round(time.monotonic() - t0, 1), "phase": "settled", "proc": n} | sample(p, sshd_holder))
                        kinds_after = {n: fd_kinds(p.pid) for n, p in procs.items()}
                        sockets_after = {n: socket_peers(p.pid, peers) for n, p in procs.items()}
                        chromium_after = {n: chromium_kinds(p.pid) for n, p in procs.items()}
                        # Sessions still in a table are the clients' to close; none may be
                        # left, and no shell may outlive its session.
                        listed = await stdio_session.call_tool("terminal_list_sessions", {})
                        left = {"stdio": listed.structured_content["sessions"]}
                        async with mcp_session(url) as s:
                            listed = await s.call_tool("terminal_list_sessions", {})
                            left["http"] = listed.structured_content["sessions"]
                        for n in procs:
                            ledger.calls[n] += 1
                            ledger.answered[n] += 1
                        print(f"\nfds by kind, baseline: {kinds_before}\nfds by kind, settled: {kinds_after}")
                        print(f"Chromium by kind, baseline: {chromium_before}\nChromium by kind, settled: {chromium_after}")
                        print(f"Sockets by peer, baseline: {sockets_before}\nSockets by peer, settled: {sockets_after}")
    finally:
        site.close()
        http.server.shutdown()
        stop_sshd(sshd_holder["sshd"])

    with open(tmp_path / "soak.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["t", "phase", "proc", "rss_mib", "fds", "children", "browsers", "chromium", "ssh_shells"])
        w.writeheader()
        w.writerows(rows)
    report(rows, ledger, chaos_log, baseline, settled, tmp_path)

    assert not ledger.unanswered, f"calls with no answer: {ledger.unanswered[:10]}"
    assert left == {"stdio": [], "http": []}, left
    for name in ("http", "stdio"):
        lines = [l for l in helpers_audit(tmp_path / f"{name}-audit.jsonl") if l.get("event") == "tool_call"]
        answered = ledger.answered[name]
        hung = ledger.hung_up["http"] if name == "http" else 0
        assert answered <= len(lines) <= answered + hung, (name, answered, len(lines), hung)
        b, s = baseline[name], settled[name]
        # The compiled-component cache files are held per loaded registry (5 plugins); a
        # reload may keep the previous registry alive while a call still runs on it, so at
        # most two sets, whatever the number of reloads.
        cache = lambda kinds: sum(v for k, v in kinds.items() if "warden-cache" in k)  # noqa: E731
        assert cache(kinds_after[name]) <= 10, (name, "cache fds", kinds_after[name])
        others = s["fds"] - cache(kinds_after[name])
        assert others <= b["fds"] - cache(kinds_before[name]) + 8, (
            f"{name}: fds {b['fds']} -> {s['fds']}; by kind {kinds_before[name]} -> {kinds_after[name]}; "
            f"sockets {sockets_before[name]} -> {sockets_after[name]}"
        )
        assert back_to_baseline(b, s), (name, "children", b, s)
        assert s["rss_mib"] <= b["rss_mib"] * 1.5 + 64, (name, "rss", b, s)
    assert settled["http"].get("ssh_shells", 0) <= baseline["http"].get("ssh_shells", 0), (baseline, settled)


def helpers_audit(path: Path) -> list[dict]:
    import json

    if not path.exists():
        return []
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()]


def report(rows, ledger, chaos_log, baseline, settled, tmp_path) -> None:
    def stats(proc: str, phase: str, key: str) -> str:
        vals = [r[key] for r in rows if r["proc"] == proc and r["phase"] == phase and key in r]
        return f"{min(vals)}-{max(vals)}" if vals else "-"

    out = [
        f"soak: {SECONDS:.0f} s load, {CLIENTS} clients; calls {sum(ledger.calls.values())}, "
        f"answered {sum(ledger.answered.values())}, unanswered {len(ledger.unanswered)}, "
        f"hung up mid-call {sum(ledger.hung_up.values())}",
        f"tool errors (expected around the chaos events): {dict(ledger.errors)}",
        "chaos: " + "; ".join(chaos_log),
        "| process | metric | baseline | during load (min-max) | settled |",
        "|---|---|---|---|---|",
    ]
    for proc in ("http", "stdio"):
        for key in ("rss_mib", "fds", "children", "browsers", "chromium", "ssh_shells"):
            out.append(
                f"| {proc} | {key} | {baseline[proc].get(key, '-')} | {stats(proc, 'load', key)} | {settled[proc].get(key, '-')} |"
            )
    text = "\n".join(out)
    (tmp_path / "soak-report.md").write_text(text + "\n")
    print("\n" + text)
