"""The MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``, a client built on the
TypeScript SDK) lists and reads the resources, lists and gets the prompts, and lists the
tools with their hints: the server as another implementation than ours sees it.

Each call starts the real server (``anamnesis-mcp``) over stdio, in a clone of the project,
with a scratch HOME; the Inspector's CLI mode talks to that process only (no network).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.agent_clis import agent_cli, scratch_agent_env
from anamnesis_testsupport.checkouts import checkout

from anamnesis.store import MemoryStore
from mcp_testing import server_command

P = "github.com/acme/api"
# What the server needs from this test's environment (isolated_home): its store, keyword
# search and no model to fetch, no git config of the user's.
SERVER_SETTINGS = (
    "ANAMNESIS_HOME", "ANAMNESIS_SEARCH_MODE", "ANAMNESIS_EMBED_MODEL_PATH", "GIT_CONFIG_GLOBAL",
)  # fmt: skip


@pytest.fixture
def inspect(isolated_home: Path, tmp_path: Path) -> Any:
    """``inspect("resources/list", ...)``: the Inspector's CLI run against a store holding a
    global note and a project note that replaced an older one; its JSON answer (or, with
    ``fails=True``, its error text). Skipped, saying how to get it, where it is absent."""
    inspector = agent_cli("mcp-inspector")
    with MemoryStore(isolated_home) as store:
        store.write(type="procedural", title="Use uv run", body="Always `uv run pytest`.")
        old = store.write(type="semantic", title="API port", body="port 8080", project=P)
        store.write(type="semantic", title="API port", body="port 9443 (TLS)", project=P,
                    supersedes=[old.id])  # fmt: skip
    folder = checkout(tmp_path / "src" / "api", "git@github.com:acme/api.git")
    # A scratch HOME: neither the Inspector nor npm reads the user's. The Inspector hands
    # its own environment to the server it starts.
    env = scratch_agent_env(tmp_path / "scratch-home")
    env.update({name: os.environ[name] for name in SERVER_SETTINGS})
    env["NPM_CONFIG_OFFLINE"] = "true"

    def run(method: str, *args: str, fails: bool = False) -> Any:
        done = subprocess.run(
            [inspector, "--cli", *server_command(), "--method", method, *args],
            cwd=folder, env=env, capture_output=True, text=True, timeout=180, check=False,
        )  # fmt: skip
        if fails:
            assert done.returncode != 0, done.stdout
            return done.stderr + done.stdout
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    run.old = old.id  # type: ignore[attr-defined]
    return run


def test_the_inspector_lists_the_resources_and_templates(inspect: Any) -> None:
    listed = inspect("resources/list")["resources"]
    assert [r["uri"] for r in listed][:2] == [
        f"anamnesis://project/{P}/session-start", f"anamnesis://project/{P}/recent",
    ]  # fmt: skip
    assert {r["mimeType"] for r in listed} == {"text/markdown"}
    notes = [r for r in listed if r["uri"].startswith("anamnesis://note/")]
    assert [r["title"] for r in notes] == ["API port"]  # the current one
    templates = inspect("resources/templates/list")["resourceTemplates"]
    assert {t["uriTemplate"] for t in templates} == {
        "anamnesis://note/{id}", "anamnesis://project/{+project}/recent",
        "anamnesis://project/{+project}/session-start",
    }  # fmt: skip


def test_the_inspector_reads_a_note_and_the_session_start_block(inspect: Any) -> None:
    (note,) = inspect("resources/read", "--uri", f"anamnesis://note/{inspect.old}")["contents"]
    assert note["mimeType"] == "text/markdown"
    assert "port 8080" in note["text"] and "This note is superseded" in note["text"]
    uri = f"anamnesis://project/{P}/session-start"
    (block,) = inspect("resources/read", "--uri", uri)["contents"]
    assert block["text"].startswith("# Anamnesis memory")
    assert "Use uv run" in block["text"] and "9443" in block["text"]
    error = inspect("resources/read", "--uri", "anamnesis://note/nope", fails=True)
    assert "-32602" in error and "'nope' is not a ULID" in error


def test_the_inspector_lists_and_gets_the_prompts(inspect: Any) -> None:
    prompts = {p["name"]: p for p in inspect("prompts/list")["prompts"]}
    assert list(prompts) == ["recall", "save-session"]
    assert prompts["recall"]["arguments"][0] == {
        "name": "topic", "description": prompts["recall"]["arguments"][0]["description"],
        "required": True,
    }  # fmt: skip
    got = inspect("prompts/get", "--prompt-name", "recall", "--prompt-args", "topic=API port")
    text = got["messages"][0]["content"]["text"]
    assert text.startswith("Recall what the memory holds about: API port")
    saved = inspect("prompts/get", "--prompt-name", "save-session")["messages"][0]
    assert f'project="{P}"' in saved["content"]["text"]  # the server's folder
    error = inspect("prompts/get", "--prompt-name", "recall", fails=True)
    assert "-32602" in error and "topic: is required by recall" in error


def test_the_inspector_sees_every_tool_hint(inspect: Any) -> None:
    tools = {t["name"]: t["annotations"] for t in inspect("tools/list")["tools"]}
    keys = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    assert {name: tuple(hints[key] for key in keys) for name, hints in tools.items()} == {
        "memory_search": (True, False, True, False),
        "memory_list": (True, False, True, False),
        "memory_status": (True, False, True, False),
        "memory_write": (False, False, False, False),
        "memory_sync": (False, True, True, True),
    }
