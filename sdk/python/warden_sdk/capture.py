"""Credentialed capture and host-performed HTTP (`warden:capture`; imports `capture/http`
and `capture/page`). Every URL must match the manifest's `capture` grant; a refused call
raises `AccessDenied` naming the grant to add."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ._capability import binding
from ._errors import reraise


@dataclass
class HttpResponse:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    final_url: str
    """The URL after redirects."""
    redirects: int
    truncated: bool
    """The body was longer than the byte cap and was cut."""

    def header(self, name: str) -> str | None:
        """The first header called `name` (case-insensitive)."""
        lower = name.lower()
        return next((v for k, v in self.headers if k.lower() == lower), None)

    @property
    def content_type(self) -> str | None:
        return self.header("content-type")

    def text(self) -> str:
        """The body as text (UTF-8, invalid bytes replaced)."""
        return self.body.decode("utf-8", errors="replace")


def http_get(
    url: str,
    *,
    headers: list[tuple[str, str]] | None = None,
    timeout_ms: int | None = None,
    max_bytes: int | None = None,
) -> HttpResponse:
    """GET `url` through the host (import `capture/http`; grant `capture.http_hosts`)."""
    http = binding("capture/http")
    try:
        r = http.get(http.Request(url, list(headers or []), timeout_ms, max_bytes))
    except Exception as e:  # noqa: BLE001
        reraise(e)
    return HttpResponse(r.status, list(r.headers), bytes(r.body), r.final_url, r.redirects, r.truncated)


Format = Literal["html", "text", "markdown"]
WaitUntil = Literal["load", "dom-content-loaded", "network-idle"]


@dataclass
class Cookie:
    name: str
    value: str
    domain: str
    path: str
    http_only: bool
    secure: bool
    expires: float | None


@dataclass
class Capture:
    content: str
    title: str
    final_url: str
    cookies: list[Cookie] | None = field(default=None)


def _cookie(c: object) -> Cookie:
    return Cookie(
        c.name, c.value, c.domain, c.path, c.http_only, c.secure, c.expires  # type: ignore[attr-defined]
    )


def _capture(c: object) -> Capture:
    cookies = getattr(c, "cookies", None)
    return Capture(
        c.content,  # type: ignore[attr-defined]
        c.title,  # type: ignore[attr-defined]
        c.final_url,  # type: ignore[attr-defined]
        None if cookies is None else [_cookie(k) for k in cookies],
    )


def _enum_name(value: str) -> str:
    return value.replace("-", "_").upper()


def capture_page(
    url: str,
    *,
    format: Format = "text",
    wait_until: WaitUntil = "load",
    timeout_ms: int = 0,
    capture_cookies: bool = False,
) -> Capture:
    """Open `url` in the capture profile and return its content (import `capture/page`;
    grant `capture.origins`)."""
    page = binding("capture/page")
    request = page.CaptureRequest(
        url, page.WaitUntil[_enum_name(wait_until)], timeout_ms, capture_cookies, page.Format[_enum_name(format)]
    )
    try:
        return _capture(page.capture_page(request))
    except Exception as e:  # noqa: BLE001
        reraise(e)


def get_cookies(
    *, url: str | None = None, domain: str | None = None, open_url: str | None = None
) -> tuple[str, list[Cookie]]:
    """The capture profile's cookies for a URL's host or a domain: the `Cookie` header value
    and the cookies (grant `capture.cookies`)."""
    page = binding("capture/page")
    try:
        c = page.get_cookies(page.CookiesRequest(url, domain, open_url))
    except Exception as e:  # noqa: BLE001
        reraise(e)
    return c.header, [_cookie(k) for k in c.cookies]


def login_then_capture(
    url: str,
    *,
    login_url: str | None = None,
    until_url: str | None = None,
    until_selector: str | None = None,
    timeout_ms: int = 0,
    format: Format = "text",
) -> Capture:
    """Open the login page, wait until the login condition holds, then capture `url`."""
    page = binding("capture/page")
    request = page.LoginRequest(url, login_url, until_url, until_selector, timeout_ms, page.Format[_enum_name(format)])
    try:
        return _capture(page.login_then_capture(request))
    except Exception as e:  # noqa: BLE001
        reraise(e)
