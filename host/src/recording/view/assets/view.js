// The viewer page: the session list, and a player that shows a recording at time t beside
// the audit lines that name it. Every recorded value reaches the page through textContent,
// a canvas or an <img> of a base64 image: nothing recorded is parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_LISTED = 5000;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function status(text) {
  $("status").textContent = text;
}

async function fetchOk(url) {
  const r = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!r.ok) throw new Error(`${url}: ${r.status} ${(await r.text()).trim()}`);
  return r;
}

function bytes(n) {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

function began(epoch) {
  return epoch ? new Date(epoch * 1000).toISOString().replace("T", " ").slice(0, 19) : "?";
}

function str(v) {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);
}

// ------------------------------------------------------------------ the list

let sessions = [];
let player = null;

function fillSelect(select, values) {
  const keep = select.value;
  select.replaceChildren(el("option", "all"));
  select.firstChild.value = "";
  for (const v of [...new Set(values.filter((x) => typeof x === "string"))].sort()) {
    const o = el("option", v);
    o.value = v;
    select.appendChild(o);
  }
  select.value = keep;
}

function renderList() {
  const plugin = $("f-plugin").value, client = $("f-client").value;
  const body = $("sessions");
  body.replaceChildren();
  for (const s of sessions) {
    if ((plugin && s.plugin !== plugin) || (client && s.client !== client)) continue;
    const tr = el("tr");
    tr.dataset.id = String(s.id);
    tr.dataset.session = str(s.session);
    tr.dataset.kind = str(s.kind);
    for (const v of [began(s.began), s.kind, s.plugin, s.client || "-", s.target, bytes(s.bytes)]) tr.appendChild(el("td", str(v)));
    tr.title = str(s.session);
    tr.addEventListener("click", () => open(s));
    body.appendChild(tr);
  }
}

async function loadSessions() {
  try {
    sessions = await (await fetchOk("/api/sessions")).json();
    fillSelect($("f-plugin"), sessions.map((s) => s.plugin));
    fillSelect($("f-client"), sessions.map((s) => s.client));
    renderList();
    status(`${sessions.length} recordings`);
    document.body.dataset.listed = String(sessions.length);
  } catch (e) {
    status(String(e.message || e));
  }
}

// ------------------------------------------------------------------ parsing

function parse(text) {
  const lines = text.split("\n");
  let header = {};
  try { header = JSON.parse(lines[0]) || {}; } catch (_) { header = {}; }
  const events = [];
  let unreadable = 0;
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line);
      if (Array.isArray(e) && typeof e[0] === "number" && Number.isFinite(e[0]) && typeof e[1] === "string") events.push(e);
      else unreadable++;
    } catch (_) { unreadable++; }
  }
  return { header, events, unreadable };
}

// The last index in `list` (sorted by time `at(x)`) at or before t, or -1.
function lastAt(list, t, at) {
  let lo = 0, hi = list.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (at(list[mid]) <= t) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found;
}

function base64Image(mime, data) {
  if (!IMAGE_TYPES.includes(mime) || typeof data !== "string" || !BASE64.test(data)) return null;
  return `data:${mime};base64,${data}`;
}

// ------------------------------------------------------------------ the views

class TerminalView {
  constructor(header, events) {
    this.header = header;
    this.events = events;
    this.pre = $("term");
    this.pre.hidden = false;
    this.reset();
    this.known = ["o", "r"];
  }

  reset() {
    this.vt = new VT(this.header.width || 80, this.header.height || 24);
    this.next = 0;
    this.at = -1;
    this.drawn = false;
  }

  show(t) {
    if (t < this.at) this.reset();
    const start = this.next;
    while (this.next < this.events.length && this.events[this.next][0] <= t) {
      const [, code, data] = this.events[this.next++];
      if (code === "o" && typeof data === "string") this.vt.write(data);
      else if (code === "r" && typeof data === "string") {
        const m = /^(\d+)x(\d+)$/.exec(data);
        if (m) this.vt.resize(+m[1], +m[2]);
      }
    }
    this.at = t;
    if (this.next !== start || !this.drawn) { this.vt.render(this.pre); this.drawn = true; }
  }
}

class DesktopView {
  constructor(header, events) {
    this.canvas = $("desktop");
    this.canvas.hidden = false;
    this.ctx = this.canvas.getContext("2d");
    this.header = header;
    this.frames = []; // [t, code, data, image]
    for (const e of events) {
      if ((e[1] === "k" || e[1] === "d") && e[2] && typeof e[2] === "object") {
        const src = base64Image("image/png", e[2].png);
        if (!src) continue;
        const img = new Image();
        img.src = src;
        this.frames.push([e[0], e[1], e[2], img]);
      }
    }
    this.known = ["k", "d"];
    this.drawnTo = -2;
    this.key = -1;
  }

  ready() {
    return Promise.all(this.frames.map((f) => f[3].decode().catch(() => null)));
  }

  size(w, h) {
    const W = Math.max(1, Math.min(w | 0, 8192)), H = Math.max(1, Math.min(h | 0, 8192));
    if (this.canvas.width !== W || this.canvas.height !== H) { this.canvas.width = W; this.canvas.height = H; }
  }

  show(t) {
    const upto = lastAt(this.frames, t, (f) => f[0]);
    let key = -1;
    for (let i = upto; i >= 0; i--) if (this.frames[i][1] === "k") { key = i; break; }
    if (key !== this.key || upto < this.drawnTo) {
      this.key = key;
      if (key < 0) {
        this.size(this.header.width || 640, this.header.height || 480);
        this.ctx.fillStyle = "#000";
        this.ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
        this.drawnTo = upto;
        return;
      }
      const k = this.frames[key];
      this.size(k[2].w || k[3].naturalWidth, k[2].h || k[3].naturalHeight);
      this.ctx.drawImage(k[3], 0, 0);
      this.drawnTo = key;
    }
    for (let i = this.drawnTo + 1; i <= upto; i++) {
      const [, code, d, img] = this.frames[i];
      if (code === "d") this.ctx.drawImage(img, Number(d.x) || 0, Number(d.y) || 0);
    }
    this.drawnTo = Math.max(this.drawnTo, upto);
  }
}

class BrowserView {
  constructor(header, events) {
    $("browser").hidden = false;
    this.urls = events.filter((e) => (e[1] === "u" || e[1] === "s") && e[2] && typeof e[2].url === "string");
    this.pictures = events.filter((e) => ["p", "f", "w"].includes(e[1]) && e[2] && typeof e[2] === "object");
    this.snapshots = events.filter((e) => e[1] === "s" && e[2] && typeof e[2].text === "string");
    this.actions = events.filter((e) => e[1] === "a" && e[2] && typeof e[2] === "object");
    this.known = ["u", "a", "s", "p", "f", "w"];
    const list = $("actions");
    list.replaceChildren();
    this.items = this.actions.map((e) => {
      const li = el("li", `${e[0].toFixed(3)}s  tab ${str(e[2].tab)}  ${str(e[2].action)}  ${str(e[2].args)}`);
      li.addEventListener("click", () => player && player.seek(e[0]));
      list.appendChild(li);
      return li;
    });
    this.lastPicture = undefined;
  }

  show(t) {
    const u = lastAt(this.urls, t, (e) => e[0]);
    $("urlbar").textContent = u < 0 ? "" : `tab ${str(this.urls[u][2].tab)}  ${this.urls[u][2].url}`;
    const s = lastAt(this.snapshots, t, (e) => e[0]);
    $("snapshot").textContent = s < 0 ? "" : this.snapshots[s][2].text;
    const p = lastAt(this.pictures, t, (e) => e[0]);
    if (p !== this.lastPicture) {
      this.lastPicture = p;
      const img = $("shot"), held = $("withheld");
      img.hidden = true;
      held.hidden = true;
      if (p >= 0) {
        const [, code, d] = this.pictures[p];
        if (code === "w") {
          held.textContent = `frame withheld: ${str(d.why)}`;
          held.hidden = false;
        } else {
          const src = base64Image(d.mime, d.data);
          if (src) { img.src = src; img.hidden = false; }
        }
      }
    }
    const a = lastAt(this.actions, t, (e) => e[0]);
    this.items.forEach((li, i) => { li.className = i < a ? "past" : i === a ? "current" : "future"; });
  }
}

// ------------------------------------------------------------------ the player

class Player {
  constructor(entry, parsed, audit) {
    for (const id of ["term", "desktop", "browser"]) $(id).hidden = true;
    const { header, events } = parsed;
    this.kind = entry.kind;
    this.view = this.kind === "terminal" ? new TerminalView(header, events)
      : this.kind === "rdp" ? new DesktopView(header, events)
      : this.kind === "browser" ? new BrowserView(header, events)
      : { known: [], show() {} };
    this.audit = audit.map((line) => ({ line, t: Number(line.recording && line.recording.t) || 0 }));
    const last = events.length ? events[events.length - 1][0] : 0;
    // Up to the next millisecond: the timeline moves in steps of one, and its end must reach
    // the last event.
    this.duration = Math.ceil(Math.max(last, ...this.audit.map((a) => a.t), 0) * 1000) / 1000;
    this.t = 0;
    this.speed = Number($("speed").value) || 1;
    this.playing = false;

    const list = $("audit");
    list.replaceChildren();
    this.auditItems = this.audit.map((a) => {
      const l = a.line;
      const text = [str(l.ts).slice(11, 23), l.event, l.tool, l.capability, l.outcome, l.detail, l.error, l.reason]
        .filter((x) => x !== undefined && x !== null && x !== "").map(str).join("  ");
      const li = el("li", `${a.t.toFixed(3)}s  ${text}`);
      li.dataset.t = String(a.t);
      li.addEventListener("click", () => this.seek(a.t));
      list.appendChild(li);
      return li;
    });

    // Notes, input and codes this page does not draw, listed as they are.
    const other = $("events");
    other.replaceChildren();
    this.otherItems = [];
    for (const e of events) {
      if (this.view.known.includes(e[1])) continue;
      if (this.otherItems.length >= MAX_LISTED) break;
      const label = e[1] === "m" ? "note" : e[1] === "i" ? "input" : `event "${e[1]}"`;
      const li = el("li", `${e[0].toFixed(3)}s  ${label}  ${str(e[2])}`);
      this.otherItems.push([e[0], li]);
      other.appendChild(li);
    }
    if (parsed.unreadable) other.appendChild(el("li", `${parsed.unreadable} lines are not events (a line cut by a crash?)`));

    const seek = $("seek");
    seek.max = String(this.duration);
    $("title").textContent = `${entry.kind}  ${str(entry.plugin)}  ${str(entry.client || "-")}  ${str(entry.target)}  ${str(entry.session)}`;
    this.frame = this.frame.bind(this);
  }

  seek(t) {
    this.t = Math.max(0, Math.min(this.duration, Number(t) || 0));
    this.draw();
  }

  draw() {
    const t = this.t;
    this.view.show(t);
    $("seek").value = String(t);
    $("clock").textContent = `${t.toFixed(3)} / ${this.duration.toFixed(3)} s`;
    $("player").dataset.t = t.toFixed(3);
    const current = lastAt(this.audit, t, (a) => a.t);
    this.auditItems.forEach((li, i) => { li.className = i < current ? "past" : i === current ? "current" : "future"; });
    for (const [at, li] of this.otherItems) li.className = at <= t ? "past" : "future";
  }

  play() {
    if (this.t >= this.duration) this.t = 0;
    this.playing = true;
    this.last = performance.now();
    $("play").textContent = "pause";
    requestAnimationFrame(this.frame);
  }

  pause() {
    this.playing = false;
    $("play").textContent = "play";
  }

  frame(now) {
    if (!this.playing) return;
    this.t = Math.min(this.duration, this.t + ((now - this.last) / 1000) * this.speed);
    this.last = now;
    this.draw();
    if (this.t >= this.duration) this.pause();
    else requestAnimationFrame(this.frame);
  }
}

async function open(entry) {
  if (player) player.pause();
  player = null;
  delete document.body.dataset.loaded;
  for (const tr of $("sessions").children) tr.classList.toggle("chosen", tr.dataset.id === String(entry.id));
  status(`loading ${str(entry.session)}…`);
  try {
    const [text, audit] = await Promise.all([
      fetchOk(`/api/recording/${entry.id}`).then((r) => r.text()),
      fetchOk(`/api/audit/${entry.id}`).then((r) => r.json()),
    ]);
    const parsed = parse(text);
    // The audit lines sorted by their time in the recording, as the player walks them.
    const lines = (audit.lines || []).slice().sort((a, b) => (Number(a.recording && a.recording.t) || 0) - (Number(b.recording && b.recording.t) || 0));
    $("player").hidden = false;
    const p = new Player(entry, parsed, lines);
    if (p.view.ready) await p.view.ready();
    player = p;
    p.seek(0);
    status(audit.error ? audit.error : `${parsed.events.length} events, ${lines.length} audit lines`);
    document.body.dataset.loaded = String(entry.id);
  } catch (e) {
    status(String(e.message || e));
  }
}

$("play").addEventListener("click", () => player && (player.playing ? player.pause() : player.play()));
$("speed").addEventListener("change", () => { if (player) player.speed = Number($("speed").value) || 1; });
$("seek").addEventListener("input", () => { if (player) { player.pause(); player.seek(Number($("seek").value)); } });
$("f-plugin").addEventListener("change", renderList);
$("f-client").addEventListener("change", renderList);
loadSessions();
