"""The pages of the web platform parity suite, one per feature family (workers have theirs in
`worker_site.py`), written the way the web writes them: an app shell (a sidebar, a top bar,
cards, long tables), a client-side router, buttons that do the work on a click.

Each page reports into a status table (`#parity-status`: one row per feature, whether it worked
and its checks as JSON: `ok` whether it worked, `error` why not, the rest what it saw), which
both sides read back (`parity.STATUS_TABLE`), and keeps the same in `window.__parity`. It sets
`window.__parityReady` once its handlers are in place (a family with user steps waits for it
before the first), and `window.__parityDone` once every feature has reported. A check named
`tracker` is the page's attempt to reach the server nothing grants (`reached` or `refused`).
The servers are `platform_site.py`'s.
"""

from __future__ import annotations

import dataclasses
import json

from parity import STATUS_TABLE, Family, Step

STYLE = """
<style>
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #f4f5f9; color: #1d2330; }
  .shell { display: grid; grid-template-columns: 210px 1fr; min-height: 100vh; }
  .side { background: #141b2d; color: #b8c2da; padding: 16px 10px; }
  .side .brand { color: #fff; font-weight: 700; padding: 4px 8px 18px; }
  .side a, .side .item { display: block; color: inherit; text-decoration: none; padding: 7px 8px; border-radius: 6px; }
  .side .on { background: #27324d; color: #fff; }
  .main { padding: 0 26px 40px; }
  .bar { display: flex; justify-content: space-between; align-items: center; height: 56px; border-bottom: 1px solid #dde1ea; margin-bottom: 16px; }
  .bar .tools { display: flex; gap: 8px; }
  button { font: inherit; padding: 6px 12px; border-radius: 6px; border: 1px solid #c5cbd8; background: #fff; cursor: pointer; }
  button.primary { background: #2155d6; color: #fff; border-color: #2155d6; }
  .cards { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; margin-bottom: 18px; }
  .card { background: #fff; border-radius: 10px; padding: 12px 14px; box-shadow: 0 1px 3px #0002; }
  .card .k { font-size: 11px; text-transform: uppercase; color: #6a7390; }
  table { border-collapse: collapse; width: 100%; background: #fff; }
  td, th { border-bottom: 1px solid #eceef3; padding: 5px 8px; text-align: left; vertical-align: top; }
  #parity-status code { font-size: 11px; color: #4a5370; word-break: break-all; }
</style>
"""

# What every page runs first: its query, the report and its table, and helpers.
HARNESS = r"""
const params = new URLSearchParams(location.search);
const RUN = params.get('run') || 'none', API = params.get('api'), TRACKER = params.get('tracker');
const KEY = 'parity:' + location.pathname.split('/')[1] + ':' + RUN;
const results = window.__parity = KEEP ? JSON.parse(sessionStorage.getItem(KEY) || '{}') : {};
const tag = (feature) => 'run=' + RUN + '&f=' + feature;
const query = '?run=' + RUN + '&api=' + encodeURIComponent(API) + '&tracker=' + encodeURIComponent(TRACKER);
function render() {
  const body = document.getElementById('parity-status');
  if (!body) return;
  body.replaceChildren(...FEATURES.map((f) => {
    const tr = document.createElement('tr');
    tr.dataset.feature = f;
    const r = results[f];
    const cell = (...content) => { const td = document.createElement('td'); td.append(...content); tr.append(td); };
    cell(f);
    cell(r ? (r.ok ? 'works' : 'fails') : 'pending');
    cell(...(r ? [Object.assign(document.createElement('code'), { textContent: JSON.stringify(r) })] : []));
    return tr;
  }));
}
function report(feature, out) {
  if (feature in results) return;
  results[feature] = out;
  if (KEEP) sessionStorage.setItem(KEY, JSON.stringify(results));
  render();
  if (FEATURES.every((f) => f in results)) window.__parityDone = true;
}
const message = (e) => (e && (e.name && e.name !== 'Error' ? e.name + ': ' : '') + (e.message || String(e))) || 'failed';
// Run one feature: its checks, or why it failed; no answer in `ms` is a failure too.
function check(feature, fn, ms = 8000) {
  return new Promise((done) => {
    const timer = setTimeout(() => { report(feature, { ok: false, error: 'no answer in ' + ms + ' ms' }); done(); }, ms);
    Promise.resolve().then(fn).then(
      (out) => report(feature, { ok: true, ...out }),
      (e) => report(feature, { ok: false, error: message(e) }),
    ).finally(() => { clearTimeout(timer); done(); });
  });
}
const event = (target, name, ms = 6000) => new Promise((ok, no) => {
  target.addEventListener(name, ok, { once: true });
  setTimeout(() => no(new Error('no ' + name + ' event in ' + ms + ' ms')), ms);
});
async function reach(url, init) { try { await fetch(url, init); return 'reached'; } catch (e) { return 'refused'; } }
const blobWorker = (src) => new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
const ask = (worker, data) => new Promise((ok, no) => {
  worker.onmessage = (m) => (m.data && m.data.error ? no(new Error(m.data.error)) : ok(m.data));
  worker.onerror = (e) => no(new Error('worker error ' + (e.message || '')));
  worker.postMessage(data);
});
"""


def page(title: str, nav: list[str], active: str, tools: str, body: str, features: list[str], script: str, keep: bool = False) -> str:
    """An app page: the shell (sidebar with `nav`, a top bar with `tools`), `body`, the status
    table, and `script` after the harness (`FEATURES`, and `KEEP`: the report survives the
    page's own navigations, in `sessionStorage`)."""
    items = "".join(f'<div class="item{" on" if n == active else ""}">{n}</div>' for n in nav)
    brand = title.split(" — ")[0]
    return f"""<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>{STYLE}</head>
<body><div class="shell">
<nav class="side"><div class="brand">{brand}</div>{items}</nav>
<div class="main">
<div class="bar"><div><b>{active}</b></div><div class="tools">{tools}</div></div>
{body}
<h3>Status</h3>
<table><thead><tr><th>feature</th><th>result</th><th>details</th></tr></thead><tbody id="parity-status"></tbody></table>
</div></div>
<script>
const FEATURES = {json.dumps(features)};
const KEEP = {json.dumps(keep)};
{HARNESS}
render();
{script}
</script></body></html>"""


def rows(n: int, cells) -> str:
    """A long table of `n` rows, `cells(i)` giving each row's cells."""
    return "<table><tbody>" + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in cells(i)) + "</tr>" for i in range(n)) + "</tbody></table>"


CRM_NAV = ["Contacts", "Companies", "Deals", "Reports", "Settings"]

STORAGE = page(
    "Northwind CRM — offline contacts",
    CRM_NAV,
    "Contacts",
    "<button>Import</button><button class=primary>New contact</button>",
    '<div class="cards"><div class="card"><div class="k">Synced</div><div id=synced>…</div></div>'
    '<div class="card"><div class="k">Offline</div><div>ready</div></div><div class="card"><div class="k">Quota</div><div id=quota>…</div></div></div>'
    + rows(40, lambda i: [f"Contact {i}", ["Oslo", "Lyon", "Porto"][i % 3], f"+47 555 {1000 + i}"]),
    ["indexeddb", "indexeddb-upgrade", "local-storage", "session-storage", "cookies", "cookie-store", "cache-api", "opfs", "quota", "locks", "broadcast-channel"],
    r"""
const req = (r) => new Promise((ok, no) => { r.onsuccess = () => ok(r.result); r.onerror = () => no(r.error); });
const done = (tx) => new Promise((ok, no) => { tx.oncomplete = ok; tx.onabort = () => no(tx.error || new Error('aborted')); tx.onerror = () => no(tx.error); });
const DB = 'crm-' + RUN;
check('indexeddb', async () => {
  const open = indexedDB.open(DB, 1);
  open.onupgradeneeded = () => { const s = open.result.createObjectStore('contacts', { keyPath: 'id' }); s.createIndex('byCity', 'city'); };
  const db = await req(open);
  const tx = db.transaction('contacts', 'readwrite');
  for (let i = 0; i < 250; i++) tx.objectStore('contacts').put({ id: i, name: 'Contact ' + i, city: ['Oslo', 'Lyon', 'Porto'][i % 3], blob: new Blob(['x'.repeat(i)]) });
  await done(tx);
  const read = db.transaction('contacts').objectStore('contacts');
  const count = await req(read.count());
  const oslo = (await req(read.index('byCity').getAll('Oslo'))).length;
  const last = await new Promise((ok) => { read.openCursor(null, 'prev').onsuccess = (e) => ok(e.target.result.key); });
  const blobSize = (await req(read.get(42))).blob.size;
  const bad = db.transaction('contacts', 'readwrite');
  bad.objectStore('contacts').put({ id: 999, city: 'Nowhere' });
  bad.abort();
  const afterAbort = await req(db.transaction('contacts').objectStore('contacts').count());
  db.close();
  document.getElementById('synced').textContent = count + ' contacts';
  return { count, oslo, last, blobSize, afterAbort };
});
check('indexeddb-upgrade', async () => {
  await new Promise((ok) => setTimeout(ok, 300));
  const open = indexedDB.open(DB + '-v', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('a');
  (await req(open)).close();
  const again = indexedDB.open(DB + '-v', 2);
  let from = null;
  again.onupgradeneeded = (e) => { from = e.oldVersion; again.result.createObjectStore('b'); };
  const db = await req(again);
  const stores = [...db.objectStoreNames];
  db.close();
  return { from, version: db.version, stores };
});
check('local-storage', () => {
  localStorage.setItem('crm.view', JSON.stringify({ sort: 'name', cols: 7 }));
  localStorage.setItem('crm.big', 'x'.repeat(200000));
  return { view: JSON.parse(localStorage.getItem('crm.view')).sort, big: localStorage.getItem('crm.big').length };
});
check('session-storage', () => { sessionStorage.setItem('crm.draft', 'Ada'); return { draft: sessionStorage.getItem('crm.draft') }; });
check('cookies', () => {
  document.cookie = 'crm_theme=dark; path=/; SameSite=Lax; max-age=600';
  return { theme: document.cookie.split('; ').find((c) => c.startsWith('crm_theme=')) };
});
check('cookie-store', async () => {
  await cookieStore.set({ name: 'crm_seen', value: 'yes', sameSite: 'lax' });
  return { seen: (await cookieStore.get('crm_seen')).value };
});
check('cache-api', async () => {
  const cache = await caches.open('crm-' + RUN);
  await cache.put(new Request('/api/contacts.json'), new Response(JSON.stringify({ n: 250 }), { headers: { 'Content-Type': 'application/json' } }));
  const hit = await cache.match('/api/contacts.json');
  return { n: (await hit.json()).n, keys: (await cache.keys()).length, has: await caches.has('crm-' + RUN) };
});
check('opfs', async () => {
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle('drafts', { create: true });
  const file = await dir.getFileHandle('note-' + RUN + '.txt', { create: true });
  const w = await file.createWritable();
  await w.write('call Ada back on Monday');
  await w.close();
  return { text: await (await file.getFile()).text() };
});
check('quota', async () => {
  const e = await navigator.storage.estimate();
  document.getElementById('quota').textContent = Math.round(e.quota / 1e6) + ' MB';
  return { quota: e.quota > 0, usage: typeof e.usage };
});
check('locks', async () => ({ held: await navigator.locks.request('crm-sync', async (l) => l.name) }));
check('broadcast-channel', async () => {
  const a = new BroadcastChannel('crm'), b = new BroadcastChannel('crm');
  const got = new Promise((ok) => { b.onmessage = (m) => ok(m.data); });
  a.postMessage({ sync: 'done' });
  const data = await got;
  a.close(); b.close();
  return { data };
});
window.__parityReady = true;
""",
)

WASM = page(
    "Ledger — spreadsheet engine",
    ["Sheets", "Formulas", "Imports", "Sharing"],
    "Formulas",
    "<button>Recalculate</button><button class=primary>Share</button>",
    '<div class="cards"><div class="card"><div class="k">Engine</div><div id=engine>loading</div></div>'
    '<div class="card"><div class="k">Cells</div><div>12 480</div></div><div class="card"><div class="k">Last run</div><div>now</div></div></div>'
    + rows(60, lambda i: [f"A{i + 1}", f"=SUM(B{i + 1}:F{i + 1})", f"{(i * 37) % 1000}"]),
    ["compile", "streaming", "cross-origin", "memory", "worker", "tracker"],
    r"""
const BYTES = new Uint8Array([0,97,115,109,1,0,0,0,1,7,1,96,2,127,127,1,127,3,2,1,0,7,7,1,3,97,100,100,0,0,10,9,1,7,0,32,0,32,1,106,11]);
check('compile', () => {
  const m = new WebAssembly.Module(BYTES);
  return { valid: WebAssembly.validate(BYTES), sum: new WebAssembly.Instance(m).exports.add(2, 3), exports: WebAssembly.Module.exports(m).map((e) => e.name) };
});
check('streaming', async () => {
  const { instance } = await WebAssembly.instantiateStreaming(fetch('/assets/add.wasm?' + tag('streaming')));
  document.getElementById('engine').textContent = 'wasm ready';
  return { sum: instance.exports.add(40, 2) };
});
check('cross-origin', async () => {
  const { instance } = await WebAssembly.instantiateStreaming(fetch(API + '/assets/add.wasm?' + tag('cross-origin')));
  return { sum: instance.exports.add(7, 8) };
});
check('memory', () => {
  const mem = new WebAssembly.Memory({ initial: 1, maximum: 4 });
  const before = mem.buffer.byteLength;
  mem.grow(2);
  let shared;
  try { shared = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer.constructor.name; } catch (e) { shared = e.name; }
  return { before, after: mem.buffer.byteLength, shared, isolated: crossOriginIsolated };
});
check('worker', async () => {
  const w = blobWorker(`onmessage = async (e) => {
    try { const i = await WebAssembly.instantiate(e.data); postMessage(i.exports.add(20, 22)); }
    catch (err) { postMessage({ error: String(err) }); } };`);
  return { sum: await ask(w, new WebAssembly.Module(BYTES)) };
});
check('tracker', async () => {
  try { await WebAssembly.instantiateStreaming(fetch(TRACKER + '/assets/add.wasm?' + tag('tracker'))); return { tracker: 'reached' }; }
  catch (e) { return { tracker: 'refused' }; }
});
window.__parityReady = true;
""",
)

ORDERS_NAV = ["Orders", "Shipments", "Returns", "Exports"]

STREAMS = page(
    "Northwind Orders — live export",
    ORDERS_NAV,
    "Exports",
    "<button>Filters</button><button class=primary>Export</button>",
    '<div class="cards"><div class="card"><div class="k">Rows</div><div id=rows>0</div></div>'
    '<div class="card"><div class="k">Export</div><div id=export>streaming</div></div><div class="card"><div class="k">Region</div><div>all</div></div></div>'
    + rows(50, lambda i: [f"#{50000 + i}", ["paid", "shipped", "open"][i % 3], f"{(i * 13) % 400}.00"]),
    ["stream", "cross-origin-stream", "abort", "xhr-progress", "compression", "beacon", "tracker"],
    r"""
// Read the export: its first row, then ask the server to send the rest (it holds them until
// asked), then the rest through a text decoder, a line at a time.
async function exportFrom(origin, feature) {
  const res = await fetch(origin + '/feed/stream?' + tag(feature));
  const lines = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const pending = lines.read();
  const first = await Promise.race([pending, new Promise((ok) => setTimeout(() => ok(null), 3000))]);
  await fetch(origin + '/feed/release?' + tag(feature));
  let text = (first || (await pending)).value;
  for (;;) { const { value, done } = await lines.read(); if (done) break; text += value; }
  const rows = text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { early: first !== null, type: res.headers.get('content-type'), rows: rows.length, gate: (rows.find((r) => r.gate) || {}).gate };
}
check('stream', async () => { const out = await exportFrom('', 'stream'); document.getElementById('rows').textContent = out.rows; return out; }, 12000);
check('cross-origin-stream', () => exportFrom(API, 'cross-origin-stream'), 12000);
check('abort', async () => {
  const ctl = new AbortController();
  const res = await fetch('/feed/stream?' + tag('abort'), { signal: ctl.signal });
  const reader = res.body.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  ctl.abort();
  let after;
  try { await reader.read(); after = 'read on'; } catch (e) { after = e.name; }
  fetch('/feed/release?' + tag('abort'));
  return { first: JSON.parse(first).row, after };
});
check('xhr-progress', () => new Promise((ok, no) => {
  const x = new XMLHttpRequest();
  let progress = 0;
  x.open('GET', API + '/assets/tone.wav?' + tag('xhr-progress'));
  x.responseType = 'arraybuffer';
  x.onprogress = () => progress++;
  x.onload = () => ok({ status: x.status, bytes: x.response.byteLength, progress: progress > 0 });
  x.onerror = () => no(new Error('xhr failed'));
  x.send();
}));
check('compression', async () => {
  const text = 'order,'.repeat(2000);
  const zipped = await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
  const back = await new Response(new Blob([zipped]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  return { smaller: zipped.byteLength < text.length, same: back === text };
});
check('beacon', () => ({ queued: navigator.sendBeacon(API + '/collect?' + tag('beacon'), JSON.stringify({ view: 'exports' })) }));
check('tracker', async () => ({ tracker: await reach(TRACKER + '/collect?' + tag('tracker')) }));
window.__parityReady = true;
""",
)

CHAT = page(
    "Northwind Chat — #support",
    ["#general", "#support", "#releases", "Direct messages"],
    "#support",
    "<button>Search</button><button class=primary>New message</button>",
    '<div class="cards"><div class="card"><div class="k">Connection</div><div id=conn>connecting</div></div>'
    '<div class="card"><div class="k">Members</div><div>48</div></div><div class="card"><div class="k">Unread</div><div>3</div></div></div>'
    + rows(30, lambda i: [f"user{i % 7}", f"message number {i} about the ticket", f"10:{i:02d}"]),
    ["echo", "binary", "blob", "large", "close", "cross-origin", "worker", "tracker"],
    r"""
const wsOrigin = (o) => (o || location.origin).replace(/^http/, 'ws');
function socket(origin, feature) {
  const ws = new WebSocket(wsOrigin(origin) + '/feed/socket?' + tag(feature));
  const opened = new Promise((ok, no) => { ws.onopen = ok; ws.onerror = () => no(new Error('socket error')); });
  const next = () => new Promise((ok) => { ws.onmessage = (m) => ok(m.data); });
  return { ws, opened, next };
}
async function echo(origin, feature, data, type) {
  const s = socket(origin, feature);
  if (type) s.ws.binaryType = type;
  await s.opened;
  const got = s.next();
  s.ws.send(data);
  const back = await got;
  s.ws.close();
  return back;
}
check('echo', async () => { const back = await echo('', 'echo', 'hello #support'); document.getElementById('conn').textContent = 'live'; return { back }; });
check('binary', async () => ({ back: [...new Uint8Array(await echo('', 'binary', new Uint8Array([1, 2, 3, 250]), 'arraybuffer'))] }));
check('blob', async () => { const b = await echo('', 'blob', new Blob(['attachment']), 'blob'); return { type: b.constructor.name, text: await b.text() }; });
check('large', async () => ({ length: (await echo('', 'large', 'x'.repeat(200000))).length }));
check('close', async () => {
  const s = socket('', 'close');
  await s.opened;
  const closed = new Promise((ok) => { s.ws.onclose = (e) => ok({ code: e.code, reason: e.reason, clean: e.wasClean }); });
  s.ws.send('bye');
  return await closed;
});
check('cross-origin', async () => ({ back: await echo(API, 'cross-origin', 'from the app') }));
check('worker', async () => {
  const w = blobWorker(`onmessage = (e) => {
    const ws = new WebSocket(e.data);
    ws.onopen = () => ws.send('from a worker');
    ws.onmessage = (m) => { postMessage(m.data); ws.close(); };
    ws.onerror = () => postMessage({ error: 'socket error' });
  };`);
  return { back: await ask(w, wsOrigin('') + '/feed/socket?' + tag('worker')) };
});
check('tracker', () => new Promise((ok) => {
  const ws = new WebSocket(wsOrigin(TRACKER) + '/feed/socket?' + tag('tracker'));
  ws.onopen = () => { ws.close(); ok({ tracker: 'reached' }); };
  ws.onerror = () => ok({ tracker: 'refused' });
}));
window.__parityReady = true;
""",
)

TICKER = page(
    "Northwind Markets — ticker",
    ["Watchlist", "Portfolio", "Alerts", "News"],
    "Watchlist",
    "<button>Add symbol</button>",
    '<div class="cards"><div class="card"><div class="k">NWND</div><div id=px>…</div></div>'
    '<div class="card"><div class="k">Feed</div><div id=feed>connecting</div></div><div class="card"><div class="k">Alerts</div><div>2 active</div></div></div>'
    + rows(40, lambda i: [f"SYM{i}", f"{100 + i}.{i % 10}", f"{'+' if i % 2 else '-'}{i % 5}.{i % 9}%"]),
    ["stream", "cross-origin", "worker", "tracker"],
    r"""
// Two ticks, the server hangs up, the feed reconnects (retry 150 ms) with Last-Event-ID and
// gets the tick that says where it resumed.
function feed(origin, feature) {
  return new Promise((ok, no) => {
    const es = new EventSource(origin + '/feed/events?' + tag(feature));
    const ticks = [];
    let opens = 0;
    es.onopen = () => opens++;
    es.addEventListener('tick', (e) => { ticks.push(JSON.parse(e.data).px); if (feature === 'stream') document.getElementById('px').textContent = ticks.at(-1); });
    es.onmessage = (e) => { es.close(); ok({ ticks, resumed: e.data, lastEventId: e.lastEventId, opens, state: es.readyState }); };
    setTimeout(() => { es.close(); no(new Error('got ' + ticks.length + ' tick(s), no resume')); }, 6000);
  });
}
check('stream', async () => { const out = await feed('', 'stream'); document.getElementById('feed').textContent = 'live'; return out; });
check('cross-origin', () => feed(API, 'cross-origin'));
check('worker', async () => {
  const w = blobWorker(`onmessage = (e) => {
    const es = new EventSource(e.data);
    es.addEventListener('tick', (t) => { postMessage(JSON.parse(t.data).px); es.close(); });
    es.onerror = () => { if (es.readyState === 2) postMessage({ error: 'event source failed' }); };
  };`);
  return { first: await ask(w, location.origin + '/feed/events?' + tag('worker')) };
});
check('tracker', () => new Promise((ok) => {
  const es = new EventSource(TRACKER + '/feed/events?' + tag('tracker'));
  es.onopen = () => { es.close(); ok({ tracker: 'reached' }); };
  es.onerror = () => { es.close(); ok({ tracker: 'refused' }); };
}));
window.__parityReady = true;
""",
)

CANVAS = page(
    "Northwind Studio — charts",
    ["Dashboards", "Charts", "Maps", "Data sources"],
    "Charts",
    "<button>Export PNG</button><button class=primary>New chart</button>",
    '<div class="cards"><div class="card"><div class="k">Revenue</div><canvas id=bars width=240 height=80></canvas></div>'
    '<div class="card"><div class="k">Map</div><canvas id=gl width=64 height=64></canvas></div>'
    '<div class="card"><div class="k">Logo</div><canvas id=logo width=8 height=8></canvas></div></div>'
    + rows(30, lambda i: [f"Series {i}", f"{(i * 31) % 97}", f"{(i * 7) % 13}%"]),
    ["2d", "image", "cors-image", "tainted", "offscreen-worker", "image-bitmap", "webgl", "webgl2", "tracker"],
    r"""
const pixel = (ctx, x, y) => [...ctx.getImageData(x, y, 1, 1).data];
const image = (src, cors) => new Promise((ok, no) => {
  const img = new Image();
  if (cors) img.crossOrigin = 'anonymous';
  img.onload = () => ok(img);
  img.onerror = () => no(new Error('image did not load'));
  img.src = src;
});
check('2d', () => {
  const ctx = document.getElementById('bars').getContext('2d');
  [30, 55, 20, 70].forEach((h, i) => { ctx.fillStyle = '#2155d6'; ctx.fillRect(10 + i * 50, 80 - h, 36, h); });
  ctx.font = '12px sans-serif';
  return { bar: pixel(ctx, 20, 75), empty: pixel(ctx, 5, 5), text: ctx.measureText('Q3 revenue').width > 0, url: document.getElementById('bars').toDataURL().slice(0, 22) };
});
check('image', async () => {
  const ctx = document.getElementById('logo').getContext('2d');
  ctx.drawImage(await image('/assets/logo.png?' + tag('image')), 0, 0);
  return { logo: pixel(ctx, 1, 1) };
});
check('cors-image', async () => {
  const c = new OffscreenCanvas(4, 4), ctx = c.getContext('2d');
  ctx.drawImage(await image(API + '/assets/logo.png?' + tag('cors-image'), true), 0, 0);
  return { logo: pixel(ctx, 2, 2) };
});
check('tainted', async () => {
  const c = document.createElement('canvas'), ctx = c.getContext('2d');
  ctx.drawImage(await image(API + '/assets/logo.png?' + tag('tainted'), false), 0, 0);
  try { ctx.getImageData(0, 0, 1, 1); return { read: 'allowed' }; } catch (e) { return { read: e.name }; }
});
check('offscreen-worker', async () => {
  const w = blobWorker(`onmessage = async (e) => {
    const c = new OffscreenCanvas(32, 32), ctx = c.getContext('2d');
    ctx.fillStyle = 'rgb(0, 128, 0)'; ctx.fillRect(0, 0, 32, 32);
    const blob = await c.convertToBlob({ type: 'image/png' });
    postMessage({ type: blob.type, px: [...ctx.getImageData(5, 5, 1, 1).data] });
  };`);
  return await ask(w, null);
});
check('image-bitmap', async () => {
  const blob = await (await fetch('/assets/logo.png?' + tag('image-bitmap'))).blob();
  const bmp = await createImageBitmap(blob);
  return { size: [bmp.width, bmp.height] };
});
function gl(kind) {
  const c = document.createElement('canvas');
  const g = c.getContext(kind);
  if (!g) return { context: null };
  g.clearColor(0, 1, 0, 1);
  g.clear(g.COLOR_BUFFER_BIT);
  const px = new Uint8Array(4);
  g.readPixels(0, 0, 1, 1, g.RGBA, g.UNSIGNED_BYTE, px);
  return { context: kind, px: [...px] };
}
check('webgl', () => gl('webgl'));
check('webgl2', () => gl('webgl2'));
check('tracker', async () => {
  try { await image(TRACKER + '/assets/logo.png?' + tag('tracker')); return { tracker: 'reached' }; } catch (e) { return { tracker: 'refused' }; }
});
window.__parityReady = true;
""",
)

MEDIA = page(
    "Northwind Academy — lessons",
    ["Courses", "Lessons", "Quizzes", "Certificates"],
    "Lessons",
    "<button>Transcript</button><button id=play class=primary>Play lesson</button>",
    '<div class="cards"><div class="card"><div class="k">Lesson 4</div><audio id=lesson preload=metadata></audio><div id=dur>…</div></div>'
    '<div class="card"><div class="k">Recording</div><video id=rec muted width=160></video></div>'
    '<div class="card"><div class="k">Progress</div><div>62%</div></div></div>'
    + rows(30, lambda i: [f"Lesson {i}", f"{3 + i % 9} min", ["done", "started", "new"][i % 3]]),
    ["audio", "play", "web-audio", "recorder-video", "support", "cross-origin", "tracker"],
    r"""
const loaded = (el, src) => new Promise((ok, no) => {
  el.onloadedmetadata = () => ok(el);
  el.onerror = () => no(new Error('media error ' + (el.error && el.error.code)));
  el.src = src;
});
check('audio', async () => {
  const a = await loaded(document.getElementById('lesson'), '/assets/tone.wav?' + tag('audio'));
  document.getElementById('dur').textContent = a.duration.toFixed(1) + ' s';
  return { duration: Math.round(a.duration * 10) / 10 };
});
// Playing needs the user's click (the autoplay policy).
document.getElementById('play').onclick = () => check('play', async () => {
  const a = new Audio();
  await loaded(a, '/assets/tone.wav?' + tag('play'));
  await a.play();
  await event(a, 'ended');
  return { ended: a.ended, played: a.played.length };
});
check('web-audio', async () => {
  const bytes = await (await fetch('/assets/tone.wav?' + tag('web-audio'))).arrayBuffer();
  const ctx = new OfflineAudioContext(1, 8000, 8000);
  const buf = await ctx.decodeAudioData(bytes);
  const src = ctx.createBufferSource();
  src.buffer = buf;
  src.connect(ctx.destination);
  src.start();
  const out = await ctx.startRendering();
  return { duration: buf.duration, rate: buf.sampleRate, rendered: out.length, loud: out.getChannelData(0).some((v) => Math.abs(v) > 0.1) };
});
check('recorder-video', async () => {
  const c = Object.assign(document.createElement('canvas'), { width: 160, height: 90 });
  const ctx = c.getContext('2d');
  const rec = new MediaRecorder(c.captureStream(15), { mimeType: 'video/webm' });
  const chunks = [];
  rec.ondataavailable = (e) => chunks.push(e.data);
  let frame = 0;
  const draw = setInterval(() => { ctx.fillStyle = frame++ % 2 ? '#2155d6' : '#d62155'; ctx.fillRect(0, 0, 160, 90); }, 40);
  rec.start(100);
  await new Promise((ok) => setTimeout(ok, 700));
  rec.stop();
  await event(rec, 'stop');
  clearInterval(draw);
  const blob = new Blob(chunks, { type: 'video/webm' });
  const v = await loaded(document.getElementById('rec'), URL.createObjectURL(blob));
  return { type: rec.mimeType.split(';')[0], recorded: blob.size > 0, size: [v.videoWidth, v.videoHeight] };
}, 10000);
check('support', () => ({
  wav: new Audio().canPlayType('audio/wav'),
  webm: document.createElement('video').canPlayType('video/webm; codecs="vp8, vorbis"'),
  opus: MediaSource.isTypeSupported('audio/webm; codecs="opus"'),
  vp9: MediaSource.isTypeSupported('video/webm; codecs="vp9"'),
  h264: MediaSource.isTypeSupported('video/mp4; codecs="avc1.42E01E"'),
}));
check('cross-origin', async () => {
  const a = new Audio();
  a.crossOrigin = 'anonymous';
  return { duration: Math.round((await loaded(a, API + '/assets/tone.wav?' + tag('cross-origin'))).duration * 10) / 10 };
});
check('tracker', async () => {
  try { await loaded(new Audio(), TRACKER + '/assets/tone.wav?' + tag('tracker')); return { tracker: 'reached' }; } catch (e) { return { tracker: 'refused' }; }
});
window.__parityReady = true;
""",
)

FONTS = page(
    "Northwind Brand — style guide",
    ["Colours", "Typography", "Icons", "Voice"],
    "Typography",
    "<button>Download kit</button>",
    '<div class="cards"><div class="card"><div class="k">Display</div><div id=display style="font-family: \'Northwind Display\', monospace">Aa Bb Cc</div></div>'
    '<div class="card"><div class="k">Text</div><div style="font-family: \'Northwind Sans\'">The quick brown fox</div></div>'
    '<div class="card"><div class="k">Fonts</div><div id=nfonts>…</div></div></div>'
    + rows(30, lambda i: [f"Token {i}", f"{10 + i}px", ["regular", "bold", "italic"][i % 3]]),
    ["font-face", "css", "array-buffer", "ready", "tracker"],
    r"""
check('font-face', async () => {
  const f = new FontFace('Northwind Sans', 'url(/assets/brand.ttf?' + tag('font-face') + ')');
  await f.load();
  document.fonts.add(f);
  return { status: f.status, check: document.fonts.check('16px "Northwind Sans"') };
});
check('css', async () => {
  const style = document.createElement('style');
  style.textContent = `@font-face { font-family: 'Northwind Display'; src: url(${API}/assets/brand.ttf?${tag('css')}) format('truetype'); font-display: block; }`;
  document.head.append(style);
  const faces = await document.fonts.load('16px "Northwind Display"');
  return { faces: faces.length, status: faces.map((f) => f.status) };
});
check('array-buffer', async () => {
  const bytes = await (await fetch('/assets/brand.ttf?' + tag('array-buffer'))).arrayBuffer();
  const f = new FontFace('Northwind Mono', bytes);
  await f.load();
  return { status: f.status };
});
check('ready', async () => {
  await new Promise((ok) => setTimeout(ok, 200));
  const set = await document.fonts.ready;
  document.getElementById('nfonts').textContent = set.size + ' faces';
  return { status: set.status };
});
check('tracker', async () => {
  try { await new FontFace('Tracked', 'url(' + TRACKER + '/assets/brand.ttf?' + tag('tracker') + ')').load(); return { tracker: 'reached' }; }
  catch (e) { return { tracker: 'refused' }; }
});
window.__parityReady = true;
""",
)

DOWNLOADS = page(
    "Northwind Reports — exports",
    ["Overview", "Revenue", "Exports", "Schedules"],
    "Exports",
    "<button id=csv>Export CSV</button><a id=report href=# download>Download Q3 report</a><button id=json>Save view as JSON</button>",
    '<div class="cards"><div class="card"><div class="k">Rows</div><div>3</div></div>'
    '<div class="card"><div class="k">Format</div><div>CSV, JSON</div></div><div class="card"><div class="k">Last export</div><div id=last>never</div></div></div>'
    + rows(40, lambda i: [["north", "south", "east", "west"][i % 4], f"Q{1 + i % 4}", f"{1000 * (i + 3)}"]),
    ["blob", "server", "data"],
    r"""
document.getElementById('report').href = '/export/q3-revenue.csv?' + tag('server');
const save = (href, name) => { const a = document.createElement('a'); a.href = href; a.download = name; document.body.append(a); a.click(); a.remove(); };
document.getElementById('csv').onclick = () => {
  const url = URL.createObjectURL(new Blob(['region,total\nnorth,182000\n'], { type: 'text/csv' }));
  save(url, 'revenue-' + RUN + '.csv');
  document.getElementById('last').textContent = 'CSV';
  report('blob', { ok: true, scheme: url.split(':')[0] });
};
document.getElementById('report').addEventListener('click', () => report('server', { ok: true, scheme: 'http' }));
document.getElementById('json').onclick = () => {
  save('data:application/json,' + encodeURIComponent(JSON.stringify({ view: 'exports', run: RUN })), 'view-' + RUN + '.json');
  report('data', { ok: true, scheme: 'data' });
};
window.__parityReady = true;
""",
)

BOARD = page(
    "Northwind Board — sprint 42",
    ["Board", "Backlog", "Roadmap", "Reports"],
    "Board",
    "<button>Filter</button><button class=primary>New issue</button>",
    """<style>
  .columns { display: grid; grid-template-columns: repeat(3, 1fr); gap: 12px; margin-bottom: 18px; }
  .column { background: #e8ebf2; border-radius: 10px; padding: 10px; min-height: 160px; }
  .column.over { outline: 2px dashed #2155d6; }
  .ticket { background: #fff; border-radius: 8px; padding: 8px 10px; margin: 6px 0; box-shadow: 0 1px 2px #0002; cursor: grab; }
  .sort li { display: flex; gap: 8px; align-items: center; background: #fff; margin: 4px 0; padding: 6px; border-radius: 6px; }
  .handle { cursor: grab; touch-action: none; padding: 2px 8px; }
</style>
<div class="columns">
  <div class="column" id=todo><b>To do</b><div class="ticket" draggable="true" data-id="NW-311">Fix checkout rounding</div><div class="ticket" draggable="true" data-id="NW-312">Refresh the logo</div></div>
  <div class="column" id=doing><b>In progress</b><div class="ticket" draggable="true" data-id="NW-305">Migrate billing</div></div>
  <div class="column" id=done><b>Done</b></div>
</div>
<h3>Release checklist</h3>
<ul class="sort" id=sort>
  <li data-id=a><button class=handle aria-label="Move Write release notes">⠿</button>Write release notes</li>
  <li data-id=b><button class=handle aria-label="Move Tag the build">⠿</button>Tag the build</li>
  <li data-id=c><button class=handle aria-label="Move Plan the retro">⠿</button>Plan the retro</li>
</ul>""",
    ["html5", "pointer"],
    r"""
let dragged = null;
for (const t of document.querySelectorAll('.ticket')) {
  t.addEventListener('dragstart', (e) => {
    dragged = t;
    e.dataTransfer.setData('text/plain', t.dataset.id);
    e.dataTransfer.setData('application/x-ticket', JSON.stringify({ id: t.dataset.id, from: t.parentElement.id }));
    e.dataTransfer.effectAllowed = 'move';
  });
}
for (const col of document.querySelectorAll('.column')) {
  col.addEventListener('dragover', (e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'move'; col.classList.add('over'); });
  col.addEventListener('dragleave', () => col.classList.remove('over'));
  col.addEventListener('drop', (e) => {
    e.preventDefault();
    col.classList.remove('over');
    const meta = JSON.parse(e.dataTransfer.getData('application/x-ticket') || '{}');
    const card = document.querySelector(`[data-id="${e.dataTransfer.getData('text/plain')}"]`);
    if (card) col.append(card);
    report('html5', { ok: !!card, id: e.dataTransfer.getData('text/plain'), from: meta.from, to: col.id, types: [...e.dataTransfer.types].sort(), dragged: dragged && dragged.dataset.id });
  });
}
// The checklist sorts with pointer events (as sortable lists do where HTML5 drag is clumsy).
const list = document.getElementById('sort');
let moving = null, moves = 0;
list.addEventListener('pointerdown', (e) => {
  const h = e.target.closest('.handle');
  if (!h) return;
  moving = h.parentElement; moves = 0;
  h.setPointerCapture(e.pointerId);
  e.preventDefault();
});
list.addEventListener('pointermove', (e) => {
  if (!moving) return;
  moves++;
  const over = [...list.children].find((li) => { const r = li.getBoundingClientRect(); return e.clientY >= r.top && e.clientY <= r.bottom; });
  if (over && over !== moving) list.insertBefore(moving, over.compareDocumentPosition(moving) & Node.DOCUMENT_POSITION_FOLLOWING ? over : over.nextSibling);
});
list.addEventListener('pointerup', () => {
  if (!moving) return;
  moving = null;
  report('pointer', { ok: true, order: [...list.children].map((li) => li.dataset.id), moved: moves > 0 });
});
window.__parityReady = true;
""",
)

INVITE = page(
    "Northwind Team — invite",
    ["Members", "Invites", "Roles", "Billing"],
    "Invites",
    "<button id=copy>Copy invite link</button><button id=coupon-copy>Copy coupon</button>",
    """<div class="cards"><div class="card"><div class="k">Invite link</div><div id=link></div></div>
<div class="card"><div class="k">Coupon</div><input id=coupon aria-label="Coupon code" value="NW-SPRING-24"></div>
<div class="card"><div class="k">Seats</div><div>12 of 20</div></div></div>
<div class="card"><textarea id=paste aria-label="Paste the link here" rows=2 cols=50></textarea>
<textarea id=notes aria-label="Notes" rows=2 cols=50></textarea></div>"""
    + rows(20, lambda i: [f"member{i}@northwind.test", ["admin", "editor", "viewer"][i % 3], "active"]),
    ["permissions", "async-write", "paste", "exec-copy", "copy-paste"],
    r"""
const LINK = location.origin + '/join/' + RUN + '-7f3a';
document.getElementById('link').textContent = LINK;
check('permissions', async () => {
  const state = async (name) => { try { return (await navigator.permissions.query({ name })).state; } catch (e) { return e.name; } };
  return { write: await state('clipboard-write'), read: await state('clipboard-read') };
});
document.getElementById('copy').onclick = async () => {
  try { await navigator.clipboard.writeText(LINK); report('async-write', { ok: true, focused: document.hasFocus() }); }
  catch (e) { report('async-write', { ok: false, error: message(e) }); }
};
document.getElementById('coupon-copy').onclick = () => {
  const field = document.getElementById('coupon');
  field.select();
  let copied = null;
  document.addEventListener('copy', (e) => { e.clipboardData.setData('text/plain', 'coupon:' + field.value); e.preventDefault(); copied = true; }, { once: true });
  const ran = document.execCommand('copy');
  report('exec-copy', { ok: ran && !!copied, ran, event: !!copied });
};
document.getElementById('paste').addEventListener('paste', (e) => {
  const text = e.clipboardData.getData('text/plain');
  report('paste', { ok: text === LINK, same: text === LINK, types: [...e.clipboardData.types] });
});
document.getElementById('notes').addEventListener('paste', (e) => {
  const text = e.clipboardData.getData('text/plain');
  report('copy-paste', { ok: text === 'coupon:NW-SPRING-24', text });
});
window.__parityReady = true;
""",
)

TEAM = page(
    "Northwind Team — members",
    ["Members", "Invites", "Roles", "Billing"],
    "Members",
    '<button id=invite class=primary>Invite teammates</button><button popovertarget=filters id=filter-button>Filters</button>',
    """<style>
  dialog::backdrop { background: rgb(10 20 40 / 0.5); }
  dialog { border: 0; border-radius: 12px; padding: 18px 22px; width: 360px; }
  #filters { border: 1px solid #c5cbd8; border-radius: 8px; padding: 12px; }
</style>
<dialog id=invite-dialog aria-label="Invite teammates">
  <form method=dialog>
    <h3>Invite teammates</h3>
    <input aria-label="Email addresses" value="ada@northwind.test">
    <div style="display:flex; gap:8px; justify-content:flex-end; margin-top:12px">
      <button value=cancel>Not now</button><button value=send class=primary>Send invite</button>
    </div>
  </form>
</dialog>
<div popover id=filters><label><input type=checkbox checked> Active</label><label><input type=checkbox> Invited</label></div>
<div id=toast popover=manual>Saved</div>"""
    + rows(40, lambda i: [f"Member {i}", f"member{i}@northwind.test", ["admin", "editor", "viewer"][i % 3]]),
    ["manual-popover", "modal-open", "escape-cancel", "form-close", "popover-open", "popover-escape"],
    r"""
const dlg = document.getElementById('invite-dialog'), filters = document.getElementById('filters');
check('manual-popover', () => {
  const toast = document.getElementById('toast');
  toast.showPopover();
  const shown = toast.matches(':popover-open');
  toast.hidePopover();
  return { shown, hidden: !toast.matches(':popover-open') };
});
let opened = 0;
document.getElementById('invite').onclick = () => {
  dlg.showModal();
  opened++;
  if (opened === 1) report('modal-open', { ok: dlg.open, modal: dlg.matches(':modal'), focus: dlg.contains(document.activeElement), inert: document.elementFromPoint(5, 5) === dlg || !dlg.contains(document.elementFromPoint(5, 5)) });
};
let cancelled = false;
dlg.addEventListener('cancel', () => { cancelled = true; });
dlg.addEventListener('close', () => {
  if (!('escape-cancel' in results)) report('escape-cancel', { ok: cancelled && !dlg.open, cancelled, value: dlg.returnValue });
  else report('form-close', { ok: dlg.returnValue === 'send', value: dlg.returnValue });
  dlg.returnValue = '';
});
filters.addEventListener('toggle', (e) => {
  if (e.newState === 'open') report('popover-open', { ok: filters.matches(':popover-open'), state: e.newState, source: e.source ? e.source.id : null });
  else report('popover-escape', { ok: !filters.matches(':popover-open'), state: e.newState });
});
window.__parityReady = true;
""",
)

DOCS_NAV = ["Dashboard", "Invoices", "Customers", "Report"]

HISTORY = page(
    "Northwind Billing — app",
    DOCS_NAV,
    "Dashboard",
    '<a href=/history/dashboard data-route=dashboard>Dashboard</a> <a href=/history/invoices data-route=invoices>Invoices</a> '
    '<a href=/history/customers data-route=customers>Customers</a> <a id=report-link href=/history/report>Open the report</a>',
    '<div class="cards"><div class="card"><div class="k">View</div><div id=view>…</div></div>'
    '<div class="card"><div class="k">Entries</div><div id=entries>…</div></div><div class="card"><div class="k">Shown by</div><div id=shown>…</div></div></div>'
    + rows(40, lambda i: [f"INV-{2000 + i}", f"Customer {i % 9}", f"{(i * 211) % 5000}.00"]),
    ["hash", "replace", "navigation-api", "push", "back", "forward", "cross-document"],
    r"""
// The router: links with data-route change the view with pushState; popstate shows the
// state's view. The report link is a real document; coming back shows the view it left.
const START = history.length;
const route = () => location.pathname.split('/')[2] || 'dashboard';
function show(name, how) {
  window.__route = name;
  document.getElementById('view').textContent = name;
  document.getElementById('entries').textContent = history.length;
  document.getElementById('shown').textContent = how;
}
for (const a of document.querySelectorAll('a[data-route]')) {
  a.href += query;
  a.addEventListener('click', (e) => {
    e.preventDefault();
    history.pushState({ route: a.dataset.route }, '', a.href);
    show(a.dataset.route, 'push');
    pushed.push(a.dataset.route);
    if (pushed.length === 2) report('push', { ok: true, routes: pushed, added: history.length - START, state: history.state });
  });
}
document.getElementById('report-link').href += query;
const pushed = [];
const pops = [];
addEventListener('popstate', (e) => {
  if (pushed.length < 2) return; // the fragment change at the start pops too
  const name = (e.state && e.state.route) || route();
  show(name, 'popstate');
  pops.push(name);
  report(pops.length === 1 ? 'back' : 'forward', { ok: true, state: e.state, path: location.pathname });
});
addEventListener('pageshow', (e) => {
  if (!('push' in results)) return;
  show(route(), e.persisted ? 'bfcache' : 'reload');
  report('cross-document', { ok: route() === 'customers', view: route(), restored: e.persisted ? 'bfcache' : 'reload' });
});
if (!('hash' in results)) {
  check('hash', async () => {
    const changed = event(window, 'hashchange');
    location.hash = 'q=overdue';
    const e = await changed;
    history.replaceState(null, '', location.pathname + location.search);
    return { hash: new URL(e.newURL).hash, added: history.length - START };
  });
  check('replace', () => {
    history.replaceState({ route: 'dashboard', v: 2 }, '', location.pathname + location.search);
    return { state: history.state, added: history.length - START };
  });
  check('navigation-api', async () => {
    if (typeof navigation === 'undefined') return { api: false };
    const seen = [];
    navigation.addEventListener('navigate', (e) => seen.push(e.navigationType), { once: true });
    history.replaceState({ route: 'dashboard' }, '', location.pathname + location.search);
    return { api: true, current: navigation.currentEntry.url === location.href, seen };
  });
}
show(route(), 'load');
window.__parityReady = true;
""",
    keep=True,
)

REPORT = page(
    "Northwind Billing — report",
    DOCS_NAV,
    "Report",
    "<button>Print</button>",
    rows(60, lambda i: [f"Line {i}", f"{(i * 97) % 1000}.00"]),
    [],
    "window.__parityReady = true; window.__route = 'report';",
)

#: Path -> page, for `platform_site.start_platform_sites`.
PAGES = {
    "/storage": STORAGE,
    "/wasm": WASM,
    "/streams": STREAMS,
    "/chat": CHAT,
    "/ticker": TICKER,
    "/canvas": CANVAS,
    "/media": MEDIA,
    "/fonts": FONTS,
    "/downloads": DOWNLOADS,
    "/board": BOARD,
    "/invite": INVITE,
    "/team": TEAM,
    **{f"/history/{r}": HISTORY for r in ("dashboard", "invoices", "customers")},
    "/history/report": REPORT,
}


def families(url) -> list[Family]:
    """The suite's families on these pages, `url(path, run)` giving a page's address."""

    def at(path: str):
        return lambda run: url(path, run)

    tracker = frozenset({"tracker"})
    click = lambda role, name, until="true": Step("click", role, name, until=until)  # noqa: E731
    key = lambda k, until="true": Step("key", key=k, until=until)  # noqa: E731
    done = "window.__parityDone === true"
    pages = [
        Family("wasm", at("/wasm"), tracker),
        Family("storage", at("/storage")),
        Family("fetch streaming", at("/streams"), tracker),
        Family("websocket", at("/chat"), tracker),
        Family("eventsource", at("/ticker"), tracker),
        Family("canvas and webgl", at("/canvas"), tracker),
        Family("media", at("/media"), tracker, steps=(click("button", "Play lesson", done),)),
        Family("fonts", at("/fonts"), tracker),
        Family(
            "downloads",
            at("/downloads"),
            steps=(
                click("button", "Export CSV", "'blob' in window.__parity"),
                click("link", "Download Q3 report", "'server' in window.__parity"),
                click("button", "Save view as JSON", done),
            ),
        ),
        Family(
            "drag and drop",
            at("/board"),
            steps=(
                Step("drag", "generic", "Fix checkout rounding", to="#done", until="'html5' in window.__parity"),
                Step("drag", "button", "Move Write release notes", to="#sort li:last-child", until=done),
            ),
        ),
        Family(
            "clipboard",
            at("/invite"),
            steps=(
                click("button", "Copy invite link", "'async-write' in window.__parity"),
                click("textbox", "Paste the link here"),
                key("Control+v", "'paste' in window.__parity"),
                click("button", "Copy coupon", "'exec-copy' in window.__parity"),
                click("textbox", "Notes"),
                key("Control+v", done),
            ),
        ),
        Family(
            "dialog and popover",
            at("/team"),
            steps=(
                click("button", "Invite teammates", "'modal-open' in window.__parity"),
                key("Escape", "'escape-cancel' in window.__parity"),
                click("button", "Invite teammates", "document.getElementById('invite-dialog').open"),
                click("button", "Send invite", "'form-close' in window.__parity"),
                click("button", "Filters", "'popover-open' in window.__parity"),
                key("Escape", done),
            ),
        ),
        Family(
            "history",
            at("/history/dashboard"),
            steps=(
                click("link", "Invoices", "window.__route === 'invoices'"),
                click("link", "Customers", "'push' in window.__parity"),
                Step("back", until="'back' in window.__parity"),
                Step("forward", until="'forward' in window.__parity"),
                click("link", "Open the report", "window.__route === 'report' && window.__parityReady === true"),
                Step("back", until=done),
            ),
        ),
    ]
    return [dataclasses.replace(f, report=STATUS_TABLE) for f in pages]
