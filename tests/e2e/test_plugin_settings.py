"""`[plugin.settings]`: what the admin configures for one plugin, read through the standard
`wasi:config/store` by plugins of all three SDKs alike (Rust: the echo guest; JavaScript and
Python: the SDK fixtures). Each plugin reads its own settings only; a plugin without any
reads nothing; a reload hands later calls the new values; a manifest whose settings are too
large is refused with its line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest

from test_plugin_js import build_js
from test_plugin_python import FIXTURE_LIMITS, fixture_component

pytestmark = pytest.mark.anyio

SETTINGS = """
[plugin.settings]
greeting = "Grüß dich, \\"{who}\\""
when = 2026-11-27T01:02:03Z
limits = {{ rows = {rows}, ratio = 0.5, tags = ["a", "b"] }}
"""


def _block(helpers, name: str, source: Path, who: str, rows: int, extra: str = "") -> str:
    return helpers.plugin_block(name, source, f'tool_prefix = "{name}_"\n{extra}') + SETTINGS.format(who=who, rows=rows)


async def test_each_sdk_reads_its_own_settings(
    tmp_path_factory: pytest.TempPathFactory, warden_bin: Path, start_warden, write_manifest, helpers, echo_wasm
) -> None:
    js = build_js(tmp_path_factory, warden_bin).fixture
    py = fixture_component(tmp_path_factory)
    manifest = write_manifest(
        _block(helpers, "rs", echo_wasm, "rust", 1)
        + _block(helpers, "js", js, "js", 2)
        + _block(helpers, "py", py, "python", 3, FIXTURE_LIMITS)
    )
    async with start_warden(manifest) as w:
        for name, who, rows in (("rs", "rust", 1), ("js", "js", 2), ("py", "python", 3)):
            result = await w.call(f"{name}_settings", {}, timeout=60)
            assert not result.is_error, helpers.text_of(result)
            read = json.loads(helpers.text_of(result))
            # A string as written (quotes and all), a table as JSON, a date as RFC 3339; each
            # plugin sees its own values only.
            assert read == {
                "greeting": f'Grüß dich, "{who}"',
                "limits": {"rows": rows, "ratio": 0.5, "tags": ["a", "b"]},
                "keys": ["greeting", "limits", "when"],
            }, (name, read)
    # A plugin the admin configured nothing for reads nothing.
    bare = write_manifest(helpers.plugin_block("bare", echo_wasm), name="bare.toml")
    async with start_warden(bare) as w:
        result = await w.call("settings", {})
        assert json.loads(helpers.text_of(result)) == {"greeting": None, "limits": None, "keys": []}


def test_settings_too_large_are_refused_with_their_line(warden_bin: Path, write_manifest, helpers, echo_wasm) -> None:
    big = "x" * (300 * 1024)
    manifest = write_manifest(helpers.plugin_block("rs", echo_wasm) + f'\n[plugin.settings]\nblob = "{big}"\n')
    check = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(manifest.path)], capture_output=True, text=True, timeout=60
    )
    out = check.stdout + check.stderr
    assert check.returncode != 0, out
    assert "settings take" in out and "at most 262144" in out and "warden.toml:" in out, out[:2000]


async def test_a_reload_gives_the_new_settings_to_later_calls(start_warden, write_manifest, helpers, echo_wasm) -> None:
    def body(greeting: str) -> str:
        return helpers.plugin_block("rs", echo_wasm) + f'\n[plugin.settings]\ngreeting = "{greeting}"\n'

    manifest = write_manifest(body("before"))
    async with start_warden(manifest) as w:

        async def greeting() -> str:
            return json.loads(helpers.text_of(await w.call("settings", {})))["greeting"]

        assert await greeting() == "before"
        write_manifest(body("after"))
        seen: list[str] = []

        async def changed() -> bool:
            seen.append(await greeting())
            return seen[-1] == "after"

        for _ in range(60):
            if await changed():
                break
            await anyio.sleep(0.25)
        assert seen[-1] == "after", (seen[-5:], w.stderr()[-2000:])
