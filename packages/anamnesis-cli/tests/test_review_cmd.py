"""`anamnesis review`: possible contradictions with each side's provenance, the notes due
for review, `--json`'s shape, and settling: keep one (the other superseded, never
deleted), both right (never proposed again, a reindex included), edit (the pair checked
again), done (a due note confirmed); `review -i` through a real process and its stdin;
and `write`'s reply naming the notes a new one may contradict."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from anamnesis.store import MemoryStore
from cli_testing import Env, write
from tty_testing import cells, on_terminal

WEB = "github.com/acme/web"
API = "github.com/acme/api"
OLD_PORT = "The dev server listens on port 3000."
NEW_PORT = "The dev server listens on port 5173."
PAIR_KEYS = {"notes", "newer", "differs", "sides", "model", "wider"}  # model: a verdict or null
SIDE_KEYS = {"id", "title", "project", "type", "source", "prov_source", "agent", "machine",
             "created_at", "updated_at", "unconfirmed"}  # fmt: skip
DUE_KEYS = {"id", "title", "project", "type", "source", "review_after", "reviewed_at",
            "updated_at"}  # fmt: skip


def port_pair(env: Env) -> tuple[str, str]:
    """The older note a person wrote on this machine; the newer a captured session's,
    written by Claude Code on the desktop (a model's words: unconfirmed)."""
    old = write(env, "Dev server port", OLD_PORT, "-p", WEB)
    with MemoryStore(env.home) as store:
        new = store.write(
            type="semantic", title="Dev server port", body=NEW_PORT, project=WEB,
            machine_id="desktop", prov_source="session-end", prov_agent="claude-code",
        )  # fmt: skip
    return old, new.id


def review(env: Env, *args: str) -> dict[str, Any]:
    done = env.run("review", "--json", *args)
    assert done.code == 0, done.err
    listed: dict[str, Any] = done.json()
    return listed


def listed_pairs(env: Env, *args: str) -> list[list[str]]:
    return [pair["notes"] for pair in review(env, *args)["contradictions"]]


def due_note(env: Env, title: str = "Staging database host", **fields: Any) -> str:
    with MemoryStore(env.home) as store:
        note = store.write(
            type="semantic", title=title, body="staging uses db-stg-2", project=API,
            review_after="2020-01-01", **fields,
        )  # fmt: skip
    return note.id


def test_a_pair_is_listed_with_what_differs_and_where_each_side_came_from(env: Env) -> None:
    old, new = port_pair(env)
    listed = review(env)
    assert set(listed) == {"contradictions", "due"}
    (pair,) = listed["contradictions"]
    assert set(pair) == PAIR_KEYS
    assert pair["notes"] == [old, new] and pair["newer"] == new
    assert pair["differs"] and all(
        set(d) == {"kind", "subject", "old", "new"} for d in pair["differs"]
    )
    assert any(d["old"] == "3000" and d["new"] == "5173" for d in pair["differs"])
    older, newer = pair["sides"]
    assert set(older) == SIDE_KEYS == set(newer)
    assert (older["source"], older["machine"], older["unconfirmed"]) == ("you", "laptop", False)
    assert (newer["source"], newer["agent"], newer["machine"]) == (
        "captured", "claude-code", "desktop"
    )  # fmt: skip
    assert newer["unconfirmed"] is True

    plain = env.run("review")
    assert plain.code == 0, plain.err
    text = plain.out
    assert "1 possible contradiction" in text and "3000 -> 5173" in text
    assert f"older  {old}  Dev server port" in text
    assert f"newer  {new}  Dev server port" in text
    assert "you \u00b7 laptop" in text
    assert "captured \u00b7 claude-code \u00b7 desktop" in text and "unconfirmed" in text
    assert "`anamnesis review keep ID --over OTHER_ID`" in " ".join(text.split())
    assert "no notes due for review" in text


def test_nothing_to_review_says_so(env: Env) -> None:
    write(env, "Use uv run", "Always run the tests with uv run pytest.", "-p", WEB)
    assert review(env) == {"contradictions": [], "due": []}
    plain = env.run("review")
    assert plain.code == 0 and plain.out.strip() == (
        "no possible contradictions, and no notes due for review"
    )


def test_due_notes_are_listed_after_the_pairs(env: Env) -> None:
    due = due_note(env)
    with MemoryStore(env.home) as store:  # not due yet, and due but confirmed since
        store.write(type="semantic", title="Later", body="x", review_after="2999-01-01")
        store.write(type="semantic", title="Confirmed", body="y", review_after="2020-01-01",
                    reviewed_at="2021-01-01T00:00:00+00:00")  # fmt: skip
    listed = review(env)
    assert listed["contradictions"] == []
    (entry,) = listed["due"]
    assert set(entry) == DUE_KEYS
    assert entry["id"] == due and entry["review_after"] == "2020-01-01"
    assert (entry["reviewed_at"], entry["source"], entry["project"]) == ("", "you", API)
    plain = env.run("review").out
    assert "1 note due for review" in plain and due in plain and "never" in plain
    assert "`anamnesis review done ID`" in " ".join(plain.split())


def test_project_and_limit_filter_the_listing(env: Env) -> None:
    web = port_pair(env)
    api_old = write(env, "API port", "The API listens on port 8080.", "-p", API)
    api_new = write(env, "API port", "The API listens on port 9090.", "-p", API)
    api_due = due_note(env)
    assert listed_pairs(env, "--project", WEB) == [list(web)]
    only_api = review(env, "--project", API)
    assert [p["notes"] for p in only_api["contradictions"]] == [[api_old, api_new]]
    assert [d["id"] for d in only_api["due"]] == [api_due]
    assert len(listed_pairs(env)) == 2
    assert listed_pairs(env, "--limit", "1") == [[api_old, api_new]]  # the newest pair
    plain = env.run("review", "--limit", "1").out
    assert "2 possible contradictions (the newest 1; --limit 0 shows all)" in plain
    assert env.run("review", "--limit", "-1").code == 2


def test_keep_supersedes_the_other_and_never_deletes_it(env: Env) -> None:
    old, new = port_pair(env)
    done = env.run("review", "keep", new[:12], "--over", old[:12])  # prefixes resolve
    assert done.code == 0, done.err
    assert f"kept {new}" in done.out and f"{old} (Dev server port) is superseded" in done.out
    assert listed_pairs(env) == []
    shown = env.run("show", old, "--json").json()
    assert shown["superseded_by"] == [new] and shown["body"] == OLD_PORT  # kept whole
    assert old in {note["id"] for note in env.run("list", "--json").json()}
    assert [hit["id"] for hit in env.run("search", "dev server port", "--json").json()] == [new]
    with MemoryStore(env.home) as store:
        assert store.get(new).reviewed_at  # a person kept it: confirmed
    again = env.run("review", "keep", new, "--over", old)
    assert again.code == 0 and "already settled" in again.out


def test_keeping_the_older_note_hides_the_newer(env: Env) -> None:
    old, new = port_pair(env)
    assert env.run("review", "keep", old, "--over", new).code == 0
    assert env.run("show", new, "--json").json()["superseded_by"] == [old]
    assert [hit["id"] for hit in env.run("search", "dev server port", "--json").json()] == [old]


def test_both_right_is_never_proposed_again_even_after_a_reindex(env: Env) -> None:
    old, new = port_pair(env)
    done = env.run("review", "both", old, new[:10])
    assert done.code == 0, done.err
    assert "both right" in done.out
    assert listed_pairs(env) == []
    with MemoryStore(env.home) as store:
        a, b = store.get(old), store.get(new)
        assert (a.compatible_with, b.compatible_with) == ([new], [old])
        assert a.reviewed_at and b.reviewed_at
        # In the files, which is what syncs: the index is only derived from them.
        assert new in store.file_of(old).read_text() and old in store.file_of(new).read_text()
    rebuilt = env.run("reindex")
    assert rebuilt.code == 0, rebuilt.err
    assert listed_pairs(env) == []
    # Neither note is hidden: both stay live and found.
    hits = {hit["id"] for hit in env.run("search", "dev server port", "--json").json()}
    assert hits == {old, new}
    again = env.run("review", "both", new, old)
    assert again.code == 0 and "already settled" in again.out


def test_mistakes_are_said_plainly_and_change_nothing(env: Env) -> None:
    old, new = port_pair(env)
    other = write(env, "Dev server port", "The dev server listens on port 4000.", "-p", API)
    unrelated = write(env, "Backups", "Postgres is backed up nightly.", "-p", WEB)
    missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    cases = [
        (("keep", missing, "--over", old), 1, f"no note with id {missing}"),
        (("both", old, "ZZZZZZ"), 1, "no note"),
        (("keep", new, "--over", other), 1, f"{new} is a note of project {WEB} and {other} of"),
        (("both", old, unrelated), 1, "are not a possible contradiction (any more)"),
        (("keep", old, "--over", old), 2, "named twice"),
        (("keep", old), 2, "--over"),
    ]
    for args, code, words in cases:
        done = env.run("review", *args)
        assert done.code == code, (args, done.err)
        assert words in " ".join(done.err.split()), (args, done.err)
    assert listed_pairs(env) == [[old, new]]  # nothing was settled
    assert env.run("review", "keep", new, "--over", old).code == 0
    # Once superseded, the note is in no pair any more: both right is refused, and why.
    late = env.run("review", "both", old, new)
    assert late.code == 1 and f"{old} is already superseded (by {new})" in late.err


def editor(env: Env, script: str) -> str:
    """A fake $EDITOR: a Python script run with the file's path."""
    path = env.root / "bin" / "fake-editor"
    path.write_text(f"#!{sys.executable}\nimport pathlib, sys\npath = pathlib.Path(sys.argv[1])\n"
                    + script)  # fmt: skip
    path.chmod(0o755)
    return str(path)


def test_edit_opens_the_note_and_checks_the_pair_again(env: Env) -> None:
    old, new = port_pair(env)
    env.variables["EDITOR"] = editor(
        env, "path.write_text(path.read_text().replace('3000', '5173'))\n"
    )
    done = env.run_process("review", "edit", old)
    assert done.code == 0, done.err
    assert f"edited {old}" in done.out and f"no longer contradicts {new}" in done.out
    assert listed_pairs(env) == []
    with MemoryStore(env.home) as store:
        edited = store.get(old)
        assert edited.body == NEW_PORT and edited.reviewed_at  # a person's edit confirms it


def test_an_edit_that_leaves_the_pair_says_it_still_stands(env: Env) -> None:
    old, new = port_pair(env)
    env.variables["EDITOR"] = editor(env, "path.write_text(path.read_text() + '\\nChecked.\\n')\n")
    done = env.run_process("review", "edit", new)
    assert done.code == 0, done.err
    assert f"still contradicts {old}" in done.out
    env.variables["EDITOR"] = editor(env, "pass\n")
    unchanged = env.run_process("review", "edit", new)
    assert unchanged.code == 0 and f"{new} is unchanged" in unchanged.out
    env.variables["EDITOR"] = editor(env, "sys.exit(3)\n")
    failed = env.run_process("review", "edit", new)
    assert failed.code == 1 and "exited with status 3" in failed.err


def test_edit_without_an_editor_points_to_the_file(env: Env) -> None:
    old, _new = port_pair(env)
    env.variables.pop("EDITOR", None)
    env.variables.pop("VISUAL", None)
    done = env.run("review", "edit", old)
    assert done.code == 0, done.err
    with MemoryStore(env.home) as store:
        assert str(store.file_of(old)) in done.out and "set $EDITOR" in done.out


def test_done_confirms_a_due_note_and_moves_its_date(env: Env) -> None:
    first, second, third = due_note(env, "One"), due_note(env, "Two"), due_note(env, "Three")
    done = env.run("review", "done", first, "--next", "30d")
    assert done.code == 0, done.err
    expected = (datetime.now(UTC) + timedelta(days=30)).date().isoformat()
    assert f"asked again from {expected}" in done.out
    assert env.run("review", "done", second, "--next", "never").code == 0
    assert env.run("review", "done", third).code == 0  # review_after stays, passed
    assert review(env)["due"] == []
    with MemoryStore(env.home) as store:
        notes = [store.get(i) for i in (first, second, third)]
    assert [n.review_after for n in notes] == [expected, "", "2020-01-01"]
    assert all(n.reviewed_at for n in notes)
    bad = env.run("review", "done", first, "--next", "soon")
    assert bad.code == 2 and "--next must be a number of days" in bad.err


def test_interactive_review_reads_its_answers_from_stdin(env: Env) -> None:
    web_old, web_new = port_pair(env)
    api_old = write(env, "API port", "The API listens on port 8080.", "-p", API)
    api_new = write(env, "API port", "The API listens on port 9090.", "-p", API)
    due = due_note(env)
    # Newest pair first (the API's): keep its older note; then the web pair: both right;
    # then the due note: done.
    done = env.run_process("review", "-i", stdin="1\nb\nd\n")
    assert done.code == 0, done.err
    assert "[1] keep older" in done.out and "settled 3" in done.out
    assert env.run("show", api_new, "--json").json()["superseded_by"] == [api_old]
    with MemoryStore(env.home) as store:
        assert store.get(web_old).compatible_with == [web_new]
        assert store.get(due).reviewed_at
    assert review(env) == {"contradictions": [], "due": []}


def test_interactive_review_skips_quits_and_survives_nonsense(env: Env) -> None:
    old, new = port_pair(env)
    skipped = env.run_process("review", "-i", stdin="x\ns\n")
    assert skipped.code == 0, skipped.err
    assert "answer 1, 2, b, e or s (q quits)" in skipped.out and "settled 0" in skipped.out
    quit_ = env.run_process("review", "-i", stdin="q\n")
    assert quit_.code == 0 and "settled 0" in quit_.out
    ended = env.run_process("review", "-i", stdin="")  # stdin ends: quit
    assert ended.code == 0 and "settled 0" in ended.out
    assert listed_pairs(env) == [[old, new]]
    assert env.run("review", "-i", "--json").code == 2


def test_write_says_which_live_notes_a_new_note_may_contradict(env: Env) -> None:
    old = write(env, "Dev server port", OLD_PORT, "-p", WEB)
    done = env.run("write", "--title", "Dev server port", "-p", WEB, NEW_PORT, "--json")
    assert done.code == 0, done.err
    written = done.json()
    (entry,) = written["possible_contradictions"]
    assert set(entry) == {"id", "title", "differs"}
    assert (entry["id"], entry["title"]) == (old, "Dev server port")
    assert any(d["old"] == "3000" and d["new"] == "5173" for d in entry["differs"])

    plain = env.run("write", "--title", "Dev server port", "-p", WEB,
                    "The dev server listens on port 8080.")  # fmt: skip
    assert plain.code == 0, plain.err
    newest = plain.out.split()[1]
    warning = " ".join(plain.err.split())
    assert f"may contradict {old} (Dev server port)" in warning
    assert f"`anamnesis review keep {newest} --over ID`" in warning  # two notes: either
    alone = env.run("write", "--title", "Backups", "-p", WEB, "Nightly.", "--json")
    assert alone.json()["possible_contradictions"] == [] and alone.err == ""


def test_write_after_a_settled_pair_says_nothing_of_it(env: Env) -> None:
    old, new = port_pair(env)
    assert env.run("review", "keep", new, "--over", old).code == 0
    again = env.run("write", "--title", "Dev server port", "-p", WEB, NEW_PORT, "--json")
    assert old not in json.dumps(again.json()["possible_contradictions"])


@pytest.mark.parametrize("columns", [80, 60])
def test_the_listing_fits_the_terminal(env: Env, columns: int) -> None:
    old, new = port_pair(env)
    due_note(env, "A due note with a rather long title that a narrow terminal has to cut")
    screen = on_terminal(env, "review", columns=columns)
    assert screen.code == 0, screen.err
    assert all(cells(line) <= columns for line in screen.lines), screen.text
    assert old in screen.text and new in screen.text  # ids whole, copyable
    assert "unconfirmed" in screen.text


def test_review_help_names_the_json_shape(env: Env) -> None:
    done = env.run("review", "--help")
    assert done.code == 0
    text = " ".join(done.out.split())
    assert '{"contradictions": [...], "due": [...]}' in text
    for command in ("keep", "both", "edit", "done"):
        assert command in text
