"""Isolation smoke test of `anamnesis-sync` installed alone (the `isolation` session): a file
committed and pushed by one machine to a bare remote (made with dulwich) is pulled by another.

Runs as a plain script in the isolated venv: stdlib and `anamnesis-sync` (with dulwich) only.
"""

from __future__ import annotations

import pathlib
import tempfile

from dulwich.repo import Repo

from anamnesis.sync import GitSyncBackend

root = pathlib.Path(tempfile.mkdtemp())
(root / "remote.git").mkdir()
Repo.init_bare(str(root / "remote.git")).close()
a = GitSyncBackend(root / "a", remote=str(root / "remote.git"), machine_id="a")
b = GitSyncBackend(root / "b", remote=str(root / "remote.git"), machine_id="b")
(root / "a" / "semantic").mkdir(parents=True)
(root / "a" / "semantic" / "n.md").write_text("smoke")
assert a.sync().pushed and b.sync().pulled == 1
assert (root / "b" / "semantic" / "n.md").read_text() == "smoke"
print("sync smoke ok")
