"""Tool results: `ToolOutput` (content blocks plus optional structured JSON)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from ._errors import ToolError
from ._schema import to_json


@dataclass
class Content:
    """One MCP content block: `text`, `image` or `audio` (bytes with a media type), or an
    embedded `resource` (text or blob)."""

    kind: Literal["text", "image", "audio", "resource"]
    text: str = ""
    data: bytes = b""
    mime_type: str | None = None
    uri: str = ""

    @staticmethod
    def text_block(text: str) -> Content:
        return Content("text", text=text)

    @staticmethod
    def image(mime_type: str, data: bytes) -> Content:
        return Content("image", data=data, mime_type=mime_type)

    @staticmethod
    def audio(mime_type: str, data: bytes) -> Content:
        return Content("audio", data=data, mime_type=mime_type)

    @staticmethod
    def resource_text(uri: str, text: str, mime_type: str | None = None) -> Content:
        return Content("resource", text=text, uri=uri, mime_type=mime_type)

    @staticmethod
    def resource_blob(uri: str, data: bytes, mime_type: str | None = None) -> Content:
        return Content("resource", data=data, uri=uri, mime_type=mime_type)


@dataclass
class ToolOutput:
    """A successful tool result. A tool may also return a `str` (one text block), a dataclass
    or dict (structured result, its JSON as the text), or `None` (no content)."""

    content: list[Content] = field(default_factory=list)
    structured: dict[str, Any] | None = None

    @staticmethod
    def text(text: str) -> ToolOutput:
        return ToolOutput([Content.text_block(text)])

    @staticmethod
    def image(mime_type: str, data: bytes) -> ToolOutput:
        return ToolOutput([Content.image(mime_type, data)])

    @staticmethod
    def json(value: Any) -> ToolOutput:
        """A structured result: `value` (a dataclass or dict) becomes `structuredContent`,
        its pretty-printed JSON the text block."""
        data = _object(value)
        return ToolOutput([Content.text_block(json.dumps(data, indent=2, ensure_ascii=False))], data)

    def with_text(self, text: str) -> ToolOutput:
        self.content.append(Content.text_block(text))
        return self

    def with_block(self, block: Content) -> ToolOutput:
        self.content.append(block)
        return self

    def with_structured(self, value: Any) -> ToolOutput:
        """Sets the structured result, keeping the content blocks."""
        self.structured = _object(value)
        return self


def _object(value: Any) -> dict[str, Any]:
    data = to_json(value)
    if not isinstance(data, dict):
        raise ToolError.failed(
            "the structured result must be a JSON object (a dataclass or a dict), "
            "as MCP requires for structuredContent"
        )
    return data


def into_output(value: Any) -> ToolOutput:
    if isinstance(value, ToolOutput):
        return value
    if value is None:
        return ToolOutput()
    if isinstance(value, str):
        return ToolOutput.text(value)
    if isinstance(value, Content):
        return ToolOutput([value])
    return ToolOutput.json(value)
