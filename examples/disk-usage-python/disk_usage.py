"""`disk_usage`: `df -P` on each granted SSH host through the terminal capability, parsed
into per-filesystem figures, with a short text summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from warden_sdk import CapabilityError, Plugin, ToolError, ToolOutput, context, terminal

plugin = Plugin()


@dataclass
class DiskUsageArgs:
    hosts: Annotated[
        list[str] | None,
        "SSH host aliases from the manifest (grant terminal.ssh_hosts); default: every host "
        "this plugin has a session on, or else none.",
    ] = None


@dataclass
class Filesystem:
    filesystem: str
    size_kb: int
    used_kb: int
    available_kb: int
    use_percent: int
    mount: str


@dataclass
class HostUsage:
    host: str
    filesystems: list[Filesystem] = field(default_factory=list)
    error: str | None = None
    """Why this host has no figures (not granted, unreachable, df failed)."""


@dataclass
class DiskUsage:
    hosts: list[HostUsage]


def parse_df(output: str) -> list[Filesystem]:
    """Parses `df -P` (POSIX format, sizes in 1024-byte blocks). A mount point may contain
    spaces: it is everything after the capacity column."""
    rows = []
    for line in output.splitlines():
        parts = line.split()
        if len(parts) < 6 or not parts[4].endswith("%"):
            continue
        try:
            size, used, avail = int(parts[1]), int(parts[2]), int(parts[3])
            pct = int(parts[4].rstrip("%"))
        except ValueError:
            continue  # the header line
        mount = line.split(parts[4], 1)[1].strip()
        rows.append(Filesystem(parts[0], size, used, avail, pct, mount))
    return rows


def _human(kb: int) -> str:
    size = float(kb)
    for unit in ("K", "M", "G", "T"):
        if size < 1024:
            return f"{size:.0f}{unit}"
        size /= 1024
    return f"{size:.0f}P"


def usage_of(host: str) -> HostUsage:
    try:
        session = terminal.open(f"ssh:{host}", 200, 50)
    except CapabilityError as e:
        if e.kind == "access-denied":
            raise  # the whole call is refused: the agent must ask for the grant
        return HostUsage(host, error=str(e))
    try:
        out, status = session.run("LC_ALL=C df -P", timeout=20)
        if status != 0:
            return HostUsage(host, error=f"df -P exited with {status}: {out.strip()[:200]}")
        return HostUsage(host, parse_df(out))
    except CapabilityError as e:
        return HostUsage(host, error=str(e))
    finally:
        try:
            session.close()
        except CapabilityError:
            pass


@plugin.tool(title="Disk usage", read_only=True, idempotent=True, open_world=True, output=DiskUsage)
def disk_usage(args: DiskUsageArgs) -> ToolOutput:
    """Disk usage (df -P) of SSH hosts: per host, per filesystem size, used, available,
    use% and mount point, plus the fullest filesystems."""
    hosts = args.hosts
    if hosts is None:
        hosts = sorted({s.target[4:] for s in terminal.list_sessions() if s.target.startswith("ssh:")})
    if not hosts:
        raise ToolError.invalid_arguments("name the SSH host aliases to check in `hosts`, e.g. [\"web1\"]")
    results = []
    for i, host in enumerate(hosts):
        context.progress(i, len(hosts), f"df on {host}")
        results.append(usage_of(host))
    lines = []
    for h in results:
        if h.error:
            lines.append(f"{h.host}: {h.error}")
            continue
        fullest = max(h.filesystems, key=lambda f: f.use_percent, default=None)
        top = f"; fullest {fullest.mount} at {fullest.use_percent}% ({_human(fullest.available_kb)} free)" if fullest else ""
        lines.append(f"{h.host}: {len(h.filesystems)} filesystems{top}")
    return ToolOutput.text("\n".join(lines)).with_structured(DiskUsage(results))


Tools, Resources, Prompts, Completions = plugin.export()
