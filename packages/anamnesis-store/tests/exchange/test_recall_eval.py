"""The recall evaluation harness: cases, sandboxes, scoring, and the recall targets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from anamnesis_testsupport import DEVMEMORY, vectors_unavailable_reason

from anamnesis.store import MemoryStore
from anamnesis.store.exchange.recall_eval import (
    EvalCase,
    InvalidEvalFile,
    load_cases,
    load_notes,
    recall_at_k,
    sandbox,
)

NAMESDATES = Path(__file__).resolve().parents[4] / "bench" / "common" / "corpora" / "namesdates"


def jsonl(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


NOTES: list[dict[str, object]] = [
    {"id": "n1", "type": "procedural", "title": "Use WAL mode for SQLite",
     "body": "Set busy_timeout on every connection to avoid lock errors.", "project": "p",
     "tags": ["sqlite"], "supersedes": ""},
    {"id": "n2", "type": "semantic", "title": "Deploys go out on Tuesdays",
     "body": "Release train leaves Tuesday at 10:00.", "project": "global", "tags": [],
     "supersedes": ""},
    {"id": "n3", "type": "semantic", "title": "Deploys go out on Wednesdays now",
     "body": "Since March the release train leaves Wednesday at 10:00.", "project": "global",
     "tags": [], "supersedes": "n2"},
    {"id": "n4", "type": "episodic", "title": "Tuned the pool",
     "body": "Raised the connection pool to 20.", "project": "p", "tags": [], "supersedes": ""},
]  # fmt: skip


def test_scores_ranks_recall_and_mrr(tmp_path: Path) -> None:
    notes = jsonl(tmp_path / "notes.jsonl", NOTES)
    cases = jsonl(tmp_path / "cases.jsonl", [
        {"qid": "a", "query": "sqlite database is locked", "relevant": ["n1"], "kind": "symptom"},
        {"qid": "b", "query": "when does the release train leave", "relevant": ["n2"]},
        {"qid": "c", "query": "connection pool size", "relevant": ["n1"]},
        {"qid": "d", "query": "kubernetes", "relevant": ["n4"]},
        {"qid": "e", "query": "unapproved", "relevant": ["n4"], "approved": False},
    ])  # fmt: skip
    with sandbox(notes) as (store, ids):
        report = recall_at_k(store, load_cases(cases), (1, 3), mode="keyword", id_map=ids)
    ranks = {result.qid: result.rank for result in report.results}
    # b: n2 is superseded (hidden), n3 supersedes it and counts; c: n4 outranks n1.
    assert ranks == {"a": 1, "b": 1, "c": 2, "d": None}
    assert report.cases == 4
    assert report.recall == {1: 0.5, 3: 0.75}
    assert report.mrr == pytest.approx((1 + 1 + 0.5) / 4)
    assert report.by_kind()["symptom"].recall == {1: 1.0, 3: 1.0}
    assert report.to_dict()["recall"] == {"1": 0.5, "3": 0.75}


def test_supersession_counts_through_a_chain(tmp_path: Path) -> None:
    chain: list[dict[str, object]] = [
        *NOTES,
        {"id": "n5", "type": "semantic", "title": "Deploys go out on Thursdays",
         "body": "From June the release train leaves Thursday at 10:00.", "project": "global",
         "tags": [], "supersedes": "n3"},
    ]  # fmt: skip
    with sandbox(jsonl(tmp_path / "n.jsonl", chain)) as (store, ids):
        case = EvalCase("x", "release train day", ("n2",))
        report = recall_at_k(store, [case], (1,), mode="keyword", id_map=ids)
    assert report.results[0].retrieved[0] == ids["n5"]
    assert report.results[0].rank == 1


def test_loading_is_deterministic_and_keeps_ulids(tmp_path: Path) -> None:
    rows = [dict(NOTES[0]), {**NOTES[1], "id": "01J9Z8YPM7Q3X2V4WT6B5N0KGD"}]
    path = jsonl(tmp_path / "notes.jsonl", rows)
    with MemoryStore(tmp_path / "a") as first, MemoryStore(tmp_path / "b") as second:
        ids = load_notes(first, path, namespace="x")
        assert ids == load_notes(second, path, namespace="x")
    assert ids["01J9Z8YPM7Q3X2V4WT6B5N0KGD"] == "01J9Z8YPM7Q3X2V4WT6B5N0KGD"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ('["a list"]', "expected a JSON object"),
        ('{"relevant": ["n1"]}', "'query' must be non-empty text"),
        ('{"query": "q", "relevant": []}', "'relevant' must be a list of note ids"),
        ('{"query": "q", "relevant": ["n1"], "project": 3}', "'project' must be text"),
    ],
)
def test_bad_case_files_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"query": "fine", "relevant": ["n1"]}\n' + line + "\n")
    with pytest.raises(InvalidEvalFile, match=f"cases.jsonl:2: {message}"):
        load_cases(path)


def test_bad_note_files_lose_nothing_and_name_the_line(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "notes.jsonl", [NOTES[0], {**NOTES[1], "supersedes": "n99"}])
    with MemoryStore(tmp_path / "s") as store, pytest.raises(InvalidEvalFile, match=":2:"):
        load_notes(store, path)
    bad_type = jsonl(tmp_path / "bad.jsonl", [{**NOTES[0], "type": "diary"}])
    with MemoryStore(tmp_path / "t") as store, pytest.raises(InvalidEvalFile, match="type"):
        load_notes(store, bad_type)


needs_devmemory = pytest.mark.skipif(
    not (DEVMEMORY / "queries.jsonl").is_file(), reason=f"{DEVMEMORY} not found"
)


@needs_devmemory
def test_keyword_search_reproduces_the_spec_baseline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANAMNESIS_KEYWORD_RANKING", "spec")
    with sandbox(DEVMEMORY / "notes.jsonl") as (store, ids):
        report = recall_at_k(store, load_cases(DEVMEMORY / "queries.jsonl"), id_map=ids,
                             mode="keyword")  # fmt: skip
    # The README's baseline: R@8 0.735, MRR 0.566 (one tie differs at R@3/R@5).
    assert report.recall[8] == pytest.approx(0.735, abs=0.006)
    assert report.mrr == pytest.approx(0.566, abs=0.006)


@needs_devmemory
def test_default_keyword_ranking_beats_the_spec_on_devmemory() -> None:
    cases = load_cases(DEVMEMORY / "queries.jsonl")
    with sandbox(DEVMEMORY / "notes.jsonl") as (store, ids):
        report = recall_at_k(store, cases, id_map=ids, mode="keyword")
    # Stop words dropped from queries: 0.745 / 0.572 against the spec's 0.735 / 0.566.
    assert report.recall[8] >= 0.745 and report.mrr >= 0.570, report.to_dict()


VECTORS = vectors_unavailable_reason()


@needs_devmemory
@pytest.mark.skipif(VECTORS is not None, reason=VECTORS or "")
@pytest.mark.slow
def test_hybrid_meets_the_recall_targets_on_both_kinds_of_corpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from anamnesis_testsupport import OFFLINE_MODEL

    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))
    reports = {}
    for name, folder in (("devmemory", DEVMEMORY), ("namesdates", NAMESDATES)):
        with sandbox(folder / "notes.jsonl") as (store, ids):
            store.embed_missing()
            cases = load_cases(folder / "queries.jsonl")
            for mode in ("keyword", "hybrid"):
                reports[name, mode] = recall_at_k(store, cases, id_map=ids, mode=mode)
    dev_keyword, dev_hybrid = reports["devmemory", "keyword"], reports["devmemory", "hybrid"]
    assert dev_hybrid.recall[8] >= 0.87 and dev_hybrid.mrr >= 0.68
    assert all(dev_hybrid.recall[k] >= dev_keyword.recall[k] for k in dev_keyword.recall)
    names_keyword, names_hybrid = reports["namesdates", "keyword"], reports["namesdates", "hybrid"]
    assert names_hybrid.mrr >= names_keyword.mrr - 0.01
    assert all(names_hybrid.recall[k] >= names_keyword.recall[k] - 0.01 for k in (1, 3, 5, 8))
