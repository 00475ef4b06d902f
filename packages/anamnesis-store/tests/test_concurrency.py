"""Many threads and many processes using one store at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore


def test_threads_share_one_store(store: MemoryStore) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(25):
                store.write(type="semantic", title=f"thread {n} note {i}", body="shared words")
                store.search("shared words thread")
                store.list(limit=5)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.stats().total == 200


WRITER = textwrap.dedent(
    """
    import sys
    from anamnesis.store import MemoryStore
    root, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with MemoryStore(root) as store:
        for i in range(count):
            store.write(type="episodic" if i % 3 else "semantic",
                        title=f"worker {worker} note {i}", body="concurrent " * 50,
                        project=f"p{worker % 3}", tags=["load", f"w{worker}"])
            if i % 25 == 0:
                store.search("concurrent worker")
    """
)


@pytest.mark.slow
def test_eight_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "store"
    MemoryStore(root).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(worker), "250"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(8)
    ]
    outcomes = [
        (proc.wait(timeout=600), proc.stderr.read() if proc.stderr else "") for proc in procs
    ]
    assert all(code == 0 for code, _ in outcomes), outcomes
    assert all(err == "" for _, err in outcomes), outcomes
    with MemoryStore(root) as store:
        on_disk = sorted(p.stem for p in (root / "memory").rglob("*.md"))
        assert len(on_disk) == 2000
        incremental = sorted(m.id for m in store.list(include_body=False))
        assert incremental == on_disk
        titles = {(m.title) for m in store.list(include_body=False)}
        assert len(titles) == 2000
        report = store.reindex()
        assert (report.indexed, report.skipped_count) == (2000, 0)
        assert sorted(m.id for m in store.list(include_body=False)) == on_disk
