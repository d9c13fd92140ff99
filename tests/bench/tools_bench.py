"""tools/list cost: what every agent pays on every connection, Warden's plugins against the
pinned Playwright MCP (tests/bench/package.json).

    .venv/bin/python tests/bench/tools_bench.py [--dump DIR]

Needs target/release/warden and, for the comparison, the pinned Playwright MCP in
tests/bench/node_modules (npm ci there; see browser_bench.py). Tokens are characters / 4 of
the JSON `tools/list` result, serialized as `json.dumps` does by default. Goal: the built-in
default manifest's whole list at most 0.6 of Playwright's default. Also the cost of each tool
group of each plugin (`tools = { groups = [...] }`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "bench"))
from browser_bench import CHROMIUM, node_bin  # noqa: E402

PLUGINS = ["browser", "terminal", "sftp", "capture"]
# Each plugin's tool groups (the `warden:plugin/groups` names), for the cost per group.
GROUPS = {
    "browser": ["core", "forms", "pages", "sessions", "network", "emulation", "script", "search", "flows"],
    "terminal": ["shell", "screen"],
    "sftp": ["files"],
    "capture": ["http", "pages"],
}
# A lean tool set an admin might pick for form-filling agents (`tools = [...]` in the manifest).
LEAN_BROWSER = ["browse_navigate", "browse_snapshot", "browse_click", "browse_fill"]


def tokens(value) -> int:
    return (len(json.dumps(value)) + 3) // 4


def tools_list(command: list[str], cwd: Path, env: dict[str, str]) -> dict:
    """Starts an MCP server on stdio, initializes it and returns its tools/list result."""
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdin and proc.stdout

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def answer(id_: int) -> dict:
        for line in proc.stdout:
            message = json.loads(line)
            if message.get("id") == id_:
                if "error" in message:
                    raise RuntimeError(f"{command[0]}: {message['error']}")
                return message["result"]
        raise RuntimeError(f"{command[0]} closed stdout")

    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tools-bench", "version": "1"}}
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        return answer(2)
    finally:
        proc.kill()
        proc.wait()


def warden(tmp: Path, plugin: str | None, tools: list[str] | None = None, group: str | None = None) -> dict:
    """tools/list of one built-in plugin (every group listed: no grant is missing, since a
    group's grants are checked only for listing), or of the built-in default manifest."""
    bin_ = os.environ.get("WARDEN_BIN", str(REPO / "target" / "release" / "warden"))
    env = {**os.environ, "RUST_LOG": "warn", "WARDEN_CACHE_DIR": str(tmp / "cache")}
    if plugin is None:
        return tools_list([bin_, "serve"], tmp, env)
    manifest = tmp / f"{plugin}-{len(tools or [])}-{group}.toml"
    only = f"tools = {json.dumps(tools)}\n" if tools else ""
    if group:
        only = f'tools = {{ groups = ["{group}"] }}\n'
    manifest.write_text(
        f'[server]\naudit_log = "audit.jsonl"\n\n[ssh.hosts.box]\naddress = "127.0.0.1:22"\nuser = "u"\n'
        f'agent = true\nknown_hosts = "/dev/null"\n\n'
        f'[[plugin]]\nname = "{plugin}"\nsource = "builtin:{plugin}"\n{only}{GRANTS[plugin]}\n'
    )
    return tools_list([bin_, "serve", "--manifest", str(manifest)], tmp, env)


# Grants that list every group of a plugin (a group whose grants are all missing is not listed).
GRANTS = {
    "browser": 'grants.browser = { origins = ["https://*"] }',
    "terminal": "grants.terminal = { local = true }",
    "sftp": 'grants.sftp = { hosts = ["box"], roots = ["/srv"] }',
    "capture": 'grants.capture = { http_hosts = ["*:443"], origins = ["https://*"] }',
}


def playwright(tmp: Path) -> dict | None:
    cli = REPO / "tests" / "bench" / "node_modules" / "@playwright" / "mcp" / "cli.js"
    if not cli.is_file():
        print(f"{cli} is missing: run npm ci in tests/bench for the comparison", file=sys.stderr)
        return None
    args = [node_bin(), str(cli), "--headless", "--isolated", "--executable-path", CHROMIUM, "--output-dir", str(tmp)]
    return tools_list(args, tmp, {**os.environ})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", type=Path, help="write each tools/list result as JSON into this directory")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        results = {"Warden, built-in default manifest": warden(tmp, None)}
        results |= {f"Warden {p}": warden(tmp, p) for p in PLUGINS}
        results["Warden browser, tools = [4 tools]"] = warden(tmp, "browser", LEAN_BROWSER)
        for plugin, groups in GROUPS.items():
            for group in groups:
                results[f"Warden {plugin}, group {group}"] = warden(tmp, plugin, group=group)
        pw = playwright(tmp)
        if pw is not None:
            results["Playwright MCP"] = pw
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
        for name, result in results.items():
            (args.dump / f"{name.replace(' ', '_')}.json").write_text(json.dumps(result, indent=1))
    print("| server | tools | tools/list tokens | tokens per tool |\n|---|---|---|---|")
    for name, result in results.items():
        n = len(result["tools"])
        print(f"| {name} | {n} | {tokens(result):,} | {tokens(result) // max(n, 1)} |")
    if pw is not None:
        ratio = tokens(results["Warden, built-in default manifest"]) / tokens(pw)
        print(f"\nWarden built-in default / Playwright MCP: {ratio:.2f}x (goal: <= 0.60x)")
        ratio = tokens(results["Warden browser"]) / tokens(pw)
        print(f"Warden browser, every group / Playwright MCP: {ratio:.2f}x")


if __name__ == "__main__":
    main()
