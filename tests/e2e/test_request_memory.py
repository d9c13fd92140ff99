"""What one request may take of the host: measured, not trusted. A plain-export tool called
with 16 MiB of arguments of each shape (bytes, one string, many strings, records, nested
lists, dense numbers) through the official MCP client over stdio; the host's peak resident
memory (VmHWM, reset before each call) over the request's size stays under a small bound,
and the client gets an answer each time: the result, or a refusal that names the limit.
Beside it, what the wire does at its edges: a message over the line limit, one between
rmcp's old 16 MiB cut and Warden's limit, and integers past their type's range, each
answered under the request's own id, never rounded, with the server still serving.

`tests/e2e/request_memory.py` prints the same measure for 1, 4 and 16 MiB (docs/src/benchmarks.md)."""

from __future__ import annotations

import pytest
from mcp import MCPError as McpError

from request_memory import SHAPES, measure, shapes_manifest, text_of

pytestmark = pytest.mark.anyio

MIB = 1 << 20

# Host bytes per request byte, at most, for a request of 16 MiB of any shape: the
# message's copies on the way in (framing, rmcp, the call), its parsed JSON (weighed,
# at most 4 bytes a byte) and its component values (budgeted, at most 4 bytes a byte),
# and the guest's own copy. Before the bounds, bytes took about 90 bytes a byte.
BOUND = 16


async def test_every_argument_shape_stays_within_a_small_multiple_of_its_size(
    start_warden, write_manifest, helpers
) -> None:
    manifest = write_manifest(shapes_manifest())
    ratios = {}
    for shape in SHAPES:
        # A fresh process per shape: memory one shape freed would hide the next one's peak.
        async with start_warden(manifest) as w:
            outcome, expected, size, peak = await measure(w, shape, 16 * MIB)
            ratios[shape.name] = round(peak / size, 1)
            if outcome.is_error:
                # Refused before it was converted: the refusal names the limit.
                assert "MiB of host memory" in text_of(outcome), (shape.name, text_of(outcome))
            else:
                assert outcome.structured_content == {"result": expected}, shape.name
            # Still serving, and the same tool answers a small call.
            small = await w.call(shape.tool, shape.build(1024)[0])
            assert not small.is_error, (shape.name, text_of(small))
    assert all(r < BOUND for r in ratios.values()), ratios


async def test_a_message_over_the_limit_gets_an_error_under_its_own_id(start_warden, write_manifest) -> None:
    manifest = write_manifest(shapes_manifest())
    async with start_warden(manifest) as w:
        # Between rmcp's own 16 MiB cut (silent: the client waited forever) and Warden's limit.
        middle = await w.call("count_text", {"text": "a" * (20 * MIB)}, timeout=60)
        assert middle.structured_content == {"result": 20 * MIB}, text_of(middle)
        with pytest.raises(McpError) as refused:
            await w.call("count_text", {"text": "a" * (65 * MIB)}, timeout=60)
        assert refused.value.error.code == -32600, refused.value.error
        assert "64 MiB" in refused.value.error.message, refused.value.error.message
        # Too heavy once parsed, though short: a dense array of numbers.
        with pytest.raises(McpError) as heavy:
            await w.call("count_cells", {"rows": [[1] * (12 * MIB)]}, timeout=60)
        assert heavy.value.error.code == -32600, heavy.value.error
        assert "host memory" in heavy.value.error.message, heavy.value.error.message
        # The wire keeps serving.
        assert (await w.call("count_text", {"text": "ok"})).structured_content == {"result": 2}
    assert "answered with -32600" in w.stderr()
    refused = [r for r in manifest.audit_lines() if r["event"] == "request_refused"]
    assert len(refused) == 2 and all(r["session"] == "stdio" for r in refused), refused


async def test_integers_past_their_range_are_refused_never_rounded(start_warden, write_manifest) -> None:
    manifest = write_manifest(shapes_manifest())
    widths = {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1}
    async with start_warden(manifest) as w:
        for key, value, expected in [
            # Parsed as a double, this is exactly i64::MIN: it used to be taken as that.
            ("f", -9223372036854775809, "f: expected an integer from -9223372036854775808 to 9223372036854775807"),
            ("g", 18446744073709551616, "g: expected an integer from 0 to 18446744073709551615"),
            ("g", 1e30, "never rounded"),
            ("a", 300, "a: expected an integer from 0 to 255, got 300"),
            ("a", 3.0, "a: expected an integer from 0 to 255, got 3.0"),
            ("e", 4294967296.5, "e: expected an integer from 0 to 4294967295"),
        ]:
            result = await w.call("widths", {**widths, key: value})
            assert result.is_error, (key, value, result.structured_content)
            assert expected in text_of(result), (key, value, text_of(result))
        exact = await w.call("widths", {**widths, "f": -9223372036854775808, "g": 18446744073709551615})
        assert not exact.is_error, text_of(exact)
        assert exact.structured_content["result"][5:] == ["-9223372036854775808", "18446744073709551615"]
