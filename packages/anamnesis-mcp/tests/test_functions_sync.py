"""sync_memory against real git repositories: local commits, two stores on one remote,
reindexing what was pulled, an unreachable remote."""

from __future__ import annotations

from pathlib import Path

from anamnesis.mcp import (
    search_memories,
    sync_memory,
    write_memory,
)
from anamnesis.store import MemoryStore
from anamnesis.sync import GitSyncBackend
from mcp_testing import bare_remote, index_hits


def test_sync_without_a_remote_commits_locally_and_says_remote(store: MemoryStore) -> None:
    write_memory(store, type="semantic", title="t", body="b")
    backend = GitSyncBackend(store.memory_dir, remote=None, machine_id="laptop")
    outcome = sync_memory(store, backend)
    assert outcome["pushed"] is False
    assert outcome["conflicted"] is False
    assert "remote" in outcome["detail"]
    assert outcome["head"]
    assert backend.state().dirty is False  # the note is committed
    assert set(outcome) >= {"pushed", "pulled", "conflicted", "head", "indexed", "detail"}


def test_sync_then_search_across_two_stores(tmp_path: Path) -> None:
    remote = str(bare_remote(tmp_path / "remote.git"))
    with MemoryStore(tmp_path / "laptop") as laptop, MemoryStore(tmp_path / "desktop") as desktop:
        laptop_git = GitSyncBackend(laptop.memory_dir, remote=remote, machine_id="laptop")
        desktop_git = GitSyncBackend(desktop.memory_dir, remote=remote, machine_id="desktop")
        note = write_memory(
            laptop, type="procedural", title="Flaky CI", body="retry the esbuild step",
            machine_id="laptop",
        )  # fmt: skip
        write_memory(laptop, type="semantic", title="Laptop only", body="esbuild cache in /tmp",
                     scope="machine-local")  # fmt: skip
        pushed = sync_memory(laptop, laptop_git)
        assert pushed["pushed"] is True
        pulled = sync_memory(desktop, desktop_git)
        assert pulled["pulled"] >= 1
        assert pulled["indexed"] == 1  # the portable note only
        hits = search_memories(desktop, query="esbuild")
        assert [h["id"] for h in hits] == [note["id"]]
        assert hits[0]["machine_id"] == "laptop"


def test_sync_reindexes_what_it_pulled_before_returning(tmp_path: Path) -> None:
    """Added, edited and deleted notes are in the index when sync_memory returns.

    The store's reads would catch up with the files on their own, so this looks at the
    index file directly: without the reindex it would still hold the old text.
    """
    remote = str(bare_remote(tmp_path / "remote.git"))
    with MemoryStore(tmp_path / "laptop") as laptop, MemoryStore(tmp_path / "desktop") as desktop:
        laptop_git = GitSyncBackend(laptop.memory_dir, remote=remote, machine_id="laptop")
        desktop_git = GitSyncBackend(desktop.memory_dir, remote=remote, machine_id="desktop")
        edited = write_memory(laptop, type="semantic", title="Zoo", body="the zebra fact")
        deleted = write_memory(laptop, type="semantic", title="Zoo", body="the giraffe fact")
        sync_memory(laptop, laptop_git)
        first = sync_memory(desktop, desktop_git)
        assert (first["indexed"], first["removed"]) == (2, 0)
        assert index_hits(desktop.db_path, "zebra") == [edited["id"]]

        laptop.update(edited["id"], body="the okapi fact")
        laptop.delete(deleted["id"])
        added = write_memory(laptop, type="procedural", title="Llama", body="the llama fact")
        sync_memory(laptop, laptop_git)
        second = sync_memory(desktop, desktop_git)

        assert (second["indexed"], second["removed"]) == (2, 1)
        assert index_hits(desktop.db_path, "okapi") == [edited["id"]]
        assert index_hits(desktop.db_path, "zebra") == []
        assert index_hits(desktop.db_path, "giraffe") == []
        assert index_hits(desktop.db_path, "llama") == [added["id"]]
        # And search agrees, of course.
        assert [h["id"] for h in search_memories(desktop, query="okapi")] == [edited["id"]]
        assert search_memories(desktop, query="zebra giraffe") == []


def test_sync_to_an_unreachable_remote_reports_instead_of_raising(
    store: MemoryStore, tmp_path: Path
) -> None:
    write_memory(store, type="semantic", title="t", body="b")
    backend = GitSyncBackend(
        store.memory_dir, remote=str(tmp_path / "no-such-remote.git"), machine_id="laptop"
    )
    outcome = sync_memory(store, backend)
    assert outcome["pushed"] is False
    assert "no-such-remote" in outcome["detail"]
    assert backend.state().dirty is False  # the local commit is kept for the next try
