"""Validity in time at the command line: `write --valid-until / --review-after`, `edit`
setting and clearing them, `search --include-expired / --as-of`, `list` (the history, its
expired notes named; `--current`: what search finds) and `show` saying "expired" and "due
for review" plainly. A bad date is one line and exit status 2, as any other bad argument."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from anamnesis.store import MemoryStore
from cli_testing import Env, write


def _today(days: int = 0) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


@pytest.fixture
def notes(env: Env) -> dict[str, str]:
    """An expired note, a live one due for review, and one valid for another month."""
    return {
        "old": write(
            env,
            "Staging URL",
            "staging is at staging-old.example.com",
            "--valid-until",
            "2020-01-31",
        ),
        "due": write(
            env,
            "Staging URL now",
            "staging is at staging.example.com",
            "--review-after",
            "2020-06-01",
        ),
        "freeze": write(
            env, "Code freeze", "no deploys to staging during the freeze", "--valid-until", "+30d"
        ),
    }


def test_write_keeps_the_dates_and_a_time_from_today_becomes_a_date(
    env: Env, notes: dict[str, str]
) -> None:
    before = _today(30)
    shown = env.run("show", notes["freeze"], "--json").json()
    assert shown["valid_until"] in (before, _today(30))  # midnight may pass meanwhile
    assert (shown["expired"], shown["due"]) == (False, False)
    raw = env.run("show", notes["old"], "--raw").out
    assert "valid_until: '2020-01-31'" in raw  # the file holds the date, as written
    written = env.run(
        "write", "--title", "t", "body", "--review-after", "2030-01-01T10:00:00+02:00"
    )
    assert written.code == 0
    assert "review:   after 2030-01-01T08:00:00+00:00" in written.out  # made UTC, said back


def test_search_hides_an_expired_note_unless_asked_and_says_which(
    env: Env, notes: dict[str, str]
) -> None:
    found = env.run("search", "staging", "--json")
    assert {hit["id"] for hit in found.json()} == {notes["due"], notes["freeze"]}
    assert found.err_lines == ["anamnesis: keyword search: 2 results"]

    every = env.run("search", "staging", "--include-expired", "--json")
    flags = {hit["id"]: (hit["expired"], hit["due"]) for hit in every.json()}
    assert flags == {
        notes["old"]: (True, False),
        notes["due"]: (False, True),
        notes["freeze"]: (False, False),
    }
    assert every.err_lines == ["anamnesis: keyword search: 3 results, 1 expired"]
    table = env.run("search", "staging", "--include-expired").out.splitlines()
    assert table[0].split() == [
        "id", "score", "type", "project", "updated", "expired", "title"
    ]  # fmt: skip
    rows = {line.split()[0]: line.split()[5] for line in table[1:]}
    assert rows == {notes["old"]: "2020-01-31", notes["due"]: "-", notes["freeze"]: "-"}


def test_search_as_of_answers_as_the_memory_stood_then(env: Env, notes: dict[str, str]) -> None:
    store = MemoryStore(env.home)
    try:  # the expired note was written in January 2020, the others later
        old = store.get(notes["old"])
        store.put(old.replace(created_at="2020-01-10T09:00:00+00:00"))
    finally:
        store.close()
    then = env.run("search", "staging", "--as-of", "2020-01-31", "--json")
    assert [hit["id"] for hit in then.json()] == [notes["old"]]  # valid through the 31st
    assert then.json()[0]["expired"] is False  # as of then
    assert then.err_lines == ["anamnesis: keyword search: 1 result, as of 2020-01-31"]
    assert env.run("search", "staging", "--as-of", "2020-02-01", "--json").json() == []
    later = env.run("search", "staging", "--as-of", "2020-02-01", "--include-expired", "--json")
    assert [(hit["id"], hit["expired"]) for hit in later.json()] == [(notes["old"], True)]
    a_week_ago = env.run("search", "staging", "--as-of=-7d", "--json")
    assert {hit["id"] for hit in a_week_ago.json()} == set()  # written today: not yet then


def test_list_is_the_history_naming_expired_notes_and_current_is_what_search_finds(
    env: Env, notes: dict[str, str]
) -> None:
    listed = env.run("list").out.splitlines()
    assert listed[0].split() == ["id", "type", "project", "updated", "expired", "title"]
    assert {line.split()[0]: line.split()[4] for line in listed[1:]} == {
        notes["old"]: "2020-01-31", notes["due"]: "-", notes["freeze"]: "-"
    }  # fmt: skip
    as_json = {note["id"]: note["expired"] for note in env.run("list", "--json").json()}
    assert as_json == {notes["old"]: True, notes["due"]: False, notes["freeze"]: False}

    current = env.run("list", "--current").out.splitlines()
    assert current[0].split() == ["id", "type", "project", "updated", "title"]  # none expired
    assert {line.split()[0] for line in current[1:]} == {notes["due"], notes["freeze"]}
    assert {n["id"] for n in env.run("list", "--current", "--json").json()} == {
        notes["due"], notes["freeze"]
    }  # fmt: skip
    capped = env.run("list", "--current", "--limit", "1")
    assert capped.out.splitlines()[-1] == "... 1 more (--limit 0 shows all)"  # expired not counted


def test_show_says_expired_and_due_plainly(env: Env, notes: dict[str, str]) -> None:
    old = env.run("show", notes["old"]).out
    assert (
        "valid:    until 2020-01-31, expired: search leaves it out (--include-expired finds it)"
        in old
    )
    due = env.run("show", notes["due"]).out
    assert "review:   after 2020-06-01, due for review" in due
    assert "valid:" not in due
    freeze = env.run("show", notes["freeze"]).out
    assert "valid:    until " in freeze and ", expired" not in freeze and "review:" not in freeze


def test_edit_sets_and_clears_the_dates_and_marks_the_note_reviewed(
    env: Env, notes: dict[str, str]
) -> None:
    cleared = env.run("edit", notes["old"][:20], "--valid-until", "")
    assert cleared.code == 0, cleared.err
    assert cleared.out.splitlines()[0] == f"edited {notes['old']}  Staging URL"
    assert "valid:    no end date (cleared)" in cleared.out
    assert notes["old"] in {hit["id"] for hit in env.run("search", "staging", "--json").json()}

    edited = env.run("edit", notes["due"], "--review-after", "+6m", "--json").json()
    assert edited["review_after"] > _today() and edited["due"] is False
    assert edited["reviewed_at"].startswith(_today()[:4])  # a person's word: reviewed now
    assert edited["valid_until"] == ""  # untouched
    shown = env.run("show", notes["due"]).out
    assert "due for review" not in shown and "last reviewed: " in shown

    again = env.run("edit", notes["freeze"], "--valid-until", "2020-12-31", "--title", "Old freeze")
    assert again.code == 0
    assert notes["freeze"] not in {h["id"] for h in env.run("search", "staging", "--json").json()}
    assert env.run("show", notes["freeze"], "--json").json()["title"] == "Old freeze"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["write", "--title", "t", "b", "--valid-until", "next week"],
         "anamnesis write: --valid-until: 'next week' is not a date (2027-01-31), an ISO-8601 "
         "timestamp (2027-01-31T18:00:00+00:00) or a time from today (+30d, +2w, +6m, +1y)"),
        (["write", "--title", "t", "b", "--review-after", "2027-02-30"],
         "anamnesis write: --review-after: '2027-02-30' is not a date on the calendar"),
        (["search", "x", "--as-of", "yesterday"], "anamnesis search: --as-of: 'yesterday' is"),
        (["edit", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--valid-until", "31/01/2027"],
         "anamnesis edit: --valid-until: '31/01/2027' is not a date"),
        (["edit", "01ARZ3NDEKTSV4RRFFQ69G5FAV"],
         "anamnesis edit: nothing to change: give --valid-until, --review-after or --title"),
    ],
)  # fmt: skip
def test_a_bad_date_is_one_line_and_a_usage_error(env: Env, args: list[str], said: str) -> None:
    write(env, "seed", "so the store exists")
    result = env.run(*args)
    assert result.code == 2, (result.out, result.err)
    assert len(result.err_lines) == 1
    assert said in result.err
    assert result.out == ""


def test_nothing_is_written_when_a_date_is_bad(env: Env) -> None:
    write(env, "seed", "so the store exists")
    env.run("write", "--title", "t", "body", "--valid-until", "soon")
    assert [n["title"] for n in env.run("list", "--json").json()] == ["seed"]
