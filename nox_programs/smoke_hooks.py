"""Isolation smoke test of `anamnesis-hooks` installed alone (the `isolation` session): the
`inject` hook prints a stored note, the `capture` hook queues a session from a transcript
and its background worker stores it, and the MCP SDK was not installed along with the hooks.

Runs as a plain script in the isolated venv: stdlib and `anamnesis-hooks` only.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

from anamnesis.store import MemoryStore

home = pathlib.Path(tempfile.mkdtemp())
env = {**os.environ, "ANAMNESIS_HOME": str(home), "ANAMNESIS_MACHINE_ID": "smoke"}
with MemoryStore(home) as store:
    store.write(type="semantic", title="Hooks smoke note", body="injected", project="global")
done = subprocess.run(
    [sys.executable, "-m", "anamnesis.hooks", "inject"],
    env=env,
    input=json.dumps({"cwd": str(home)}),
    capture_output=True,
    text=True,
)
assert done.returncode == 0 and "Hooks smoke note" in done.stdout, done
transcript = home / "t.jsonl"
transcript.write_text(json.dumps({"type": "user", "message": {"content": "smoke ask"}}) + "\n")
done = subprocess.run(
    [sys.executable, "-m", "anamnesis.hooks", "capture", "--no-sync"],
    env=env,
    input=json.dumps({"transcript_path": str(transcript), "session_id": "s"}),
    capture_output=True,
    text=True,
)
assert done.returncode == 0, done
deadline = time.monotonic() + 60  # the hook returns once queued; the worker files the note
while True:
    with MemoryStore(home) as store:
        if any(m.prov_session == "s" for m in store.list()):
            break
        assert time.monotonic() < deadline, (store.list(), list(home.rglob("*.json")))
    time.sleep(0.1)
assert importlib.util.find_spec("mcp") is None
print("hooks smoke ok")
