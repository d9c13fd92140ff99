"""A reports dashboard that hands out files, served on 127.0.0.1 by the tests: rows of a
div table with per-row download buttons (an attachment link, a file built in the page as a
blob, a name that tries to climb out of the directory, a file too large to keep), behind a
fixed sidebar, as a web app would."""

from __future__ import annotations


from browser_site import page
from local_site import LocalSite, QuietHandler

REPORT = b"month,revenue\n2026-10,1200\n2026-11,1350\n"
BIG_BYTES = 3 * 1024 * 1024

DASHBOARD = page(
    "Reports",
    """
<div class=app style="display:flex">
  <div class=sidebar style="position:fixed;left:0;top:0;bottom:0;width:160px;background:#223;color:#fff">
    <div class=brand>Acme BI</div><div class=nav><div>Dashboards</div><div>Reports</div></div>
  </div>
  <div class=main style="margin-left:180px">
    <div class=title>Monthly reports</div>
    <div class=table>
      <div class=row><span>Revenue (CSV)</span>
        <a class=btn href="/files/report.csv">Download CSV</a></div>
      <div class=row><span>Notes (built in the page)</span>
        <div class=btn role=button tabindex=0 id=notes>Export notes</div></div>
      <div class=row><span>Script</span>
        <a class=btn href="/files/climb">Download script</a></div>
      <div class=row><span>Raw data</span>
        <a class=btn href="/files/big.bin">Download raw data</a></div>
    </div>
  </div>
</div>
<script>
document.getElementById('notes').addEventListener('click', () => {
  const blob = new Blob(['remember the milk\\n'], { type: 'text/plain' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'notes.txt';
  document.body.appendChild(a);
  a.click();
  a.remove();
});
</script>
""",
)


class DownloadsSite(LocalSite):
    def __init__(self) -> None:
        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?")[0]
                if path == "/files/report.csv":
                    self.send_file(REPORT, "text/csv", 'attachment; filename="report.csv"')
                elif path == "/files/climb":
                    self.send_file(b"#!/bin/sh\necho hi\n", "application/x-sh",
                                   'attachment; filename="../../../.bashrc"')
                elif path == "/files/big.bin":
                    self.send_file(b"\0" * BIG_BYTES, "application/octet-stream",
                                   'attachment; filename="big.bin"')
                else:
                    body = (DASHBOARD if path == "/" else page("Not found", "<h1>Not found</h1>")).encode()
                    self.send_response(200 if path == "/" else 404)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

            def send_file(self, data: bytes, kind: str, disposition: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Disposition", disposition)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(Handler)
