"""History cache benchmark: a note's versions from the derived cache against walking git.

    uv run python -m bench.suites.history_bench [--commits 3000] [--notes 2000] [--quick]

Builds a notes repository with dulwich (about 2,000 notes in three type folders, a first
commit adding them, then commits by four machines each editing, adding, deleting or
moving a few), then measures: the cold build of the cache, a warm ``refresh()`` +
``versions()`` (what each history page request costs) over 200 random notes, an
incremental refresh after one new commit, the two ways of telling the walk which commits
the cache already holds (a SELECT per commit met, or every sha loaded into a set first),
and the naive way (dulwich's path-filtered walker, per note). Target: a warm request
well under 5 ms at 3,000 commits.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree, hex_to_sha
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.dashboard.views.history_cache import HistoryCache
from anamnesis.sync import head_commit, new_commits
from bench.common.stats import p95

TYPES = ("procedural", "semantic", "episodic")
MACHINES = ("laptop", "desktop", "ci", "server")
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
DIR_MODE = 0o040000
BRANCH = Ref(b"refs/heads/main")


class HistoryBuilder:
    """Writes commits straight into a repository: each commit re-serializes only the
    type folders it touched (the way git stores them), so 3,000 commits take seconds."""

    def __init__(self, repo: Repo, rng: random.Random) -> None:
        self.repo = repo
        self.rng = rng
        # Each folder's files: name -> the blob's binary sha, as a tree stores it.
        self.folders: dict[str, dict[bytes, bytes]] = {kind: {} for kind in TYPES}
        self.trees: dict[str, ObjectID] = {}
        self.pending: list[ShaFile] = []
        self.head: ObjectID | None = None
        self.clock = 1_750_000_000
        self.edits = 0

    def note_ids(self) -> list[str]:
        return [name.decode()[:-3] for files in self.folders.values() for name in files]

    def write(self, kind: str, note_id: str, version: int) -> None:
        body = f"---\nid: {note_id}\ntype: {kind}\ntitle: Note {note_id}\n---\nversion {version}\n"
        blob = Blob.from_string((body + "some words of the note body. " * 8).encode())
        self.pending.append(blob)
        self.folders[kind][f"{note_id}.md".encode()] = hex_to_sha(blob.id)

    def commit(self, touched: set[str], machine: str) -> None:
        for kind in touched:
            # Serialized in one piece: a Tree built entry by entry is written to the pack
            # one compressor call per entry, which made building the repository slow.
            files = self.folders[kind]
            raw = b"".join(b"100644 " + name + b"\0" + files[name] for name in sorted(files))
            tree = Tree.from_raw_string(Tree.type_num, raw)
            self.pending.append(tree)
            self.trees[kind] = tree.id
        root = Tree()
        for kind, sha in self.trees.items():
            root.add(kind.encode(), DIR_MODE, sha)
        self.pending.append(root)
        commit = Commit()
        commit.tree = root.id
        commit.parents = [self.head] if self.head is not None else []
        commit.author = commit.committer = f"anamnesis <anamnesis@{machine}>".encode()
        self.clock += 60
        commit.author_time = commit.commit_time = self.clock
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = f"anamnesis: sync from {machine}\n".encode()
        self.pending.append(commit)
        self.head = commit.id

    def random_commit(self) -> None:
        """A few edits, now and then a new note, a deletion or a move."""
        touched: set[str] = set()
        for _ in range(self.rng.randint(1, 4)):
            self.edits += 1
            kind = self.rng.choice(TYPES)
            names = self.folders[kind]
            roll = self.rng.random()
            if roll < 0.05 or not names:
                self.write(kind, new_note_id(self.rng), self.edits)
            elif roll < 0.07:
                del names[self.rng.choice(list(names))]
            elif roll < 0.09:
                name = self.rng.choice(list(names))
                del names[name]
                other = self.rng.choice([k for k in TYPES if k != kind])
                self.write(other, name.decode()[:-3], self.edits)  # a type change
                touched.add(other)
            else:
                self.write(kind, self.rng.choice(list(names)).decode()[:-3], self.edits)
            touched.add(kind)
        self.commit(touched, self.rng.choice(MACHINES))

    def flush(self) -> None:
        """Write what is pending as one pack and point the branch at the head."""
        if self.pending:
            self.repo.object_store.add_objects([(obj, None) for obj in self.pending])
            self.pending = []
        if self.head is not None:
            self.repo.refs[BRANCH] = self.head


def new_note_id(rng: random.Random) -> str:
    return "01J" + "".join(rng.choice(CROCKFORD) for _ in range(23))


def build(repo_dir: Path, commits: int, notes: int, seed: int) -> HistoryBuilder:
    repo = Repo.init(str(repo_dir), mkdir=True, default_branch=b"main")
    rng = random.Random(seed)
    builder = HistoryBuilder(repo, rng)
    for index in range(notes):
        builder.write(TYPES[index % len(TYPES)], new_note_id(rng), 0)
    builder.commit(set(TYPES), MACHINES[0])
    for done in range(1, commits):
        builder.random_commit()
        if done % 500 == 0:  # bounded memory, and a pack count like a real history's
            builder.flush()
    builder.flush()
    return builder


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def known_strategies(repo_dir: Path, cache_path: Path) -> tuple[float, float]:
    """One new commit's walk, told what is known by a SELECT per sha or by a set loaded
    from the cache first: median seconds of each (the walk is the same)."""
    db = sqlite3.connect(cache_path)
    try:

        def by_select() -> object:
            def known(sha: str) -> bool:
                row = db.execute("SELECT 1 FROM commits WHERE sha = ?", (sha,)).fetchone()
                return row is not None

            return list(new_commits(repo_dir, known))

        def by_set() -> object:
            seen = {row[0] for row in db.execute("SELECT sha FROM commits")}
            return list(new_commits(repo_dir, seen.__contains__))

        selects = [timed(by_select) for _ in range(30)]
        sets = [timed(by_set) for _ in range(30)]
    finally:
        db.close()
    return statistics.median(selects), statistics.median(sets)


def naive_versions(repo_dir: Path, path: str) -> int:
    """A note's history the direct way: dulwich's walker filtered to its path."""
    with Repo(str(repo_dir)) as repo:
        return sum(1 for _ in repo.get_walker(paths=[path.encode()]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=200, help="random notes for warm reads")
    parser.add_argument("--naive", type=int, default=5, help="notes walked the naive way")
    parser.add_argument("--seed", type=int, default=7)
    # `nox -s bench -- --quick` passes --quick to every suite.
    parser.add_argument("--quick", action="store_true", help="300 commits, 200 notes")
    args = parser.parse_args()
    if args.quick:
        args.commits, args.notes, args.requests, args.naive = 300, 200, 50, 2
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="anamnesis-history-") as tmp:
        repo_dir = Path(tmp) / "memory"
        started = time.perf_counter()
        builder = build(repo_dir, args.commits, args.notes, args.seed)
        rows.append(("build the repository (dulwich)", f"{time.perf_counter() - started:.1f} s"))
        ids = builder.note_ids()
        cache_path = Path(tmp) / "cache" / "history.db"
        with HistoryCache(repo_dir, cache_path) as cache:
            indexed: list[int] = []
            cold = timed(lambda: indexed.append(cache.refresh()))
            rows.append((f"cold build of the cache ({indexed[0]} commits)", f"{cold:.2f} s"))
            rng = random.Random(args.seed)
            sample = [rng.choice(ids) for _ in range(args.requests)]
            lengths: list[int] = []
            warm: list[float] = []
            for note_id in sample:
                start = time.perf_counter()
                cache.refresh()
                lengths.append(len(cache.versions(note_id)))
                warm.append(time.perf_counter() - start)
            rows.append(("warm refresh() + versions(), median", ms(statistics.median(warm))))
            rows.append(("warm refresh() + versions(), p95", ms(p95(warm))))
            rows.append(("versions per note (median)", f"{statistics.median(lengths):.0f}"))
            only_refresh = [timed(cache.refresh) for _ in range(200)]
            unchanged = ms(statistics.median(only_refresh))
            rows.append(("refresh() with HEAD unchanged, median", unchanged))
            incremental: list[float] = []
            for _ in range(10):
                builder.random_commit()
                builder.flush()
                incremental.append(timed(cache.refresh))
            label = "refresh() after one new commit, median of 10"
            rows.append((label, ms(statistics.median(incremental))))
            rows.append(("rebuild()", f"{timed(cache.rebuild):.2f} s"))
        builder.random_commit()
        builder.flush()
        by_select, by_set = known_strategies(repo_dir, cache_path)
        rows.append(("walk of 1 new commit, known = SELECT per sha", ms(by_select)))
        rows.append(("walk of 1 new commit, known = set of all shas", ms(by_set)))
        assert head_commit(repo_dir) is not None
        paths = [
            f"{kind}/{name.decode()}" for kind, files in builder.folders.items() for name in files
        ]
        naive: list[float] = []
        for path in random.Random(args.seed).sample(paths, args.naive):
            start = time.perf_counter()
            naive_versions(repo_dir, path)
            naive.append(time.perf_counter() - start)
        label = f"naive: dulwich walker per note, median of {len(naive)}"
        rows.append((label, f"{statistics.median(naive):.2f} s"))
    width = max(len(name) for name, _ in rows)
    print(f"history bench: {args.commits} commits, {args.notes} notes")
    for name, value in rows:
        print(f"  {name:<{width}}  {value:>10}")


if __name__ == "__main__":
    main()
