"""`anamnesis eval run` without vectors: keyword figures, sandboxes, the user's store, errors.

The vector modes are measured in test_vectors.py, where the model can run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore
from cli_testing import DATA, Env, in_process

NOTES = DATA / "recall_notes.jsonl"
CASES = DATA / "recall_cases.jsonl"
HEADER = ["mode", "cases", "R@1", "R@3", "R@5", "R@8", "MRR"]


def test_keyword_figures_on_a_sandbox_leave_the_store_alone(bare: Env, tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    bare.variables["TMPDIR"] = str(scratch)  # where the sandbox goes: gone afterwards
    human = bare.run("eval", "run", "--cases", str(CASES), "--notes", str(NOTES), "--mode",
                    "keyword")  # fmt: skip
    assert human.code == 0, human.err
    assert human.err == ""
    lines = human.out.splitlines()
    assert lines[0] == f"5 cases from {CASES} against notes from {NOTES} (sandbox)"
    assert lines[1].split() == HEADER
    row = lines[2].split()
    assert row[:2] == ["keyword", "5"]  # the unapproved case is not scored
    assert "by kind" in lines and any(line.split()[:2] == ["paraphrase", "keyword"]
                                      for line in lines)  # fmt: skip
    assert list(scratch.iterdir()) == []
    assert not (bare.home / "memory").exists() and not (bare.home / "index.db").exists()


def test_json_has_every_figure_each_rank_and_the_files_own_ids(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["eval", "run", "--cases", str(CASES), "--notes", str(NOTES), "--mode", "keyword"]
    result = in_process(capsys, *args, "--k", "3,1,3", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert (data["cases_file"], data["notes_file"]) == (str(CASES), str(NOTES))
    assert data["ks"] == [1, 3] and data["project_filter"] is False
    [keyword] = data["modes"]
    assert keyword["mode"] == "keyword" and keyword["cases"] == 5
    assert set(keyword["recall"]) == {"1", "3"}
    assert set(data["by_kind"]) == {"keyword", "paraphrase"}
    assert [part["cases"] for part in data["by_kind"]["paraphrase"]] == [3]
    ranks = {case["qid"]: case for case in data["results"]["keyword"]}
    assert set(ranks) == {"exact", "tmux", "cookies", "release", "rotate"}
    assert ranks["exact"]["rank"] == 1 and ranks["exact"]["retrieved"][0] == "n2"
    assert ranks["rotate"]["rank"] == 1 and ranks["rotate"]["retrieved"][0] == "n3"
    # Not a word in common with their notes: keywords cannot find these.
    assert ranks["tmux"]["rank"] is None and "n1" not in ranks["tmux"]["retrieved"]
    assert ranks["release"]["rank"] is None
    hits = sum(1 for case in ranks.values() if case["rank"] is not None and case["rank"] <= 1)
    assert keyword["recall"]["1"] == hits / 5


def test_all_modes_without_vectors_is_keyword_with_one_notice(env: Env) -> None:
    # The test environment points the model at a folder with no model: vectors cannot run.
    result = env.run("eval", "run", "--cases", str(CASES), "--notes", str(NOTES), "--json")
    assert result.code == 0, result.err
    assert [mode["mode"] for mode in result.json()["modes"]] == ["keyword"]
    assert len(result.err_lines) == 1, result.err
    assert result.err_lines[0].startswith(
        "anamnesis: vector search cannot run, measuring keyword search only: "
    )


def test_a_vector_mode_that_cannot_run_is_an_error_not_keyword_figures(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["eval", "run", "--cases", str(CASES), "--notes", str(NOTES), "--mode", "hybrid"]
    result = in_process(capsys, *args)
    assert result.code == 1 and result.out == ""
    assert len(result.err_lines) == 1
    assert result.err.startswith(
        "anamnesis eval run: --mode hybrid needs vector search, which cannot run: "
    )


def test_without_notes_the_cases_use_the_users_store_and_its_ids(
    env: Env, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with MemoryStore(env.home) as store:
        wal = store.write(type="procedural", title="Use WAL mode for SQLite",
                          body="Set busy_timeout on every connection.", project="p")  # fmt: skip
        store.write(type="semantic", title="Deploy day", body="We deploy on Tuesdays.")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"qid": "wal", "query": "busy_timeout", "relevant": [wal.id]}) + "\n"
        + json.dumps({"qid": "gone", "query": "deploy", "relevant": ["01ARZ3NDEKTSV4RRFFQ69G5FAV"]})
        + "\n"
    )  # fmt: skip
    result = in_process(capsys, "eval", "run", "--cases", str(cases), "--mode", "keyword",
                        "--json")  # fmt: skip
    assert result.code == 0, result.err
    data = result.json()
    assert data["notes_file"] is None
    ranks = {case["qid"]: case["rank"] for case in data["results"]["keyword"]}
    assert ranks == {"wal": 1, "gone": None}
    assert data["results"]["keyword"][0]["retrieved"] == [wal.id]
    # An id that names no note can never be found: said once, before the figures.
    assert result.err_lines == [
        f"anamnesis: 1 relevant id(s) in {cases} name no note in the store "
        "(first: 01ARZ3NDEKTSV4RRFFQ69G5FAV); cases that need only those can never be found"
    ]
    with MemoryStore(env.home) as store:
        assert store.count() == 2  # measured, not changed


def test_project_filter_searches_each_case_in_its_project(
    env: Env, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"qid": "x", "query": "SQLSTATE 40P01", "relevant": ["n2"], "project": "web"})
        + "\n"
    )
    base = ["eval", "run", "--cases", str(cases), "--notes", str(NOTES), "--mode", "keyword"]
    free = in_process(capsys, *base, "--json").json()
    assert free["results"]["keyword"][0]["rank"] == 1
    scoped = in_process(capsys, *base, "--project-filter", "--json").json()
    assert scoped["project_filter"] is True
    assert scoped["results"]["keyword"][0]["rank"] is None  # n2 is in project ledger


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--k", "0"], "--k values must be from 1 to 1000, got 0"),
        (["--k", "1,x"], "--k takes whole numbers separated by commas"),
        (["--k", ","], "--k needs at least one cut-off"),
        (["--mode", "fuzzy"], "--mode must be one of keyword, vector, hybrid, all"),
    ],
)
def test_usage_errors_exit_2_in_one_line(
    env: Env, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    result = in_process(capsys, "eval", "run", "--cases", str(CASES), *extra)
    assert result.code == 2 and result.out == ""
    assert len(result.err_lines) == 1 and result.err.startswith("anamnesis eval run: ")
    assert message in result.err


def test_file_errors_exit_1_in_one_line_naming_the_file(
    env: Env, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.jsonl"
    gone = in_process(capsys, "eval", "run", "--cases", str(missing), "--notes", str(NOTES))
    assert gone.code == 1 and len(gone.err_lines) == 1
    assert f"cannot read {missing}" in gone.err
    bad = tmp_path / "cases.jsonl"
    bad.write_text('{"query": "ok", "relevant": ["n1"]}\n{"query": "no ids"}\n')
    broken = in_process(capsys, "eval", "run", "--cases", str(bad), "--notes", str(NOTES))
    assert broken.code == 1 and len(broken.err_lines) == 1
    assert f"{bad}:2: 'relevant' must be a list of note ids" in broken.err
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"id": "n1", "title": "t", "body": "b"}\nnot json\n')
    bad_notes = in_process(capsys, "eval", "run", "--cases", str(CASES), "--notes", str(notes))
    assert bad_notes.code == 1 and len(bad_notes.err_lines) == 1
    assert f"{notes}:2: not JSON" in bad_notes.err
    drafts = tmp_path / "drafts.jsonl"
    drafts.write_text('{"query": "q", "relevant": ["n1"], "approved": false}\n')
    none = in_process(capsys, "eval", "run", "--cases", str(drafts), "--notes", str(NOTES))
    assert none.code == 1 and "holds no approved cases" in none.err
    assert "Traceback" not in gone.err + broken.err + bad_notes.err + none.err


def test_eval_alone_and_a_missing_cases_option_are_usage_errors(env: Env) -> None:
    alone = env.run("eval")
    assert alone.code == 2 and alone.err_lines == [
        "anamnesis eval: missing a command: run, generate or approve (see `anamnesis eval --help`)"
    ]
    no_cases = env.run("eval", "run", "--notes", str(NOTES))
    assert no_cases.code == 2 and len(no_cases.err_lines) == 1 and "--cases" in no_cases.err
