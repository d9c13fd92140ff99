"""Components written for another MCP host, unchanged: plain exported functions (no
`warden:plugin` world), a preopened directory, `wasi:config` and environment variables. With
the equivalent grants each answers through `tools/call` of the official MCP client; without
them each is refused with the grant to add, asserted on the audit line and on the files on
disk. One warden process serves all four plugins."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.anyio

WASM_DIR = Path(__file__).resolve().parents[2] / "target" / "wasm" / "wasm32-wasip2" / "wasm-component"


def component(name: str) -> Path:
    path = Path(os.environ.get(f"{name.upper()}_WASM", WASM_DIR / f"warden_guest_{name}.wasm"))
    if not path.is_file():
        pytest.fail(f"{path} does not exist; run `cargo build --release -p warden -p warden-tests` first")
    return path


async def test_foreign_components_answer_with_grants_and_name_the_grant_without(
    tmp_path: Path, start_warden, write_manifest, helpers
) -> None:
    notes, greeter = component("notes"), component("greeter")
    (tmp_path / "notes-dir").mkdir()
    (tmp_path / "bare-dir").mkdir()
    settings = '\n[plugin.settings]\ngreeting = "Hello"\n\n'
    manifest = write_manifest(
        helpers.plugin_block(
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
    )
    async with start_warden(manifest) as w:
        tools = {t.name: t for t in (await w.session.list_tools()).tools}
        for name in ("save_note", "read_note", "list_notes", "greet", "api_base", "bare_save_note", "bare_greet"):
            assert name in tools, sorted(tools)
        save = tools["save_note"]
        assert save.input_schema["required"] == ["name", "text"], save.input_schema
        assert save.output_schema["properties"]["result"]["type"] == "integer", save.output_schema

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

        # Without the grants: refused, with the grant to add.
        bare = await w.call("bare_save_note", {"name": "todo", "text": "x"})
        assert bare.is_error and "add grants.files" in helpers.text_of(bare), helpers.text_of(bare)
        bare = await w.call("bare_api_base", {})
        assert bare.is_error and "API_BASE is not set" in helpers.text_of(bare), helpers.text_of(bare)
        assert "add grants.env" in helpers.text_of(bare)
        # A misfit argument is refused before the component runs, naming the field.
        misfit = await w.call("save_note", {"name": "todo", "text": 5})
        assert misfit.is_error and "text: expected a string" in helpers.text_of(misfit), helpers.text_of(misfit)

    assert list((tmp_path / "bare-dir").iterdir()) == []
    assert [p.name for p in (tmp_path / "notes-dir" / "notes").iterdir()] == ["todo.txt"]
    lines = manifest.audit_lines()
    for line in lines:
        helpers.check_audit_line(line)
    writes = [l for l in lines if l["event"] == "capability_used" and l.get("capability") == "wasi:filesystem"]
    assert [(l["plugin"], l["target"], l.get("bytes")) for l in writes] == [("notes", "/data/notes/todo.txt", 8)]
    denied = {(l["plugin"], l["capability"]) for l in lines if l["event"] == "capability_denied"}
    assert ("bare_notes", "wasi:filesystem") in denied, denied
    assert ("bare_greeter", "wasi:cli/environment") in denied, denied
    assert ("notes", "wasi:filesystem") not in denied and ("greeter", "wasi:cli/environment") not in denied
