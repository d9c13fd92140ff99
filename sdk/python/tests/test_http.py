"""`warden_sdk.http` natively: the typed errors of the host's refusals (each naming the grant),
responses, requests refused before anything is sent, and the headers a request hands over.
The requests themselves run in tests/e2e/test_sdk_http.py against a loopback API."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warden_sdk import AccessDenied, CapabilityError, http  # noqa: E402


class ErrorCode_HttpRequestDenied:  # noqa: N801 - named as componentize-py names the case
    pass


class ErrorCode_DestinationIpProhibited:  # noqa: N801
    pass


class ErrorCode_HttpRequestBodySize:  # noqa: N801
    value = 1024


class ErrorCode_ConnectionLimitReached:  # noqa: N801
    pass


class ErrorCode_HttpResponseTimeout:  # noqa: N801
    pass


class ErrorCode_ConnectionRefused:  # noqa: N801
    pass


class ErrorCode_InternalError:  # noqa: N801
    value = "the host could not make an HTTP client"


def test_refusals_are_typed_and_name_the_grant() -> None:
    url = "http://127.0.0.1:8080/issues?q=1"
    denied = http.error_for(ErrorCode_HttpRequestDenied(), "POST", url)
    assert isinstance(denied, http.HttpDenied) and isinstance(denied, CapabilityError)
    assert denied.kind == "access-denied" and denied.code == "HTTP-request-denied"
    assert 'add "http://127.0.0.1:8080" to grants.http.origins' in denied.message
    assert '"POST" to grants.http.methods' in denied.message and "?q=1" not in denied.message
    assert denied.to_tool_error().kind == "access-denied"

    private = http.error_for(ErrorCode_DestinationIpProhibited(), "GET", url)
    assert private.kind == "access-denied" and "private network space" in private.message

    big = http.error_for(ErrorCode_HttpRequestBodySize(), "POST", url)
    assert isinstance(big, http.HttpLimit) and big.kind == "limit-reached" and "max_request_body" in big.message
    busy = http.error_for(ErrorCode_ConnectionLimitReached(), "GET", url)
    assert busy.kind == "limit-reached" and "grants.http.concurrency" in busy.message
    slow = http.error_for(ErrorCode_HttpResponseTimeout(), "GET", url)
    assert isinstance(slow, http.HttpTimeout) and slow.kind == "timeout" and "grants.http.timeout" in slow.message

    refused = http.error_for(ErrorCode_ConnectionRefused(), "GET", url)
    assert type(refused) is http.HttpError and refused.kind == "io" and refused.code == "connection-refused"
    internal = http.error_for(ErrorCode_InternalError(), "GET", url)
    assert "could not make an HTTP client" in internal.message


def test_denied_is_not_an_access_denied_subclass_but_the_same_kind() -> None:
    # Catch the HTTP ones by class, or every refusal by kind.
    denied = http.error_for(ErrorCode_HttpRequestDenied(), "GET", "https://api.example.com/x")
    assert not isinstance(denied, AccessDenied) and denied.kind == AccessDenied("x").kind


def test_responses() -> None:
    r = http.Response(201, [("content-type", "application/json"), ("x-a", "1")], b'{"id": 7}', "https://a/b")
    assert r.ok and r.header("Content-Type") == "application/json" and r.header("x-b") is None
    assert r.json() == {"id": 7} and r.text() == '{"id": 7}' and r.raise_for_status() is r
    bad = http.Response(404, [], b"no such issue", "https://a/b")
    with pytest.raises(http.HttpStatusError, match="HTTP 404 from https://a/b: no such issue"):
        bad.raise_for_status()


@pytest.mark.parametrize(
    ("url", "kwargs", "message"),
    [
        ("ftp://example.com/", {}, "not an absolute http:// or https:// URL"),
        ("/relative", {}, "not an absolute http:// or https:// URL"),
        ("https://example.com/", {"json": {}, "data": b"x"}, "give `json` or `data`, not both"),
    ],
)
def test_bad_requests_are_refused_before_the_host(url: str, kwargs: dict, message: str) -> None:
    with pytest.raises(http.HttpError, match=message) as e:
        http.request("POST", url, **kwargs)
    assert e.value.kind == "invalid-argument"


class _Sent(Exception):
    pass


@pytest.mark.parametrize(
    ("method", "kwargs", "length"),
    [
        ("POST", {"json": {"title": "Broken"}}, str(len(b'{"title": "Broken"}'))),
        ("PUT", {"data": "héllo"}, "6"),  # bytes, not characters
        ("DELETE", {"data": b"x"}, "1"),
        ("POST", {}, "0"),
        ("patch", {}, "0"),
        ("GET", {}, None),
        ("DELETE", {}, None),
        ("POST", {"data": b"abc", "headers": {"Content-Length": "3"}}, "3"),
        ("POST", {"headers": [("CONTENT-LENGTH", "0")]}, "0"),
    ],
)
def test_the_request_says_its_length_once(monkeypatch, method: str, kwargs: dict, length: str | None) -> None:
    # The headers as the request hands them to wasi:http, caught before anything is sent.
    sent: list[tuple[str, bytes]] = []

    class Fields:
        @staticmethod
        def from_list(pairs: list[tuple[str, bytes]]) -> None:
            sent.extend(pairs)
            raise _Sent

    monkeypatch.setattr(http, "_wit", lambda: (None, SimpleNamespace(Fields=Fields), None))
    with pytest.raises(http.HttpError):
        http.request(method, "https://api.example.com/issues", **kwargs)
    lengths = [v.decode() for k, v in sent if k.lower() == "content-length"]
    assert lengths == ([] if length is None else [length]), sent
