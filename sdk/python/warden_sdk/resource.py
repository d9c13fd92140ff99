"""Resources a plugin serves (MCP `resources/list`, `resources/read`): static ones by URI and
families named by a URI template. `Plugin.resource` and `Plugin.resource_template` declare
them; a client may subscribe to any of them, and hears of a change when a host object the
plugin tied to its URI changes (`terminal.Session.watch(uri)`)."""

from __future__ import annotations

from dataclasses import dataclass

from ._errors import ToolError
from ._output import Content


@dataclass
class Resource:
    """A static resource that clients can list and read, such as `notes://all`."""

    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None


@dataclass
class ResourceTemplate:
    """A family of resources named by an RFC 6570 URI template, such as
    `sessions://{id}/scrollback`. The SDK matches simple templates: `{name}` is a non-empty
    run of characters without `/`, `{+name}` a non-empty run that may contain `/`; the reader
    gets the values by name (not percent-decoded)."""

    uri_template: str
    name: str
    description: str | None = None
    mime_type: str | None = None


def match_template(template: str, uri: str) -> dict[str, str] | None:
    """The values of `template`'s variables in `uri`, or None when it does not match."""
    found: dict[str, str] = {}
    return found if _match_from(template, uri, found) else None


def _match_from(template: str, uri: str, found: dict[str, str]) -> bool:
    opening = template.find("{")
    if opening < 0:
        return template == uri
    literal, rest = template[:opening], template[opening:]
    if not uri.startswith(literal):
        return False
    uri = uri[len(literal) :]
    closing = rest.find("}")
    if closing < 0:
        return False
    name = rest[1:closing]
    reserved = name.startswith("+")
    name = name.removeprefix("+")
    rest = rest[closing + 1 :]
    # Values are non-empty; try the shortest first.
    for end in range(1, len(uri) + 1):
        value = uri[:end]
        if not reserved and "/" in value:
            break
        if _match_from(rest, uri[end:], found):
            found[name] = value
            return True
    return False


def into_contents(value: object, uri: str, mime_type: str | None) -> list[Content]:
    """A reader's result as embedded resources: a `str` (text) or `bytes` (blob) at `uri`
    with the declared media type, one resource `Content`, or a list of them."""
    if isinstance(value, str):
        return [Content.resource_text(uri, value, mime_type)]
    if isinstance(value, (bytes, bytearray)):
        return [Content.resource_blob(uri, bytes(value), mime_type)]
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(c, Content) and c.kind == "resource" for c in items):
        raise ToolError.failed(
            "a resource reader must return a str, bytes, or Content.resource_text / resource_blob blocks"
        )
    return list(items)  # type: ignore[arg-type]
