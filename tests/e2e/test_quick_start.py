"""A large component's first start on baseline code (`[server] quick_start`): found in no
cache, it serves its first calls on Winch's code while Cranelift's optimized code compiles in
the background, then every new instance is of the optimized code. Limits hold on both tiers
(a spinning guest times out, a memory bomb traps, the other plugin answers); plugins of the
same bytes share one compilation of each tier; `warden check` compiles the optimized code
and fills the cache, so a server after it starts on that; `"off"` compiles before the first
call. The threshold is set low here so that the small hostile guest takes the path a 12 MiB
JavaScript component takes at the default 1 MiB."""

from __future__ import annotations

import re
import subprocess
import time

import anyio
import pytest

pytestmark = pytest.mark.anyio

LIMITS = 'limits = { call_timeout = "2s", memory = "64MiB" }'


def _manifest(write_manifest, helpers, echo_wasm, hostile_wasm, quick_start: str):
    body = f'quick_start = "{quick_start}"\n\n'
    body += helpers.plugin_block("echo", echo_wasm, 'tools = { allow = ["*"], deny = ["count"] }')
    body += helpers.plugin_block("hostile", hostile_wasm, LIMITS)
    # The same bytes again: one compilation of each tier serves both.
    body += helpers.plugin_block("hostile2", hostile_wasm, f'tool_prefix = "b_"\n{LIMITS}')
    return write_manifest(body)


async def _limits_hold(w, helpers) -> None:
    started = time.monotonic()
    spun = await w.call("spin", timeout=20)
    text = helpers.text_of(spun)
    assert spun.is_error and text.startswith("timeout") and "call_timeout" in text, text
    assert time.monotonic() - started >= 1.5, "spin returned before its 2s call_timeout"
    bomb = await w.call("b_alloc_bomb", timeout=20)
    assert bomb.is_error and "limits.memory" in helpers.text_of(bomb), helpers.text_of(bomb)
    await w.assert_echo()
    counted = await w.call("count", timeout=10)
    assert not counted.is_error and helpers.text_of(counted).isdigit(), helpers.text_of(counted)


async def _wait_for(w, needle: str, seconds: float) -> str:
    with anyio.fail_after(seconds):
        while needle not in w.stderr():
            await anyio.sleep(0.1)
    return w.stderr()


async def test_first_start_serves_on_baseline_code_then_optimized(
    start_warden, write_manifest, helpers, echo_wasm, hostile_wasm, tmp_path
):
    manifest = _manifest(write_manifest, helpers, echo_wasm, hostile_wasm, "1KiB")
    cache = tmp_path / "fresh-cache"
    async with start_warden(manifest, env={"WARDEN_CACHE_DIR": str(cache)}) as w:
        ready = w.stderr()
        assert "(3 on baseline code while their optimized code compiles)" in ready, ready[-3000:]
        # Baseline code: the calls and the limits, before and while the optimized code compiles.
        await _limits_hold(w, helpers)
        for plugin in ("echo", "hostile", "hostile2"):
            log = await _wait_for(w, f"plugin '{plugin}': optimized code in use", 120)
        # The optimized code: the same calls and limits, on instances made after the swap.
        await _limits_hold(w, helpers)
        for tool in ("spin", "b_spin"):
            spun = await w.call(tool, timeout=20)
            assert spun.is_error and helpers.text_of(spun).startswith("timeout"), helpers.text_of(spun)
        log = w.stderr()

    # One compilation of each tier for the two plugins of the same bytes; the echo guest is
    # large enough too, so it has its own.
    assert len(re.findall(r"plugin 'hostile\d?': compiled \S+ \S+ to baseline code", log)) == 1, log[-4000:]
    assert len(re.findall(r"plugin 'hostile\d?': compiling \S+ \S+ of WebAssembly", log)) == 1, log[-4000:]
    assert "keeps serving on baseline code" not in log, log[-4000:]
    # The optimized code went into the cache: the next start compiles nothing.
    assert len(list(cache.glob("*.cwasm"))) == 2, sorted(cache.iterdir())
    async with start_warden(manifest, env={"WARDEN_CACHE_DIR": str(cache)}) as w:
        ready = w.stderr()
        assert re.search(r"plugins ready: 3 \(compiled: 0, from cache: 3, precompiled: 0\)", ready), ready[-3000:]
        assert "baseline" not in ready, ready[-3000:]
        await _limits_hold(w, helpers)

    timeouts = [l for l in manifest.audit_lines() if l["event"] == "tool_call" and l["outcome"] == "timeout"]
    assert len(timeouts) == 5, timeouts


async def test_check_fills_the_cache_and_off_compiles_before_the_first_call(
    start_warden, write_manifest, helpers, echo_wasm, hostile_wasm, tmp_path, warden_bin, warden_env
):
    quick = _manifest(write_manifest, helpers, echo_wasm, hostile_wasm, "1KiB")
    cache = tmp_path / "checked-cache"
    env = {**warden_env, "WARDEN_CACHE_DIR": str(cache)}
    checked = subprocess.run(
        [str(warden_bin), "check", "--manifest", str(quick.path)], env=env, capture_output=True, text=True, timeout=300
    )
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert "baseline" not in checked.stderr, checked.stderr[-3000:]
    async with start_warden(quick, env={"WARDEN_CACHE_DIR": str(cache)}) as w:
        ready = w.stderr()
        assert re.search(r"\(compiled: 0, from cache: 3, precompiled: 0\)", ready), ready[-3000:]
        assert "baseline" not in ready, ready[-3000:]

    off = _manifest(write_manifest, helpers, echo_wasm, hostile_wasm, "off")
    async with start_warden(off, env={"WARDEN_CACHE_DIR": str(tmp_path / "off-cache")}) as w:
        ready = w.stderr()
        assert re.search(r"\(compiled: 2, from cache: 1, precompiled: 0\)", ready), ready[-3000:]
        assert "baseline" not in ready, ready[-3000:]
        await _limits_hold(w, helpers)
