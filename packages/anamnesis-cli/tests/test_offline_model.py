"""No network and no model downloaded: the first search finds out and remembers it, the next
ones cost a keyword search (no model library loaded, no connection tried) until the retry
time, and `status` and `doctor` say that keyword search runs, why, and until when.

"No network" is a download host that refuses every connection (``HF_ENDPOINT`` on a closed
port of 127.0.0.1); the retry time is moved by writing the memo's timestamp, never by
waiting. Where the vectors extra cannot run here, vectors were never on: skipped.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.offline import ENDPOINT_ENV, refused_endpoint

from anamnesis.store import RETRY_AFTER_S, MemoryStore, StoreLayout, vector_support
from anamnesis.store.vectors.model_download import DownloadMemo
from cli_testing import Env

pytestmark = pytest.mark.skipif(
    not vector_support().available, reason="the vectors extra cannot run here: always keywords"
)
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# A search as a process of its own, reporting whether the model's libraries were loaded.
PROBE = """
import json, sys
from anamnesis.cli.app import main
code = main(sys.argv[1:])
heavy = sorted(name for name in ("fastembed", "onnxruntime", "huggingface_hub")
               if name in sys.modules)
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


@pytest.fixture
def offline(env: Env) -> Iterator[Env]:
    """`env` with the store's default search (hybrid where the extra runs), no model
    configured (it would be downloaded) and a download host that refuses connections."""
    del env.variables["ANAMNESIS_SEARCH_MODE"]
    del env.variables["ANAMNESIS_EMBED_MODEL_PATH"]
    with refused_endpoint() as url:
        env.variables[ENDPOINT_ENV] = url
        with MemoryStore(env.home) as store:  # written as a library would: nothing started
            for n in range(3):
                store.write(type="semantic", title=f"tmux layout {n}", body=f"restore {n}")
        yield env


def memo_path(env: Env) -> Path:
    return StoreLayout(env.home).model_download_state


def checked_at(env: Env) -> float:
    saved: float = json.loads(memo_path(env).read_text())["checked_at"]
    return saved


def remembered_at(env: Env, when: float) -> None:
    """The memo as a search would have written it at ``when``."""
    reason = f"the embedding model {MODEL} is not downloaded yet and 127.0.0.1 cannot be reached"
    DownloadMemo(memo_path(env), clock=lambda: when).remember(MODEL, reason)


def probe(env: Env, *args: str) -> tuple[dict[str, object], str]:
    """``anamnesis ARGS`` in a process of its own: what it loaded, and its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        env=env.environment(),
        cwd=env.root,
        timeout=120,
        check=False,
    )
    report: dict[str, object] = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return report, done.stdout.decode()


def test_the_first_search_remembers_the_host_and_the_next_costs_a_keyword_search(
    offline: Env,
) -> None:
    first = offline.run_process("search", "tmux", "--json")
    assert first.code == 0, first.err
    assert [hit["mode"] for hit in first.json()] == ["keyword"] * 3
    (line,) = first.err_lines
    assert line.startswith("anamnesis: keyword search: 3 results (hybrid is the default here")
    assert "cannot be reached" in line
    found_at = checked_at(offline)  # remembered

    report, out = probe(offline, "search", "tmux", "--json")
    assert report == {"code": 0, "heavy": []}  # no model library loaded at all
    assert checked_at(offline) == found_at  # and the host was not tried again
    keyword = offline.run("search", "tmux", "--json", "--mode", "keyword")
    assert json.loads(out) == keyword.json()  # what a keyword search finds


def test_status_and_doctor_say_that_keyword_search_runs_why_and_until_when(
    offline: Env,
) -> None:
    found = time.time() - 60
    remembered_at(offline, found)
    retry = time.strftime("%H:%M", time.localtime(found + RETRY_AFTER_S))

    status = offline.run("status")
    assert status.code == 0, status.err
    search_line = next(line for line in status.out.splitlines() if line.startswith("search:"))
    assert search_line == (
        f"search:   keyword (vector model unavailable: the embedding model {MODEL} is not "
        f"downloaded yet and 127.0.0.1 cannot be reached; retry after {retry} or run "
        "`anamnesis doctor`)"
    )
    assert f"vectors:  {MODEL}: 0 embedded, 3 waiting for the model" in status.out
    vectors = offline.run("status", "--json").json()["vectors"]
    assert vectors["available"] is False and vectors["pending"] == 3
    assert vectors["model_unreachable"]["retry_at"] == time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(found + RETRY_AFTER_S)
    )

    quiet = offline.run("doctor", "--offline", "--json").json()
    check = next(c for c in quiet["checks"] if c["name"] == "vectors")
    assert check["status"] == "warn"
    assert "search runs keyword-only" in check["detail"]
    assert f"searches try again after {retry}" in check["detail"]
    assert checked_at(offline) == found  # --offline contacts nothing

    asked = offline.run("doctor", "--json").json()
    check = next(c for c in asked["checks"] if c["name"] == "vectors")
    assert check["status"] == "warn" and "cannot be reached" in check["detail"]
    assert "search runs keyword-only; searches try again after" in check["detail"]
    assert checked_at(offline) > found  # doctor tried at once, and remembered again


def test_a_search_after_the_retry_time_tries_the_host_again(offline: Env) -> None:
    long_ago = time.time() - RETRY_AFTER_S - 60
    remembered_at(offline, long_ago)
    result = offline.run("search", "tmux")
    assert result.code == 0 and "cannot be reached" in result.err
    assert checked_at(offline) > long_ago + RETRY_AFTER_S  # tried now, remembered again


def test_reindex_tries_the_model_at_once(offline: Env) -> None:
    found = time.time() - 60
    remembered_at(offline, found)
    reindexed = offline.run("reindex", "--json")
    assert reindexed.code == 0, reindexed.err
    assert reindexed.json()["embedded"] is None  # nothing could be embedded
    assert "cannot be reached" in reindexed.err  # and it says why, once
    assert checked_at(offline) > found
