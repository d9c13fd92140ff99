"""Prompts (MCP `prompts/list`, `prompts/get`) and completions (MCP `completion/complete`)
a plugin serves: the types; `Plugin.prompt` and `Plugin.completion` declare them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal

from ._errors import ToolError
from ._output import Content

Role = Literal["user", "assistant"]


@dataclass
class PromptArgument:
    """One argument of a prompt: its name (the key in the filler's dict), what to give, and
    whether `prompts/get` must have it (the SDK refuses the call without it)."""

    name: str
    description: str | None = None
    required: bool = True


@dataclass
class Prompt:
    """A prompt as clients list it: a name unique within the plugin (`[a-zA-Z0-9_.-]{1,64}`),
    a title, a description and its arguments, in order."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)

    def check(self, args: dict[str, str]) -> None:
        """Raises `ToolError` invalid-arguments naming the first required argument missing."""
        for a in self.arguments:
            if a.required and a.name not in args:
                raise ToolError.invalid_arguments(f"prompt `{self.name}` needs the argument `{a.name}`")


@dataclass
class PromptMessage:
    """One message of a filled-in prompt: who says it and what (text, an image, audio or an
    embedded resource; a `str` is a text block)."""

    role: Role
    content: Content

    @staticmethod
    def user(content: Content | str) -> PromptMessage:
        return PromptMessage("user", Content.text_block(content) if isinstance(content, str) else content)

    @staticmethod
    def assistant(content: Content | str) -> PromptMessage:
        return PromptMessage("assistant", Content.text_block(content) if isinstance(content, str) else content)


@dataclass
class PromptResult:
    """A filled-in prompt. A filler may also return a list of messages, or a `str` (one user
    message)."""

    messages: list[PromptMessage] = field(default_factory=list)
    description: str | None = None


def into_prompt_result(value: object) -> PromptResult:
    if isinstance(value, PromptResult):
        return value
    if isinstance(value, str):
        return PromptResult([PromptMessage.user(value)])
    if isinstance(value, list) and all(isinstance(m, PromptMessage) for m in value):
        return PromptResult(list(value))
    raise ToolError.failed(
        f"a prompt's filler must return a PromptResult, a list of PromptMessage or a str, not {type(value).__name__}"
    )


@dataclass(frozen=True)
class CompletionRef:
    """What a completion is asked for: an argument of this plugin's prompt `name`
    (`kind="prompt"`), or a variable of its resource template `name` (the URI template,
    `kind="resource-template"`)."""

    kind: Literal["prompt", "resource-template"]
    name: str


MAX_COMPLETION_VALUES = 100
"""The most values one completion may carry (MCP)."""


@dataclass
class Completion:
    """Values a client may offer for an argument: at most 100 (the SDK keeps the first 100
    and sets `has_more`), how many there are in all when known, whether there are more."""

    values: list[str] = field(default_factory=list)
    total: int | None = None
    has_more: bool = False

    @staticmethod
    def matching(candidates: Iterable[str], prefix: str) -> Completion:
        """The candidates that start with `prefix`, at most 100."""
        found = [c for c in candidates if c.startswith(prefix)]
        return Completion(found[:MAX_COMPLETION_VALUES], len(found), len(found) > MAX_COMPLETION_VALUES)

    def capped(self) -> Completion:
        if len(self.values) <= MAX_COMPLETION_VALUES:
            return self
        return Completion(self.values[:MAX_COMPLETION_VALUES], self.total, True)
