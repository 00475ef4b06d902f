"""A store left with a resolve for the next sync to push, made as a user would make it: the
``anamnesis`` command, as real processes, on two stores sharing a bare remote.

A note edited on two machines, the conflict reported, a secret typed into the note by hand,
then ``anamnesis sync --resolve ours`` run while another push holds the remote's branch:
the resolution is committed here and not pushed. Whatever sync runs next (the dashboard's
button, the MCP tool, the hook) pushes it; the secret must not go with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "anamnesis.cli"]
NOTE = "Deploy"
# Shaped like GitHub tokens, not real ones: one typed before the resolve, one for a test to
# type into another note before the next sync.
RESOLVED_SECRET = "ghp_" + "R7k2Qm9xVb4Tn8Lc3Wd6Zp1Hs5Yf0Ja7Ge2Ku"
TYPED_SECRET = "ghp_" + "Xw3Np8Lq5Tc1Vb7Rm2Zk9Hd4Sf6Yj0Ga3Ue8Po"


def run_cli(home: Path, machine_id: str, *args: str) -> subprocess.CompletedProcess[str]:
    """One ``anamnesis`` command over the store at ``home``, as ``machine_id``."""
    env = {**os.environ, "ANAMNESIS_HOME": str(home), "ANAMNESIS_MACHINE_ID": machine_id}
    env.pop("ANAMNESIS_GIT_REMOTE", None)  # each store's config.json names the remote
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def leave_resolve_unpushed(
    home: Path, other: Path, remote: Path, secret: str = RESOLVED_SECRET
) -> str:
    """Make the store at ``home`` (machine "laptop") hold a committed, unpushed resolve of
    a conflict with the store at ``other`` (machine "desktop"), ``secret`` typed into the
    conflicting note by hand before the resolve; return the note's id."""
    from anamnesis.store import MemoryStore, write_config

    for machine, root in (("laptop", home), ("desktop", other)):  # as init leaves them
        MemoryStore(root).close()
        write_config({"machine_id": machine, "remote": str(remote)}, root)
    with MemoryStore(home) as store:
        note = store.write(type="semantic", title=NOTE, body="make deploy", machine_id="laptop")
        relative = store.file_of(note.id).relative_to(home)
    paths = {"laptop": home / relative, "desktop": other / relative}
    _ok(run_cli(home, "laptop", "sync"))
    _ok(run_cli(other, "desktop", "sync"))
    _append(paths["desktop"], "then warm the cache")
    _ok(run_cli(other, "desktop", "sync"))
    _append(paths["laptop"], "then restart the workers")
    conflict = run_cli(home, "laptop", "sync", "--json")
    assert json.loads(conflict.stdout)["conflicted"] is True, conflict.stdout + conflict.stderr
    _append(paths["laptop"], f"the deploy token is {secret}")
    lock = remote / "refs" / "heads" / "main.lock"  # another push holds the branch
    lock.write_bytes(b"")
    try:
        resolved = run_cli(home, "laptop", "sync", "--resolve", "ours", "--json")
    finally:
        lock.unlink()
    outcome = json.loads(resolved.stdout)
    assert outcome["pushed"] is False, resolved.stdout + resolved.stderr  # settled, not sent
    return note.id
