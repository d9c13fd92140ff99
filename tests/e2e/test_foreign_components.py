"""Components written for another MCP host, unchanged: plain exported functions (no
`warden:plugin` world), a preopened directory, `wasi:config` and environment variables, and a
`fetch` over standard `wasi:http` (as Wassette's examples are). With the equivalent grants each
answers through `tools/call` of the official MCP client; without them each is refused with
the grant to add, asserted on the audit line, on the files on disk and on what the API
server received. The fetch component's server gets the host's token; the tool result, the
log and the audit log never hold it. `warden check` and the start-up log summarise every
grant (names, never values) and the tools derived from the functions. One warden process
serves all six plugins."""

from __future__ import annotations

import base64
import json
import os
import secrets
import subprocess
from pathlib import Path

import pytest

from api_site import start_api

pytestmark = pytest.mark.anyio

WASM_DIR = Path(__file__).resolve().parents[2] / "target" / "wasm" / "wasm32-wasip2" / "wasm-component"


def component(name: str) -> Path:
    path = Path(os.environ.get(f"{name.upper()}_WASM", WASM_DIR / f"warden_guest_{name}.wasm"))
    if not path.is_file():
        pytest.fail(f"{path} does not exist; run `cargo build --release -p warden -p warden-tests` first")
    return path


async def test_foreign_components_answer_with_grants_and_name_the_grant_without(
    tmp_path: Path, start_warden, write_manifest, helpers, warden_bin, warden_env
) -> None:
    notes, greeter, fetch = component("notes"), component("greeter"), component("fetch")
    api, stray = start_api("127.0.0.1"), start_api("127.0.0.3")
    token = "tok-" + secrets.token_hex(16)
    token_b64 = base64.b64encode(token.encode()).decode()
    (tmp_path / "notes-dir").mkdir()
    (tmp_path / "bare-dir").mkdir()
    settings = '\n[plugin.settings]\ngreeting = "Hello"\n\n'
    manifest = write_manifest(
        f"""[credentials.api]
kind = "bearer"
env = "FETCH_API_TOKEN"
origins = ["{api.origin}"]

"""
        + helpers.plugin_block(
            "notes",
            notes,
            'grants.files = [{ host = "notes-dir", guest = "/data", mode = "read-write", quota = "1MiB" }]',
        )
        + helpers.plugin_block("bare_notes", notes, 'tool_prefix = "bare_"')
        + helpers.plugin_block(
            "greeter", greeter, 'grants.env = { vars = { API_BASE = "https://api.example.test", GREETER_LANG = "en" } }'
        )
        + settings
        + helpers.plugin_block("bare_greeter", greeter, 'tool_prefix = "bare_"')
        + settings
        + helpers.plugin_block(
            "fetch",
            fetch,
            f'grants.http = {{ origins = ["{api.origin}"], credentials = ["api"] }}\n'
            'grants.env = { vars = { FETCH_USER_AGENT = "fetch-from-another-host/1.0" } }',
        )
        + helpers.plugin_block("bare_fetch", fetch, 'tool_prefix = "bare_"')
    )
    try:
        async with start_warden(manifest, env={"FETCH_API_TOKEN": token}) as w:
            tools = {t.name: t for t in (await w.session.list_tools()).tools}
            for name in ("save_note", "read_note", "list_notes", "greet", "api_base", "bare_save_note",
                         "bare_greet", "fetch", "bare_fetch"):
                assert name in tools, sorted(tools)
            save = tools["save_note"]
            assert save.input_schema["required"] == ["name", "text"], save.input_schema
            assert save.output_schema["properties"]["result"]["type"] == ["integer", "string"], save.output_schema
            assert tools["fetch"].input_schema["required"] == ["url"], tools["fetch"].input_schema
            # cargo's wasm32-wasip2 linker keeps no `package-docs` section, so this component is
            # described by its signature (doc comments are read where a toolchain keeps them:
            # plain_exports.rs `descriptions_come_from_the_components_wit_docs_when_it_carries_them`).
            assert tools["fetch"].description == (
                "Calls `fetch(url: string) -> result<string, string>`, exported by this component."
            ), tools["fetch"].description

            saved = await w.call("save_note", {"name": "todo", "text": "buy milk"})
            assert not saved.is_error, helpers.text_of(saved)
            assert saved.structured_content == {"result": 8}
            assert (tmp_path / "notes-dir" / "notes" / "todo.txt").read_text() == "buy milk"
            read = await w.call("read_note", {"name": "todo"})
            assert helpers.text_of(read) == "buy milk"
            listed = await w.call("list_notes", {})
            assert listed.structured_content == {"result": ["todo"]}

            greeted = await w.call("greet", {"name": "Ada"})
            assert helpers.text_of(greeted) == "Hello, Ada! (en)", helpers.text_of(greeted)
            assert helpers.text_of(await w.call("api_base", {})) == "https://api.example.test"

            # The fetch component gets the API's answer; the API got the host's token (and
            # the user agent the admin set in grants.env); the answer echoed the token plain,
            # in base64 and in a header, and the component read masks.
            fetched = await w.call("fetch", {"url": api.url("/echo?q=1")})
            fetched_text = helpers.text_of(fetched)
            assert not fetched.is_error, fetched_text
            got = [r for r in api.received if r.path == "/echo?q=1"]
            assert len(got) == 1, api.received
            assert got[0].headers.get("authorization") == f"Bearer {token}", got[0].headers
            assert got[0].headers.get("user-agent") == "fetch-from-another-host/1.0", got[0].headers
            echoed = json.loads(fetched_text)
            assert echoed["token"] == "[credential]" and "[credential]" in echoed["token_b64"], echoed
            assert json.loads(fetched.structured_content["result"]) == echoed
            # A granted origin that redirects to one no grant names: the component follows,
            # the host refuses, the stray server sees nothing.
            hop = await w.call("fetch", {"url": api.url("/redirect?to=" + stray.url("/landing"))})
            assert hop.is_error, helpers.text_of(hop)
            assert f'add "{stray.origin}" to grants.http.origins' in helpers.text_of(hop), helpers.text_of(hop)
            assert stray.connections == 0, stray.received

            # Without the grants: refused, with the grant to add.
            bare = await w.call("bare_save_note", {"name": "todo", "text": "x"})
            assert bare.is_error and "add grants.files" in helpers.text_of(bare), helpers.text_of(bare)
            bare = await w.call("bare_api_base", {})
            assert bare.is_error and "API_BASE is not set" in helpers.text_of(bare), helpers.text_of(bare)
            assert "add grants.env" in helpers.text_of(bare)
            before = len(api.received)
            bare = await w.call("bare_fetch", {"url": api.url("/echo")})
            bare_text = helpers.text_of(bare)
            assert bare.is_error and "HttpRequestDenied" in bare_text, bare_text
            assert f'add "{api.origin}" to grants.http.origins of plugin \'bare_fetch\'' in bare_text, bare_text
            assert len(api.received) == before, api.received[before:]
            # A misfit argument is refused before the component runs, naming the field.
            misfit = await w.call("save_note", {"name": "todo", "text": 5})
            assert misfit.is_error and "text: expected a string" in helpers.text_of(misfit), helpers.text_of(misfit)
            stderr = w.stderr()
    finally:
        api.close()
        stray.close()

    # The start-up log: every grant by name, the derived tools.
    assert 'files = [{ guest = "/data", host = ' in stderr and 'mode = "read-write", quota = "1MiB"' in stderr
    assert 'env = ["API_BASE", "GREETER_LANG"] (values not shown)' in stderr, stderr[-3000:]
    assert "https://api.example.test" not in stderr and "fetch-from-another-host" not in stderr
    assert "fetch <- fetch(url: string) -> result<string, string>" in stderr, stderr[-3000:]

    check = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(manifest.path)],
        capture_output=True, text=True, env={**os.environ, **warden_env, "FETCH_API_TOKEN": token}, timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    shown = check.stdout
    fetch_part = shown.split("plugin 'fetch'")[1].split("plugin '")[0]
    assert f'http.origins = ["{api.origin}"], http.methods = ["GET", "HEAD"], http.credentials = ["api"] (added by the host: api as bearer)' in fetch_part, fetch_part
    assert 'env = ["FETCH_USER_AGENT"] (values not shown)' in fetch_part, fetch_part
    assert "tools (plain exported functions, one tool each):" in fetch_part, fetch_part
    assert "fetch(url: string) -> result<string, string>" in fetch_part, fetch_part
    assert "wasi:http/outgoing-handler" in fetch_part and 'credentials = ["api"]' in fetch_part, fetch_part
    bare_part = shown.split("plugin 'bare_fetch'")[1].split("plugin '")[0]
    assert "grants: none" in bare_part and "NOT GRANTED: every request is denied; add grants.http.origins" in bare_part, bare_part
    notes_part = shown.split("plugin 'notes'")[1].split("plugin '")[0]
    assert 'mode = "read-write", quota = "1MiB"' in notes_part and "/data (read-write, quota 1MiB)" in notes_part, notes_part
    assert "fetch-from-another-host" not in shown and "https://api.example.test" not in shown

    for where, hay in {"result": fetched_text, "stderr": stderr, "audit": manifest.audit.read_text(),
                       "check": shown + check.stderr}.items():
        assert token not in hay and token_b64 not in hay, f"the token reached the {where}"

    assert list((tmp_path / "bare-dir").iterdir()) == []
    assert [p.name for p in (tmp_path / "notes-dir" / "notes").iterdir()] == ["todo.txt"]
    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    changes = [l for l in lines if l["event"] == "capability_used" and l.get("capability") == "wasi:filesystem"]
    # One line per file per call, naming what was done: the directory made, the file made and written.
    assert sorted((l["plugin"], l["target"], l.get("detail"), l.get("bytes")) for l in changes) == [
        ("notes", "/data/notes", "create-directory", None),
        ("notes", "/data/notes/todo.txt", "create, write", 8),
    ], changes
    denied = {(l["plugin"], l["capability"]) for l in lines if l["event"] == "capability_denied"}
    assert ("bare_notes", "wasi:filesystem") in denied, denied
    assert ("bare_greeter", "wasi:cli/environment") in denied, denied
    assert ("notes", "wasi:filesystem") not in denied and ("greeter", "wasi:cli/environment") not in denied
    http_denied = [l for l in lines if l["event"] == "capability_denied" and l["capability"] == "wasi:http"]
    assert {(l["plugin"], l["target"]) for l in http_denied} == {
        ("fetch", f"GET {stray.origin}/landing"),
        ("bare_fetch", f"GET {api.origin}/echo"),
    }, http_denied
    assert all("grants.http.origins" in l["reason"] for l in http_denied), http_denied
    used = [l for l in lines if l["event"] == "capability_used" and l.get("capability") == "wasi:http"]
    assert {(l["plugin"], l["target"], l["status"]) for l in used} >= {
        ("fetch", f"{api.origin}/echo", 200), ("fetch", f"{api.origin}/redirect", 302)
    }, used
