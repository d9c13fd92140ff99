"""Resources, prompts, completions and the answers of `context.ask`, natively (the bindings'
values are stood in for by classes of the same case names)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warden_sdk import (  # noqa: E402
    AccessDenied,
    AskError,
    Completion,
    CompletionRef,
    Content,
    Plugin,
    PromptArgument,
    PromptMessage,
    PromptResult,
    ToolError,
)
from warden_sdk import context  # noqa: E402
from warden_sdk.resource import match_template  # noqa: E402


def served() -> Plugin:
    plugin = Plugin()

    @plugin.resource("notes://all", "notes", mime_type="text/plain")
    def all_notes(uri: str) -> str:
        return "a, b"

    @plugin.resource_template("notes://{id}", "note")
    def note(uri: str, found: dict[str, str]) -> bytes:
        if found["id"] == "gone":
            raise AccessDenied("grants.terminal.local is off")
        return found["id"].encode()

    @plugin.prompt(title="Review", arguments=[PromptArgument("topic", "What"), PromptArgument("tone", required=False)])
    def review(args: dict[str, str]) -> list[PromptMessage]:
        """Review something."""
        return [PromptMessage.user(f"Review {args['topic']}"), PromptMessage.assistant(args.get("tone", "plain"))]

    @plugin.prompt()
    def short(args: dict[str, str]) -> str:
        return "hi"

    @plugin.completion
    def complete(ref: CompletionRef, argument: str, value: str, chosen: dict[str, str]) -> Completion | list[str]:
        if ref == CompletionRef("prompt", "review"):
            return Completion.matching(["rust", "ruby", "python"], value)
        return [f"v{i}" for i in range(150)]

    return plugin


def test_resources_and_templates() -> None:
    plugin = served()
    (text,) = plugin.read_resource("notes://all")
    assert (text.kind, text.uri, text.text, text.mime_type) == ("resource", "notes://all", "a, b", "text/plain")
    (blob,) = plugin.read_resource("notes://42")
    assert (blob.uri, blob.data) == ("notes://42", b"42")
    with pytest.raises(ToolError) as missing:
        plugin.read_resource("other://x")
    assert missing.value.kind == "not-found"
    with pytest.raises(ToolError) as denied:
        plugin.read_resource("notes://gone")
    assert denied.value.kind == "access-denied" and "grants.terminal.local" in denied.value.message


def test_template_matching() -> None:
    assert match_template("sessions://{id}/info", "sessions://abc/info") == {"id": "abc"}
    assert match_template("sessions://{id}/info", "sessions:///info") is None
    assert match_template("sessions://{id}/info", "sessions://a/b/info") is None
    assert match_template("file://{+path}", "file:///etc/hosts") == {"path": "/etc/hosts"}
    assert match_template("x://{a}-{b}", "x://1-2-3") == {"a": "1", "b": "2-3"}
    assert match_template("x://fixed", "x://fixed2") is None


def test_prompts() -> None:
    plugin = served()
    prompt, _ = plugin.prompts["review"]
    assert (prompt.title, prompt.description) == ("Review", "Review something.")
    assert [(a.name, a.required) for a in prompt.arguments] == [("topic", True), ("tone", False)]
    filled = plugin.get_prompt("review", {"topic": "the SDK"})
    assert [(m.role, m.content.text) for m in filled.messages] == [("user", "Review the SDK"), ("assistant", "plain")]
    assert plugin.get_prompt("short", {}) == PromptResult([PromptMessage("user", Content.text_block("hi"))])
    with pytest.raises(ToolError) as missing:
        plugin.get_prompt("review", {"tone": "dry"})
    assert missing.value.kind == "invalid-arguments" and "needs the argument `topic`" in missing.value.message
    with pytest.raises(ToolError) as unknown:
        plugin.get_prompt("nope", {})
    assert unknown.value.kind == "not-found"


def test_completions() -> None:
    plugin = served()
    found = plugin.complete(CompletionRef("prompt", "review"), "topic", "ru", {})
    assert (found.values, found.total, found.has_more) == (["rust", "ruby"], 2, False)
    many = plugin.complete(CompletionRef("resource-template", "notes://{id}"), "id", "", {})
    assert (len(many.values), many.total, many.has_more) == (100, 150, True)
    assert Plugin().complete(CompletionRef("prompt", "x"), "a", "", {}) == Completion()


class Action(Enum):
    ACCEPT = 0
    DECLINE = 1


@dataclass
class Form:
    action: Action
    content: str | None


@dataclass
class InputAnswer_Elicit:  # noqa: N801 - the bindings' case name
    value: Form


@dataclass
class InputAnswer_Sample:  # noqa: N801
    value: str


@dataclass
class InputAnswer_Roots:  # noqa: N801
    value: str


@dataclass
class AskError_Unsupported:  # noqa: N801
    value: str


def test_answers_and_ask_errors() -> None:
    accepted = context.read_answer(InputAnswer_Elicit(Form(Action.ACCEPT, '{"name": "Ada"}')))
    assert accepted == context.ElicitAnswer("accept", {"name": "Ada"}) and accepted.accepted
    assert context.read_answer(InputAnswer_Elicit(Form(Action.ACCEPT, None))) == context.ElicitAnswer("accept")
    assert context.read_answer(InputAnswer_Elicit(Form(Action.DECLINE, None))).action == "decline"
    sampled = context.read_answer(InputAnswer_Sample('{"role": "assistant", "model": "m"}'))
    assert sampled == {"role": "assistant", "model": "m"}
    roots = context.read_answer(InputAnswer_Roots('[{"uri": "file:///w", "name": "w"}, {"uri": "file:///x"}]'))
    assert roots == [context.Root("file:///w", "w"), context.Root("file:///x")]
    with pytest.raises(AskError) as bad:
        context.read_answer(InputAnswer_Sample("not json"))
    assert bad.value.kind == "failed"
    error = context.ask_error(AskError_Unsupported("the client did not declare sampling"))
    assert error.kind == "unsupported" and str(error) == "the client cannot do this: the client did not declare sampling"


def test_an_uncaught_ask_error_is_a_failed_tool_error() -> None:
    plugin = Plugin()

    @plugin.tool()
    def asks() -> str:
        raise AskError("limit-reached", "this call asked 16 times")

    with pytest.raises(ToolError) as failed:
        plugin.call("asks", "{}")
    assert failed.value.kind == "failed" and failed.value.message == "limit reached: this call asked 16 times"
