"""Pages whose clickable things say nothing in their markup, as apps build them: a board
whose root holds a delegated listener (as React's does), spans with listeners of their own in
a sentence, `cursor: pointer` chips, a focusable suggestion list of bare `<li>`s, and an
instruction above an unlabeled field. Served at `PAGES[PATH]`."""

from __future__ import annotations

from local_site import LocalSite, QuietHandler


def page(title: str, body: str) -> str:
    return f"<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head><body>{body}</body></html>"


BOARD = page(
    "Board",
    """
<style>
  body { font-family: sans-serif; margin: 0 }
  .side { position: fixed; left: 0; top: 0; bottom: 0; width: 180px; background: #f4f4f4 }
  .nav-item { padding: 8px 12px }
  .main { margin-left: 200px; padding: 12px }
  .chip { display: inline-block; padding: 2px 10px; margin-right: 6px; border-radius: 10px;
          background: #eef; cursor: pointer }
  .chip span { font-weight: bold }
</style>
<div id="root">
  <div class="side">
    <div class="brand">Acme tasks</div>
    <div class="nav-item" data-view="inbox">Inbox</div>
    <div class="nav-item" data-view="archive">Archive</div>
  </div>
  <div class="main">
    <div class="toolbar"><button type="button" id="refresh">Refresh</button></div>
    <p class="hint">Turn on the <span id="priority">priority</span> filter, or read
      <span class="more">the guide</span> first.</p>
    <div class="filters">
      <div class="chip" data-f="open"><span>Open</span> 12</div>
      <div class="chip" data-f="done"><span>Done</span> 3</div>
    </div>
    <div class="status" id="status">Showing all</div>
    <a href="#guide" class="card-link"><h3><span id="guide-title">Guide</span></h3></a>
  </div>
</div>
<script>
  const status = document.getElementById('status');
  // One listener on the root for the chips, as a framework delegates.
  document.getElementById('root').addEventListener('click', (e) => {
    const chip = e.target.closest('.chip');
    if (chip) status.textContent = 'Showing ' + chip.dataset.f;
  });
  document.getElementById('refresh').addEventListener('click', () => status.textContent = 'Refreshed');
  // Listeners of their own, no style that says so.
  document.getElementById('priority').addEventListener('click', () => status.textContent = 'Priority filter on');
  // A listener inside a link: the link is the control, not its inner words.
  document.getElementById('guide-title').addEventListener('click', () => {});
  for (const item of document.querySelectorAll('.nav-item')) {
    item.addEventListener('mousedown', () => status.textContent = 'View ' + item.dataset.view);
  }
</script>
""",
)

SUGGEST = page(
    "Suggest",
    """
<style>
  .menu { list-style: none; margin: 0; padding: 0; border: 1px solid #aaa; width: 200px }
  .menu li { padding: 4px 8px }
</style>
<div class="form">
  <div class="field"><input id="q" placeholder="Fruit" autocomplete="off"></div>
  <ul id="menu" class="menu" tabindex="0" style="display: none"></ul>
  <div id="picked">Picked: none</div>
</div>
<script>
  const fruits = ['Apple', 'Apricot', 'Banana', 'Blueberry', 'Cherry'];
  const q = document.getElementById('q');
  const menu = document.getElementById('menu');
  q.addEventListener('input', () => {
    const v = q.value.toLowerCase();
    menu.innerHTML = fruits.filter((f) => f.toLowerCase().includes(v))
      .map((f) => `<li class="item">${f}</li>`).join('');
    menu.style.display = 'block';
  });
  // The list answers for its items.
  menu.addEventListener('click', (e) => {
    const li = e.target.closest('li');
    if (!li) return;
    document.getElementById('picked').textContent = 'Picked: ' + li.textContent;
    menu.style.display = 'none';
  });
</script>
""",
)

INSTRUCTION = page(
    "Task",
    """
<div id="wrap">
  <div id="query">Type "K7-Q" from the card 'Acme "Gold"' below:</div>
  <div id="area"><input type="text"><div><button type="button">Submit</button></div></div>
</div>
""",
)

# Changes that no DOM mutation tells: a script sets a field's value and a box's check as
# properties and moves the URL with pushState; a CSS-only hover menu.
LIVE = page(
    "Live",
    """
<style>
  .menu .sub { display: none }
  .menu:hover .sub { display: block }
  .rows div { padding: 4px }
</style>
<div class="top">
  <div class="menu"><button type="button" class="label">Account</button>
    <div class="sub"><a href="#profile">Profile</a><a href="#logout">Sign out</a></div></div>
  <input id="code" aria-label="Code">
  <label><input type="checkbox" id="agree"> Agree</label>
  <button type="button" id="fill">Fill later</button>
</div>
<div class="rows">""" + "".join(f'<div><a href="#r{i}">Row link {i}</a></div>' for i in range(1, 401)) + """</div>
<script>
  document.getElementById('fill').addEventListener('click', () => setTimeout(() => {
    document.getElementById('code').value = 'set by script';
    document.getElementById('agree').checked = true;
    history.pushState({}, '', '/live?step=2');
  }, 400));
</script>
""",
)

PAGES = {"/board": BOARD, "/suggest": SUGGEST, "/instruction": INSTRUCTION, "/live": LIVE}


class ClickablesSite(LocalSite):
    def __init__(self) -> None:
        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                body = PAGES.get(self.path.partition("?")[0])
                data = (body or page("Not found", "<h1>Not found</h1>")).encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)
