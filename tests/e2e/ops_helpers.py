"""Helpers for the operations tests: starting `warden serve --http` with an admin listener,
scraping and parsing its metrics, and counting the audit lines the metrics must agree with."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 10) -> tuple[int, str, dict[str, str]]:
    """GET `url`: (status, body, headers), without raising on an error status."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode(), {k.lower(): v for k, v in r.headers.items()}
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), {k.lower(): v for k, v in e.headers.items()}


def parse_metrics(text: str) -> dict[tuple[str, frozenset], float]:
    """{(name, frozenset(labels)): value} of every sample."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a metrics sample: {line!r}"
        name, labels, value = m.groups()
        samples[(name, frozenset(LABEL.findall(labels or "")))] = float(value)
    return samples


def total(samples: dict, name: str, **labels: str) -> float:
    """Sum of the samples of `name` whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= set(ls))


def scrape(admin: str) -> dict:
    status, body, headers = get(f"http://{admin}/metrics")
    assert status == 200, body
    assert headers.get("content-type", "").startswith("application/openmetrics-text"), headers
    assert body.endswith("# EOF\n"), body[-200:]
    return parse_metrics(body)


def audit_counts(lines: list[dict[str, Any]]) -> dict[str, Counter]:
    """What the metrics derive from the audit log, counted from the log itself."""
    calls = Counter()
    denials = Counter()
    restarts = Counter()
    for line in lines:
        if line["event"] in ("tool_call", "resource_read", "prompt_get", "completion"):
            calls[(line["event"], line["plugin"], line["tool"], line["outcome"])] += 1
            if line["outcome"] in ("timeout", "trap"):
                restarts[line["plugin"]] += 1
        elif line["event"] == "capability_denied":
            denials[(line["plugin"], line["capability"])] += 1
    return {"calls": calls, "denials": denials, "restarts": restarts}


def metric_counts(samples: dict) -> dict[str, Counter]:
    calls = Counter()
    denials = Counter()
    restarts = Counter()
    for (name, labels), value in samples.items():
        ls = dict(labels)
        if name == "warden_calls_total" and value:
            calls[(ls["event"], ls["plugin"], ls["tool"], ls["outcome"])] += int(value)
        elif name == "warden_denials_total" and value:
            denials[(ls["plugin"], ls["capability"])] += int(value)
        elif name == "warden_plugin_restarts_total" and value:
            restarts[ls["plugin"]] += int(value)
    return {"calls": calls, "denials": denials, "restarts": restarts}


def subtract(after: dict[str, Counter], before: dict[str, Counter]) -> dict[str, Counter]:
    return {k: after[k] - before.get(k, Counter()) for k in after}


@contextlib.contextmanager
def serve(
    warden_bin: Path,
    manifest: Path,
    env: dict[str, str],
    http: str,
    admin: str | None = None,
    log_name: str | None = None,
    replica: str | None = None,
) -> Iterator[subprocess.Popen]:
    """`warden serve --http HTTP [--admin ADMIN] [--replica NAME]`, up once it says it serves."""
    log = manifest.parent / (log_name or f"serve-{http.replace(':', '_')}.log")
    args = [str(warden_bin), "serve", "--manifest", str(manifest), "--http", http]
    if admin:
        args += ["--admin", admin]
    if replica:
        args += ["--replica", replica]
    with open(log, "w") as errlog:
        proc = subprocess.Popen(
            args, env={**os.environ, **env}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog
        )
        try:
            deadline = time.monotonic() + 60
            while "serving MCP at" not in log.read_text(errors="replace"):
                assert proc.poll() is None, f"warden exited: {log.read_text()}"
                assert time.monotonic() < deadline, f"warden did not start: {log.read_text()}"
                time.sleep(0.05)
            yield proc
        finally:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=15)


@contextlib.asynccontextmanager
async def mcp_session(url: str, headers: dict[str, str] | None = None, **session_kw):
    """An initialized MCP client session over streamable HTTP (`session_kw`: for the
    `ClientSession`, such as a `message_handler`)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers=headers) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, **session_kw) as session:
                with anyio.fail_after(30):
                    await session.initialize()
                yield session


DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "src" / "deploy"


@contextlib.contextmanager
def haproxy(dir: Path, port: int, replicas: list[tuple[int, int]]) -> Iterator[subprocess.Popen]:
    """HAProxy on 127.0.0.1:`port` with the documented configuration (docs/src/deploy), in
    front of `replicas` [(mcp_port, admin_port)]; up once every replica passes /readyz."""
    cfg = (DEPLOY / "haproxy.cfg").read_text()
    cfg = cfg.replace("bind 127.0.0.1:8930", f"bind 127.0.0.1:{port}")
    cfg = cfg.replace("/etc/haproxy/warden-503.http", str(DEPLOY / "warden-503.http"))
    cfg = re.sub(r"^    server .*\n", "", cfg, flags=re.M)
    # The documented file names three replicas: route only to those that run here.
    for n in range(len(replicas) + 1, 10):
        cfg = re.sub(rf"^    use-server r{n} .*\n", "", cfg, flags=re.M)
    cfg += "".join(
        f"    server r{i + 1} 127.0.0.1:{mcp} check port {admin}\n" for i, (mcp, admin) in enumerate(replicas)
    )
    # A stats socket, so the test can wait until HAProxy sees every replica up.
    sock = dir / "haproxy.sock"
    cfg = cfg.replace("global\n", f"global\n    stats socket {sock} level admin\n", 1)
    path = dir / "haproxy.cfg"
    path.write_text(cfg)
    check = subprocess.run(["haproxy", "-c", "-f", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    log = open(dir / "haproxy.log", "w")
    proc = subprocess.Popen(["haproxy", "-db", "-f", str(path)], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, (dir / "haproxy.log").read_text()
            up = 0
            if sock.exists():
                with contextlib.suppress(OSError):
                    with socket.socket(socket.AF_UNIX) as s:
                        s.connect(str(sock))
                        s.sendall(b"show stat\n")
                        data = b""
                        while chunk := s.recv(65536):
                            data += chunk
                    up = sum(1 for line in data.decode().splitlines() if line.startswith("warden,r") and ",UP," in line)
            if up == len(replicas):
                break
            assert time.monotonic() < deadline, f"HAProxy does not see the replicas up: {up}"
            time.sleep(0.1)
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def server_state(dir: Path) -> dict[str, str]:
    """{server: status} as HAProxy sees it."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(dir / "haproxy.sock"))
        s.sendall(b"show stat\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    states = {}
    for line in data.decode().splitlines():
        fields = line.split(",")
        if fields[0] == "warden" and fields[1].startswith("r"):
            states[fields[1]] = fields[17]
    return states
