"""Tool groups (`warden:plugin/groups`): a plugin names groups of its tools so that an admin
serves only the ones agents need (`tools = { groups = [...] }` in the manifest). A tool in no
group is in group `default`; a group given no tools takes every tool that no other group has.
The host checks the groups again when the plugin loads: these checks only say it sooner."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

NAME = re.compile(r"[a-z0-9_-]{1,32}")


class Capability(Enum):
    """A kind of grant a group's tools use (`grants.*` in the manifest). A group whose kinds
    are all ungranted is not listed: every call of its tools would be refused."""

    BROWSER = "browser"
    """`grants.browser`"""
    CAPTURE_HTTP = "capture-http"
    """`grants.capture.http_hosts`"""
    CAPTURE_PAGE = "capture-page"
    """`grants.capture.origins`"""
    HTTP = "http"
    """`grants.http`"""
    TERMINAL = "terminal"
    """`grants.terminal`"""
    SFTP = "sftp"
    """`grants.sftp`"""
    RDP = "rdp"
    """`grants.rdp`"""
    FILES = "files"
    """`grants.files`"""


@dataclass
class Group:
    """A named group of a plugin's tools, as the host gets it."""

    name: str
    summary: str
    tools: list[str] = field(default_factory=list)
    needs: list[Capability] = field(default_factory=list)


def new_group(name: str, summary: str, tools: list[str] | None, needs: list[Capability | str] | None) -> Group:
    """A group as `plugin.group` declares it; a bad name, summary or capability is an error
    that says what to write."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"group name {name!r} is invalid: use [a-z0-9_-]{{1,32}}, such as \"files\"")
    if not isinstance(summary, str) or not summary.strip():
        raise ValueError(f"group `{name}`: give a one-line summary of what its tools are for")
    if isinstance(tools, str) or not all(isinstance(t, str) for t in tools or []):
        raise TypeError(f"group `{name}`: tools= takes a list of tool names, such as [\"ls\", \"get\"]")
    kinds = []
    for kind in needs or []:
        try:
            kinds.append(Capability(kind))
        except ValueError:
            known = ", ".join(f"Capability.{c.name}" for c in Capability)
            raise ValueError(f"group `{name}`: unknown capability {kind!r} in needs=; use some of: {known}") from None
    return Group(name, summary, list(dict.fromkeys(tools or [])), list(dict.fromkeys(kinds)))


def resolve(groups: list[Group], members: dict[str, str | None]) -> list[Group]:
    """The groups with their tools: the ones each names, plus the tools that name it
    (`@plugin.tool(group=...)`); a group that gets none takes every tool in no group.
    `members` maps each tool of the plugin to the group it names, if any."""
    declared = {g.name for g in groups}
    owner: dict[str, str] = {}
    for group in groups:
        for tool in group.tools:
            if tool not in members:
                raise ValueError(
                    f"group `{group.name}` names tool `{tool}`, which this plugin does not have "
                    f"(its tools: {', '.join(members) or 'none'})"
                )
            if tool in owner and owner[tool] != group.name:
                raise ValueError(f"tool `{tool}` is in two groups, `{owner[tool]}` and `{group.name}`: a tool is in one group at most")
            owner[tool] = group.name
    for tool, name in members.items():
        if name is None:
            continue
        if name not in declared:
            raise ValueError(
                f"tool `{tool}` is in group `{name}`, which the plugin does not declare: add "
                f'plugin.group("{name}", "what its tools are for")'
            )
        if tool in owner and owner[tool] != name:
            raise ValueError(f"tool `{tool}` is in two groups, `{owner[tool]}` and `{name}`: a tool is in one group at most")
        owner[tool] = name
    rest = [t for t in members if t not in owner]
    empty = [g.name for g in groups if g.name not in owner.values()]
    if len(empty) > 1:
        raise ValueError(
            f"groups `{empty[0]}` and `{empty[1]}` are both given no tools, so both would take the tools no "
            "other group has: give the tools of one of them"
        )
    return [
        Group(g.name, g.summary, [t for t in members if owner.get(t) == g.name] if g.name not in empty else rest, list(g.needs))
        for g in groups
    ]
