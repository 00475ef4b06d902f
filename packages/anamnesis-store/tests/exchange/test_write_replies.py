"""What a writer is told about a note it just wrote: the live notes it may contradict,
each named as the other note of the pair, the same for every writer."""

from __future__ import annotations

import logging

import pytest

from anamnesis.store import (
    MemoryStore,
    batch_contradictions,
    contradictions_reply,
    difference_text,
    differences_text,
    reply_line,
)

WEB = "github.com/acme/web"


def test_the_reply_names_the_other_note_and_what_differs(store: MemoryStore) -> None:
    old = store.write(type="semantic", title="Dev server port", project=WEB,
                      body="The dev server listens on port 3000.")  # fmt: skip
    new = store.write(type="semantic", title="Dev server port", project=WEB,
                      body="The dev server listens on port 5173.")  # fmt: skip
    (entry,) = contradictions_reply(store, new)
    assert (entry["id"], entry["title"]) == (old.id, "Dev server port")
    assert any(d["old"] == "3000" and d["new"] == "5173" for d in entry["differs"])
    # From the older note's side, the newer one is the other: differs still older first.
    (back,) = contradictions_reply(store, old)
    assert back["id"] == new.id and back["differs"] == entry["differs"]
    assert batch_contradictions(store, [new]) == [{"note": new.id, **entry}]
    assert reply_line(entry).startswith(f"{old.id} (Dev server port): ")
    assert "3000 -> 5173" in reply_line(entry)


def test_a_note_that_contradicts_nothing_gets_an_empty_reply(store: MemoryStore) -> None:
    note = store.write(type="procedural", title="Run the tests", body="uv run pytest -q")
    assert contradictions_reply(store, note) == []
    assert batch_contradictions(store, [note]) == []


def test_a_store_that_cannot_tell_says_nothing_and_logs_why(
    store: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    note = store.write(type="semantic", title="Dev server port", body="port 3000")
    with caplog.at_level(logging.WARNING, logger="anamnesis.store"):
        assert contradictions_reply(store, note, limit=-1) == []  # the store refuses it
    assert f"could not check {note.id} for contradictions" in caplog.text


@pytest.mark.parametrize(
    ("difference", "said"),
    [
        ({"kind": "port", "subject": "dev server port", "old": "3000", "new": "5173"},
         "dev server port: 3000 -> 5173"),
        ({"kind": "negation", "subject": "yarn", "old": "use yarn", "new": "never use yarn"},
         'yarn: "use yarn" -> "never use yarn"'),
        ({"kind": "flag", "subject": "", "old": "--frozen", "new": ""},
         "flag: --frozen -> (not said)"),
    ],
)  # fmt: skip
def test_a_difference_in_words(difference: dict[str, str], said: str) -> None:
    assert difference_text(difference) == said
    assert differences_text([difference, difference]) == f"{said}; {said}"
