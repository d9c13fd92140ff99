"""The `http-api-python` Warden plugin: `create_issue` POSTs JSON to an issue tracker's API and returns
the issue it created.

The plugin holds no token: the manifest binds one to the API's origin (`[credentials.api]`) and
the host adds it to the request after the plugin hands the request over, so neither this code
nor a prompt injection can read or leak it. Where the API lives comes from the manifest's
`[plugin.settings] api_base`.
"""

from dataclasses import dataclass
from typing import Annotated, Any

from warden_sdk import Plugin, ToolError, http, settings

plugin = Plugin()


@dataclass
class CreateIssue:
    title: Annotated[str, "One-line summary."]
    body: Annotated[str, "What happened, in Markdown."] = ""


@plugin.tool(title="Create issue", open_world=True)
def create_issue(args: CreateIssue) -> dict[str, Any]:
    """File an issue in the tracker and return it"""
    if not args.title.strip():
        raise ToolError.invalid_arguments("`title` must not be empty")
    base = settings.get("api_base")
    if not base:
        raise ToolError.failed("set api_base under [plugin.settings] in the manifest")
    # Only to origins and methods that grants.http allows; anything else raises HttpDenied,
    # which names the grant to add and becomes an access-denied tool error.
    response = http.post(
        f"{base.rstrip('/')}/issues",
        json={"title": args.title, "body": args.body},
        headers={"accept": "application/json"},
    )
    if not response.ok:
        raise ToolError.failed(f"the tracker answered HTTP {response.status}: {response.text()[:200]}")
    return response.json()


Tools, Resources, Prompts, Completions = plugin.export()
