"""The confirm bench's own plumbing, against a scripted OpenAI-compatible server on
127.0.0.1 (no real provider, ever): with no LLM it asks nothing; with one, each row lists
what its rule says, from the model's verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import FakeLLMServer, openai_reply

from bench.common.contradiction_pairs import TEST_SPLITS
from bench.suites import contradictions_confirm_bench as bench

# Of fresh2 (a tuning split): contradictions the rules find (number-f2-01, version-f2-01)
# and that only the wider net holds (number-f2-03, version-f2-04); look-alikes with a clash
# of values (restated-f2-01) and without (restated-f2-03).
IDS = ("number-f2-01", "version-f2-01", "number-f2-03", "version-f2-04", "restated-f2-01",
       "restated-f2-03")  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("ANAMNESIS_LLM_PROVIDER", "ANAMNESIS_LLM_MODEL", "ANAMNESIS_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "home"


@pytest.fixture
def server(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    fake = FakeLLMServer()
    fake.start()
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", "openai")
    monkeypatch.setenv("ANAMNESIS_LLM_MODEL", "scripted-1")
    monkeypatch.setenv("ANAMNESIS_LLM_BASE_URL", fake.url)
    monkeypatch.setenv("ANAMNESIS_LLM_TIMEOUT", "5")
    yield fake
    fake.stop()


def every_pair(verdict: str) -> str:
    entries = [{"pair": f"p{n}", "verdict": verdict, "reason": "read"} for n in range(1, 40)]
    return json.dumps({"verdicts": entries})


def run(home: Path, out: Path) -> dict[str, dict[str, dict[str, float | int | None]]]:
    code = bench.main(["--ids", ",".join(IDS), "--home", str(home), "--json", str(out)])
    assert code == 0
    got: dict[str, dict[str, dict[str, float | int | None]]] = json.loads(out.read_text())["scores"]
    return got


def test_with_no_llm_nothing_is_asked(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--home", str(home)]) == 0
    assert "no LLM is configured" in capsys.readouterr().out


def test_a_model_that_confirms_everything_lists_the_ceiling(
    home: Path, server: FakeLLMServer, tmp_path: Path
) -> None:
    server.queue(openai_reply(every_pair("contradicts")))

    rows = run(home, tmp_path / "out.json")["all"]

    assert (rows["the rules"]["recall"], rows["the rules"]["false_pairs"]) == (0.5, 0.0)
    for row in ("with the model", "the ceiling"):
        assert (rows[row]["recall"], rows[row]["false_pairs"]) == (1.0, 0.5)
    assert (rows["the rules"]["contradicting"], rows["the rules"]["compatible"]) == (4, 2)
    assert len(server.received) == 1
    assert "(wider net)" in server.received[0].json["messages"][-1]["content"]


def test_a_model_that_dismisses_everything_lists_nothing(
    home: Path, server: FakeLLMServer, tmp_path: Path
) -> None:
    server.queue(openai_reply(every_pair("compatible")))

    rows = run(home, tmp_path / "out.json")["all"]

    assert (rows["with the model"]["recall"], rows["with the model"]["false_pairs"]) == (0, 0)
    assert (rows["the rules"]["recall"], rows["the ceiling"]["recall"]) == (0.5, 1.0)


def test_splits_are_named_by_group_or_name() -> None:
    assert {pair.split for pair in bench.chosen_pairs("test", None)} == set(TEST_SPLITS)
    assert len(bench.chosen_pairs("dev,fresh2", 5)) == 5
    assert [pair.id for pair in bench.chosen_pairs(None, None, "port-f2-01")] == ["port-f2-01"]
    with pytest.raises(SystemExit, match="no such split: nonesuch"):
        bench.chosen_pairs("nonesuch", None)
    with pytest.raises(SystemExit, match="no such pair: nonesuch"):
        bench.chosen_pairs(None, None, "nonesuch")
