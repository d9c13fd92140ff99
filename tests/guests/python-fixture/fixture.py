"""Test plugin for the Python SDK: echo, a raised exception, an endless loop, a memory bomb,
a counter kept in the host's state; questions to the client, a task with progress, a prompt,
completions, resources and a subscribable template; one call into each capability, and an HTTP
request whose answer is logged and kept. Two tool groups (all listed unless the manifest
chooses): `basics` (echo joins by its decorator, shape by name) and `more`, given no tools, the
rest."""

import json
import time
from dataclasses import dataclass, field
from typing import Annotated, Literal

from warden_sdk import (
    Completion,
    CompletionRef,
    Field,
    Plugin,
    PromptArgument,
    PromptMessage,
    PromptResult,
    browser,
    capture,
    context,
    http,
    rdp,
    settings,
    sftp,
    state,
    terminal,
)
from warden_sdk.context import Elicit, ElicitAnswer, ElicitUrl, ListRoots, Sample

plugin = Plugin()
plugin.group("basics", "echo and typed shapes", tools=["shape"])
plugin.group("more", "everything else the fixture does")

# Lives as long as the instance: a cache of one conversation, never another's.
calls = 0


@dataclass
class EchoArgs:
    text: Annotated[str, "The text to return."]


@plugin.tool(read_only=True, idempotent=True, group="basics")
def echo(args: EchoArgs) -> str:
    """Return `text` unchanged."""
    return args.text


@dataclass
class Options:
    """Nested options."""

    mode: Literal["fast", "slow"] = "fast"
    """How to go."""
    tags: list[str] = field(default_factory=list)


@dataclass
class ShapeArgs:
    count: Annotated[int, Field(description="How many, 1 to 10.", minimum=1, maximum=10)]
    ratio: float | None = None
    """An optional ratio."""
    options: Options | None = None


@plugin.tool(read_only=True)
def shape(args: ShapeArgs) -> dict[str, object]:
    """Echo typed arguments back as structured output."""
    opts = args.options or Options()
    return {"count": args.count, "ratio": args.ratio, "mode": opts.mode, "tags": opts.tags}


@plugin.tool()
def count() -> str:
    """Count this conversation's calls in the host's state, and this instance's in memory."""
    global calls
    calls += 1
    kept = (state.get_json("count") or 0) + 1
    state.set_json("count", kept)
    return f"kept {kept}, in memory {calls}"


@plugin.tool(name="settings")
def read_settings() -> str:
    """Return what the plugin reads of its settings, as JSON."""
    import json

    return json.dumps(
        {"greeting": settings.get("greeting"), "limits": settings.get_json("limits"), "keys": list(settings.all())}
    )


@plugin.tool()
def boom() -> str:
    """Raise an uncaught exception."""
    raise ValueError("the fixture exploded on purpose")


@plugin.tool()
def spin() -> str:
    """Loop forever."""
    n = 0
    while True:
        n += 1


@plugin.tool()
def hog() -> str:
    """Allocate without bound."""
    chunks = []
    while True:
        chunks.append(bytearray(8 * 1024 * 1024))


@dataclass
class StatusArgs:
    url: Annotated[str, "The URL to GET through the host."]


@plugin.tool(read_only=True, open_world=True)
def status(args: StatusArgs) -> str:
    """GET a URL through the host and return its HTTP status."""
    return f"HTTP {capture.http_get(args.url, timeout_ms=5000).status}"


SIGN_IN = "https://accounts.example.com/link?flow=py"
TOPICS = ["python", "pytest", "rust", "wasm"]


@dataclass
class ApiArgs:
    url: Annotated[str, "Where to send the request (grants.http)."]
    method: str = "POST"
    body: Annotated[str, "A JSON body."] = ""


@plugin.tool(open_world=True)
def api(args: ApiArgs) -> str:
    """Send a request with warden_sdk.http; log it, keep it in state and return status, headers and body."""
    response = http.request(args.method, args.url, json=json.loads(args.body) if args.body else None)
    seen = json.dumps({"status": response.status, "headers": response.headers, "body": response.text()})
    # Whatever came back is logged and kept: none of it may carry a credential.
    context.log("info", f"api answered: {seen}")
    state.set("api-last", seen.encode())
    return seen


@plugin.tool(read_only=True)
def kept() -> str:
    """What `api` kept in state."""
    return (state.get("api-last") or b"").decode()


@dataclass
class InterviewArgs:
    together: Annotated[bool, "Ask everything in one `ask`, else one question at a time."] = True


@plugin.tool()
def interview(args: InterviewArgs) -> dict[str, object]:
    """Ask the user (a form and a page), the client's model and the client's roots."""
    caps = context.client_capabilities()
    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    question = "Say hello"
    if args.together:
        answers = dict(
            context.ask(
                [
                    ("name", Elicit("Your name?", form)),
                    ("page", ElicitUrl("Sign in to link your account", SIGN_IN)),
                    ("model", Sample({"messages": [{"role": "user", "content": {"type": "text", "text": question}}], "maxTokens": 20})),
                    ("roots", ListRoots()),
                ]
            )
        )
        name, page, roots = answers["name"], answers["page"], answers["roots"]
        sampled = answers["model"]
        said = sampled["content"]["text"] if isinstance(sampled, dict) else ""
    else:
        name = context.elicit("Your name?", form)
        page = context.elicit_url("Sign in to link your account", SIGN_IN)
        said = context.sample_text(question, 20)
        roots = context.list_roots()
    assert isinstance(name, ElicitAnswer) and isinstance(page, ElicitAnswer) and isinstance(roots, list)
    return {
        "capabilities": [k for k, v in vars(caps).items() if v],
        "name": (name.content or {}).get("name") if name.accepted else name.action,
        "page": page.action,
        "model": said,
        "roots": [r.uri for r in roots],
    }


@dataclass
class CrunchArgs:
    steps: Annotated[int, Field(description="How many steps of 50 ms.", minimum=1, maximum=600)]


@plugin.tool(task="optional")
def crunch(args: CrunchArgs) -> str:
    """Work in steps as a task, reporting progress, until done or cancelled."""
    became = context.as_task()
    for step in range(1, args.steps + 1):
        if context.cancelled():
            return f"cancelled after {step - 1} steps"
        time.sleep(0.05)
        context.progress(step, args.steps, f"step {step}")
    return f"crunched {args.steps} steps (task: {became})"


@plugin.prompt(
    title="Review a topic",
    arguments=[PromptArgument("topic", "What to review."), PromptArgument("tone", "How to sound.", required=False)],
)
def review(args: dict[str, str]) -> PromptResult:
    """Ask for a review of a topic."""
    return PromptResult(
        [PromptMessage.user(f"Review {args['topic']}."), PromptMessage.assistant(f"A {args.get('tone', 'plain')} review follows.")],
        description=f"review of {args['topic']}",
    )


@plugin.completion
def complete(ref: CompletionRef, argument: str, value: str, chosen: dict[str, str]) -> Completion:
    if ref == CompletionRef("prompt", "review") and argument == "topic":
        return Completion.matching(TOPICS, value)
    if ref == CompletionRef("resource-template", "py://notes/{id}") and argument == "id":
        return Completion.matching([f"n{i}" for i in range(120)], value)
    return Completion()


@plugin.resource("py://motd", "motd", description="The message of the day.", mime_type="text/plain")
def motd(uri: str) -> str:
    return "hello from the Python fixture"


@plugin.resource_template("py://notes/{id}", "note", mime_type="text/plain")
def note(uri: str, found: dict[str, str]) -> str:
    return f"note {found['id']}"


@plugin.resource_template("py://term/{id}", "terminal output", description="A session's scrollback.")
def term_output(uri: str, found: dict[str, str]) -> str:
    return terminal.attach(found["id"]).scrollback(200)


@dataclass
class TermOpenArgs:
    target: Annotated[str, "`local` or `ssh:ALIAS`."] = "local"


@plugin.tool()
def term_open(args: TermOpenArgs) -> str:
    """Open a terminal whose output is the resource py://term/{id}; returns the id."""
    session = terminal.open(args.target)
    sid = session.info().id
    session.watch(f"py://term/{sid}")
    return sid


@dataclass
class TermRunArgs:
    id: str
    command: str


@plugin.tool()
def term_run(args: TermRunArgs) -> str:
    """Run a command in a session; its output and exit status."""
    out, status = terminal.attach(args.id).run(args.command)
    return f"{out.strip()} [exit {status}]"


@dataclass
class HostPathArgs:
    host: str
    path: str


@plugin.tool(read_only=True)
def sftp_names(args: HostPathArgs) -> str:
    """The names in a remote directory, through SFTP."""
    return ",".join(sorted(e.name for e in sftp.list(args.host, args.path)))


@dataclass
class UrlArgs:
    url: str


@plugin.tool(read_only=True, open_world=True)
def page_title(args: UrlArgs) -> str:
    """Open a page in the host's browser; its title."""
    page = browser.first_page("py")
    page.navigate(args.url, browser.WaitUntil.LOAD, 20000)
    return str(page.extract(browser.ContentFormat.TEXT).title)


@plugin.tool(read_only=True, open_world=True)
def captured_title(args: UrlArgs) -> str:
    """Capture a page in the host's capture browser; its title."""
    return capture.capture_page(args.url, timeout_ms=20000).title


@dataclass
class HostArgs:
    host: str


@plugin.tool(read_only=True)
def desktop_shot(args: HostArgs) -> str:
    """Connect to a remote desktop, take a screenshot, disconnect; the picture's size."""
    desk = rdp.open(args.host, None)
    try:
        picture = rdp.screenshot(desk.id, None, 0.5)
    finally:
        rdp.close(desk.id)
    return f"{picture.width}x{picture.height} png {picture.png[:4] == b'\x89PNG'}"


Tools, Resources, Prompts, Completions, Groups = plugin.export()
