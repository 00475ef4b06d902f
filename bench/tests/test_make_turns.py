"""realmem-turns (bench/common/corpora/make_turns.py): the same corpus from the same source
whatever the process, and every question answered by exactly one note, which holds its
anchor. Needs ../shared's realmem (skips without it), but the parsing tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.common.corpora import make_turns
from bench.common.places import REPO

SESSION: dict[str, object] = {
    "id": "s1",
    "project": "ada",
    "body": (
        "Session Travel_Planning_1:S1_01 | 2026-03-02 (Monday) | user: Ada Lovelace\n\n"
        "User: I land in Lyon on March 14th and have EUR 1,200 to spend.\n\n"
        "Assistant: Noted: Lyon, March 14th, EUR 1,200.\n\n"
        "Assistant: Shall we plan the first day?\n\n"
        "User: Yes. My friend Tunde joins on the 16th.\n\n"
        "Assistant: Great, I'll add Tunde."
    ),
}

needs_realmem = pytest.mark.skipif(
    not make_turns.SOURCE.is_file(), reason=f"{make_turns.SOURCE} not found (../shared)"
)


def test_a_session_is_cut_into_exchanges_each_with_the_header() -> None:
    notes = make_turns.make_notes([SESSION])
    assert [n["id"] for n in notes] == ["t0001", "t0002"]
    first, second = (str(n["body"]) for n in notes)
    assert first.startswith("Session Travel_Planning_1:S1_01 | 2026-03-02")
    assert "User: I land in Lyon" in first and "Shall we plan the first day?" in first
    assert "Tunde" not in first and "User: Yes. My friend Tunde" in second
    assert notes[0]["title"] == "I land in Lyon on March 14th and have EUR 1,200 to spend."


def test_candidates_find_dates_numbers_names_and_rare_words() -> None:
    user_turn = (
        "User: I land in Lyon on March 14th and have EUR 1,200 to spend. Honestly marvellous."
    )
    found = {(a.kind, a.text) for a in make_turns.candidates(user_turn)}
    assert ("date", "March 14th") in found
    assert ("number", "EUR 1,200") in found
    assert ("name", "Lyon") in found
    assert ("rare", "marvellous") in found
    assert not any(kind == "name" and text.startswith("Honestly") for kind, text in found)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("turns")
    make_turns.write(folder, *make_turns.build())
    return folder


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@needs_realmem
@pytest.mark.slow
def test_the_corpus_is_the_same_in_another_process_with_another_hash_seed(
    built: Path, tmp_path: Path
) -> None:
    # Another interpreter, another PYTHONHASHSEED: set and dict orders must not leak in.
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    program = [sys.executable, "-m", "bench.common.corpora.make_turns", str(tmp_path)]
    subprocess.run(program, cwd=REPO, env=env, check=True, capture_output=True, timeout=300)
    for name in ("notes.jsonl", "queries.jsonl"):
        assert (tmp_path / name).read_bytes() == (built / name).read_bytes(), name


@needs_realmem
@pytest.mark.slow
def test_every_question_has_exactly_one_answer_note_and_it_holds_the_anchor(
    built: Path,
) -> None:
    notes = _rows(built / "notes.jsonl")
    queries = _rows(built / "queries.jsonl")
    assert len(queries) >= 300
    index = make_turns.Index(notes)
    position = {str(n["id"]): i for i, n in enumerate(notes)}
    for query in queries:
        relevant = query["relevant"]
        anchor, context = str(query["anchor"]), [str(w) for w in query["context"]]  # type: ignore[attr-defined]
        assert isinstance(relevant, list) and len(relevant) == 1, query
        answer = notes[position[relevant[0]]]
        assert anchor in str(answer["body"]), query
        assert anchor in str(query["query"]), query
        # Of the notes holding the anchor (several do), only the answer holds the context too.
        holders = index.holders(make_turns.words(anchor))
        assert len(holders) >= make_turns.MIN_HOLDERS, query
        stems = {make_turns.stem(word) for word in context}
        answering = [i for i in holders if stems <= index.stems[i]]
        assert answering == [position[relevant[0]]], query
