"""A web app as agents meet them, served on 127.0.0.1 by the tests: "Acme Desk", a single-page
helpdesk app built of divs with a fixed sidebar, hash routes (#/inbox, #/reports) and
history.pushState routes (/app/settings, /app/team), a note form that posts with fetch and
re-renders, a classic form that posts and is answered with a new page, buttons that open
confirm() and a confirm -> prompt -> alert chain, links and buttons that open new tabs
(target=_blank, window.open), and a disabled button whose tooltip shows on hover.

`start_webapp_site()` serves it; `site.posts` lists what the forms posted."""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qs

from browser_site import page
from local_site import LocalSite, QuietHandler

STYLE = """
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; }
  .sidebar { position: fixed; top: 0; bottom: 0; left: 0; width: 200px; background: #1f2937; color: #fff; }
  .brand { padding: 16px; font-weight: 700; }
  .nav-item { display: block; padding: 8px 16px; color: #cbd5e1; text-decoration: none; }
  .main { margin-left: 200px; padding: 0 24px; }
  .topbar { display: flex; gap: 8px; align-items: center; padding: 12px 0; border-bottom: 1px solid #ddd; }
  .crumb { flex: 1; font-weight: 600; }
  .tipwrap { position: relative; display: inline-block; }
  .tip { display: none; position: absolute; top: 32px; left: 0; width: 220px; background: #111; color: #fff; padding: 4px 8px; }
  .tipwrap:hover .tip { display: block; }
  .row { display: flex; gap: 16px; padding: 6px 0; border-bottom: 1px solid #eee; }
  .cell { flex: 1; }
</style>
"""

SHELL = page(
    "Acme Desk",
    """
<div class="shell">
  <div class="sidebar">
    <div class="brand">Acme Desk</div>
    <div class="nav">
      <a class="nav-item" href="#/inbox">Inbox</a>
      <a class="nav-item" href="#/reports">Reports</a>
      <a class="nav-item" href="/app/settings" data-link>Settings</a>
      <a class="nav-item" href="/app/team" data-link>Team</a>
      <a class="nav-item" href="/docs" target="_blank">Help center</a>
    </div>
  </div>
  <div class="main">
    <div class="topbar">
      <div class="crumb"><span id="crumb">Inbox</span></div>
      <button id="delete">Delete ticket</button>
      <button id="archive">Archive all</button>
      <button id="popout">Pop out</button>
      <div class="tipwrap" id="exportwrap">
        <button id="export" disabled>Export CSV</button>
        <div class="tip" role="tooltip"><p>Export needs the admin role</p></div>
      </div>
    </div>
    <div id="view"></div>
    <div class="statusbar"><p id="status" role="status">Ready</p></div>
  </div>
</div>
<script>
const notes = [];
const view = document.getElementById('view');
const status = (text) => { document.getElementById('status').textContent = text; };
const views = {
  inbox: () => `
    <h1>Inbox</h1>
    <div class="table">
      ${[41, 42, 43].map((n) => `<div class="row"><div class="cell">Ticket #${n}</div><div class="cell"><p>Printer on floor ${n - 40} is jammed</p></div><div class="cell"><button class="assign">Assign #${n}</button></div></div>`).join('')}
    </div>
    <h2>Notes</h2>
    <div class="notes">${notes.map((n) => `<div class="row"><div class="cell"><p>Note: ${n}</p></div></div>`).join('') || '<p>No notes yet</p>'}</div>
    <form id="noteform">
      <div><label>Note <input name="note" id="note"></label></div>
      <div><label>Priority <select name="priority" id="priority"><option>Low</option><option>Normal</option><option>High</option></select></label></div>
      <div><button type="submit">Add note</button></div>
    </form>`,
  reports: () => `<h1>Reports</h1><div class="cards"><div class="card"><p>Open tickets: 12</p></div><div class="card"><p>Closed this week: 30</p></div></div>`,
  settings: () => `<h1>Settings</h1><div class="panel"><label>Theme <select id="theme"><option>Light</option><option>Dark</option></select></label></div>`,
  team: () => `<h1>Team</h1><div class="people"><div class="row"><div class="cell"><p>Ada (lead)</p></div></div><div class="row"><div class="cell"><p>Linus (support)</p></div></div></div>`,
};
const route = () => {
  let name = 'inbox';
  if (location.pathname.startsWith('/app/') && location.pathname.length > 5) name = location.pathname.slice(5);
  if (location.hash.startsWith('#/')) name = location.hash.slice(2);
  if (!views[name]) name = 'inbox';
  view.innerHTML = views[name]();
  document.getElementById('crumb').textContent = name[0].toUpperCase() + name.slice(1);
  document.title = 'Acme Desk - ' + name;
  const form = document.getElementById('noteform');
  if (form) form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = new URLSearchParams(new FormData(form));
    const answer = await fetch('/api/notes', { method: 'POST', body });
    const saved = await answer.json();
    notes.push(saved.note + ' (' + saved.priority + ')');
    route();
    status('Saved note ' + notes.length);
  });
};
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-link]');
  if (!a) return;
  e.preventDefault();
  history.pushState({}, '', a.getAttribute('href'));
  route();
});
addEventListener('hashchange', route);
addEventListener('popstate', route);
document.getElementById('delete').addEventListener('click', () => {
  status(confirm('Delete ticket #42?') ? 'Ticket #42 deleted' : 'Kept ticket #42');
});
document.getElementById('archive').addEventListener('click', () => {
  if (!confirm('Archive all 12 tickets?')) { status('Nothing archived'); return; }
  const why = prompt('Why archive them?', 'cleanup');
  alert('Archived 12 tickets: ' + why);
  status('Archived: ' + why);
});
document.getElementById('popout').addEventListener('click', () => window.open('/popout', '_blank'));
route();
</script>
""",
    STYLE,
)

DOCS = page(
    "Help center",
    """
<div class="doc"><div class="doc-title"><h1>Help center</h1></div>
<div class="doc-body"><p>Tickets are answered within one day.</p></div></div>
""",
    STYLE,
)

POPOUT = page(
    "Ticket #42 (pop-out)",
    '<div class="popout"><h1>Ticket #42</h1><div><p>Printer on floor 2 is jammed</p></div></div>',
    STYLE,
)


def support_page(created: str | None) -> str:
    done = f'<div class="flash"><p>Ticket created: {created}</p></div>' if created else ""
    return page(
        "Contact support",
        f"""
<div class="main">
  {done}
  <div class="card"><h1>Contact support</h1>
  <form method="post" action="/support">
    <div><label>Subject <input name="subject" id="subject"></label></div>
    <div><label>Team <select name="team" id="team"><option>Hardware</option><option>Software</option></select></label></div>
    <div><button type="submit">Send request</button></div>
  </form></div>
</div>
""",
        STYLE,
    )


class WebAppSite(LocalSite):
    def __init__(self) -> None:
        self.posts: list[dict[str, str]] = []
        site = self

        class Handler(QuietHandler):
            def answer(self, status: int, body: str, kind: str = "text/html; charset=utf-8") -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?")[0]
                if path == "/app" or path.startswith("/app/"):
                    self.answer(200, SHELL)
                elif path == "/docs":
                    self.answer(200, DOCS)
                elif path == "/popout":
                    self.answer(200, POPOUT)
                elif path == "/support":
                    self.answer(200, support_page(None))
                else:
                    self.answer(404, page("Not found", "<h1>Not found</h1>"))

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                site.posts.append(form)
                if self.path == "/api/notes":
                    time.sleep(0.1)  # a real API takes a moment
                    self.answer(200, json.dumps(form), "application/json")
                elif self.path == "/support":
                    self.answer(200, support_page(form.get("subject", "")))
                else:
                    self.answer(404, "{}", "application/json")

        super().__init__(Handler)


def start_webapp_site() -> WebAppSite:
    return WebAppSite()
