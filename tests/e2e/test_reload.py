"""Live manifest reload: a connected client sees a changed grant and tool filter on its next
call (after notifications/tools/list_changed), and a broken edit leaves the old manifest serving."""

from __future__ import annotations

import mcp_types
import pytest

pytestmark = pytest.mark.anyio


def manifest_body(helpers, echo_wasm, hosts: str, deny: str) -> str:
    return helpers.plugin_block(
        "capture", "builtin:capture", f"grants.capture = {{ http_hosts = [{hosts}] }}"
    ) + helpers.plugin_block("echo", echo_wasm, f"tools = {{ deny = [{deny}] }}")


async def test_reload_applies_grants_and_refuses_broken_edits(
    start_warden, write_manifest, helpers, echo_wasm, http_server
):
    manifest = write_manifest(manifest_body(helpers, echo_wasm, "", ""))
    changes: list[object] = []

    async def on_message(message: object) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changes.append(message)

    url = http_server.url("/body")
    async with start_warden(manifest, message_handler=on_message) as w:
        denied = await w.call("http_get", {"url": url})
        assert denied.is_error and "grants.capture.http_hosts" in helpers.text_of(denied)
        assert "progress" in {t.name for t in (await w.session.list_tools()).tools}

        # The admin grants the local host and hides a tool, while the client stays connected.
        write_manifest(manifest_body(helpers, echo_wasm, '"127.0.0.1:*"', '"progress"'))
        assert await helpers.wait_for(lambda: changes, timeout=15), "no notifications/tools/list_changed after the edit"

        allowed = await w.call("http_get", {"url": url})
        assert not allowed.is_error, helpers.text_of(allowed)
        names = {t.name for t in (await w.session.list_tools()).tools}
        assert "progress" not in names and "echo" in names, names

        # A broken edit is refused; the previous manifest keeps serving.
        manifest.path.write_text(manifest.path.read_text() + "\n[[plugin]]\nname = 5\n")
        assert await helpers.wait_for(lambda: "manifest change refused" in w.stderr(), timeout=15), w.stderr()[-2000:]
        assert len(changes) == 1, changes
        still = await w.call("http_get", {"url": url})
        assert not still.is_error, helpers.text_of(still)
        await w.assert_echo()


async def test_a_reload_cannot_grant_a_plugin_wardens_own_files(
    start_warden, write_manifest, helpers, echo_wasm, tmp_path
):
    """The directory that holds the manifest (and the audit log) is never granted, by the
    edit a plugin might make if it could write there or by the admin's own: the reload is
    refused, naming what the grant would reach, and the previous manifest keeps serving."""
    (tmp_path / "data").mkdir()

    def body(host: str) -> str:
        return helpers.plugin_block(
            "echo", echo_wasm,
            f'grants.files = [{{ host = "{host}", guest = "/data", mode = "read-write" }}]',
        )

    manifest = write_manifest(body(str(tmp_path / "data")))
    async with start_warden(manifest) as w:
        await w.assert_echo()
        for n, host in enumerate((str(tmp_path), str(tmp_path / "data" / ".."), "."), start=1):
            write_manifest(body(host))
            assert await helpers.wait_for(
                lambda n=n: w.stderr().count("reaches the manifest") >= n, timeout=15
            ), w.stderr()[-2000:]
        assert "holds none of Warden's files" in w.stderr()
        await w.assert_echo()
