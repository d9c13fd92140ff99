"""warden serve over stdio, driven by the official MCP Python SDK."""

from __future__ import annotations

import json

import anyio
import mcp_types
import pytest
from jsonschema import Draft202012Validator
from mcp import MCPError as McpError

pytestmark = pytest.mark.anyio

GRANT_KEY = "grants.capture.http_hosts"

CAPTURE_GRANTED = """
[[plugin]]
name = "capture"
source = "builtin:capture"
grants.capture = { http_hosts = ["127.0.0.1:*"] }
"""


async def test_initialize_and_default_tools(start_warden):
    """No manifest: the built-in default (every built-in plugin; public https only)."""
    async with start_warden(None) as w:
        init = w.init
        assert init.protocol_version == "2025-11-25"
        assert init.server_info.name, "serverInfo.name is empty"
        assert init.server_info.version, "serverInfo.version is empty"
        assert init.capabilities.tools is not None, "server does not declare the tools capability"

        listed = await w.session.list_tools()
        names = [tool.name for tool in listed.tools]
        # The browser's groups for ordinary browsing, http_get, and the offered groups' switch;
        # nothing whose grants are missing (terminal, SFTP, page capture).
        for name in ("http_get", "browse_navigate", "browse_fill", "browse_upload", "browse_tabs", "tool_groups"):
            assert name in names, names
        for name in ("capture_page", "browse_extract", "browse_eval_js", "terminal_execute", "sftp_read"):
            assert name not in names, names
        assert len(names) == len(set(names)), f"duplicate tool names: {names}"
        for tool in listed.tools:
            assert tool.description, f"{tool.name} has no description"
            Draft202012Validator.check_schema(tool.input_schema)
            assert tool.input_schema.get("type") == "object", (tool.name, tool.input_schema)
            if tool.output_schema is not None:
                Draft202012Validator.check_schema(tool.output_schema)

        http_get = next(t for t in listed.tools if t.name == "http_get")
        assert "url" in http_get.input_schema.get("properties", {}), http_get.input_schema

    assert "plugins ready: " in w.stderr(), w.stderr()[-2000:]


async def test_default_manifest_reaches_no_private_address(start_warden, helpers):
    """The default grants public https (`https://*`, `*:443`); loopback stays closed however it is named."""
    async with start_warden(None) as w:
        for url in ("https://localhost/", "https://127.0.0.1/", "https://[::1]/", "https://x.localhost/"):
            result = await w.call("http_get", {"url": url})
            text = helpers.text_of(result)
            assert result.is_error and "private networks are closed" in text, (url, text)
        result = await w.call("http_get", {"url": "http://example.com/"})
        text = helpers.text_of(result)
        assert result.is_error and "grants.capture.http_hosts" in text, text


async def test_default_manifest_denies_everything(start_warden, helpers, http_server, tmp_path):
    async with start_warden(None) as w:
        result = await w.call("http_get", {"url": http_server.url("/body?default")})
        text = helpers.text_of(result)
        assert result.is_error, text
        assert text.startswith("access denied"), text
        assert GRANT_KEY in text, text
        # The other built-in plugins are loaded too, and granted nothing.
        for tool, args, grant in (
            ("browse_navigate", {"url": http_server.url("/body?browser")}, "grants.browser.origins"),
            # Not listed (no grant), and refused by the host before the plugin runs.
            ("terminal_open", {}, "grants.terminal.local"),
            ("sftp_list", {"host": "web1", "path": "/"}, "grants.sftp.hosts"),
        ):
            result = await w.call(tool, args)
            text = helpers.text_of(result)
            assert result.is_error and text.startswith("access denied") and grant in text, (tool, text)
    assert http_server.requests == [], "the denied request reached the server"

    # Without [server] audit_log the log lives under $XDG_STATE_HOME/warden/.
    audit = tmp_path / "state" / "warden" / "audit.jsonl"
    assert audit.is_file(), f"no audit log at {audit}"
    lines = [json.loads(raw) for raw in audit.read_text().splitlines()]
    for line in lines:
        helpers.check_audit_line(line)
    assert [(line["event"], line["tool"]) for line in lines] == [
        ("capability_denied", "http_get"),
        ("tool_call", "http_get"),
        ("capability_denied", "browse_navigate"),
        ("tool_call", "browse_navigate"),
        ("tool_call", "terminal_open"),
        ("tool_call", "sftp_list"),
    ], lines
    assert [line["decision"] for line in lines[-2:]] == ["denied", "denied"], lines


async def test_port_less_pattern_matches_default_port_only(start_warden, write_manifest, helpers, http_server):
    manifest = write_manifest(CAPTURE_GRANTED.replace('"127.0.0.1:*"', '"127.0.0.1"'))
    async with start_warden(manifest) as w:
        result = await w.call("http_get", {"url": http_server.url("/body?portless")})
        text = helpers.text_of(result)
        assert result.is_error, text
        assert GRANT_KEY in text and f"127.0.0.1:{http_server.port}" in text, text
    assert http_server.requests == []


async def test_http_get_grants_and_audit(start_warden, write_manifest, helpers, http_server, http_server2):
    manifest = write_manifest(CAPTURE_GRANTED)
    marker = "argsecret-7f3a"
    async with start_warden(manifest) as w:
        # 1. allowed: 127.0.0.1:* covers the local server
        allowed_url = http_server.url(f"/body?{marker}")
        result = await w.call("http_get", {"url": allowed_url})
        text = helpers.text_of(result)
        assert not result.is_error, text
        assert f"warden-e2e-body /body?{marker}" in text, text
        assert http_server.requests == [f"/body?{marker}"]

        # The audit line is flushed before the response: it must be there already.
        lines = manifest.audit_lines()
        calls = [line for line in lines if line["event"] == "tool_call"]
        assert len(calls) == 1, lines
        assert calls[0]["plugin"] == "capture" and calls[0]["tool"] == "http_get", calls[0]
        assert calls[0]["decision"] == "allowed" and calls[0]["outcome"] == "ok", calls[0]

        # 2. denied: the grant is on the host string, so `localhost` is not `127.0.0.1`
        denied_url = http_server2.url("/body?denied", host="localhost")
        result = await w.call("http_get", {"url": denied_url})
        text = helpers.text_of(result)
        assert result.is_error, text
        assert text.startswith("access denied"), text
        assert GRANT_KEY in text, text
        assert f"localhost:{http_server2.port}" in text, text
        assert http_server2.requests == [], "denied request reached the server"

        # 3. redirect from a granted URL to a host outside the grant: refused at the hop
        hop_target = http_server2.url("/body?hop", host="localhost")
        result = await w.call("http_get", {"url": http_server.redirect_url(hop_target)})
        text = helpers.text_of(result)
        assert result.is_error, text
        assert GRANT_KEY in text, text
        assert http_server.requests[-1].startswith("/redirect?"), http_server.requests
        assert http_server2.requests == [], "the redirect hop to a non-granted host was followed"

        # 4. redirect that stays inside the grant is followed
        inside = http_server2.url("/body?inside")
        result = await w.call("http_get", {"url": http_server.redirect_url(inside)})
        text = helpers.text_of(result)
        assert not result.is_error, text
        assert "warden-e2e-body /body?inside" in text, text
        assert http_server2.requests == ["/body?inside"]

        lines = manifest.audit_lines()

    for line in lines:
        helpers.check_audit_line(line)
    calls = [line for line in lines if line["event"] == "tool_call"]
    denied = [line for line in lines if line["event"] == "capability_denied"]
    assert [c["outcome"] for c in calls] == ["ok", "tool_error", "tool_error", "ok"], calls
    assert all(c["plugin"] == "capture" and c["tool"] == "http_get" for c in calls), calls
    assert all(c["args_bytes"] > 0 for c in calls), calls
    # Different arguments, different digests.
    assert len({c["args_sha256"] for c in calls}) == 4, calls
    # One denied capability use for the direct call and one for the redirect hop.
    assert len(denied) == 2, denied
    for line in denied:
        assert line["plugin"] == "capture" and line["tool"] == "http_get", line
        assert line["capability"] == "capture.http", line
        assert line["outcome"] == "denied", line
        assert f"localhost:{http_server2.port}" in line["target"], line
    # Secrets in arguments never reach the audit log verbatim.
    for line in calls:
        assert marker not in str(line), f"raw arguments in audit line: {line}"


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_progress_log_and_structured_output(start_warden, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(helpers.plugin_block("echo", echo_wasm))
    logs: list[mcp_types.LoggingMessageNotificationParams] = []

    async def on_log(params: mcp_types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async with start_warden(manifest, logging_callback=on_log) as w:
        listed = await w.session.list_tools()
        echo = next(t for t in listed.tools if t.name == "echo")
        assert echo.annotations is not None and echo.annotations.read_only_hint is True, echo.annotations

        result = await w.call("echo", {"text": "hello, world"})
        assert not result.is_error
        assert helpers.text_of(result) == "hello, world"
        assert result.structured_content == {"text": "hello, world"}

        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        with anyio.fail_after(15):
            result = await w.session.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
        assert not result.is_error, helpers.text_of(result)
        assert helpers.text_of(result) == "done"
        # Progress notifications precede the response on the same stream.
        assert len(seen) == 3, seen
        assert [p for p, _, _ in seen] == sorted(p for p, _, _ in seen), seen
        assert all(total == 3 for _, total, _ in seen), seen

        # Logging: at or above the level the client asked for reaches the client.
        await w.session.set_logging_level("warning")
        for level in ("info", "error"):
            result = await w.call("log", {"level": level, "message": f"note at {level}"})
            assert not result.is_error, helpers.text_of(result)
            assert helpers.text_of(result) == "logged"
        await w.session.send_ping()
        messages = [(entry.level, str(entry.data)) for entry in logs]
        assert any(level == "error" and "note at error" in data for level, data in messages), messages
        assert not any("note at info" in data for _, data in messages), messages


async def test_resources_are_forwarded_to_the_plugin_that_serves_them(start_warden, write_manifest, helpers, echo_wasm):
    manifest = write_manifest(
        helpers.plugin_block("capture", "builtin:capture") + helpers.plugin_block("echo", echo_wasm)
    )
    async with start_warden(manifest) as w:
        caps = w.init.capabilities
        assert caps.resources is not None, "a plugin serves resources, so the capability is declared"

        listed = await w.session.list_resources()
        assert [str(r.uri) for r in listed.resources] == ["echo://count"], listed
        templates = await w.session.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == ["echo://say/{text}"], templates

        await w.call("count", {})
        await w.call("count", {})
        read = await w.session.read_resource("echo://count")
        assert [c.text for c in read.contents] == ["2"], read

        read = await w.session.read_resource("echo://say/hello")
        assert [c.text for c in read.contents] == ["hello"], read

        with pytest.raises(McpError) as error:
            await w.session.read_resource("nowhere://x")
        assert "nowhere://x" in str(error.value)
        await w.session.send_ping()


async def test_resources_are_not_declared_when_no_plugin_serves_them(start_warden, write_manifest, helpers):
    manifest = write_manifest(helpers.plugin_block("capture", "builtin:capture"))
    async with start_warden(manifest) as w:
        assert w.init.capabilities.resources is None
        with pytest.raises(McpError) as error:
            await w.session.list_resources()
        assert error.value.error.code == -32601
        with pytest.raises(McpError) as error:
            await w.session.list_prompts()
        assert error.value.error.code == -32601
