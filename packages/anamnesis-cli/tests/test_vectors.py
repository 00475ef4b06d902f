"""The vectors extra through the `anamnesis` command: the real (offline) model, sqlite-vec.

Skipped, with the reason, where the extra, a sqlite3 that loads extensions or the offline
model in ../shared is missing (`.venv-sys` and nox have all three). A process that embeds
loads the model (about 1.5 s), so most of these run the command in this process, where
the imports are paid once. The fallback (a model that cannot load) runs everywhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from anamnesis_testsupport import OFFLINE_MODEL, vectors_unavailable_reason

from anamnesis.cli.doctor import OK, WARN
from anamnesis.cli.doctor_vectors import vectors_check
from anamnesis.store import MemoryStore, vector_support
from cli_testing import DATA, Env, in_process

REASON = vectors_unavailable_reason()
needs_vectors = pytest.mark.skipif(REASON is not None, reason=REASON or "")
PARAPHRASE = "bring back my terminal multiplexer layout when the machine boots again"
KEYWORDS = "SQLSTATE 40P01"


def seed(home: Path) -> dict[str, str]:
    """The notes of data/recall_notes.jsonl, written as a user would: {file id: store id}."""
    ids: dict[str, str] = {}
    with MemoryStore(home) as store:
        for line in (DATA / "recall_notes.jsonl").read_text().splitlines():
            row = json.loads(line)
            supersedes = [ids[row["supersedes"]]] if row.get("supersedes") else []
            note = store.write(type=row["type"], title=row["title"], body=row["body"],
                               project=row["project"], supersedes=supersedes)  # fmt: skip
            ids[row["id"]] = note.id
    return ids


@pytest.fixture
def vectors_on(env: Env, monkeypatch: pytest.MonkeyPatch) -> Env:
    """The store's own default mode and the offline model, here and in child processes."""
    env.use_vectors(OFFLINE_MODEL)
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))
    return env


@needs_vectors
def test_hybrid_search_finds_a_paraphrase_that_keywords_miss(
    vectors_on: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    env = vectors_on
    ids = seed(env.home)
    keyword = env.run("search", PARAPHRASE, "--mode", "keyword", "--json")
    assert keyword.code == 0 and ids["n1"] not in [hit["id"] for hit in keyword.json()]
    hybrid = env.run("search", PARAPHRASE, "--mode", "hybrid", "--json")
    assert hybrid.code == 0 and hybrid.err_lines[0].startswith("anamnesis: hybrid search: ")
    assert hybrid.json()[0]["id"] == ids["n1"] and hybrid.json()[0]["mode"] == "hybrid"
    assert 0 < hybrid.json()[0]["score"] <= 1
    # No --mode: the store's default, hybrid where the extra runs.
    default = in_process(capsys, "search", PARAPHRASE, "-k", "1")
    assert default.code == 0 and default.err_lines == ["anamnesis: hybrid search: 1 result"]
    header, row = default.out.splitlines()
    assert header.split() == ["id", "score", "type", "project", "updated", "title"]
    assert row.startswith(ids["n1"])
    # A query that shares nothing with any note finds nothing, in every mode.
    for mode in ("keyword", "vector", "hybrid"):
        nothing = env.run("search", "qzxv blorft wugglepox", "--mode", mode, "--json")
        assert nothing.code == 0 and nothing.json() == [], (mode, nothing.out)
        assert nothing.err_lines == [f"anamnesis: {mode} search: 0 results"]


WHY_KEYS = {
    "query_kind", "anchors", "keyword_weight", "vector_weight", "keyword_score",
    "keyword_relative", "keyword_rank", "vector_score", "vector_rank", "exact_keyword_hit",
    "information", "held_information", "information_weight", "keyword_evidence",
}  # fmt: skip


@needs_vectors
def test_search_json_says_why_each_hit_ranked_where_it_did(vectors_on: Env) -> None:
    env = vectors_on
    ids = seed(env.home)
    # An error code: keyword evidence leads, and the anchors that made it lexical are named.
    exact = env.run("search", KEYWORDS, "--mode", "hybrid", "--json")
    assert exact.code == 0, exact.err
    hits = exact.json()
    assert hits[0]["id"] == ids["n2"]
    for hit in hits:
        why = hit["why"]
        assert set(why) == WHY_KEYS
        assert why["query_kind"] == "lexical"
        # The fused score is the two kinds of evidence, weighed as said; a look-up's keyword
        # evidence counts the hit's share of the query's information beside its BM25.
        fused = why["keyword_weight"] * why["keyword_evidence"] + why["vector_weight"] * (
            why["vector_score"] or 0.0
        )
        assert hit["score"] == pytest.approx(fused, abs=1e-6)
        if why["keyword_relative"]:
            i = why["information_weight"]
            assert i > 0 and why["keyword_evidence"] == pytest.approx(
                why["keyword_relative"] ** (1 - i) * why["held_information"] ** i, abs=1e-6
            )
    top = hits[0]["why"]
    assert {"text": "40P01", "kind": "identifier", "notes": 1} in top["anchors"]
    assert top["keyword_rank"] == 1 and top["keyword_relative"] == 1.0
    assert top["keyword_score"] > 0 and isinstance(top["vector_rank"], int)
    assert top["keyword_weight"] > top["vector_weight"]  # keywords lead
    assert 0.35 <= top["information"] <= 1.0  # its best hit holds the query's IDF (a look-up)
    # A paraphrase sharing no exact anchor: vectors lead.
    meaning = env.run("search", PARAPHRASE, "--mode", "hybrid", "--json").json()
    assert meaning[0]["id"] == ids["n1"]
    first = meaning[0]["why"]
    assert first["query_kind"] == "paraphrase" and first["anchors"] == []
    assert first["vector_weight"] > first["keyword_weight"]
    assert first["information_weight"] == 0.0 and first["held_information"] is None
    assert first["vector_rank"] == 1
    # Keyword search explains its own side only.
    alone = env.run("search", KEYWORDS, "--mode", "keyword", "--json").json()
    assert alone[0]["why"] == {
        "query_kind": None, "anchors": [], "keyword_weight": 1.0, "vector_weight": 0.0,
        "keyword_score": alone[0]["score"], "keyword_relative": 1.0, "keyword_rank": 1,
        "vector_score": None, "vector_rank": None, "exact_keyword_hit": False,
        "information": None, "held_information": None, "information_weight": 0.0,
        "keyword_evidence": 1.0,
    }  # fmt: skip


@needs_vectors
def test_eval_run_on_a_notes_file_measures_every_mode(
    vectors_on: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    env = vectors_on
    args = ["eval", "run", "--cases", str(DATA / "recall_cases.jsonl"),
            "--notes", str(DATA / "recall_notes.jsonl")]  # fmt: skip
    human = env.run(*args)
    assert human.code == 0 and human.err == ""
    rows = {line.split()[0]: line.split() for line in human.out.splitlines()[2:5]}
    assert list(rows) == ["keyword", "vector", "hybrid"]
    assert rows["hybrid"][5] == "1.000"  # R@8: every paraphrase found
    assert float(rows["keyword"][5]) < 1.0
    data = in_process(capsys, *args, "--json").json()
    assert [mode["mode"] for mode in data["modes"]] == ["keyword", "vector", "hybrid"]
    hybrid = {case["qid"]: case for case in data["results"]["hybrid"]}
    assert hybrid["tmux"]["retrieved"][0] == "n1"  # the file's own ids
    assert hybrid["release"]["retrieved"][0] == "n6"  # the note superseding n5 counts
    assert {kind: len(parts) for kind, parts in data["by_kind"].items()} == {
        "keyword": 3, "paraphrase": 3,
    }  # fmt: skip
    assert not any((env.home / "memory").rglob("*.md"))  # the user's store was never touched


@needs_vectors
def test_reindex_embeds_once_and_status_shows_it(
    vectors_on: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    env = vectors_on
    seed(env.home)
    first = env.run_on_terminal("reindex")
    assert first.code == 0, first.err
    assert first.out == "indexed 6 notes\nembedded 6 notes for vector search\n"
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", first.err)  # the frames, without colours
    assert re.search(r"Indexing notes ━+ 6/6", drawn)  # each phase under its own label
    assert re.search(r"Embedding ━+ 0/6", drawn)  # its total before the model loads, not 0/?
    again = in_process(capsys, "reindex", "--json")
    assert again.code == 0 and again.json()["embedded"] == 0  # cached by content and model
    status = in_process(capsys, "status", "--json").json()["vectors"]
    assert status["available"] is True and status["default_mode"] == "hybrid"
    assert "all-MiniLM-L6-v2" in status["model"]
    assert (status["embedded"], status["pending"]) == (6, 0)
    with MemoryStore(env.home) as store:
        store.write(type="semantic", title="New", body="not embedded yet")
    human = in_process(capsys, "status").out
    assert "search:   hybrid by default" in human
    assert "6 embedded, 1 note waiting to be embedded; nothing is embedding them now" in human
    skipped = in_process(capsys, "reindex", "--no-embed", "--json")
    assert skipped.code == 0 and skipped.json()["embedded"] is None


@needs_vectors
def test_doctor_loads_the_model_and_says_what_is_wrong_with_a_bad_one(
    vectors_on: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check = vectors_check(vectors_on.home, offline=True)  # a local model: loaded even so
    assert check.status == OK, check
    assert f"from {OFFLINE_MODEL} loads (384 dimensions)" in check.detail
    assert "default search: hybrid" in check.detail
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(tmp_path / "empty"))
    empty = vectors_check(vectors_on.home, offline=False)
    assert empty.status == WARN and "no ONNX model" in empty.detail
    assert "ANAMNESIS_EMBED_MODEL_PATH" in empty.fix


def test_a_model_that_cannot_load_is_one_notice_and_keyword_results(
    env: Env, tmp_path: Path
) -> None:
    ids = seed(env.home)
    garbage = tmp_path / "garbage-model"
    garbage.mkdir()
    (garbage / "model.onnx").write_bytes(b"not an ONNX model")
    env.use_vectors(garbage)
    keyword = env.run("search", KEYWORDS, "--mode", "keyword", "--json")
    assert [hit["id"] for hit in keyword.json()] == [ids["n2"]]
    hybrid = env.run("search", KEYWORDS, "--mode", "hybrid", "--json")
    assert hybrid.code == 0
    assert [hit["id"] for hit in hybrid.json()] == [ids["n2"]]
    assert [hit["mode"] for hit in hybrid.json()] == ["keyword"]  # what actually ran
    # Why depends on this Python (its sqlite3, or the model): said once, the CLI's way.
    assert len(hybrid.err_lines) == 1, hybrid.err
    assert hybrid.err_lines[0].startswith(
        "anamnesis: keyword search: 1 result (hybrid was asked for, but "
    )
    assert hybrid.err_lines[0].endswith("`anamnesis doctor` says how to fix it)")
    reindexed = env.run("reindex", "--json")
    assert reindexed.code == 0 and reindexed.json()["embedded"] is None
    # Where the extra runs the model's failure is news (one notice); elsewhere the extra
    # is simply off and reindex stays quiet about it.
    assert len(reindexed.err_lines) == (1 if vector_support().available else 0), reindexed.err


def test_eval_with_a_model_that_cannot_load_measures_keywords_with_one_notice(
    env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage-model"
    garbage.mkdir()
    (garbage / "model.onnx").write_bytes(b"not an ONNX model")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(garbage))
    args = ["eval", "run", "--cases", str(DATA / "recall_cases.jsonl"),
            "--notes", str(DATA / "recall_notes.jsonl")]  # fmt: skip
    result = in_process(capsys, *args, "--json")
    assert result.code == 0, result.err
    assert [mode["mode"] for mode in result.json()["modes"]] == ["keyword"]
    # Found out before embedding (this Python) or when the model failed to load: either
    # way one notice in eval's words, not the store's fallback notice as well.
    assert len(result.err_lines) == 1, result.err
    assert result.err_lines[0].startswith(
        "anamnesis: vector search cannot run, measuring keyword search only: "
    )
    named = in_process(capsys, *args, "--mode", "vector")
    assert named.code == 1 and named.out == ""
    assert len(named.err_lines) == 1, named.err
    assert named.err.startswith("anamnesis eval run: --mode vector needs vector search")
