"""The web platform parity suite (`parity.py`): each feature family's page loaded in plain
headless Chromium (the reference, started here with the flags a user would try) and in
Warden's browser, and the two reports compared check by check. Where Warden's network guard
is meant to differ (a request to a tracker nothing grants), the reference must have reached
the tracker and Warden refused it: asserted on what the tracker received and on the audit
line that names it. One reference Chromium and one Warden for the module: every family is
read once from each (the `runs` fixture), then each test asserts on one family.

The families: workers (`worker_site.py`: every kind of worker an analytics SPA offloads its
work to), and WebAssembly, storage, fetch streaming, WebSocket, EventSource, canvas and
WebGL, media, fonts, downloads, drag and drop, clipboard, `dialog` and popover, history
(`platform_pages.py`, on `platform_site.py`'s servers). Their table is in docs/src/browser.md
("Web platform parity").
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest

from browser_helpers import CHROMIUM
from conftest import Manifest, open_warden
from parity import Family, Reference, differences, read_in_warden
from platform_pages import PAGES, families
from platform_site import REPORT_CSV, PlatformSites, start_platform_sites
from worker_site import KINDS, WorkerSites, start_worker_sites

pytestmark = pytest.mark.usefixtures("chromium")

NAMES = [
    "workers",
    "wasm",
    "storage",
    "fetch streaming",
    "websocket",
    "eventsource",
    "canvas and webgl",
    "media",
    "fonts",
    "downloads",
    "drag and drop",
    "clipboard",
    "dialog and popover",
    "history",
]


# What the guard's audit line calls the request each family's page sends its tracker.
REFUSED = {
    "wasm": "fetch/xhr/beacon",
    "fetch streaming": "fetch/xhr/beacon",
    "websocket": "tunnel (https, wss or ws)",
    "eventsource": "fetch/xhr/beacon",
    "canvas and webgl": "image",
    "media": "audio",
    "fonts": "font",
}


@dataclass
class Runs:
    """Both sides' reports of every family, what went wrong reading one, and Warden's audit."""

    families: dict[str, Family]
    workers: WorkerSites
    platform: PlatformSites
    reference: dict[str, dict[str, Any]] = field(default_factory=dict)
    warden: dict[str, dict[str, Any]] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)
    audit: list[dict[str, Any]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def denied(self, origin: str) -> list[dict[str, Any]]:
        """The guard's refusals of `origin` (a tunnel's names host:port only)."""
        bare = origin.split("://", 1)[-1]
        return [a for a in self.audit if a["event"] == "capability_denied" and bare in (a.get("target") or "")]


def saved(root: Path, run: str) -> dict[str, Any]:
    """What a run's downloads left on disk under `root` (finished files only), its run's name
    taken out of names and contents so both sides compare: the downloads page's own report."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and ".partial" not in p.parts and not p.name.endswith(".crdownload"))
    return {"ok": bool(files), "files": sorted([p.name.replace(run, "RUN"), p.read_text().replace(run, "RUN")] for p in files)}


def files_in(root: Path, count: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = [p for p in root.rglob("*") if p.is_file() and ".partial" not in p.parts and not p.name.endswith(".crdownload")]
        if len(done) >= count:
            return
        time.sleep(0.1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, warden_bin: Path, cache_dir: Path) -> Iterator[Runs]:
    dir = Path(tmp_path_factory.mktemp("parity"))
    workers, platform = start_worker_sites(), start_platform_sites(PAGES)
    found = {f.name: f for f in [workers.family(), *families(platform.url)]}
    assert sorted(found) == sorted(NAMES)
    runs = Runs(found, workers, platform)
    reference = Reference(dir / "reference")
    try:
        reference.allow_downloads(dir / "reference-downloads")
        for name, family in found.items():
            start = time.monotonic()
            try:
                runs.reference[name] = reference.read(family)
            except AssertionError as e:
                runs.broken[name] = f"reference: {e}"
            runs.seconds[f"reference {name}"] = time.monotonic() - start
    finally:
        reference.close()
    files_in(dir / "reference-downloads", 3)
    if "downloads" in runs.reference:
        runs.reference["downloads"]["saved"] = saved(dir / "reference-downloads", "reference")

    downloads = dir / "downloads"
    manifest = Manifest(dir / "warden.toml", dir / "audit.jsonl")
    manifest.path.write_text(f"""[server]
audit_log = "audit.jsonl"

[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{workers.app.origin}", "{platform.app.origin}"], resource_origins = ["{workers.api.origin}", "{platform.api.origin}"], eval_js = true, download_dir = "{downloads}" }}
""")
    env = {"WARDEN_CACHE_DIR": str(cache_dir), "XDG_STATE_HOME": str(dir / "state"), "RUST_LOG": os.environ.get("RUST_LOG", "info")}

    async def in_warden() -> None:
        async with open_warden(warden_bin, env, dir, manifest, dir / "warden-stderr.log") as w:
            for name, family in found.items():
                start = time.monotonic()
                try:
                    runs.warden[name] = await read_in_warden(w, family)
                except AssertionError as e:
                    runs.broken[name] = f"Warden: {e}"
                runs.seconds[f"Warden {name}"] = time.monotonic() - start
            # The guard writes its aggregated refusals within half a second.
            await anyio.sleep(0.7)

    anyio.run(in_warden)
    files_in(downloads, 3)
    if "downloads" in runs.warden:
        runs.warden["downloads"]["saved"] = saved(downloads, "warden")
    runs.audit = manifest.audit_lines()
    # Both sides' reports, for a look after a failure (and the table in docs/src/browser.md).
    (dir / "reports.json").write_text(json.dumps({"reference": runs.reference, "warden": runs.warden, "broken": runs.broken}, indent=1))
    print("seconds:", {k: round(v, 1) for k, v in runs.seconds.items()}, "reports:", dir / "reports.json")
    yield runs
    workers.close()
    platform.close()


@pytest.mark.parametrize("name", [n for n in NAMES if n != "workers"], ids=lambda n: n.replace(" ", "-"))
def test_every_family_works_in_warden_as_in_chromium(runs: Runs, name: str) -> None:
    family = runs.families[name]
    assert name not in runs.broken, runs.broken[name]
    expected, got = runs.reference[name], runs.warden[name]
    # The reference ran every feature of the page: the page is not blind.
    failing = {f: r for f, r in expected.items() if not r.get("ok")}
    assert not failing, f"features that do not work in plain headless Chromium: {failing}"
    found = differences(family, expected, got)
    assert not found, f"{name}: Warden departs from the reference:\n" + "\n".join(found)
    if family.guarded:
        path = family.url("x").split("?")[0].removeprefix(runs.platform.app.origin)
        tracker = runs.platform.tracker(path)
        # The reference's request reached the tracker; none of Warden's browser did, and the
        # refusal is audited, naming the tracker.
        assert tracker.got("run=reference"), tracker.requests
        assert tracker.got("run=warden") == [], tracker.requests
        denied = runs.denied(tracker.origin)
        assert denied, f"no capability_denied line names {tracker.origin}"
        assert all(line["decision"] == "denied" for line in denied), denied
        assert any(f" {REFUSED[name]} request(s)" in line["reason"] for line in denied), denied
    else:
        assert name not in REFUSED


def test_every_kind_of_worker_runs_as_in_chromium_and_only_reaches_what_is_granted(runs: Runs) -> None:
    assert "workers" not in runs.broken, runs.broken["workers"]
    family, sites = runs.families["workers"], runs.workers
    expected, got = runs.reference["workers"], runs.warden["workers"]
    # The reference ran every kind and reached both servers: the page is not blind.
    assert sorted(expected) == sorted(KINDS), expected
    assert all(report.get("ran") is True for report in expected.values()), expected
    assert differences(family, expected, got) == [], (expected, got)
    # What the servers received from Warden's browser: every kind's request at the API, none
    # at the tracker, which the reference's requests did reach.
    for kind in KINDS:
        assert sites.api.got(f"kind={kind}&run=warden"), (kind, sites.api.requests)
        assert sites.tracker.got(f"kind={kind}&run=reference"), (kind, sites.tracker.requests)
    assert sites.tracker.got("run=warden") == [], sites.tracker.requests
    denied = runs.denied(sites.tracker.origin)
    assert denied and all(line["decision"] == "denied" for line in denied), denied


def test_what_the_pages_sent_arrived_as_sent(runs: Runs) -> None:
    """Warden's browser's requests reached the servers as the reference's did: the beacon at
    the API, the export stream's release, the downloaded report, each WebSocket's upgrade."""
    app, api = runs.platform.app, runs.platform.api
    for run in ("reference", "warden"):
        assert api.got(f"/collect?run={run}&f=beacon"), api.requests
        assert app.got(f"/feed/release?run={run}&f=stream"), app.requests
        assert app.got(f"/export/q3-revenue.csv?run={run}&f=server"), app.requests
        assert api.got(f"/feed/socket?run={run}&f=cross-origin"), api.requests
    files = dict(runs.warden["downloads"]["saved"]["files"])
    assert files.get("q3-revenue.csv") == REPORT_CSV, files
