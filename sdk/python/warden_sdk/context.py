"""Services of the call in progress: progress, logging, cancellation, and asking the client
(its user through elicitation, its model through sampling, its roots). Always granted.

Ask first, act after. On a 2025-11-25 session a call simply waits for the client's answer.
On the stateless 2026-07-28 wire the client answers between two of its requests: the run
that asked is discarded (`ask` raises `AskError` in it, which a tool lets propagate), and the
client's retry runs the tool again from the start, where the same `ask` returns the answers
at once. So whatever a tool does before an ask may run twice, and a tool must ask the same
questions, under the same keys, in the same order each time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, Union

from ._bindings import plugin_interface

Level = Literal["debug", "info", "warning", "error"]
AskErrorKind = Literal["unsupported", "limit-reached", "failed"]
ElicitAction = Literal["accept", "decline", "cancel"]

_ASK_KIND_TEXT = {
    "unsupported": "the client cannot do this",
    "limit-reached": "limit reached",
    "failed": "failed",
}


def _wit() -> Any:
    return plugin_interface("context")


def progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Reports progress of the current call: forwarded to the client as an MCP progress
    notification when it asked for progress; otherwise dropped. `done` should increase."""
    _wit().progress(float(done), None if total is None else float(total), message)


def log(level: Level, message: str) -> None:
    """Writes a log line into the host's log (tagged with the plugin) and to the client as an
    MCP logging notification at or above the level it asked for."""
    context = _wit()
    context.log(context.LogLevel[level.upper()], message)


def conversation() -> str:
    """An opaque id of this call's conversation (its MCP session, or its client on the
    stateless wire; empty for stdio). `state` is already scoped by it."""
    return str(_wit().conversation())


def cancelled() -> bool:
    """True once the client has cancelled the current call: long loops should return early
    (a call that ignores cancellation is interrupted by the host)."""
    return bool(_wit().cancelled())


def as_task() -> bool:
    """Go on as a task: the client gets a task handle now, the rest of this call runs in the
    background and the client polls for its result (or cancels it). True if the call is a
    task (now or already); false if it cannot be one (the tool's `task` is "never", the
    client did not declare tasks, or the wire has none), and the call goes on either way.

    Ask what must be asked before: on 2026-07-28 asks before this point are rounds of the
    request, replayed from the start; asks after it wait for the client's `tasks/update`."""
    return bool(_wit().as_task())


class AskError(Exception):
    """Why a request to the client failed: `unsupported` (the client did not declare the
    capability, or the call came from no client), `limit-reached` (this call asked too
    often) or `failed` (malformed, or the client failed or did not answer in time). Left
    uncaught in a tool it becomes a `failed` tool error with this message."""

    kind: AskErrorKind
    message: str

    def __init__(self, kind: AskErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return f"{_ASK_KIND_TEXT[self.kind]}: {self.message}"


@dataclass
class ElicitAnswer:
    """What the user did with a form: `accept` (with the form's values in `content`; None for
    `elicit_url`, where it means the user agreed to open the page), `decline` or `cancel`."""

    action: ElicitAction
    content: dict[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


@dataclass
class Elicit:
    """Ask the user: a message and a form (a JSON Schema object whose properties are strings,
    numbers, booleans or enums)."""

    message: str
    schema: dict[str, Any]


@dataclass
class ElicitUrl:
    """Send the user to a page (URL-mode elicitation): an `https://` URL (`http://` only on a
    loopback host), shown to the user, so never with a secret in it."""

    message: str
    url: str


@dataclass
class Sample:
    """Ask the client's model: the `sampling/createMessage` params (`messages`,
    `maxTokens`, ...)."""

    params: dict[str, Any]


@dataclass
class ListRoots:
    """Ask for the client's roots."""


Question = Union[Elicit, ElicitUrl, Sample, ListRoots]


@dataclass
class Root:
    """One of the client's roots."""

    uri: str
    name: str | None = None


Answer = Union[ElicitAnswer, dict[str, Any], list[Root]]
"""The answer to a `Question` of the same kind: an `ElicitAnswer` (for `Elicit` and
`ElicitUrl`), the sampling result as a dict (`role`, `content`, `model`, `stopReason`) for
`Sample`, a list of `Root` for `ListRoots`."""


@dataclass
class ClientCapabilities:
    """What the client of this call can be asked (the capabilities it declared)."""

    elicitation: bool
    """Form elicitation (`elicit`)."""
    elicitation_url: bool
    """URL-mode elicitation (`elicit_url`)."""
    sampling: bool
    roots: bool


def client_capabilities() -> ClientCapabilities:
    """The client's capabilities: ask only what it can answer (else `AskError` unsupported)."""
    caps = _wit().capabilities()
    return ClientCapabilities(bool(caps.elicitation), bool(caps.elicitation_url), bool(caps.sampling), bool(caps.roots))


def wit_request(question: Question) -> Any:
    context = _wit()
    if isinstance(question, Elicit):
        return context.InputRequest_Elicit(context.ElicitForm(question.message, json.dumps(question.schema)))
    if isinstance(question, ElicitUrl):
        return context.InputRequest_ElicitUrl(context.ElicitUrl(question.message, question.url))
    if isinstance(question, Sample):
        return context.InputRequest_Sample(json.dumps(question.params))
    if isinstance(question, ListRoots):
        return context.InputRequest_ListRoots()
    raise TypeError(f"not a question: {question!r}; use Elicit, ElicitUrl, Sample or ListRoots")


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise AskError("failed", f"the {what} is not JSON: {e}") from None


def read_answer(answer: Any) -> Answer:
    """The SDK's answer for a bindings `input-answer` (by case name, so it needs no bindings)."""
    case = type(answer).__name__
    if case == "InputAnswer_Elicit":
        action: ElicitAction = answer.value.action.name.lower()
        text = answer.value.content
        content = _json(text, "form's content") if action == "accept" and text else None
        return ElicitAnswer(action, content)
    if case == "InputAnswer_Sample":
        return dict(_json(answer.value, "sampling result"))
    if case == "InputAnswer_Roots":
        roots = _json(answer.value, "list of roots")
        if not isinstance(roots, list):
            raise AskError("failed", "the roots are not a list")
        return [Root(str(r["uri"]), r.get("name")) for r in roots]
    raise AskError("failed", f"an answer of an unknown kind: {case}")


def ask_error(error: Any) -> AskError:
    """The `AskError` for a bindings `ask-error` value."""
    kind: AskErrorKind = {
        "AskError_Unsupported": "unsupported",
        "AskError_LimitReached": "limit-reached",
    }.get(type(error).__name__, "failed")  # type: ignore[assignment]
    return AskError(kind, str(getattr(error, "value", error)))


def ask(questions: list[tuple[str, Question]]) -> list[tuple[str, Answer]]:
    """Asks the client several questions at once, each under a key of your choosing (unique);
    the answers come back under the same keys, in the same order. Raises `AskError`. The time
    spent waiting does not count against the call's time limit.

    Ask first, act after: on the 2026-07-28 wire the call runs again from its start once the
    client has answered (see this module's docstring)."""
    keys = [key for key, _ in questions]
    if len(set(keys)) != len(keys):
        raise ValueError(f"the keys of one ask must be unique, got {keys}")
    requests = [(key, wit_request(q)) for key, q in questions]
    try:
        answers = _wit().ask(requests)
    except Exception as e:  # noqa: BLE001 - only the bindings' Err is translated
        if type(e).__name__ == "Err":
            raise ask_error(getattr(e, "value", None)) from None
        raise
    return [(key, read_answer(a)) for key, a in answers]


def _ask_one(question: Question) -> Answer:
    answers = ask([("q", question)])
    if not answers:
        raise AskError("failed", "the client gave no answer")
    return answers[0][1]


def elicit(message: str, schema: dict[str, Any]) -> ElicitAnswer:
    """Asks the user for input through the client (MCP elicitation, form mode). `schema` is a
    JSON Schema object whose properties are strings, numbers, booleans or enums."""
    answer = _ask_one(Elicit(message, schema))
    if not isinstance(answer, ElicitAnswer):
        raise AskError("failed", "the client answered another question")
    return answer


def elicit_url(message: str, url: str) -> ElicitAnswer:
    """Sends the user to a web page (MCP elicitation, URL mode), for what must not pass
    through the client: a third party's sign-in, a payment. `accept` means the user agreed to
    open it, not that they finished there: check that on your side."""
    answer = _ask_one(ElicitUrl(message, url))
    if not isinstance(answer, ElicitAnswer):
        raise AskError("failed", "the client answered another question")
    return answer


def sample(params: dict[str, Any]) -> dict[str, Any]:
    """Asks the client's model (MCP sampling). `params` are the `sampling/createMessage`
    params (`messages`, `maxTokens`, ...); the answer is its result (`role`, `content`,
    `model`, `stopReason`)."""
    answer = _ask_one(Sample(params))
    if not isinstance(answer, dict):
        raise AskError("failed", "the client answered another question")
    return answer


def sample_text(prompt: str, max_tokens: int) -> str:
    """Asks the client's model one question and returns the text of its answer."""
    answer = sample(
        {"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": max_tokens}
    )
    content = answer.get("content")
    return str(content.get("text", "")) if isinstance(content, dict) else ""


def list_roots() -> list[Root]:
    """The client's roots (MCP `roots/list`)."""
    answer = _ask_one(ListRoots())
    if not isinstance(answer, list):
        raise AskError("failed", "the client answered another question")
    return answer
