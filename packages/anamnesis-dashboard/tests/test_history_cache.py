"""The derived history cache, over real repositories synced through a bare remote."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.dashboard.views import history_cache
from anamnesis.dashboard.views.history_cache import HistoryCache, NoteVersion
from anamnesis.sync import GitSyncBackend, head_commit

ID = "01J9Z8YPM7Q3X2V4WT6B5N0KGD"
NOTE = f"semantic/{ID}.md"
OTHER_ID = "01J9Z8YPM7Q3X2V4WT6B5N0KGE"
OTHER = f"procedural/{OTHER_ID}.md"

Machine = Callable[[str], GitSyncBackend]
CacheOf = Callable[..., HistoryCache]


@pytest.fixture
def machine(tmp_path: Path, remote: Path) -> Machine:
    def make(name: str) -> GitSyncBackend:
        return GitSyncBackend(
            tmp_path / name / "memory", remote=str(remote), machine_id=name, lock_wait_s=2.0
        )

    return make


@pytest.fixture
def cache_of(tmp_path: Path) -> Iterator[CacheOf]:
    """A cache over a machine's notes folder, closed after the test."""
    opened: list[HistoryCache] = []

    def make(backend: GitSyncBackend, name: str = "history.db") -> HistoryCache:
        cache = HistoryCache(backend.repo_dir, tmp_path / "cache" / backend.machine_id / name)
        opened.append(cache)
        return cache

    yield make
    for cache in opened:
        cache.close()


def write(backend: GitSyncBackend, rel: str, text: str | None) -> None:
    path = backend.repo_dir / rel
    if text is None:
        path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def blob_of(text: str) -> str:
    return Blob.from_string(text.encode()).id.decode()


def texts(cache: HistoryCache, versions: list[NoteVersion]) -> list[str | None]:
    return [None if v.blob is None else cache.text(v.blob) for v in versions]


def test_a_note_edited_on_two_machines(machine: Machine, cache_of: CacheOf) -> None:
    a, b = machine("a"), machine("b")
    write(a, NOTE, "v1")
    a.sync()
    b.sync()
    write(b, NOTE, "v2 from b")
    b.sync()
    a.sync()
    write(a, NOTE, "v3 from a")
    write(a, OTHER, "other")
    a.sync()
    cache = cache_of(a)
    assert cache.refresh() == 3
    versions = cache.versions(ID)
    assert [v.machine_id for v in versions] == ["a", "b", "a"]
    assert texts(cache, versions) == ["v3 from a", "v2 from b", "v1"]
    assert all(v.path == NOTE for v in versions)
    assert versions[0].commit == head_commit(a.repo_dir)
    assert versions[0].message.startswith("anamnesis: sync from a")
    assert [v.time for v in versions] == sorted((v.time for v in versions), reverse=True)
    assert [v.path for v in cache.versions(OTHER_ID)] == [OTHER]
    assert cache.versions("01NOSUCHNOTE00000000000000") == []


def test_a_moved_note_keeps_one_history(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    write(a, NOTE, "type: semantic")
    a.commit_local()
    moved = f"procedural/{ID}.md"
    write(a, NOTE, None)
    write(a, moved, "type: procedural")
    a.commit_local()
    cache = cache_of(a)
    cache.refresh()
    versions = cache.versions(ID)
    assert [v.path for v in versions] == [moved, NOTE]
    assert texts(cache, versions) == ["type: procedural", "type: semantic"]


def test_a_move_without_an_edit_is_not_a_new_version(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    write(a, NOTE, "same")
    first = a.commit_local()
    moved = f"procedural/{ID}.md"
    write(a, NOTE, None)
    write(a, moved, "same")
    a.commit_local()
    cache = cache_of(a)
    cache.refresh()
    (only,) = cache.versions(ID)
    assert first is not None and only.commit.startswith(first)  # the oldest with this content
    assert only.path == NOTE


def test_a_deleted_note(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    write(a, NOTE, "here")
    a.commit_local()
    write(a, NOTE, None)
    write(a, OTHER, "keeps the tree non-empty")
    a.commit_local()
    cache = cache_of(a)
    cache.refresh()
    deleted, written = cache.versions(ID)
    assert deleted.blob is None and deleted.path == NOTE
    assert written.blob == blob_of("here")


def test_refresh_is_incremental(
    machine: Machine, cache_of: CacheOf, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = machine("a")
    for i in range(4):
        write(a, NOTE, f"v{i}")
        a.commit_local()
    cache = cache_of(a)
    assert cache.refresh() == 4
    with monkeypatch.context() as patch:  # HEAD unchanged: the history is not walked
        patch.setattr(history_cache, "new_commits", _no_walk)
        assert cache.refresh() == 0
    write(a, OTHER, "new")
    a.commit_local()
    assert cache.refresh() == 1
    assert cache.refresh() == 0
    assert cache.machines() == {"a": (5, cache.machines()["a"][1])}
    assert len(cache.versions(ID)) == 4
    assert [v.blob for v in cache.versions(OTHER_ID)] == [blob_of("new")]


def _no_walk(*args: object, **kwargs: object) -> Iterator[object]:
    raise AssertionError("refresh walked the history although HEAD did not move")


def test_a_second_cache_on_the_same_file_sees_the_work_done(
    machine: Machine, cache_of: CacheOf
) -> None:
    a = machine("a")
    write(a, NOTE, "v")
    a.commit_local()
    assert cache_of(a).refresh() == 1
    again = cache_of(a)
    assert again.refresh() == 0
    assert len(again.versions(ID)) == 1


def test_concurrent_refreshes_count_each_commit_once(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    for i in range(30):
        write(a, f"semantic/{ID[:-2]}{i:02d}.md", f"note {i}")
        a.commit_local()
    caches = [cache_of(a) for _ in range(4)]
    counts: list[int] = []
    start = threading.Barrier(len(caches))

    def run(cache: HistoryCache) -> None:
        start.wait()
        counts.append(cache.refresh())

    threads = [threading.Thread(target=run, args=(cache,)) for cache in caches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(counts) == [0, 0, 0, 30]
    assert caches[0].machines()["a"][0] == 30


def test_a_corrupt_cache_file_is_rebuilt(
    machine: Machine, cache_of: CacheOf, tmp_path: Path
) -> None:
    a = machine("a")
    write(a, NOTE, "v")
    a.commit_local()
    path = tmp_path / "cache" / "a" / "history.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 300)
    cache = cache_of(a)
    assert cache.refresh() == 1
    assert len(cache.versions(ID)) == 1


def test_a_cache_of_another_schema_version_is_rebuilt(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    write(a, NOTE, "v")
    a.commit_local()
    cache = cache_of(a)
    cache.refresh()
    cache.close()
    with sqlite3.connect(cache.cache_path) as db:
        db.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    db.close()
    again = cache_of(a)
    assert again.versions(ID) == []  # nothing carried over from the foreign file
    assert again.refresh() == 1
    assert len(again.versions(ID)) == 1


def test_a_foreign_database_is_replaced(
    machine: Machine, cache_of: CacheOf, tmp_path: Path
) -> None:
    a = machine("a")
    write(a, NOTE, "v")
    a.commit_local()
    path = tmp_path / "cache" / "a" / "history.db"
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE something_else (x)")
    db.close()
    assert cache_of(a).refresh() == 1


def test_rebuild_equals_the_incremental_result(machine: Machine, cache_of: CacheOf) -> None:
    a, b = machine("a"), machine("b")
    incremental = cache_of(a)
    ids = [f"{ID[:-2]}{i:02d}" for i in range(4)]
    for round_ in range(3):
        for i, note_id in enumerate(ids):
            writer = a if (i + round_) % 2 else b
            write(
                writer, f"semantic/{note_id}.md", f"{note_id} round {round_} by {writer.machine_id}"
            )
            writer.sync()
            incremental.refresh()
        a.sync()
        incremental.refresh()
    rebuilt = cache_of(a, "rebuilt.db")
    total = rebuilt.rebuild()
    assert total == sum(count for count, _ in incremental.machines().values())
    assert rebuilt.machines() == incremental.machines()
    for note_id in ids:
        assert rebuilt.versions(note_id) == incremental.versions(note_id)
        assert len(rebuilt.versions(note_id)) == 3
    assert incremental.rebuild() == total
    assert incremental.versions(ids[0]) == rebuilt.versions(ids[0])


def test_commits_a_sync_replaced_are_forgotten(machine: Machine, cache_of: CacheOf) -> None:
    a, b = machine("a"), machine("b")
    write(a, NOTE, "shared")
    a.sync()
    b.sync()
    write(b, OTHER, "from b")
    b.sync()
    write(a, NOTE, "edited offline on a")
    a.commit_local()
    cache = cache_of(a)
    assert cache.refresh() == 2  # the first commit, and a's local one
    a.sync()  # a's local commit is replayed on top of b's
    assert cache.refresh() == 2  # b's commit, and the replayed copy
    assert cache.machines()["a"][0] == 2
    assert cache.machines()["b"][0] == 1
    versions = cache.versions(ID)
    assert texts(cache, versions) == ["edited offline on a", "shared"]
    assert versions[0].commit == head_commit(a.repo_dir)
    rebuilt = cache_of(a, "rebuilt.db")
    rebuilt.rebuild()
    assert rebuilt.machines() == cache.machines()
    assert rebuilt.versions(ID) == versions


def test_versions_follow_the_history_not_the_clocks(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    write(a, NOTE, "first")
    a.commit_local()
    head = head_commit(a.repo_dir)
    assert head is not None
    with Repo(str(a.repo_dir)) as repo:  # a commit from a machine whose clock is behind
        blob = Blob.from_string(b"second")
        sub, top = Tree(), Tree()
        sub.add(f"{ID}.md".encode(), 0o100644, blob.id)
        top.add(b"semantic", 0o040000, sub.id)
        commit = Commit()
        commit.tree, commit.parents = top.id, [ObjectID(head.encode())]
        commit.author = commit.committer = b"anamnesis <anamnesis@slow>"
        commit.author_time = commit.commit_time = 1_000_000_000
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"from the past\n"
        for obj in (blob, sub, top, commit):
            repo.object_store.add_object(obj)
        repo.refs[Ref(b"refs/heads/main")] = commit.id
    cache = cache_of(a)
    cache.refresh()
    versions = cache.versions(ID)
    assert (versions[0].machine_id, versions[0].message) == ("slow", "from the past")
    assert texts(cache, versions) == ["second", "first"]
    assert cache.machines()["slow"] == (1, 1_000_000_000)


def test_machines_counts_commits_and_last_times(machine: Machine, cache_of: CacheOf) -> None:
    a, b = machine("a"), machine("b")
    write(a, NOTE, "1")
    a.sync()
    b.sync()
    for i in range(3):
        write(b, OTHER, f"b{i}")
        b.sync()
    a.sync()
    cache = cache_of(a)
    cache.refresh()
    seen = cache.machines()
    assert set(seen) == {"a", "b"}
    assert seen["a"][0] == 1 and seen["b"][0] == 3
    newest = cache.versions(OTHER_ID)[0]
    assert seen["b"][1] == newest.time


def test_no_repository_yet(tmp_path: Path) -> None:
    with HistoryCache(tmp_path / "memory", tmp_path / "cache" / "history.db") as cache:
        assert cache.refresh() == 0
        assert cache.rebuild() == 0
        assert cache.versions(ID) == []
        assert cache.machines() == {}


def test_an_empty_repository(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    a.init()
    cache = cache_of(a)
    assert cache.refresh() == 0
    assert cache.versions(ID) == []


def test_only_note_files_are_indexed(machine: Machine, cache_of: CacheOf) -> None:
    a = machine("a")
    write(a, "semantic/notes.txt", "not a note")
    write(a, NOTE, "a note")
    a.commit_local()
    cache = cache_of(a)
    assert cache.refresh() == 1
    assert cache.versions("notes") == []
    assert len(cache.versions(ID)) == 1
