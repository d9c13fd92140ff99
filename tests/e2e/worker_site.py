"""Fixture sites for the worker page of the web platform parity suite: an analytics SPA
written the way such apps are (div soup, a sidebar, cards, a client-side router) that offloads
its work to every kind of worker Chromium has, and two servers it talks to.

- `app`: the granted origin; serves the app and every worker's script.
- `api`: granted only as a resource origin; every worker fetches from it (CORS open).
- `tracker`: granted nothing; every worker also tries to reach it.

Each server records every request (path with query), so a test asserts on what a server got.
The page tags every request with `run=` (the page's own query), so one server set serves the
reference browser and Warden's browser in turn and the two runs stay apart.

When every job has reported (or timed out), `window.__parity` holds one entry per kind:
`{"ran": bool, "api": <status or "refused">, "tracker": "reached" | "refused", ...}`,
`window.__parityDone` is true and the status line reads "All jobs settled";
`window.__timings` has each job's milliseconds from its start to its report, and `settled`,
the page's milliseconds from its navigation to the last report.
"""

from __future__ import annotations

from dataclasses import dataclass

from local_site import RecordingSite
from parity import Family

# The kinds of worker the page starts, in its order.
KINDS = (
    "dedicated",
    "blob",
    "data",
    "module",
    "module-blob",
    "nested",
    "import-scripts",
    "shared",
    "service",
    "audio-worklet",
    "paint-worklet",
)

# The job every worker runs: reach the API (granted) and the tracker (not), report both.
# `importScripts` for the classic worker that loads its helpers that way.
JOB = r"""
async function job(cfg) {
  const out = { ran: true };
  const q = '?kind=' + cfg.kind + '&run=' + cfg.run;
  if (cfg.kind === 'import-scripts') {
    try { importScripts(cfg.api + '/lib/helpers.js' + q); out.api = self.helpersLoaded ? 200 : 'not run'; }
    catch (e) { out.api = 'refused'; }
    try { importScripts(cfg.tracker + '/lib/helpers.js' + q); out.tracker = 'reached'; }
    catch (e) { out.tracker = 'refused'; }
    return out;
  }
  try { const r = await fetch(cfg.api + '/ping' + q); out.api = r.status; }
  catch (e) { out.api = 'refused'; }
  try { await fetch(cfg.tracker + '/ping' + q); out.tracker = 'reached'; }
  catch (e) { out.tracker = 'refused'; }
  return out;
}
"""

WORKER = (
    JOB
    + r"""
if (typeof SharedWorkerGlobalScope !== 'undefined' && self instanceof SharedWorkerGlobalScope) {
  onconnect = (e) => { const port = e.ports[0]; port.onmessage = async (m) => port.postMessage(await job(m.data)); };
} else if (typeof ServiceWorkerGlobalScope !== 'undefined' && self instanceof ServiceWorkerGlobalScope) {
  self.addEventListener('install', () => self.skipWaiting());
  self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
  self.addEventListener('message', async (e) => e.source.postMessage({ kind: 'service', out: await job(e.data) }));
} else {
  onmessage = async (e) => postMessage(await job(e.data));
}
"""
)

# A module worker: its job comes from a module; it also imports one from each server.
MODULE_LIB = JOB + "\nexport { job };\n"
MODULE = r"""
import { job } from '/w/lib.mjs';
onmessage = async (e) => {
  const cfg = e.data;
  const out = await job(cfg);
  const q = '?kind=' + cfg.kind + '&run=' + cfg.run;
  try { await import(cfg.api + '/lib/mod.mjs' + q); out.import_api = 'loaded'; } catch (err) { out.import_api = 'refused'; }
  try { await import(cfg.tracker + '/lib/mod.mjs' + q); out.import_tracker = 'reached'; } catch (err) { out.import_tracker = 'refused'; }
  postMessage(out);
};
"""

# A worker that starts a worker of its own and hands its answer up.
NESTED = r"""
onmessage = (e) => {
  const inner = new Worker('/w/job.js');
  inner.onmessage = (m) => postMessage(m.data);
  inner.onerror = () => postMessage({ ran: false, error: 'inner worker failed' });
  inner.postMessage(e.data);
};
"""

# An audio worklet's processor: it says it ran through its port (worklets have no fetch).
PROCESSOR = r"""
class Meter extends AudioWorkletProcessor {
  constructor() { super(); this.port.postMessage('ran'); }
  process() { return false; }
}
registerProcessor('NAME', Meter);
"""

PAINT = r"""
registerPaint('NAME', class { paint(ctx, size) { ctx.fillStyle = '#2155d6'; ctx.fillRect(0, 0, size.width, size.height); } });
"""

STYLE = """
<style>
  body { margin: 0; font-family: system-ui, sans-serif; background: #f3f4f8; color: #1f2430; }
  .shell { display: flex; min-height: 100vh; }
  .nav { width: 200px; background: #182033; color: #c9d1e3; padding: 18px 12px; }
  .nav .brand { font-weight: 700; color: #fff; margin-bottom: 18px; }
  .nav .item { padding: 8px 6px; border-radius: 6px; cursor: pointer; }
  .nav .item.on { background: #2a3550; color: #fff; }
  .content { flex: 1; padding: 20px 28px; }
  .top { display: flex; justify-content: space-between; align-items: center; margin-bottom: 16px; }
  .cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 14px; }
  .card { background: #fff; border-radius: 10px; padding: 14px 16px; box-shadow: 0 1px 3px #0002; }
  .card .k { font-size: 12px; color: #67708a; text-transform: uppercase; }
  .card .v { font-size: 15px; margin-top: 6px; }
  .swatch { width: 40px; height: 12px; background-image: paint(fill-local); }
</style>
"""

APP = (
    """<!doctype html><html><head><meta charset=utf-8><title>Northwind Insights</title>"""
    + STYLE
    + """</head>
<body><div id=root></div>
<script>
const params = new URLSearchParams(location.search);
const cfgFor = (kind) => ({ kind, run: params.get('run') || 'none', api: params.get('api'), tracker: params.get('tracker') });
const JOB_SOURCE = """
    + repr(WORKER)
    + """;
const results = {};
window.__parity = results;
// How long each job took from its start to its report, in ms (for tests/bench/worker_bench.py).
const timings = {};
window.__timings = timings;

function shell() {
  document.getElementById('root').innerHTML = `
    <div class="shell">
      <div class="nav"><div class="brand">Northwind Insights</div>
        <div class="item on">Pipelines</div><div class="item">Reports</div><div class="item">Settings</div></div>
      <div class="content">
        <div class="top"><div><b>Background jobs</b></div><div id="status">Starting jobs</div></div>
        <div class="cards" id="cards"></div>
        <div class="swatch"></div>
      </div>
    </div>`;
}

function show(kind, out) {
  results[kind] = out;
  const card = document.querySelector(`[data-kind="${kind}"] .v`);
  if (card) card.textContent = out.ran ? `ran; api ${out.api}; tracker ${out.tracker}` : `did not run (${out.error || 'no answer'})`;
  const left = """
    + repr(list(KINDS))
    + """.filter((k) => !(k in results));
  document.getElementById('status').textContent = left.length ? `Waiting for ${left.join(', ')}` : 'All jobs settled';
  if (!left.length) { timings.settled = Math.round(performance.now()); window.__parityDone = true; }
}

// One job: started by `start`, which calls `report` once; no answer in 10 s is a job that did not run.
function run(kind, start) {
  const card = document.createElement('div');
  card.className = 'card';
  card.dataset.kind = kind;
  card.innerHTML = `<div class="k">${kind}</div><div class="v">starting</div>`;
  document.getElementById('cards').appendChild(card);
  let settled = false;
  const started = performance.now();
  const report = (out) => { if (!settled) { settled = true; timings[kind] = Math.round(performance.now() - started); show(kind, out); } };
  setTimeout(() => report({ ran: false, error: 'no answer in 10 s' }), 10000);
  try { start(report); } catch (e) { report({ ran: false, error: String(e) }); }
}

function dedicated(kind, make) {
  run(kind, (report) => {
    const w = make();
    w.onmessage = (m) => report(m.data);
    w.onerror = (e) => report({ ran: false, error: 'worker error ' + (e.message || '') });
    w.postMessage(cfgFor(kind));
  });
}

async function worklet(kind, load) {
  run(kind, async (report) => {
    const cfg = cfgFor(kind);
    const q = '?kind=' + kind + '&run=' + cfg.run;
    const out = {};
    try { out.ran = await load('/w/' + kind + '.js' + q, 'local'); } catch (e) { out.ran = false; out.error = String(e); }
    try { await load(cfg.api + '/w/' + kind + '.js' + q, 'api'); out.api = 200; } catch (e) { out.api = 'refused'; }
    try { await load(cfg.tracker + '/w/' + kind + '.js' + q, 'tracker'); out.tracker = 'reached'; } catch (e) { out.tracker = 'refused'; }
    report(out);
  });
}

function boot() {
  shell();
  const blobOf = (src) => URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
  dedicated('dedicated', () => new Worker('/w/job.js'));
  dedicated('blob', () => new Worker(blobOf(JOB_SOURCE)));
  dedicated('data', () => new Worker('data:text/javascript,' + encodeURIComponent(JOB_SOURCE)));
  dedicated('module', () => new Worker('/w/module.mjs', { type: 'module' }));
  dedicated('module-blob', () => new Worker(blobOf(`import { job } from '${location.origin}/w/lib.mjs'; onmessage = async (e) => postMessage(await job(e.data));`), { type: 'module' }));
  dedicated('nested', () => new Worker('/w/nested.js'));
  dedicated('import-scripts', () => new Worker('/w/job.js'));
  run('shared', (report) => {
    const w = new SharedWorker('/w/job.js?shared');
    w.port.onmessage = (m) => report(m.data);
    w.onerror = () => report({ ran: false, error: 'shared worker error' });
    w.port.postMessage(cfgFor('shared'));
  });
  run('service', (report) => {
    navigator.serviceWorker.addEventListener('message', (m) => { if (m.data && m.data.kind === 'service') report(m.data.out); });
    navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready)
      .then((reg) => reg.active.postMessage(cfgFor('service')), (e) => report({ ran: false, error: String(e) }));
  });
  const audio = new OfflineAudioContext(1, 128, 44100);
  let n = 0;
  worklet('audio-worklet', async (url, which) => {
    await audio.audioWorklet.addModule(url);
    if (which !== 'local') return true;
    const node = new AudioWorkletNode(audio, 'meter-local');
    return await new Promise((ok) => { node.port.onmessage = () => ok(true); setTimeout(() => ok(false), 5000); });
  });
  worklet('paint-worklet', async (url) => { await CSS.paintWorklet.addModule(url); return true; });
}
boot();
</script></body></html>"""
)


JS = "text/javascript"


def worklet_pages(prefix: str) -> dict[str, tuple[str, str]]:
    """The two worklets' modules, registered under names of their own per server (a worklet
    scope refuses a second registration of one name)."""
    return {
        "/w/audio-worklet.js": (JS, PROCESSOR.replace("NAME", f"meter-{prefix}")),
        "/w/paint-worklet.js": (JS, PAINT.replace("NAME", f"fill-{prefix}")),
    }


@dataclass
class WorkerSites:
    app: RecordingSite
    api: RecordingSite
    tracker: RecordingSite

    def url(self, run: str) -> str:
        """The app's page for run `run`."""
        return self.app.url(f"/app?run={run}&api={self.api.origin}&tracker={self.tracker.origin}")

    def family(self) -> Family:
        """The workers page of the parity suite: what reaches the tracker is Warden's to refuse."""
        return Family("workers", self.url, guarded=frozenset({"tracker", "import_tracker"}))

    def close(self) -> None:
        for site in (self.app, self.api, self.tracker):
            site.close()


def start_worker_sites() -> WorkerSites:
    app, api, tracker = RecordingSite(), RecordingSite(), RecordingSite()
    app.pages.update(
        {
            "/app": ("text/html; charset=utf-8", APP),
            "/w/job.js": (JS, WORKER),
            "/sw.js": (JS, WORKER),
            "/w/lib.mjs": (JS, MODULE_LIB),
            "/w/module.mjs": (JS, MODULE),
            "/w/nested.js": (JS, NESTED),
            **worklet_pages("local"),
        }
    )
    helpers = (JS, "self.helpersLoaded = true;")
    module = (JS, "export const loaded = true;")
    for server, name in ((api, "api"), (tracker, "tracker")):
        server.pages.update({"/lib/helpers.js": helpers, "/lib/mod.mjs": module, **worklet_pages(name)})
    return WorkerSites(app, api, tracker)
