"""Three machines, random writes, edits, deletions and syncs: they end identical.

Any machine may edit or delete any note it has, so the same note changes on two machines
and a note one machine edits is deleted by another: conflicts happen, and each is
resolved with a random strategy. At the end every machine and the remote hold the same
notes, and no note is missing unless some machine deleted it.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from anamnesis.sync import STRATEGIES, GitSyncBackend
from sync_testing import Machine, files, remote_files, write_note

# keep-both keeps the local side of a plain file beside it under this name.
_FORK = re.compile(r"^(?P<base>.+)\.conflict-[a-z]+\.md$")


def _sync(backend: GitSyncBackend, rng: random.Random) -> set[str]:
    """Sync, settling any conflict with a random strategy; return the notes it resolved."""
    result = backend.sync()
    if not result.conflicted:
        assert result.remote_error == "", result.detail
        return set()
    resolved = backend.resolve(rng.choice(STRATEGIES))
    assert resolved.pushed and not resolved.conflicted, resolved.detail
    return set(result.conflicts)


@pytest.mark.parametrize("seed", [2, 5, 15])
def test_three_machines_converge_and_lose_nothing(
    machine: Machine, remote: Path, seed: int
) -> None:
    rng = random.Random(seed)
    machines = [machine(name) for name in ("laptop", "desktop", "server")]
    written: dict[str, set[str]] = {}  # every text each note ever had
    deleted: set[str] = set()
    conflicts = 0
    counter = 0
    for step in range(20):
        for backend in machines:
            here = sorted(files(backend))
            action = rng.random()
            if action < 0.3 or not here:
                counter += 1
                path, text = f"episodic/n{counter:03d}.md", f"note {counter}"
            elif action < 0.5:
                path = rng.choice(here)
                text = f"{path} edited at {step} on {backend.machine_id}"
            elif action < 0.6:
                path = rng.choice(here)
                (backend.repo_dir / path).unlink()
                deleted.add(path)
                continue
            else:
                conflicts += len(_sync(backend, rng))
                continue
            write_note(backend, path, text)
            written.setdefault(path, set()).add(text)
    for _round in range(3):
        for backend in machines:
            conflicts += len(_sync(backend, rng))
    final = files(machines[0])
    assert all(files(backend) == final for backend in machines[1:])
    assert {path: text.encode() for path, text in final.items()} == remote_files(remote)
    assert not any(backend.state().dirty for backend in machines)
    # Nothing lost except by deletion: every note no machine deleted is still there...
    assert set(written) - deleted <= set(final)
    # ...and nothing appears that nobody wrote: each file holds a text written for its
    # path, or is the local side of a conflict kept beside the note (keep-both).
    for path, text in final.items():
        fork = _FORK.match(path)
        origin = fork.group("base") + ".md" if fork else path
        assert text in written.get(origin, set()), (path, text)
    assert conflicts, "each seed here makes machines conflict, so resolving is exercised"
