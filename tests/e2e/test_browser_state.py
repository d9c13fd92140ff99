"""Saved session states through the MCP server against a real Chromium: a session's cookies
(httpOnly included) and local storage saved in the host under a name, and new sessions
opened from it already signed in; the values never reach the plugin, a value holding a
secret typed into the session is left out, and another plugin cannot open the state."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from browser_helpers import CHROMIUM, err, ok, ref_of
from browser_site import page
from local_site import LocalSite, QuietHandler

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]

PASSWORD = "st4te-Secret-Pw!"
TOKEN = secrets.token_hex(16)

# A dashboard that knows its user from an httpOnly cookie (server side) and its theme from
# localStorage (client side); a careless settings form keeps what is typed in storage.
APP = """
<div class=shell><div class=top><div class=who>{who}</div></div>
<div class=body>
  <div id=theme>Theme: ?</div>
  <div class=btn role=button tabindex=0 id=dark>Dark theme</div>
  <div class=field><span>Unlock code</span><input type=password id=pw aria-label="Unlock code"></div>
  <div id=kept>Stored code: ?</div>
</div></div>
<script>
const show = () => {
  document.getElementById('theme').textContent = 'Theme: ' + (localStorage.getItem('theme') || 'light');
  document.getElementById('kept').textContent = 'Stored code: ' + (localStorage.getItem('code') ? 'yes' : 'none');
};
document.getElementById('dark').addEventListener('click', () => { localStorage.setItem('theme', 'dark'); show(); });
document.getElementById('pw').addEventListener('input', (e) => { localStorage.setItem('code', e.target.value); show(); });
show();
</script>
"""


class StateSite(LocalSite):
    def __init__(self) -> None:
        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path.startswith("/login"):
                    self.send_response(302)
                    self.send_header("Set-Cookie", f"sid={TOKEN}; HttpOnly; Path=/; Max-Age=3600")
                    self.send_header("Location", "/app")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                signed_in = f"sid={TOKEN}" in (self.headers.get("Cookie") or "")
                who = "Signed in as ada" if signed_in else "Not signed in"
                body = page("App", APP.replace("{who}", who)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)


@pytest.fixture()
def site() -> Iterator[StateSite]:
    s = StateSite()
    yield s
    s.close()


def manifest(write_manifest, site: StateSite) -> object:
    return write_manifest(
        f"""
[browser]
executable = "{CHROMIUM}"

[browser.secrets]
CODE = {{ env = "WARDEN_TEST_CODE", origins = ["{site.origin}"] }}

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"], secrets = ["CODE"] }}

[[plugin]]
name = "other"
source = "builtin:browser"
tool_prefix = "other_"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{site.origin}"] }}
"""
    )


async def test_a_saved_state_opens_new_sessions_signed_in(start_warden, write_manifest, site) -> None:
    m = manifest(write_manifest, site)
    outputs: list[str] = []
    async with start_warden(m, env={"WARDEN_TEST_CODE": PASSWORD}) as w:
        snap = await ok(w, "browse_navigate", {"url": f"{site.origin}/login"})
        assert "Signed in as ada" in await ok(w, "browse_snapshot", {"mode": "full"})
        outputs.append(await ok(w, "browse_click", {"ref": ref_of(snap, "button", "Dark theme")}))

        saved = await ok(w, "browse_session", {"action": "save_state", "state": "ada"})
        outputs.append(saved)
        assert saved.startswith(f'Saved session "default" as state "ada" (1 cookie(s), local storage of {site.origin})'), saved

        # A new session from the state: signed in (the httpOnly cookie) with the dark theme
        # (local storage) on its first page load.
        created = await ok(w, "browse_session", {"action": "create", "name": "second", "state": "ada"})
        outputs.append(created)
        assert created.startswith('Current session: "second" from state "ada"'), created
        await ok(w, "browse_navigate", {"url": f"{site.origin}/app"})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        outputs.append(full)
        assert "Signed in as ada" in full and "Theme: dark" in full, full

        # A session without it starts clean.
        await ok(w, "browse_session", {"action": "create", "name": "third"})
        await ok(w, "browse_navigate", {"url": f"{site.origin}/app"})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Not signed in" in full and "Theme: light" in full, full

        listed = await ok(w, "browse_session")
        outputs.append(listed)
        assert 'Saved states: "ada" (1 cookie(s)' in listed, listed

        # Refused clearly: an unknown state, a session that is open, both profile and state.
        unknown = await err(w, "browse_session", {"action": "create", "name": "x", "state": "nope"})
        assert 'no state named "nope"' in unknown, unknown
        busy = await err(w, "browse_session", {"action": "create", "name": "second", "state": "ada"})
        assert "open already" in busy, busy
        both = await err(w, "browse_session", {"action": "create", "name": "y", "state": "ada", "profile": "p"})
        assert "not both" in both, both

        # Another plugin cannot open this plugin's state, nor see it.
        foreign = await err(w, "other_browse_session", {"action": "create", "name": "z", "state": "ada"})
        assert 'no state named "ada"' in foreign, foreign
        assert "Saved states" not in await ok(w, "other_browse_session")

        await ok(w, "browse_session", {"action": "delete_state", "state": "ada"})
        gone = await err(w, "browse_session", {"action": "create", "name": "w", "state": "ada"})
        assert 'no state named "ada"' in gone, gone
    for text in outputs:
        assert TOKEN not in text, text
    used = [a["capability"] for a in m.audit_lines() if a["event"] == "capability_used"]
    assert "browser.save_state" in used and "browser.restore_state" in used, used


async def test_a_value_holding_a_typed_secret_is_not_saved(start_warden, write_manifest, site) -> None:
    m = manifest(write_manifest, site)
    async with start_warden(m, env={"WARDEN_TEST_CODE": PASSWORD}) as w:
        snap = await ok(w, "browse_navigate", {"url": f"{site.origin}/login"})
        await ok(w, "browse_fill", {"ref": ref_of(snap, "password", "Unlock code"), "secret": "CODE"})
        # The page that holds the secret is not saved from; a fresh document of its origin
        # shows what the page kept in storage.
        refused = await err(w, "browse_session", {"action": "save_state", "state": "ada"})
        assert "holds a secret" in refused, refused
        await ok(w, "browse_navigate", {"url": f"{site.origin}/app"})
        assert "Stored code: yes" in await ok(w, "browse_snapshot", {"mode": "full"})
        saved = await ok(w, "browse_session", {"action": "save_state", "state": "ada"})
        assert "1 value(s) left out: they hold a secret typed into the session" in saved, saved
        await ok(w, "browse_session", {"action": "create", "name": "second", "state": "ada"})
        await ok(w, "browse_navigate", {"url": f"{site.origin}/app"})
        full = await ok(w, "browse_snapshot", {"mode": "full"})
        assert "Signed in as ada" in full and "Stored code: none" in full, full
        assert PASSWORD not in full
