"""The web platform parity suite (`parity.py`): each feature family's page loaded in plain
headless Chromium (the reference, started here with the flags a user would try) and in
Warden's browser, and the two reports compared check by check. Where Warden's network guard
is meant to differ (a request to an origin nothing grants), the reference must have reached
the server and Warden refused it, asserted on what the servers received and on the audit
line. One reference Chromium per module; one Warden per family.

Workers (`worker_site.py`): an analytics SPA that offloads its work to every kind of worker.
Each reports that it ran, that its request to the API (granted as a resource origin) arrived,
and that its request to the tracker (granted nothing) did not.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_helpers import CHROMIUM, denied_lines
from parity import Reference, differences, read_in_warden
from worker_site import KINDS, WorkerSites, start_worker_sites

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    ref = Reference(Path(tmp_path_factory.mktemp("reference")) / "profile")
    yield ref
    ref.close()


@pytest.fixture()
def sites() -> Iterator[WorkerSites]:
    s = start_worker_sites()
    yield s
    s.close()


async def test_every_kind_of_worker_runs_as_in_chromium_and_only_reaches_what_is_granted(
    start_warden, write_manifest, reference: Reference, sites: WorkerSites
) -> None:
    family = sites.family()
    expected = reference.read(family)
    reached = sites.tracker.connections
    m = write_manifest(f"""
[browser]
executable = "{CHROMIUM}"

[[plugin]]
name = "browser"
source = "builtin:browser"
limits = {{ call_timeout = "60s" }}
grants.browser = {{ origins = ["{sites.app.origin}"], resource_origins = ["{sites.api.origin}"], eval_js = true }}
""")
    async with start_warden(m) as w:
        got = await read_in_warden(w, family)
        denied = await denied_lines(m, sites.tracker.origin)
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
    assert sites.tracker.connections == reached, "a connection of Warden's browser reached the tracker"
    assert denied and all(line["decision"] == "denied" for line in denied), denied
