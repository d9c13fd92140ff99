"""Local PTYs and SSH sessions owned by the host (`warden:terminal/terminal`; import
`terminal`). SSH hosts are named by the alias the admin gave them in the manifest (grant
`terminal.ssh_hosts`); a plugin never sees an address, a key or a password. Sessions belong
to the plugin and survive a restart of its instance: find them again with `attach`."""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from ._capability import binding
from ._errors import CapabilityError, Timeout, reraise

KEPT_COMMAND_BYTES = 8 * 1024 * 1024
"""How much of the latest command's output the host keeps readable from its start."""


def _t() -> Any:
    return binding("terminal")


@dataclass
class SessionInfo:
    id: str
    target: str
    """`local` or `ssh:ALIAS`."""
    cols: int
    rows: int
    read_only: bool
    output_bytes: int
    """Bytes of output so far: the offset the next byte will have."""
    exit_status: int | None
    ended: bool
    created: int


@dataclass
class Chunk:
    data: bytes
    next: int
    skipped: int
    ended: bool


def _info(i: Any) -> SessionInfo:
    return SessionInfo(i.id, i.target, i.cols, i.rows, i.read_only, i.output_bytes, i.exit_status, i.ended, i.created)


class Session:
    """A handle to one terminal session. Letting it go releases the handle only; call
    `close()` to end the session. Methods raise `CapabilityError`."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def info(self) -> SessionInfo:
        return _info(self._raw.info())

    def write(self, data: bytes | str) -> None:
        try:
            self._raw.write(data.encode() if isinstance(data, str) else data)
        except Exception as e:  # noqa: BLE001
            reraise(e)

    def read(self, offset: int, max_bytes: int = 1 << 20, wait_ms: int = 0) -> Chunk:
        """Output from `offset`, at most `max_bytes`, waiting up to `wait_ms` (the host caps
        it at 10 s) when there is none yet."""
        try:
            c = self._raw.read(offset, max_bytes, wait_ms)
        except Exception as e:  # noqa: BLE001
            reraise(e)
        return Chunk(bytes(c.data), c.next, c.skipped, c.ended)

    def scrollback(self, lines: int) -> str:
        try:
            return str(self._raw.scrollback(lines))
        except Exception as e:  # noqa: BLE001
            reraise(e)

    def screen(self) -> str:
        try:
            return str(self._raw.screen())
        except Exception as e:  # noqa: BLE001
            reraise(e)

    def resize(self, cols: int, rows: int) -> None:
        try:
            self._raw.resize(cols, rows)
        except Exception as e:  # noqa: BLE001
            reraise(e)

    def begin_command(self, end_marker: bytes) -> None:
        self._raw.begin_command(end_marker)

    def busy(self) -> bool:
        return bool(self._raw.busy())

    def watch(self, uri: str) -> None:
        try:
            self._raw.watch(uri)
        except Exception as e:  # noqa: BLE001
            reraise(e)

    def close(self) -> None:
        """Ends the session: the shell is hung up and its channel or PTY released."""
        try:
            self._raw.close()
        except Exception as e:  # noqa: BLE001
            reraise(e)

    def run(self, command: str, timeout: float = 30.0) -> tuple[str, int | None]:
        """Types `command` into the shell and waits for it to finish: its output (without
        the echo, `\\r` removed) and its exit status. Raises `Timeout` after `timeout`
        seconds (the command may still run: send Ctrl-C with `write("\\x03")`)."""
        token = secrets.token_hex(8)
        start, end = f"WPS{token}", f"WPE{token}:"
        quoted = command.rstrip().replace("'", "'\\''")
        # The markers are printed in two halves, so the shell's echo of this line never matches.
        line = f"printf '%s%s\\n' 'WPS' '{token}'; eval '{quoted}'; printf '\\n%s%s:%s\\n' 'WPE' '{token}' \"$?\"\n"
        offset = self.info().output_bytes
        self.begin_command(end.encode())
        self.write(line)
        buf = bytearray()
        deadline = time.monotonic() + timeout
        pattern = re.compile(re.escape(start.encode()) + rb"\r?\n(.*?)\r?\n" + re.escape(end.encode()) + rb"(-?\d+)", re.S)
        while True:
            found = pattern.search(buf)
            if found:
                text = found.group(1).decode("utf-8", errors="replace").replace("\r", "")
                return text, int(found.group(2))
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout(f"`{command}` did not finish within {timeout:g} s")
            chunk = self.read(offset, 1 << 20, int(min(left, 2.0) * 1000))
            buf += chunk.data
            offset = chunk.next
            if chunk.ended and not chunk.data:
                raise CapabilityError("gone", f"the session ended while `{command}` ran")

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._raw.__exit__(*exc)


def open(target: str = "local", cols: int = 120, rows: int = 40) -> Session:  # noqa: A001
    """Opens a terminal: `target` is `"local"` (grant `terminal.local`) or `"ssh:ALIAS"`
    (grant `terminal.ssh_hosts`)."""
    t = _t()
    if target == "local":
        wit_target: Any = t.Target_Local()
    elif target.startswith("ssh:"):
        wit_target = t.Target_Ssh(target[4:])
    else:
        raise ValueError(f"target must be `local` or `ssh:ALIAS`, got {target!r}")
    try:
        return Session(t.open(wit_target, cols, rows))
    except Exception as e:  # noqa: BLE001
        reraise(e)


def attach(id: str) -> Session:  # noqa: A002
    """A handle to the plugin's session `id`."""
    try:
        return Session(_t().attach(id))
    except Exception as e:  # noqa: BLE001
        reraise(e)


def list_sessions() -> list[SessionInfo]:
    """The plugin's sessions that the calling client opened, oldest first."""
    return [_info(i) for i in _t().list_sessions()]
