"""Isolation smoke test of `anamnesis-dashboard` installed alone (the `isolation` session):
its templates and vendored htmx are in the wheel, it serves a real store on 127.0.0.1
behind its one-time link, and without the CLI its status panel shows ops' checks of the
home (a call in its own process: there is no CLI to run).

Runs as a plain script in the isolated venv: stdlib, `anamnesis-store`, `anamnesis-sync`,
`anamnesis-ops` and `anamnesis-dashboard` (with Starlette, uvicorn, Jinja2, markdown-it-py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

from anamnesis.store import MemoryStore

home = tempfile.mkdtemp()
with MemoryStore(home) as store:
    store.write(type="semantic", title="Smoke **note**", body="# Heading\n\n<script>x</script>")
env = {**os.environ, "ANAMNESIS_HOME": home, "ANAMNESIS_SEARCH_MODE": "keyword"}
server = subprocess.Popen(
    [sys.executable, "-m", "anamnesis.dashboard", "--port", "0", "--no-open"],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
)  # fmt: skip
try:
    assert server.stdout is not None
    line = server.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+/)\?token=\S+", line)
    assert found, f"no link in {line!r}"
    base = found.group(1)

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    def answer_of(url: str) -> tuple[int, str]:
        """(status, set-cookie) of a GET that follows no redirect."""
        try:
            with urllib.request.build_opener(NoRedirect).open(url, timeout=30) as answer:
                return answer.status, ""
        except urllib.error.HTTPError as exc:
            return exc.code, str(exc.headers.get("set-cookie", ""))

    status, set_cookie = answer_of(found.group(0))
    assert status == 303, status
    cookie = set_cookie.split(";")[0]

    def get(path: str) -> str:
        request = urllib.request.Request(base + path, headers={"Cookie": cookie})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return str(answer.read().decode())

    listing = get("")
    assert "Smoke **note**" in listing, listing[:500]
    note_id = re.search(r'href="/notes/([0-9A-Z]{26})"', listing)
    assert note_id, "no note link"
    shown = get(f"notes/{note_id.group(1)}")
    assert "<h1>Heading</h1>" in shown and "&lt;script&gt;x&lt;/script&gt;" in shown
    assert "htmx" in get("static/htmx.min.js")[:2000]
    panel = get("status?panel=1")
    assert '<li class="check s-ok"><span class="mark">ok</span> <strong>index</strong>' in panel
    assert "<strong>hooks</strong>" not in panel, panel  # the CLI's own checks: not here
    assert answer_of(base)[0] == 403, "a request without the cookie was answered"
finally:
    server.terminate()
    server.wait(10)
print("dashboard smoke ok")
