"""The capture plugin through the MCP server: capture_page, get_cookies and
login_then_capture in the host's capture browser (a real Chromium on a persistent profile),
against the fixture site of browser_site.py, whose login sets an HttpOnly `sid` cookie."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_site import SESSION_COOKIE, Site, start_site
from conftest import text_of

pytestmark = pytest.mark.anyio

CHROMIUM = os.environ.get("WARDEN_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module", autouse=True)
def chromium_present() -> None:
    if not (Path(CHROMIUM).is_file() or shutil.which("chromium")):
        message = f"Chromium is not installed at {CHROMIUM}; install it (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@pytest.fixture()
def sites() -> Iterator[tuple[Site, Site]]:
    """(granted site, site that is not granted)."""
    main, blocked = start_site(), start_site()
    main.links = {"blocked": blocked.origin}
    yield main, blocked
    main.close()
    blocked.close()


def capture_manifest(write_manifest, tmp_path: Path, site: Site, grants: str = "", name: str = "warden.toml"):
    body = f"""
[browser]
executable = "{CHROMIUM}"

[capture]
profile_dir = "{tmp_path / 'capture-profile'}"

[[plugin]]
name = "capture"
source = "builtin:capture"
limits = {{ call_timeout = "60s" }}
grants.capture = {{ origins = ["{site.origin}"]{grants} }}
"""
    return write_manifest(body, name=name)


async def ok(w, tool: str, args: dict) -> str:
    result = await w.call(tool, args, timeout=60)
    text = text_of(result)
    assert not result.is_error, f"{tool} failed: {text}"
    return text


async def err(w, tool: str, args: dict) -> str:
    result = await w.call(tool, args, timeout=60)
    text = text_of(result)
    assert result.is_error, f"{tool} should have failed, got: {text}"
    return text


def open_tabs_logged(stderr: str) -> list[int]:
    """The host logs every capture request with the number of capture tabs still open."""
    return [int(n) for n in re.findall(r"open_tabs=(\d+)", stderr)]


async def test_login_then_capture_and_logged_in_profile(start_warden, write_manifest, sites, tmp_path) -> None:
    main, blocked = sites
    manifest = capture_manifest(write_manifest, tmp_path, main, ", cookies = true, http_only_cookies = true")
    async with start_warden(manifest) as w:
        # Not logged in yet: the site sends the capture to its login page.
        text = await ok(w, "capture_page", {"url": main.url("/dashboard"), "format": "text"})
        assert "/login" in text.splitlines()[0] and "Welcome back" not in text, text

        # The login page submits itself after 500 ms; the tool waits for the URL pattern.
        text = await ok(
            w,
            "login_then_capture",
            {
                "url": main.url("/dashboard"),
                "login_url": main.url("/login-auto"),
                "until_url": "*/dashboard*",
                "timeout_ms": 20000,
            },
        )
        assert "Welcome back, user@example.com" in text, text

        # The profile is logged in now: a plain capture gets the logged-in content.
        text = await ok(w, "capture_page", {"url": main.url("/dashboard"), "format": "markdown"})
        assert "# Welcome back, user@example.com" in text, text
        html = await ok(w, "capture_page", {"url": main.url("/dashboard"), "format": "html"})
        assert "<h1>Welcome back, user@example.com</h1>" in html, html

        result = await w.call("get_cookies", {"url": main.url("/")}, timeout=60)
        assert not result.is_error, text_of(result)
        assert SESSION_COOKIE in result.structured_content["header"], result.structured_content
        assert "s3ss10n-token" not in w.stderr(), "cookie values never go to the log"

        # capture_cookies returns the page's cookies with the capture.
        result = await w.call("capture_page", {"url": main.url("/dashboard"), "capture_cookies": True}, timeout=60)
        assert not result.is_error, text_of(result)
        names = [c["name"] for c in result.structured_content["cookies"]]
        assert "sid" in names, result.structured_content

        # An origin outside capture.origins is refused before any tab opens.
        denied = await err(w, "capture_page", {"url": blocked.url("/dashboard")})
        assert "capture.origins" in denied and blocked.origin in denied, denied

        # A redirect out of the granted origin is stopped by the in-browser guard.
        denied = await err(w, "capture_page", {"url": main.url("/redirect-out")})
        assert "blocked" in denied or "capture.origins" in denied, denied

        # A login that never completes ends with a clear timeout.
        started = await w.call(
            "login_then_capture",
            {"url": main.url("/dashboard"), "login_url": main.url("/login"), "until_url": "*/never*", "timeout_ms": 1500},
            timeout=60,
        )
        text = text_of(started)
        assert started.is_error and "1500 ms" in text, text

        stderr = w.stderr()
    counts = open_tabs_logged(stderr)
    assert len(counts) >= 8, stderr[-3000:]
    assert all(n == 0 for n in counts), f"a capture tab was left open: {counts}"
    audit = manifest.audit_lines()
    assert any(line.get("capability") == "capture.page" and line.get("decision") == "denied" for line in audit), audit


async def test_cookie_grants(start_warden, write_manifest, sites, tmp_path) -> None:
    main, _ = sites
    full = capture_manifest(write_manifest, tmp_path, main, ", cookies = true, http_only_cookies = true", "full.toml")
    async with start_warden(full) as w:
        await ok(
            w,
            "login_then_capture",
            {"url": main.url("/prefs"), "login_url": main.url("/login-auto"), "until_url": "*/dashboard*", "timeout_ms": 20000},
        )
        result = await w.call("get_cookies", {"url": main.url("/")}, timeout=60)
        names = sorted(c["name"] for c in result.structured_content["cookies"])
        assert names == ["sid", "theme"], result.structured_content
        assert [c["http_only"] for c in sorted(result.structured_content["cookies"], key=lambda c: c["name"])] == [True, False]

    # A plugin without the httpOnly grant, logged in the same way: sid is withheld.
    plain = capture_manifest(write_manifest, tmp_path, main, ", cookies = true", "plain.toml")
    async with start_warden(plain) as w:
        await ok(
            w,
            "login_then_capture",
            {"url": main.url("/dashboard"), "login_url": main.url("/login-auto"), "until_url": "*/dashboard*", "timeout_ms": 20000},
        )
        result = await w.call("get_cookies", {"url": main.url("/prefs"), "open": True}, timeout=60)
        assert not result.is_error, text_of(result)
        assert result.structured_content["header"] == "theme=dark", result.structured_content

    # No cookies grant at all: refused, and the message names the key.
    none = capture_manifest(write_manifest, tmp_path, main, "", "none.toml")
    async with start_warden(none) as w:
        denied = await err(w, "get_cookies", {"url": main.url("/")})
        assert "capture.cookies" in denied, denied
        denied = await err(w, "capture_page", {"url": main.url("/prefs"), "capture_cookies": True})
        assert "capture.cookies" in denied, denied
