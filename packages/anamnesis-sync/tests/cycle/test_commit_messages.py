"""A local commit says what it changed through the backend's ``describe``: the files it
adds, edits and deletes against its parent, each readable as committed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dulwich.objects import Commit
from dulwich.repo import Repo

from anamnesis.sync import CommittedFile, GitSyncBackend
from sync_testing import write_note


class Recorder:
    """A ``describe`` that keeps what it was shown (kind, path, content) and answers
    ``answer``."""

    def __init__(self, answer: str | None) -> None:
        self.answer = answer
        self.seen: list[list[tuple[str, str, bytes]]] = []

    def __call__(self, files: Sequence[CommittedFile]) -> str | None:
        self.seen.append(sorted((f.kind, f.path, f.content()) for f in files))
        return self.answer


def backend(tmp_path: Path, describe: Recorder | None) -> GitSyncBackend:
    return GitSyncBackend(tmp_path / "memory", remote=None, machine_id="laptop", describe=describe)


def head_message(folder: Path) -> str:
    with Repo(str(folder)) as repo:
        commit = repo[repo.head()]
        assert isinstance(commit, Commit)
        return str(commit.message.decode("utf-8"))


def test_describe_sees_each_file_by_kind_with_its_committed_content(tmp_path: Path) -> None:
    recorder = Recorder("2 notes added")
    git = backend(tmp_path, recorder)
    write_note(git, "semantic/a.md", "first a\n")
    write_note(git, "semantic/b.md", "first b\n")
    git.commit_local()
    assert recorder.seen[-1] == [
        ("added", "semantic/a.md", b"first a\n"),
        ("added", "semantic/b.md", b"first b\n"),
    ]
    assert head_message(git.repo_dir) == "anamnesis: 2 notes added\n"

    write_note(git, "semantic/a.md", "second a\n")
    (git.repo_dir / "semantic" / "b.md").unlink()
    write_note(git, "episodic/c.md", "c\n")
    recorder.answer = "1 note added, 1 edited, 1 deleted"
    git.sync()  # the sync's own commit is described the same way
    assert recorder.seen[-1] == [
        ("added", "episodic/c.md", b"c\n"),
        ("deleted", "semantic/b.md", b"first b\n"),  # as it was
        ("edited", "semantic/a.md", b"second a\n"),
    ]
    assert head_message(git.repo_dir) == "anamnesis: 1 note added, 1 edited, 1 deleted\n"


def test_a_reason_given_stays_the_subject_and_the_description_is_the_body(
    tmp_path: Path,
) -> None:
    git = backend(tmp_path, Recorder("1 note added: Pool size"))
    write_note(git, "semantic/a.md", "a\n")
    git.commit_local("anamnesis reflect: 1 note")
    assert head_message(git.repo_dir) == "anamnesis reflect: 1 note\n\n1 note added: Pool size\n"


def test_without_a_description_a_commit_says_it_is_a_sync(tmp_path: Path) -> None:
    for describe in (None, Recorder(None)):
        git = backend(tmp_path / str(describe is None), describe)
        write_note(git, "notes.txt", "not a note\n")
        git.commit_local()
        assert head_message(git.repo_dir).startswith("anamnesis: sync from laptop at ")
