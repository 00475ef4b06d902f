"""Three machines, random writes, edits, deletions and syncs: they end identical."""

from __future__ import annotations

import random

import pytest

from sync_testing import Machine, files, write_note


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_three_machines_converge_and_lose_nothing(machine: Machine, seed: int) -> None:
    rng = random.Random(seed)
    machines = [machine(name) for name in ("laptop", "desktop", "server")]
    deleted: set[str] = set()
    written: set[str] = set()
    counter = 0
    for _step in range(20):
        for backend in machines:
            action = rng.random()
            mine = sorted(files(backend))
            if action < 0.4 or not mine:
                counter += 1
                path = f"episodic/{backend.machine_id}-{counter:03d}.md"  # unique per machine
                write_note(backend, path, f"note {counter} by {backend.machine_id}")
                written.add(path)
            elif action < 0.6:
                # Edit only notes this machine created: edits of a shared note would be a
                # conflict, which the conflict tests cover.
                own = [p for p in mine if backend.machine_id in p]
                if own:
                    write_note(backend, path := rng.choice(own), f"edited at {_step}")
            elif action < 0.7:
                own = [p for p in mine if backend.machine_id in p]
                if own:
                    victim = rng.choice(own)
                    (backend.repo_dir / victim).unlink()
                    deleted.add(victim)
            else:
                result = backend.sync()
                assert not result.conflicted, result.detail
    for _round in range(2):
        for backend in machines:
            assert not backend.sync().conflicted
    first = files(machines[0])
    assert all(files(backend) == first for backend in machines[1:])
    assert set(first) == written - deleted  # nothing lost except by deletion
