"""The sync hook: import native memory, sync, and make pulled notes searchable at once."""

from __future__ import annotations

from pathlib import Path

from dulwich.repo import Repo

from anamnesis.hooks.syncing import sync_store
from anamnesis.store import MemoryStore


def test_a_pulled_note_is_searchable_without_a_reindex(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    remote.mkdir()
    Repo.init_bare(str(remote), default_branch=b"main").close()
    with MemoryStore(tmp_path / "laptop") as laptop, MemoryStore(tmp_path / "desktop") as desktop:
        note = laptop.write(
            type="semantic",
            title="Kubernetes ingress quirk",
            body="use pathType",
            machine_id="laptop",
        )
        first = sync_store(laptop, machine_id="laptop", remote=str(remote), import_native=False)
        assert first.result.pushed
        second = sync_store(desktop, machine_id="desktop", remote=str(remote), import_native=False)
        assert second.reindexed is not None and second.reindexed.indexed == 1
        found = desktop.search("ingress")
        assert [m.id for m in found] == [note.id]
        assert found[0].machine_id == "laptop"
        laptop.delete(note.id)
        sync_store(laptop, machine_id="laptop", remote=str(remote), import_native=False)
        sync_store(desktop, machine_id="desktop", remote=str(remote), import_native=False)
        assert desktop.search("ingress") == []


def test_native_memory_is_imported_before_the_sync(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    (claude / "projects" / "-x" / "memory").mkdir(parents=True)
    (claude / "projects" / "-x" / "memory" / "pref.md").write_text("Prefer tabs.\n")
    with MemoryStore(tmp_path / "home") as store:
        report = sync_store(store, machine_id="laptop", remote=None, claude_dir=claude)
        assert report.imported is not None and report.imported.created == 1
        assert report.result.committed  # the imported note went into the local commit
