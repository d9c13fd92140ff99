"""Python plugins end to end: the SDK's scaffold, the fixture and the disk-usage example are
built with componentize-py once per session, loaded beside a Rust plugin, and driven with the
official MCP client (a real sshd for the example)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO, compile_ahead

pytestmark = pytest.mark.anyio

SDK = REPO / "sdk" / "python"
FIXTURE_LIMITS = 'limits = { memory = "160MiB", call_timeout = "4s" }'


@dataclass
class Built:
    scaffold: Path
    fixture: Path
    example: Path
    seconds: dict[str, float]


def _toolchain_or_skip() -> None:
    have = (Path(sys.executable).parent / "componentize-py").exists() or shutil.which("componentize-py")
    if not have:
        message = "componentize-py is not installed: run tests/run (it installs componentize-py==0.25.1 into .venv)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def _build(project: Path) -> float:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "warden_sdk", "build", "--project", str(project), "--quiet"],
        env={**os.environ, "PYTHONPATH": str(SDK)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"build of {project} failed:\n{done.stdout}\n{done.stderr}"
    return time.monotonic() - started


_fixture_builds: dict[int, Path] = {}


def fixture_component(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/guests/python-fixture, built once per pytest session for every module that loads
    it (keyed by the session's one temp-path factory)."""
    if id(tmp_path_factory) in _fixture_builds:
        return _fixture_builds[id(tmp_path_factory)]
    _toolchain_or_skip()
    project = tmp_path_factory.mktemp("python-fixture") / "fixture"
    shutil.copytree(REPO / "tests" / "guests" / "python-fixture", project)
    seconds = _build(project)
    wasm = project / "python_fixture.wasm"
    print(f"fixture: {wasm.stat().st_size / 1e6:.1f} MB, built in {seconds:.1f} s")
    compile_ahead(tmp_path_factory, wasm)
    _fixture_builds[id(tmp_path_factory)] = wasm
    return wasm


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, warden_bin: Path) -> Built:
    """The scaffold (from `warden plugin new --lang python`), the fixture and the example,
    each copied into a temp dir and built once."""
    _toolchain_or_skip()
    root = tmp_path_factory.mktemp("python-plugins")
    scaffold = root / "demo-py"
    made = subprocess.run(
        [str(warden_bin), "plugin", "new", "demo-py", "--lang", "python", "--path", str(scaffold), "--sdk", str(SDK)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert made.returncode == 0, made.stderr
    assert "python -m warden_sdk build" in made.stdout, made.stdout
    example = root / "example"
    shutil.copytree(REPO / "examples" / "disk-usage-python", example)
    seconds = {name: _build(path) for name, path in (("scaffold", scaffold), ("example", example))}
    print(f"scaffold: {(scaffold / 'demo_py.wasm').stat().st_size / 1e6:.1f} MB, built in {seconds['scaffold']:.1f} s")
    compile_ahead(tmp_path_factory, scaffold / "demo_py.wasm", example / "disk_usage_python.wasm")
    return Built(scaffold, fixture_component(tmp_path_factory), example / "disk_usage_python.wasm", seconds)


def _warden(warden_bin: Path, env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(warden_bin), *args], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )


def test_scaffold_builds_checks_and_calls(built: Built, warden_bin: Path, warden_env: dict[str, str]):
    check = _warden(warden_bin, warden_env, built.scaffold, "check", "-m", "warden.toml")
    assert check.returncode == 0, check.stdout + check.stderr
    # The narrow world: the scaffold imports capture/http and nothing else of Warden's.
    assert "warden:capture/http" in check.stdout, check.stdout
    for absent in ("warden:terminal", "warden:browser", "warden:sftp", "warden:rdp", "warden:capture/page"):
        assert absent not in check.stdout, check.stdout
    assert "unknown to this host" not in check.stdout, check.stdout

    hello = _warden(warden_bin, warden_env, built.scaffold, "call", "-m", "warden.toml", "hello", '{"name":"Ada"}')
    assert hello.returncode == 0 and hello.stdout.strip() == "Hello, Ada!", hello.stdout + hello.stderr
    blank = _warden(warden_bin, warden_env, built.scaffold, "call", "-m", "warden.toml", "hello", '{"name":" "}')
    assert blank.returncode != 0 and "invalid arguments" in blank.stdout + blank.stderr, blank
    assert "must not be empty" in blank.stdout + blank.stderr, blank
    denied = _warden(
        warden_bin, warden_env, built.scaffold, "call", "-m", "warden.toml", "fetch_status", '{"url":"http://127.0.0.1:9/"}'
    )
    assert denied.returncode != 0 and "http_hosts" in denied.stdout + denied.stderr, denied
    audit = [json.loads(line) for line in (built.scaffold / "audit.jsonl").read_text().splitlines()]
    # CPython's start-up reads of its environment are no audited refusals.
    assert not [a for a in audit if a.get("capability") == "wasi:environment"], audit


def _fixture_manifest(helpers, built: Built, echo_wasm: Path, grant: str = "") -> str:
    return helpers.plugin_block("py", built.fixture, f'tool_prefix = "py_"\n{FIXTURE_LIMITS}\n{grant}') + helpers.plugin_block(
        "echo", echo_wasm
    )


async def test_tools_schemas_arguments_and_errors(built: Built, start_warden, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(_fixture_manifest(helpers, built, echo_wasm))
    async with start_warden(manifest) as w:
        tools = {t.name: t for t in (await w.session.list_tools()).tools}
        assert {"echo", "py_echo", "py_shape", "py_boom", "py_spin", "py_hog", "py_status"} <= set(tools), tools
        echo = tools["py_echo"]
        assert echo.description == "Return `text` unchanged.", echo
        assert echo.input_schema == {
            "type": "object",
            "properties": {"text": {"description": "The text to return.", "type": "string"}},
            "required": ["text"],
        }, echo.input_schema
        assert echo.annotations.read_only_hint, echo.annotations
        shape = tools["py_shape"].input_schema
        assert shape["required"] == ["count"], shape
        assert shape["properties"]["count"] == {
            "description": "How many, 1 to 10.", "type": "integer", "minimum": 1, "maximum": 10
        }, shape
        assert shape["properties"]["ratio"] == {"description": "An optional ratio.", "type": "number"}, shape
        mode = shape["properties"]["options"]["properties"]["mode"]
        assert mode == {"description": "How to go.", "enum": ["fast", "slow"], "default": "fast"}, mode

        result = await w.call("py_echo", {"text": "héllo"})
        assert not result.is_error and helpers.text_of(result) == "héllo", result
        # The conversation's calls reuse its instance; what must outlive one is kept by the host.
        counts = [helpers.text_of(await w.call("py_count", {})) for _ in range(3)]
        assert counts == ["kept 1, in memory 1", "kept 2, in memory 2", "kept 3, in memory 3"], counts
        result = await w.call("py_shape", {"count": 3, "options": {"mode": "slow", "tags": ["a"]}})
        assert not result.is_error, helpers.text_of(result)
        assert result.structured_content == {"count": 3, "ratio": None, "mode": "slow", "tags": ["a"]}, result

        bad = {
            "py_echo": [({}, "missing field `text`"), ({"text": 5}, "`text` must be a string, got number 5")],
            "py_shape": [
                ({"count": 11}, "`count` must be at most 10"),
                ({"count": 1, "options": {"mode": "warp"}}, "`options.mode` must be one of 'fast', 'slow'"),
                ({"count": 1, "extra": True}, "unknown field `extra`"),
            ],
        }
        for tool, cases in bad.items():
            for args, expected in cases:
                result = await w.call(tool, args)
                text = helpers.text_of(result)
                assert result.is_error and text.startswith("invalid arguments: ") and expected in text, (args, text)

        # An uncaught exception is a tool error with its message; the instance keeps serving.
        result = await w.call("py_boom")
        text = helpers.text_of(result)
        assert result.is_error and text.startswith("failed: ValueError: the fixture exploded on purpose"), text
        await w.assert_echo()
        result = await w.call("py_echo", {"text": "after boom"})
        assert helpers.text_of(result) == "after boom"

    calls = {(a["plugin"], a["tool"]): a for a in manifest.audit_lines() if a["event"] == "tool_call"}
    assert calls[("py", "py_boom")]["outcome"] == "tool_error", calls
    assert not [a for a in manifest.audit_lines() if a.get("capability") == "wasi:environment"]


async def test_spin_and_memory_bomb_are_contained(built: Built, start_warden, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(_fixture_manifest(helpers, built, echo_wasm))
    async with start_warden(manifest) as w:
        started = time.monotonic()
        result = await w.call("py_spin", timeout=30)
        elapsed = time.monotonic() - started
        text = helpers.text_of(result)
        assert result.is_error and "call_timeout" in text, text
        assert 3 <= elapsed < 20, elapsed
        await w.assert_echo()
        result = await w.call("py_echo", {"text": "after spin"}, timeout=30)
        assert not result.is_error and helpers.text_of(result) == "after spin", helpers.text_of(result)

        result = await w.call("py_hog", timeout=30)
        text = helpers.text_of(result)
        # Either CPython raises MemoryError (a tool error) or the instance traps at the limit.
        assert result.is_error and ("MemoryError" in text or "limits.memory" in text), text
        await w.assert_echo()
        result = await w.call("py_echo", {"text": "after hog"}, timeout=30)
        assert not result.is_error and helpers.text_of(result) == "after hog", helpers.text_of(result)
        rss = w.process().memory_info().rss
        assert rss < 1024 * 1024 * 1024, f"warden RSS {rss} bytes after the memory bomb"

    outcomes = {a["tool"]: a["outcome"] for a in manifest.audit_lines() if a["event"] == "tool_call"}
    # Audit lines name the tool as clients see it (with the manifest's prefix).
    assert outcomes["py_spin"] == "timeout", outcomes
    assert outcomes["py_hog"] in ("trap", "tool_error"), outcomes


async def test_capability_refused_then_granted(built: Built, start_warden, write_manifest, helpers, echo_wasm, http_server):
    url = http_server.url("/body")
    refused = write_manifest(_fixture_manifest(helpers, built, echo_wasm), name="refused.toml", audit="refused.jsonl")
    async with start_warden(refused) as w:
        result = await w.call("py_status", {"url": url})
        text = helpers.text_of(result)
        assert result.is_error and text.startswith("access denied: ") and "http_hosts" in text, text
    denied = [a for a in refused.audit_lines() if a["event"] == "capability_denied"]
    assert denied and denied[0]["capability"] == "capture.http" and denied[0]["plugin"] == "py", denied
    assert not http_server.requests

    grant = f'grants.capture = {{ http_hosts = ["127.0.0.1:{http_server.port}"] }}'
    allowed = write_manifest(_fixture_manifest(helpers, built, echo_wasm, grant), name="allowed.toml", audit="allowed.jsonl")
    async with start_warden(allowed) as w:
        result = await w.call("py_status", {"url": url})
        assert not result.is_error and helpers.text_of(result) == "HTTP 200", helpers.text_of(result)
    assert http_server.requests, "the host made no request"
    calls = [a for a in allowed.audit_lines() if a["event"] == "tool_call" and a["tool"] == "py_status"]
    assert calls and calls[0]["outcome"] == "ok", calls
    assert not [a for a in allowed.audit_lines() if a["event"] == "capability_denied"]


async def test_disk_usage_example_against_real_sshd(built: Built, sshd, start_warden, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(
        sshd.host_block()
        + helpers.plugin_block(
            "disk", built.example, 'limits = { memory = "160MiB", call_timeout = "60s" }\ngrants.terminal = { ssh_hosts = ["box"] }'
        )
        + helpers.plugin_block("echo", echo_wasm)
    )
    async with start_warden(manifest) as w:
        tools = {t.name: t for t in (await w.session.list_tools()).tools}
        du = tools["disk_usage"]
        assert du.input_schema["properties"]["hosts"]["type"] == "array", du.input_schema
        assert "required" not in du.input_schema, du.input_schema

        result = await w.call("disk_usage", {"hosts": ["box"]}, timeout=60)
        text = helpers.text_of(result)
        assert not result.is_error, text
        (host,) = result.structured_content["hosts"]
        assert host["host"] == "box" and host["error"] is None, host
        mounts = {fs["mount"]: fs for fs in host["filesystems"]}
        assert "/" in mounts, mounts
        root = mounts["/"]
        assert root["size_kb"] > 0 and 0 <= root["use_percent"] <= 100, root
        assert root["used_kb"] + root["available_kb"] <= root["size_kb"] * 1.1, root
        assert text.startswith("box: ") and "filesystems" in text, text

        # A host the manifest does not grant: refused with the grant to add, and audited.
        result = await w.call("disk_usage", {"hosts": ["elsewhere"]}, timeout=30)
        text = helpers.text_of(result)
        assert result.is_error and text.startswith("access denied: ") and "ssh_hosts" in text, text
        result = await w.call("disk_usage", {"hosts": "box"})
        assert result.is_error and "`hosts` must be an array" in helpers.text_of(result), helpers.text_of(result)
        await w.assert_echo()
    denied = [a for a in manifest.audit_lines() if a["event"] == "capability_denied"]
    assert denied and all(a["plugin"] == "disk" for a in denied), denied
