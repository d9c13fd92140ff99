"""Raw newline-delimited JSON-RPC against `warden serve` (no SDK): robustness to bad input."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from typing import Any

import pytest


class RawServer:
    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, stderr_path: str) -> None:
        self.stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env, cwd=cwd
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.garbage: list[bytes] = []
        self.next_id = 100
        self.manifest: Any = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.messages.put(json.loads(line))
            except ValueError:
                self.garbage.append(line)

    def send_raw(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode())

    def receive(self, timeout: float) -> dict[str, Any] | None:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            return None

    def wait_for(self, predicate, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Messages received until one satisfies predicate (the last one); fails on timeout."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(deadline - time.monotonic(), 0.01))
            if message is None:
                pytest.fail(f"no matching message within {timeout}s; received {seen}")
            seen.append(message)
            if predicate(message):
                return seen

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 10.0) -> dict[str, Any]:
        self.next_id += 1
        rid = self.next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait_for(lambda m: m.get("id") == rid and ("result" in m or "error" in m), timeout)[-1]

    def drain(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Whatever arrives until the stream is quiet for `quiet` seconds."""
        out = []
        while (message := self.receive(quiet)) is not None:
            out.append(message)
        return out

    def assert_alive(self) -> None:
        assert self.proc.poll() is None, f"warden exited with {self.proc.returncode}"
        assert self.request("ping").get("result") == {}, "ping did not answer with an empty result"

    def close(self) -> int:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()
        return self.proc.returncode


@pytest.fixture()
def raw_server(warden_bin, warden_env, write_manifest, helpers, echo_wasm, tmp_path):
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    env = {**os.environ, **warden_env}
    server = RawServer(
        [str(warden_bin), "serve", "--manifest", str(manifest.path)],
        env,
        str(tmp_path),
        str(tmp_path / "warden-stderr.log"),
    )
    init = server.request(
        "initialize",
        {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "warden-e2e-raw", "version": "0.0.1"},
        },
        timeout=30,
    )
    assert "result" in init, init
    assert init["result"]["protocolVersion"] == "2025-11-25", init
    assert "tools" in init["result"]["capabilities"], init
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    server.manifest = manifest
    yield server
    if server.proc.poll() is None:
        server.proc.kill()
        server.proc.wait()


def _bad_malformed_line(s: RawServer) -> None:
    """Not JSON: a parse error (-32700, id null) or silence."""
    s.send_raw(b"{not json")
    for message in s.drain():
        assert message.get("error", {}).get("code") == -32700, f"unexpected answer to a malformed line: {message}"
        assert message.get("id") is None, message


def _bad_missing_jsonrpc(s: RawServer) -> None:
    """An object without "jsonrpc": an error or silence, never a result."""
    s.send({"id": 7, "method": "ping"})
    for message in s.drain():
        assert "result" not in message, f"a request without jsonrpc was served: {message}"
        assert "error" in message, message


def _bad_unknown_method(s: RawServer) -> None:
    answer = s.request("no/such/method", {})
    assert answer.get("error", {}).get("code") == -32601, answer


def _bad_unknown_notification(s: RawServer) -> None:
    s.send({"jsonrpc": "2.0", "method": "notifications/no_such_thing"})
    assert s.drain() == [], "the server answered a notification"


def _bad_unknown_tool(s: RawServer) -> None:
    answer = s.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert answer.get("error", {}).get("code") == -32602, answer
    assert "no_such_tool" in answer["error"].get("message", ""), answer


def _bad_arguments_not_object(s: RawServer) -> None:
    answer = s.request("tools/call", {"name": "echo", "arguments": [1, 2]})
    assert answer.get("error", {}).get("code") == -32602, answer


def _tool_error_text(answer: dict[str, Any]) -> str:
    assert "result" in answer, answer
    result = answer["result"]
    assert result.get("isError") is True, answer
    return "".join(block.get("text", "") for block in result["content"])


def _bad_wrong_argument_type(s: RawServer) -> None:
    answer = s.request("tools/call", {"name": "echo", "arguments": {"text": 5}})
    assert _tool_error_text(answer).startswith("invalid arguments"), answer


def _bad_missing_argument(s: RawServer) -> None:
    answer = s.request("tools/call", {"name": "echo", "arguments": {}})
    text = _tool_error_text(answer)
    assert text.startswith("invalid arguments") and "text" in text, answer


BAD_INPUTS = {
    "malformed_line": _bad_malformed_line,
    "missing_jsonrpc": _bad_missing_jsonrpc,
    "unknown_method": _bad_unknown_method,
    "unknown_notification": _bad_unknown_notification,
    "unknown_tool": _bad_unknown_tool,
    "arguments_not_object": _bad_arguments_not_object,
    "wrong_argument_type": _bad_wrong_argument_type,
    "missing_argument": _bad_missing_argument,
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_keeps_the_server_answering(raw_server, case):
    s = raw_server
    s.assert_alive()
    try:
        BAD_INPUTS[case](s)
    finally:
        # Whatever the answer was, the server keeps serving.
        s.assert_alive()
        tools = s.request("tools/list")
        assert "echo" in {t["name"] for t in tools["result"]["tools"]}, tools
        answer = s.request("tools/call", {"name": "echo", "arguments": {"text": "ok"}})
        assert answer["result"]["content"] == [{"type": "text", "text": "ok"}], answer
        assert answer["result"].get("isError") in (None, False), answer
    # stdout never carried anything but JSON-RPC 2.0.
    assert s.garbage == [], f"non-JSON on stdout: {s.garbage[:5]}"
    for message in s.drain(0.1):
        assert message.get("jsonrpc") == "2.0", message
    # Closing stdin ends the server cleanly.
    assert s.close() == 0


def test_ping_before_and_during_calls(raw_server):
    """Requests are answered by id even when several are in flight."""
    s = raw_server
    ids = []
    for i in range(5):
        s.next_id += 1
        ids.append(s.next_id)
        s.send({
            "jsonrpc": "2.0",
            "id": s.next_id,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": f"m{i}"}},
        })
    answers: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + 10
    while len(answers) < len(ids) and time.monotonic() < deadline:
        message = s.receive(0.5)
        if message is not None and message.get("id") in ids:
            answers[message["id"]] = message
    assert sorted(answers) == ids, answers
    for i, rid in enumerate(ids):
        assert answers[rid]["result"]["content"][0]["text"] == f"m{i}", answers[rid]
    s.assert_alive()
    assert s.close() == 0
