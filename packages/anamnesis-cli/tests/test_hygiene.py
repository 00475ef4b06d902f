"""`anamnesis clean` and `anamnesis secrets scan`, on real stores and real git repositories."""

from __future__ import annotations

import base64
import os
import pty
import random
import subprocess
from pathlib import Path

import pytest
from anamnesis_testsupport.repos import commit_messages
from dulwich.objects import Commit, Tree
from dulwich.repo import Repo

from anamnesis.cli import console
from anamnesis.store import MemoryStore
from cli_testing import Env, Result, anamnesis_script, machines, write

TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # GitHub-token-shaped, not a real one


def note_files(env: Env, tree: str = "") -> list[Path]:
    """The note files of both trees (or one), outside git's folder."""
    trees = [tree] if tree else ["memory", "local"]
    return sorted(
        path
        for name in trees
        if (env.home / name).is_dir()
        for path in (env.home / name).rglob("*.md")
        if ".git" not in path.parts
    )


def filled_store(env: Env) -> dict[str, bytes]:
    """A store with notes of both scopes, an index (and a moved-aside one), logs, eval
    cases, a reflection lock, a batch journal and a downloaded model; returns the bytes of
    the files every clean must keep."""
    assert env.run("init", "--yes", "--local-only").code == 0
    write(env, "Portable", "a portable note")
    write(env, "Local", "a machine-local note", "--scope", "machine-local")
    home = env.home
    assert (home / "index.db").exists()
    (home / "index.db.corrupt-20250101T000000").write_bytes(b"old index")
    (home / "index.db.corrupt-20250101T000000-wal").write_bytes(b"old wal")
    (home / "logs").mkdir(exist_ok=True)
    (home / "logs" / "hooks.log").write_text("a log line\n")
    (home / "eval").mkdir()
    (home / "eval" / "cases.jsonl").write_text('{"query": "q", "expected": ["x"]}\n')
    (home / "reflect.lock").write_bytes(b"")
    with MemoryStore(home) as store:  # what sessions used, and a damaged log moved aside
        assert store.usage.record("injected", [store.list()[0].id])
    (home / "usage.db.broken").write_bytes(b"a damaged usage log")
    (home / ".batch-journal.json").write_text('{"renames": []}')
    (home / "models" / "some-model").mkdir(parents=True)
    (home / "models" / "some-model" / "model.onnx").write_bytes(b"weights")
    return {
        "config.json": (home / "config.json").read_bytes(),
        "models/some-model/model.onnx": b"weights",
    }


def assert_kept(env: Env, kept: dict[str, bytes]) -> None:
    for rel, data in kept.items():
        assert (env.home / rel).read_bytes() == data, rel


def assert_empty_store_works(env: Env) -> None:
    status = env.run("status", "--json")
    assert status.code == 0, status.err
    assert status.json()["total"] == 0
    assert env.run("list", "--json").json() == []


# -- clean: confirmation --------------------------------------------------------------


@pytest.mark.parametrize("what", ["memory", "all"])
def test_clean_without_a_terminal_or_yes_deletes_nothing(env: Env, what: str) -> None:
    kept = filled_store(env)
    before = sorted(p.relative_to(env.home) for p in env.home.rglob("*"))
    result = env.run("clean", what)
    assert result.code == 2
    assert "--yes" in result.err and "nothing was deleted" in result.err
    assert sorted(p.relative_to(env.home) for p in env.home.rglob("*")) == before
    assert len(note_files(env)) == 2
    assert_kept(env, kept)


def test_clean_names_only_memory_or_all(env: Env) -> None:
    filled_store(env)
    for args in (["clean", "everything", "--yes"], ["clean", "--yes"]):
        result = env.run(*args)
        assert result.code == 2, args
    assert len(note_files(env)) == 2


def test_a_terminal_confirmation_must_type_the_word(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    filled_store(env)
    monkeypatch.setattr(console, "stdin_is_terminal", lambda: True)
    for answer in ("n\n", "y\n", "\n", "deleted\n"):
        refused = env.run("clean", "memory", stdin=answer)
        assert refused.code == 1 and "nothing deleted" in refused.err, answer
        assert len(note_files(env)) == 2
    shown = refused.out  # what the prompt showed: what goes, and how many notes
    assert "1 portable note(s) in memory/" in shown
    assert "1 machine-local note(s) in local/" in shown
    assert "the search index: index.db" in shown
    assert "kept: config.json, models" in shown
    assert "this machine only" in shown
    done = env.run("clean", "memory", stdin="delete\n")
    assert done.code == 0, done.err
    assert note_files(env) == []


def test_with_json_the_prompt_goes_to_stderr(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    filled_store(env)
    monkeypatch.setattr(console, "stdin_is_terminal", lambda: True)
    done = env.run("clean", "memory", "--json", stdin="delete\n")
    assert done.code == 0, done.err
    assert "Type delete" in done.err
    data = done.json()
    assert data["notes"] == {"portable": 1, "machine_local": 1}
    assert "index.db" in data["removed"]


def run_with_typed_answer(env: Env, answer: str, *args: str) -> Result:
    """The real command with its stdin on a pseudo-terminal where ``answer`` was typed."""
    controller, terminal = pty.openpty()
    try:
        os.write(controller, answer.encode())
        done = subprocess.run(
            [*anamnesis_script(), *args],
            stdin=terminal,
            capture_output=True,
            env=env.environment(),
            cwd=env.root,
            timeout=120,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    return Result(done.returncode, done.stdout.decode(), done.stderr.decode())


def test_a_real_terminal_is_asked(env: Env) -> None:
    filled_store(env)
    refused = run_with_typed_answer(env, "no\n", "clean", "all")
    assert refused.code == 1, refused.err
    assert "Type delete" in refused.out and "nothing deleted" in refused.err
    assert len(note_files(env)) == 2 and (env.home / "logs").is_dir()
    done = run_with_typed_answer(env, "delete\n", "clean", "all")
    assert done.code == 0, done.err
    assert note_files(env) == [] and not (env.home / "logs").exists()


# -- clean: what goes, what stays -----------------------------------------------------


def test_clean_memory_removes_notes_and_index_keeps_config_logs_and_eval(env: Env) -> None:
    kept = filled_store(env)
    (env.home / "cache").mkdir()
    (env.home / "cache" / "history.db").write_bytes(b"derived from memory/.git")
    result = env.run("clean", "memory", "--yes")
    assert result.code == 0, result.err
    assert note_files(env) == []
    home = env.home
    assert [p.name for p in home.iterdir() if p.name.startswith("index.db")] == []
    assert not (home / "cache").exists()
    assert not (home / ".batch-journal.json").exists()
    assert (home / "logs" / "hooks.log").read_text() == "a log line\n"
    with MemoryStore(home) as store:  # this machine's use of the notes the sync brings back
        assert store.usage.counts().runs["injected"].runs == 1
    assert (home / "eval" / "cases.jsonl").exists()
    assert (home / "reflect.lock").exists()
    assert_kept(env, kept)
    assert "deleted 1 portable and 1 machine-local note(s), the search index" in result.out
    assert "no remote is configured" in result.out
    assert_empty_store_works(env)


def test_clean_all_also_removes_logs_eval_and_the_reflection_lock(env: Env) -> None:
    kept = filled_store(env)
    result = env.run("clean", "all", "--yes", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert {"logs", "eval", "reflect.lock", "index.db", ".batch-journal.json"} <= set(
        data["removed"]
    )
    assert data["kept"] == ["config.json", "models"]
    home = env.home
    assert note_files(env) == []
    assert {"usage.db", "usage.db.broken"} <= set(data["removed"])
    for gone in ("logs", "eval", "reflect.lock", "index.db", "index.db.corrupt-20250101T000000",
                 "usage.db", "usage.db.broken"):  # fmt: skip
        assert not (home / gone).exists(), gone
    assert_kept(env, kept)
    assert_empty_store_works(env)
    # What is left: the config, the model, the two empty trees, the new index, the sync
    # repository (a local-only store's, re-created empty) and its lock.
    assert {p.name for p in home.iterdir()} <= {
        "config.json", "models", "memory", "local", "index.db", "index.db-wal", "index.db-shm",
    }  # fmt: skip
    assert {p.name for p in (home / "memory").iterdir()} <= {".git", ".anamnesis-sync.lock"}


def test_clean_when_there_is_no_store(bare: Env) -> None:
    result = bare.run("clean", "all", "--yes")
    assert result.code == 1 and "nothing to clean" in result.err
    assert not bare.home.exists()


def test_symlinks_are_removed_as_links_and_their_targets_untouched(
    env: Env, tmp_path: Path
) -> None:
    filled_store(env)
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "target.md").write_text("not the store's")
    (outside / "folder" / "inside.md").write_text("not the store's either")
    (outside / "local-notes" / "semantic").mkdir(parents=True)
    (outside / "local-notes" / "semantic" / "n.md").write_text("elsewhere")
    memory = env.home / "memory"
    (memory / "semantic" / "link.md").symlink_to(outside / "target.md")
    (memory / "linked-folder").symlink_to(outside / "folder", target_is_directory=True)
    (memory / "dangling.md").symlink_to(outside / "gone.md")
    local = env.home / "local"
    for child in local.rglob("*.md"):
        child.unlink()
    for child in sorted(local.rglob("*"), reverse=True):
        child.rmdir()
    local.rmdir()
    local.symlink_to(outside / "local-notes", target_is_directory=True)
    result = env.run("clean", "all", "--yes")
    assert result.code == 0, result.err
    assert "local/ is a symbolic link: the link is removed" in result.out
    for link in (memory / "semantic" / "link.md", memory / "linked-folder", memory / "dangling.md"):
        assert not os.path.lexists(link), link
    assert local.is_dir() and not local.is_symlink() and list(local.iterdir()) == []
    assert (outside / "target.md").read_text() == "not the store's"
    assert (outside / "folder" / "inside.md").read_text() == "not the store's either"
    assert (outside / "local-notes" / "semantic" / "n.md").read_text() == "elsewhere"
    assert_empty_store_works(env)


# -- clean: this machine, or everywhere -----------------------------------------------


def test_a_wipe_of_this_machine_is_not_sent_and_the_next_sync_brings_notes_back(
    tmp_path: Path,
) -> None:
    laptop, desktop, remote = machines(tmp_path)
    note_id = write(laptop, "Shared", "a note both machines have")
    assert laptop.run("sync").code == 0
    assert desktop.run("sync").code == 0
    cleaned = laptop.run("clean", "memory", "--yes")
    assert cleaned.code == 0, cleaned.err
    assert "the next sync brings the remote's notes back" in cleaned.out
    assert note_files(laptop) == []
    assert_empty_store_works(laptop)
    # The wipe never reaches the remote: this machine's sync takes the notes back ...
    synced = laptop.run("sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["pushed"] is False
    assert [n["id"] for n in laptop.run("list", "--json").json()] == [note_id]
    # ... and the other machine keeps them.
    assert desktop.run("sync").code == 0
    assert [n["id"] for n in desktop.run("list", "--json").json()] == [note_id]
    assert not any("clean" in m for m in commit_messages(remote))


def test_a_wipe_warns_about_changes_never_pushed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, _desktop, _remote = machines(tmp_path)
    write(laptop, "Unsent", "written after the last sync")
    monkeypatch.setattr(console, "stdin_is_terminal", lambda: True)
    refused = laptop.run("clean", "memory", stdin="no\n")
    assert refused.code == 1
    assert "changes it has not pushed yet" in refused.out


def test_everywhere_commits_a_deletion_the_other_machine_applies(tmp_path: Path) -> None:
    laptop, desktop, remote = machines(tmp_path)
    write(laptop, "From the laptop", "portable")
    write(desktop, "From the desktop", "portable too")
    desktop_local = write(desktop, "Desktop only", "machine-local", "--scope", "machine-local")
    for machine in (laptop, desktop, laptop):
        assert machine.run("sync").code == 0
    assert len(note_files(desktop, "memory")) == 2
    memory = laptop.home / "memory"
    with Repo(str(memory)) as repo:
        before = repo.head()
    cleaned = laptop.run("clean", "memory", "--yes", "--everywhere", "--json")
    assert cleaned.code == 0, cleaned.err
    data = cleaned.json()
    assert data["propagated"] is True and data["commit"]
    with Repo(str(memory)) as repo:
        head = repo[repo.head()]
        assert isinstance(head, Commit)
        assert head.parents == [before]  # one commit, on what was there
        assert b"clean --everywhere" in head.message
        tree = repo[head.tree]
        assert isinstance(tree, Tree) and list(tree.items()) == []  # every note deleted
    human = laptop.run("clean", "memory", "--yes", "--everywhere")  # nothing left to send
    assert "nothing to propagate" in human.out
    assert laptop.run("sync").code == 0
    assert desktop.run("sync").code == 0
    assert note_files(desktop, "memory") == []
    # Machine-local notes are the desktop's own: untouched.
    assert [n["id"] for n in desktop.run("list", "--json").json()] == [desktop_local]
    # The remote's history still has the notes, as the command says.
    assert len(commit_messages(remote)) >= 3


def test_everywhere_says_so_and_how_to_purge_history(tmp_path: Path) -> None:
    laptop, _desktop, _remote = machines(tmp_path)
    write(laptop, "Note", "to go everywhere")
    assert laptop.run("sync").code == 0
    result = laptop.run("clean", "all", "--yes", "--everywhere")
    assert result.code == 0, result.err
    assert "the next sync removes these notes on every machine" in result.out
    assert "git history keeps the deleted notes" in result.out
    assert "filter-repo" in result.out and "replace the remote with a new" in result.out


def test_everywhere_without_a_sync_repository_has_nothing_to_propagate(env: Env) -> None:
    write(env, "No sync", "a store that never ran init")  # no memory/.git
    assert not (env.home / "memory" / ".git").exists()
    result = env.run("clean", "memory", "--yes", "--everywhere")
    assert result.code == 0, result.err
    assert "nothing to propagate" in result.out
    assert note_files(env) == []
    assert_empty_store_works(env)


# -- secrets scan ---------------------------------------------------------------------


def hand_edited(env: Env, note_id: str) -> Path:
    path = Path(env.run("show", note_id, "--json").json()["path"])
    path.write_text(path.read_text() + f"\nthe deploy token is {TOKEN}\n")
    return path


def test_a_clean_store_scans_clean(env: Env) -> None:
    filled_store(env)
    result = env.run("secrets", "scan")
    assert result.code == 0, result.err
    assert result.out.strip() == "no secrets in 2 note file(s)"
    data = env.run("secrets", "scan", "--json").json()
    assert data["files"] == [] and data["scanned"] == 2


def test_scan_finds_a_hand_edited_secret_and_never_prints_it(env: Env, tmp_path: Path) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    path = hand_edited(env, write(env, "Deploy", "how to deploy"))
    outside = tmp_path / "outside.md"  # behind a link: never read
    outside.write_text(f"token {TOKEN}\n")
    (path.parent / "link.md").symlink_to(outside)
    result = env.run("secrets", "scan")
    assert result.code == 1
    rel = path.relative_to(env.home).as_posix()
    assert f"{rel}: 1 secret(s)" in result.out
    assert "link.md" not in result.out
    assert "--fix" in result.err and "rotate" in result.err
    as_json = env.run("secrets", "scan", "--json")
    assert as_json.code == 1
    assert [(f["path"], f["secrets"]) for f in as_json.json()["files"]] == [(rel, 1)]
    for run in (result, as_json):
        assert TOKEN not in run.out + run.err
        assert TOKEN[4:20] not in run.out + run.err
    assert TOKEN in path.read_text()  # a scan changes nothing


def _key_body() -> str:
    """A private key's body as PEM lines: DER that opens as PKCS#8 does, the rest random
    (the right length for its header, so none of it is a real key)."""
    der = bytes.fromhex("308204bc020100300d06092a864886f70d0101010500")
    raw = base64.b64encode(der + random.Random(38).randbytes(1216 - len(der))).decode()
    return "\n".join(raw[i : i + 64] for i in range(0, len(raw), 64))


# Each form a secret slipped through in once (issue 38), as typed into a note by hand: the
# text, and a piece of the secret that must not survive --fix.
_BODY = _key_body()
SLIPPED = {
    "url-raw-password": ("DATABASE_URL=postgres://app:Wx7#qR2p9z@db.internal/app", "Wx7#qR2p"),
    "glued-token": (f"export GH_TOKEN{TOKEN}", TOKEN),
    "url-encoded-token": (f"https://app.acme.dev/cb?next=%2Fs%3Fgh%3D{TOKEN}%26t%3D1", TOKEN),
    "zero-width": (f"the token is {TOKEN[:10]}\u200b{TOKEN[10:]}", TOKEN[10:]),
    "key-body": (f"{_BODY}\n-----END PRIVATE KEY-----", _BODY.splitlines()[3]),
    "key-body-alone": (f"pasted:\n{_BODY}\n", _BODY.splitlines()[5]),
}


def test_scan_finds_every_form_that_slipped_through_and_fix_masks_it(env: Env) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    paths = {}
    for name, (text, _) in SLIPPED.items():
        path = Path(env.run("show", write(env, name, "typed by hand"), "--json").json()["path"])
        path.write_text(path.read_text() + f"\n{text}\n", encoding="utf-8")
        paths[name] = path.relative_to(env.home).as_posix()
    found = env.run("secrets", "scan", "--json")
    assert found.code == 1
    counts = {f["path"]: f["secrets"] for f in found.json()["files"]}
    assert {name: counts.get(rel, 0) for name, rel in paths.items()} == dict.fromkeys(SLIPPED, 1)
    fixed = env.run("secrets", "scan", "--fix", "--json")
    assert fixed.code == 0, fixed.err
    for name, (_, piece) in SLIPPED.items():
        assert piece not in (env.home / paths[name]).read_text(encoding="utf-8"), name
    assert env.run("secrets", "scan").code == 0


def test_fix_masks_in_place_and_commits_once(tmp_path: Path) -> None:
    laptop, desktop, remote = machines(tmp_path)
    portable_id = write(laptop, "Deploy", "how to deploy")
    local_id = write(laptop, "Local", "machine-local", "--scope", "machine-local")
    assert laptop.run("sync").code == 0
    assert desktop.run("sync").code == 0
    portable, local = hand_edited(laptop, portable_id), hand_edited(laptop, local_id)
    memory = laptop.home / "memory"
    before = len(commit_messages(memory))
    fixed = laptop.run("secrets", "scan", "--fix")
    assert fixed.code == 0, fixed.err
    assert TOKEN not in fixed.out + fixed.err
    assert "masked 2 secret(s)" in fixed.out and "rotate" in fixed.out
    for path in (portable, local):
        text = path.read_text()
        assert TOKEN not in text and "[REDACTED]" in text
    with Repo(str(memory)) as repo:
        assert len(list(repo.get_walker())) == before + 1  # one commit for the masking
        head = repo[repo.head()]
        assert isinstance(head, Commit)
        assert b"secrets scan --fix: masked 1 secret(s) in 1 note(s)" in head.message
    assert laptop.run("status", "--json").json()["sync"]["dirty"] is False
    # The notes are still notes: readable, searchable, with the secret masked.
    shown = laptop.run("search", "deploy", "--json").json()
    assert shown and TOKEN not in str(shown)
    assert laptop.run("secrets", "scan").code == 0
    # What syncs is the masked version.
    assert laptop.run("sync").code == 0
    assert desktop.run("sync").code == 0
    assert all(TOKEN not in p.read_text() for p in note_files(desktop))
    assert len(commit_messages(remote)) == before + 1


def test_fix_without_a_sync_repository_masks_and_commits_nothing(env: Env) -> None:
    note = write(env, "Deploy", "how to deploy")  # never ran init: no memory/.git
    path = hand_edited(env, note)
    fixed = env.run("secrets", "scan", "--fix", "--json")
    assert fixed.code == 0, fixed.err
    data = fixed.json()
    assert data["commit"] is None and data["files"][0]["masked"] is True
    assert TOKEN not in path.read_text()
    assert not (env.home / "memory" / ".git").exists()


def test_a_secret_outside_a_note_file_is_reported_but_left_to_fix_by_hand(env: Env) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    other = env.home / "memory" / "scratch.txt"
    other.write_text(f"token={TOKEN}\n")
    fixed = env.run("secrets", "scan", "--fix")
    assert fixed.code == 1
    assert "memory/scratch.txt: 1 secret(s) (NOT masked): not a note file" in fixed.out
    assert "by hand" in fixed.err
    assert TOKEN not in fixed.out + fixed.err
    assert TOKEN in other.read_text()
