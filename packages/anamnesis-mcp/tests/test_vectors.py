"""Hybrid search through the server: the real (offline) model, real sqlite-vec, real stores.

Skipped, with the reason, where the vectors extra, a sqlite3 that loads extensions, or the
offline model in ../shared is missing (`.venv-sys/bin/python -m pytest` runs them). Loading
the model costs about 1.5 s per process, so few tests here load it.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from anamnesis_testsupport import OFFLINE_MODEL, vectors_unavailable_reason
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from anamnesis.mcp import build_server
from anamnesis.mcp.functions import vectors_report
from anamnesis.mcp.server import AnamnesisServer
from anamnesis.ops import embedding_turn
from anamnesis.store import FastEmbedEmbedder, MemoryStore
from mcp_testing import data, server_command, text_of

REASON = vectors_unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

NOTES = [
    ("procedural", "Restore tmux sessions after a reboot",
     "Install tmux-resurrect and tmux-continuum; prefix + Ctrl-r restores windows and panes."),
    ("semantic", "Postgres SQLSTATE 40P01 in the ledger writer",
     "deadlock_detected: order row locks by account id before updating balances."),
    ("procedural", "Rotate the signing key",
     "Run scripts/rotate-keys and update the vault path; tokens signed before stay valid."),
    ("episodic", "Fixed flaky login tests",
     "Parallel browsers shared one cookie jar; each worker now gets its own profile."),
]  # fmt: skip
TMUX = "Restore tmux sessions after a reboot"
# Says what the tmux note says, in none of its words.
PARAPHRASE = "my shell multiplexer layout is gone every time I power-cycle the machine"


@pytest.fixture
def vectors_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's default mode (hybrid here) and the offline model: nothing downloads."""
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))


def fill(store: MemoryStore) -> dict[str, str]:
    return {
        title: store.write(type=note_type, title=title, body=body, project="p").id
        for note_type, title, body in NOTES
    }


def wait_until_embedded(store: MemoryStore, timeout_s: float = 120) -> dict[str, Any]:
    """Poll until no note lacks a vector; nothing but the background thread embeds here."""
    deadline = time.monotonic() + timeout_s
    while (status := store.embedding_status())["pending"]:
        assert time.monotonic() < deadline, status
        time.sleep(0.05)
    return status


@pytest.mark.usefixtures("vectors_on")
def test_hybrid_finds_a_paraphrase_keywords_miss_with_notes_embedded_in_the_background(
    store: MemoryStore,
) -> None:
    ids = fill(store)
    server = build_server(store)
    assert server.embedding.state in ("running", "idle")  # started with the server
    status = wait_until_embedded(store)  # no search has run: the thread embedded them
    assert status["embedded"] == len(NOTES)

    async def scenario() -> dict[str, Any]:
        async with Client(server) as client:
            written = data(await client.call_tool("memory_write", {
                "type": "semantic", "title": "Coffee machine", "body": "descale it monthly",
            }))  # fmt: skip
            embedded = await anyio.to_thread.run_sync(wait_until_embedded, store)
            keyword = await client.call_tool(
                "memory_search", {"query": PARAPHRASE, "mode": "keyword", "k": 3}
            )
            hybrid = await client.call_tool("memory_search", {"query": PARAPHRASE, "k": 3})
            coffee = await client.call_tool(
                "memory_search", {"query": "how often to clean the espresso maker", "k": 1}
            )
            status = data(await client.call_tool("memory_status", {}))
            nothing = {
                mode: await client.call_tool(
                    "memory_search", {"query": "qzxv blorft wugglepox", "mode": mode}
                )
                for mode in ("keyword", "vector", "hybrid")
            }
        return {"written": written, "embedded": embedded, "keyword": keyword,
                "hybrid": hybrid, "coffee": coffee, "status": status,
                "nothing": nothing}  # fmt: skip

    out = anyio.run(scenario)
    # The write woke the thread, which embedded the new note before any search needed it.
    assert out["embedded"]["embedded"] == len(NOTES) + 1
    assert ids[TMUX] not in [hit["id"] for hit in data(out["keyword"])][:1]
    hybrid = out["hybrid"]
    assert data(hybrid)[0]["id"] == ids[TMUX]
    assert hybrid.structured_content["mode"] == "hybrid"
    assert len(hybrid.content) == 1  # no fallback notice: vectors ran
    scores = [hit["score"] for hit in data(hybrid)]
    assert scores == sorted(scores, reverse=True) and 0 < scores[-1] <= scores[0] <= 1
    # The description's promise: an empty list means nothing matched, in every mode.
    for mode, reply in out["nothing"].items():
        assert data(reply) == [] and reply.structured_content["mode"] == mode, mode
    assert [hit["id"] for hit in data(out["coffee"])] == [out["written"]["id"]]
    vectors = out["status"]["vectors"]
    assert vectors["available"] is True
    assert vectors["default_mode"] == "hybrid"
    assert (vectors["embedded"], vectors["pending"]) == (len(NOTES) + 1, 0)
    assert vectors["model"].startswith("sentence-transformers/all-MiniLM-L6-v2@local-")

    server.embedding.stop()
    assert server.embedding.state == "stopped"
    assert not any(t.name == "anamnesis-embedding" for t in threading.enumerate())
    assert not (store.root / "logs" / "mcp.log").exists()


@pytest.mark.usefixtures("vectors_on")
def test_the_thread_leaves_the_notes_to_another_embedder_then_embeds_them(
    store: MemoryStore,
) -> None:
    fill(store)
    with embedding_turn(store.layout):  # the CLI's background process, as far as it can tell
        server = build_server(store)
        deadline = time.monotonic() + 120
        while server.embedding.state != "idle":  # its first pass found the turn taken
            assert time.monotonic() < deadline, server.embedding.state
            time.sleep(0.05)
        assert store.embedding_status()["pending"] == len(NOTES)  # not embedded twice
    status = wait_until_embedded(store)  # its next try, once the other let go
    assert status["embedded"] == len(NOTES)
    server.embedding.stop()


def test_a_model_that_cannot_load_is_logged_once_and_searches_say_keywords_only(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not an onnx model")
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(broken))
    ids = fill(store)
    # The store's own warning, once, from the thread (a Python warning on stderr).
    with pytest.warns(UserWarning, match="searching by keywords only: cannot load"):
        server = server_whose_embedding_failed(store)
    log = (store.root / "logs" / "mcp.log").read_text()
    assert log.count("background embedding stopped") == 1
    assert "cannot load the embedding model" in log
    assert "Traceback" not in log  # an expected failure: its reason, not a crash report

    default = anyio.run(_search, server, {"query": "signing key", "k": 1})
    assert [hit["id"] for hit in data(default)] == [ids["Rotate the signing key"]]
    assert default.structured_content["mode"] == "keyword"  # vectors failed: the default
    # The store warned once already, when the thread failed; the notice comes every time.
    hybrid = anyio.run(_search, server, {"query": "signing key", "mode": "hybrid", "k": 1})
    assert json.loads(text_of(hybrid)) == data(default)
    notice = getattr(hybrid.content[1], "text", "")
    assert notice.startswith("searched by keywords only: cannot load")
    status = data(anyio.run(_search, server, {}, "memory_status"))
    assert status["vectors"]["available"] is False
    assert "cannot load the embedding model" in status["vectors"]["reason"]


def server_whose_embedding_failed(store: MemoryStore) -> AnamnesisServer:
    server = build_server(store)
    deadline = time.monotonic() + 120
    while server.embedding.state != "failed":  # the thread tries the model, fails, stops
        assert time.monotonic() < deadline, server.embedding.state
        time.sleep(0.05)
    return server


async def _search(server: Any, arguments: dict[str, Any], tool: str = "memory_search") -> Any:
    async with Client(server) as client:
        return await client.call_tool(tool, arguments)


def test_status_never_loads_the_model(store: MemoryStore) -> None:
    """The status reads the model id from the configuration and the files' sizes."""
    embedder = FastEmbedEmbedder(model_path=OFFLINE_MODEL)
    with MemoryStore(store.root / "other", embedder=embedder) as other:
        fill(other)
        started = time.perf_counter()
        report = vectors_report(other)
        elapsed = time.perf_counter() - started
    assert report["available"] is True
    assert report["pending"] == len(NOTES)
    assert embedder._model is None  # the ONNX model itself was never loaded
    assert elapsed < 1.0  # loading it takes over a second here


@pytest.mark.slow
def test_the_real_server_process_runs_hybrid_search(isolated_home: Path, tmp_path: Path) -> None:
    """One process, as Claude Code runs it, with the offline model configured."""
    with MemoryStore(isolated_home) as store:
        ids = fill(store)
    env = {**os.environ, "ANAMNESIS_HOME": str(isolated_home),
           "ANAMNESIS_EMBED_MODEL_PATH": str(OFFLINE_MODEL)}  # fmt: skip
    env.pop("ANAMNESIS_SEARCH_MODE")
    command = server_command()
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)

    async def session() -> tuple[Any, Any]:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with Client(stdio_client(params, errlog=stderr), read_timeout_seconds=120) as mcp:
                # The server embeds on its own thread (searches do not wait for it): wait
                # for the first pass, as a session a few seconds old would find it done.
                for _attempt in range(600):
                    status = data(await mcp.call_tool("memory_status", {}))
                    if status["vectors"].get("pending") == 0:
                        break
                    await anyio.sleep(0.1)
                found = await mcp.call_tool("memory_search", {"query": PARAPHRASE, "k": 3})
        return status, found

    status, found = anyio.run(session)
    assert status["vectors"]["available"] is True
    assert status["vectors"]["pending"] == 0
    assert status["vectors"]["default_mode"] == "hybrid"
    assert status["machine_id"] == "env-machine"
    assert data(found)[0]["id"] == ids[TMUX]
    assert found.structured_content["mode"] == "hybrid"
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in stderr
    assert not (isolated_home / "logs" / "mcp.log").exists()
