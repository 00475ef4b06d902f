"""Isolation smoke test of `anamnesis-ops` installed alone (the `isolation` session): a note
holding a secret, synced through the one cycle to a bare remote (made with dulwich), arrives
masked on another machine's home.

Runs as a plain script in the isolated venv: stdlib and `anamnesis-ops` (with the store and
sync) only.
"""

from __future__ import annotations

import os
import pathlib
import tempfile

from dulwich.repo import Repo

from anamnesis.ops import Home, run_sync

SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape
root = pathlib.Path(tempfile.mkdtemp())
(root / "remote.git").mkdir()
Repo.init_bare(str(root / "remote.git")).close()
os.environ["ANAMNESIS_GIT_REMOTE"] = str(root / "remote.git")
laptop = Home(root / "laptop", machine_id="laptop")
desktop = Home(root / "desktop", machine_id="desktop")
with laptop.open_store(mask_secrets=False) as store:  # as if typed in by hand
    note = store.write(type="semantic", title="CI token", body=f"token {SECRET}")
    report = run_sync(laptop, store)
    assert report.result.pushed and report.as_dict()["masked"], report.as_dict()
with desktop.open_store() as store:
    report = run_sync(desktop, store)
    assert report.as_dict()["indexed"] == 1, report.as_dict()
    assert SECRET not in store.get(note.id).body
print("ops smoke ok")
