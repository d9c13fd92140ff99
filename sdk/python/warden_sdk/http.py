"""HTTP requests of any method, with a body, over the standard `wasi:http/outgoing-handler`:
add "http" to `[tool.warden] imports`. Synchronous for the plugin: each call returns when the
whole response is in.

    from warden_sdk import http

    issue = http.post("https://api.example.com/issues", json={"title": "Broken"}).json()

The admin decides where a plugin may send what (`grants.http`: origins, methods, body and
time caps) and keeps API keys in the manifest's `[credentials.NAME]`: the host adds the
credential to requests for its origins after the plugin hands them over, so a plugin never
holds it and sets no `Authorization` header of its own.

A request the host refuses raises a `CapabilityError` that says which grant to add:
`HttpDenied` (access-denied: origin or method not granted, or a private address),
`HttpLimit` (limit-reached: a body over its cap, too many requests at once), `HttpTimeout`;
anything else on the way is `HttpError` (io). Left uncaught each becomes the tool error of
its kind. A response of any status is a `Response`: check `ok` or call `raise_for_status()`.
"""

from __future__ import annotations

import json as _json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ._bindings import imported
from ._capability import binding
from ._errors import CapabilityError, CapabilityErrorKind

# The most one blocking write may carry (wasi:io/streams).
_WRITE_CHUNK = 4096
_READ_CHUNK = 64 * 1024
# Methods whose request is expected to carry a body, an empty one included.
_SENDS_BODY = ("POST", "PUT", "PATCH")


class HttpError(CapabilityError):
    """A request that failed. `code` is the `wasi:http` error-code case the host gave
    (`HTTP-request-denied`, `connection-refused`, ...), or "" when the failure was the SDK's."""

    code: str

    def __init__(self, message: str, code: str = "", kind: CapabilityErrorKind = "io") -> None:
        CapabilityError.__init__(self, kind, message)
        self.code = code


class HttpDenied(HttpError):
    """The host refused the request (access-denied): its origin or method is not in
    `grants.http`, or its address is private. The message names the grant to add."""

    def __init__(self, message: str, code: str = "HTTP-request-denied") -> None:
        super().__init__(message, code, "access-denied")


class HttpLimit(HttpError):
    """Over a cap of `grants.http` (limit-reached): a body too large, too many requests."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message, code, "limit-reached")


class HttpTimeout(HttpError):
    """No answer in time (`grants.http.timeout`, `connect_timeout`, or the `timeout` asked)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message, code, "timeout")


class HttpStatusError(Exception):
    """`raise_for_status()` on a response whose status is not 2xx."""

    def __init__(self, response: Response) -> None:
        snippet = response.text()[:200]
        super().__init__(f"HTTP {response.status} from {response.url}" + (f": {snippet}" if snippet else ""))
        self.response = response


@dataclass
class Response:
    """A response: its status, headers (lower-case names, in order) and whole body."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    url: str = ""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def header(self, name: str) -> str | None:
        """The first value of header `name` (any case), or None."""
        name = name.lower()
        return next((v for k, v in self.headers if k == name), None)

    def text(self) -> str:
        """The body as text (UTF-8, invalid bytes replaced)."""
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body decoded from JSON (`ValueError` when it is not JSON)."""
        return _json.loads(self.body)

    def raise_for_status(self) -> Response:
        """This response if its status is 2xx, else raises `HttpStatusError`."""
        if not self.ok:
            raise HttpStatusError(self)
        return self


def _case(code: Any) -> str:
    """`ErrorCode_HttpRequestDenied` -> `HTTP-request-denied`, as the WIT spells it."""
    name = type(code).__name__.removeprefix("ErrorCode_")
    return _CASES.get(name, name)


_CASES = {
    "DnsTimeout": "DNS-timeout",
    "DnsError": "DNS-error",
    "DestinationNotFound": "destination-not-found",
    "DestinationUnavailable": "destination-unavailable",
    "DestinationIpProhibited": "destination-IP-prohibited",
    "DestinationIpUnroutable": "destination-IP-unroutable",
    "ConnectionRefused": "connection-refused",
    "ConnectionTerminated": "connection-terminated",
    "ConnectionTimeout": "connection-timeout",
    "ConnectionReadTimeout": "connection-read-timeout",
    "ConnectionWriteTimeout": "connection-write-timeout",
    "ConnectionLimitReached": "connection-limit-reached",
    "HttpRequestDenied": "HTTP-request-denied",
    "HttpRequestBodySize": "HTTP-request-body-size",
    "HttpRequestMethodInvalid": "HTTP-request-method-invalid",
    "HttpRequestUriInvalid": "HTTP-request-URI-invalid",
    "HttpResponseIncomplete": "HTTP-response-incomplete",
    "HttpResponseBodySize": "HTTP-response-body-size",
    "HttpResponseTimeout": "HTTP-response-timeout",
    "HttpProtocolError": "HTTP-protocol-error",
    "ConfigurationError": "configuration-error",
    "InternalError": "internal-error",
}


def error_for(code: Any, method: str, url: str) -> HttpError:
    """The typed error of a `wasi:http` error-code for `method url`: what happened and what to
    change in the manifest (the same words as the Rust SDK's)."""
    case = _case(code)
    origin = _origin(url)
    if case == "HTTP-request-denied":
        return HttpDenied(
            f'the host refused {method} {origin}: add "{origin}" to grants.http.origins (and "{method}" to '
            "grants.http.methods) of this plugin in the manifest; the audit log names the grant",
            case,
        )
    if case in ("destination-IP-prohibited", "destination-IP-unroutable"):
        return HttpDenied(
            f"the host refused {origin}: it is in private network space, which grants.http.origins opens only "
            'for an address written literally, like "http://127.0.0.1:8080"',
            case,
        )
    if case == "connection-limit-reached":
        return HttpLimit(
            "too many requests of this plugin are in flight; wait for one to end, or raise grants.http.concurrency",
            case,
        )
    if case == "HTTP-request-body-size":
        return HttpLimit("the request body is over the host's cap; send less, or raise grants.http.max_request_body", case)
    if case == "HTTP-response-body-size":
        return HttpLimit("the response body is over the host's cap; raise grants.http.max_response_body", case)
    if case == "configuration-error":
        return HttpError(f"the host could not add the credential for {origin} (the host log says why)", case)
    if case.endswith("timeout"):
        return HttpTimeout(f"{method} {origin}: no answer in time ({case}; grants.http.timeout)", case)
    if case == "HTTP-request-URI-invalid":
        return HttpError(f"the URL of {method} {origin} is not valid", case, "invalid-argument")
    detail = getattr(code, "value", None)
    return HttpError(f"{method} {origin} failed: {case}" + (f" ({detail})" if isinstance(detail, str) and detail else ""), case)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _wit() -> tuple[Any, Any, Any]:
    handler = binding("http")
    return handler, imported("wasi", "http", "types"), imported("wasi", "io", "streams")


def request(
    method: str,
    url: str,
    *,
    headers: dict[str, str] | list[tuple[str, str]] | None = None,
    json: Any = None,
    data: bytes | str | None = None,
    timeout: float | None = None,
) -> Response:
    """Send `method url` and return the whole response (any status).

    `json` is sent as a JSON body (with `content-type: application/json` unless given);
    `data` as is (`str` as UTF-8). The body goes with its `content-length` unless given (a
    POST, PUT or PATCH without one says 0). `timeout` (seconds) bounds the wait for the first
    byte and between bytes; the host's `grants.http.timeout` bounds the whole request either way."""
    method = method.upper()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise HttpError(f"`{url}` is not an absolute http:// or https:// URL", kind="invalid-argument")
    if json is not None and data is not None:
        raise HttpError("give `json` or `data`, not both", kind="invalid-argument")
    pairs = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
    body = b""
    if json is not None:
        body = _json.dumps(json, ensure_ascii=False).encode()
        if not any(k.lower() == "content-type" for k, _ in pairs):
            pairs.append(("content-type", "application/json"))
    elif data is not None:
        body = data.encode() if isinstance(data, str) else bytes(data)
    # The whole body is in hand, so say its length: without one, the host streams it chunked,
    # which some servers refuse, and a POST/PUT/PATCH with no body and no length may get 411.
    if (body or method in _SENDS_BODY) and not any(k.lower() == "content-length" for k, _ in pairs):
        pairs.append(("content-length", str(len(body))))

    handler, t, streams = _wit()
    try:
        fields = t.Fields.from_list([(k, v.encode()) for k, v in pairs])
    except Exception as e:  # noqa: BLE001 - the bindings raise Err(header-error)
        raise HttpError(f"invalid request header: {getattr(e, 'value', e)!r}", kind="invalid-argument") from None
    req = t.OutgoingRequest(fields)
    known = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
    wit_method = getattr(t, f"Method_{method.title()}")() if method in known else t.Method_Other(method)
    try:
        req.set_method(wit_method)
        req.set_scheme(t.Scheme_Https() if parts.scheme == "https" else t.Scheme_Http())
        req.set_authority(parts.netloc)
        req.set_path_with_query((parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
    except Exception:  # noqa: BLE001 - Err(()) from a setter
        raise HttpError(f"`{method} {url}` is not a valid request", kind="invalid-argument") from None
    options = None
    if timeout is not None:
        options = t.RequestOptions()
        nanos = max(1, int(timeout * 1e9))
        options.set_first_byte_timeout(nanos)
        options.set_between_bytes_timeout(nanos)

    outgoing = req.body()
    try:
        future = handler.handle(req, options)
    except Exception as e:  # noqa: BLE001 - Err(error-code)
        raise error_for(getattr(e, "value", e), method, url) from None
    with future:
        _send_body(t, outgoing, body)
        with future.subscribe() as ready:
            ready.block()
        got = future.get()
        if got is None or type(got).__name__ == "Err":
            raise HttpError(f"{method} {url}: the host gave no response", "internal-error")
        if type(got.value).__name__ == "Err":
            raise error_for(got.value.value, method, url)
        response = got.value.value
    with response:
        status = response.status()
        with response.headers() as h:
            pairs_in = [(k.lower(), bytes(v).decode("latin-1")) for k, v in h.entries()]
        content = _read_body(t, streams, response.consume(), method, url)
    return Response(status, pairs_in, content, url)


def _send_body(t: Any, outgoing: Any, body: bytes) -> None:
    try:
        with outgoing.write() as stream:
            for start in range(0, len(body), _WRITE_CHUNK):
                stream.blocking_write_and_flush(body[start : start + _WRITE_CHUNK])
    except Exception:  # noqa: BLE001 - Err(stream-error): the host stopped taking the body
        # The reason (a cap, a refusal) is the response's error: let the caller read it.
        pass
    try:
        t.OutgoingBody.finish(outgoing, None)
    except Exception:  # noqa: BLE001 - finished short: the response says why
        pass


def _read_body(t: Any, streams: Any, incoming: Any, method: str, url: str) -> bytes:
    chunks: list[bytes] = []
    with incoming:
        with incoming.stream() as stream:
            while True:
                try:
                    chunks.append(bytes(stream.blocking_read(_READ_CHUNK)))
                except Exception as e:  # noqa: BLE001 - Err(stream-error)
                    failure = getattr(e, "value", None)
                    if isinstance(failure, streams.StreamError_Closed):
                        break
                    # last-operation-failed carries an io error; wasi:http says which code it is.
                    io_error = getattr(failure, "value", None)
                    code = t.http_error_code(io_error) if io_error is not None else None
                    if code is not None:
                        raise error_for(code, method, url) from None
                    reason = io_error.to_debug_string() if io_error is not None else repr(e)
                    raise HttpError(f"{method} {url}: the response body broke off: {reason}") from None
    return b"".join(chunks)


def get(url: str, **kwargs: Any) -> Response:
    """`request("GET", url, ...)`."""
    return request("GET", url, **kwargs)


def post(url: str, **kwargs: Any) -> Response:
    """`request("POST", url, ...)`: `json=` for a JSON body."""
    return request("POST", url, **kwargs)


def put(url: str, **kwargs: Any) -> Response:
    """`request("PUT", url, ...)`."""
    return request("PUT", url, **kwargs)


def patch(url: str, **kwargs: Any) -> Response:
    """`request("PATCH", url, ...)`."""
    return request("PATCH", url, **kwargs)


def delete(url: str, **kwargs: Any) -> Response:
    """`request("DELETE", url, ...)`."""
    return request("DELETE", url, **kwargs)
