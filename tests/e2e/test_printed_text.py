"""Text Warden did not write, printed for a person: an agent's host name and a plugin's log
lines carrying newlines (a forged audit row), a carriage return, terminal escapes (clear
screen, an OSC 52 clipboard write), a C1 control and a bidi override. The audit log keeps
it exactly (JSON escapes it); `warden audit` and warden's stderr show it escaped, one row
per record and one line per event, with none of those characters raw."""

from __future__ import annotations

import json
import subprocess

import pytest

pytestmark = pytest.mark.anyio

FORGED = "2026-01-01T00:00:00.000Z  tool_call          admin       forged_tool       ok"
HOSTILE = f"box\n{FORGED}\r\x1b[2J\x1b]52;c;aGVsbG8=\x07\u009b31m\u202eevil\u2028"
RAW = ["\x1b", "\x07", "\r", "\u009b", "\u202e", "\u2028"]


def assert_shown_escaped(printed: str, where: str) -> None:
    for c in RAW:
        assert c not in printed, f"{where} holds {c!r} raw:\n{printed!r}"
    assert not any(line.startswith(FORGED) for line in printed.splitlines()), f"{where} has a forged row"


async def test_text_from_agents_and_plugins_reaches_the_terminal_escaped(
    start_warden, write_manifest, helpers, hostile_wasm, warden_bin, warden_env, tmp_path
) -> None:
    manifest = write_manifest(
        helpers.plugin_block("terminal", "builtin:terminal", "grants.terminal = { local = true }")
        + helpers.plugin_block("hostile", hostile_wasm)
    )
    async with start_warden(manifest) as w:
        refused = await w.call("terminal_open", {"host": HOSTILE})
        assert refused.is_error, helpers.text_of(refused)
        said = await w.call("say", {"text": HOSTILE})
        assert helpers.text_of(said) == HOSTILE
        await helpers.wait_for(lambda: "forged_tool" in w.stderr())
        stderr = w.stderr()

    # The audit log holds the text as the agent sent it (JSON escapes its controls; U+2028 is
    # valid raw in JSON, so lines are split on newlines alone).
    records = [json.loads(line) for line in manifest.audit.read_text().split("\n") if line.strip()]
    sent = FORGED + "\r\x1b[2J\x1b]52;c;aGVsbG8=\x07"
    assert any(sent in str(value) for r in records for value in r.values()), records

    shown = subprocess.run(
        [str(warden_bin), "audit", "--manifest", str(manifest.path)],
        capture_output=True,
        text=True,
        env=warden_env,
        cwd=tmp_path,
        timeout=30,
        check=True,
    ).stdout
    assert_shown_escaped(shown, "warden audit")
    assert len(shown.split("\n")) - 1 == len(records), shown
    # Escaped in plain sight, not dropped.
    assert "\\n" + FORGED + "\\r\\u{1b}[2J\\u{1b}]52;c;aGVsbG8=\\u{7}" in shown, shown

    assert "forged_tool" in stderr
    assert_shown_escaped(stderr, "warden's stderr")
    assert "[2J" in stderr and "evil" in stderr, stderr
