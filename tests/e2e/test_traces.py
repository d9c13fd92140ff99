"""OpenTelemetry traces (`[telemetry] otlp_endpoint`): a tool call exported to a small OTLP/HTTP
receiver as a span, in the caller's trace (W3C `traceparent` header), with the capability it
used as a child span; no arguments or targets in the spans."""

from __future__ import annotations

import http.server
import json
import os
import threading
import time

import pytest

from ops_helpers import free_port, mcp_session, serve

pytestmark = pytest.mark.anyio

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"


class Receiver(http.server.ThreadingHTTPServer):
    """Collects the spans of OTLP/HTTP JSON exports."""

    def __init__(self) -> None:
        self.spans: list[dict] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                assert self.path == "/v1/traces", self.path
                for rs in body["resourceSpans"]:
                    for ss in rs["scopeSpans"]:
                        receiver.spans.extend(ss["spans"])
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


async def test_a_tool_call_and_its_capability_are_exported(warden_bin, warden_env, write_manifest, helpers, http_server):
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    manifest = write_manifest(
        f'[telemetry]\notlp_endpoint = "http://127.0.0.1:{receiver.server_address[1]}"\n\n'
        + helpers.plugin_block("capture", "builtin:capture", 'grants.capture = { http_hosts = ["127.0.0.1:*"] }')
    )
    port = free_port()
    secret = "query-" + os.urandom(6).hex()
    try:
        with serve(warden_bin, manifest.path, warden_env, f"127.0.0.1:{port}"):
            headers = {"traceparent": f"00-{TRACE}-{PARENT}-01"}
            async with mcp_session(f"http://127.0.0.1:{port}/mcp", headers=headers) as session:
                result = await session.call_tool("http_get", {"url": http_server.url(f"/body?{secret}")})
                assert not result.is_error, helpers.text_of(result)
            deadline = time.monotonic() + 10
            while not any(s["name"] == "tools/call http_get" for s in receiver.spans):
                assert time.monotonic() < deadline, receiver.spans
                time.sleep(0.05)
    finally:
        receiver.shutdown()
    call = next(s for s in receiver.spans if s["name"] == "tools/call http_get")
    assert call["traceId"] == TRACE and call["parentSpanId"] == PARENT, call
    assert call["status"]["code"] == 1
    children = [s for s in receiver.spans if s.get("parentSpanId") == call["spanId"]]
    assert [s["name"] for s in children] == ["capture.http"], receiver.spans
    assert children[0]["traceId"] == TRACE
    assert int(children[0]["startTimeUnixNano"]) >= int(call["startTimeUnixNano"]) - 2_000_000
    assert secret not in json.dumps(receiver.spans)
