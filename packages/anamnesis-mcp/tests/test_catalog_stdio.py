"""Resources, templates, prompts and tool hints as a client sees them: the real server
process over stdio, started in a project's folder, driven by the SDK's client."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from anamnesis_testsupport.checkouts import checkout
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, TextResourceContents

from anamnesis.store import MemoryStore
from mcp_testing import process_client as client

P = "github.com/acme/api"


@pytest.fixture
def project(isolated_home: Path, tmp_path: Path) -> dict[str, Any]:
    """A store with a global note, two project notes (one replacing an older one), another
    project's note; and a folder that is a clone of the project, where the server starts."""
    with MemoryStore(isolated_home) as store:
        store.write(type="procedural", title="Use uv run", body="Always `uv run pytest`.")
        old = store.write(type="semantic", title="API port", body="port 8080", project=P)
        new = store.write(type="semantic", title="API port", body="port 9443 (TLS)",
                          project=P, supersedes=[old.id])  # fmt: skip
        store.write(
            type="semantic", title="Web port", body="port 3000", project="github.com/acme/web"
        )
    folder = checkout(tmp_path / "src" / "api", "git@github.com:acme/api.git")
    return {"old": old.id, "new": new.id, "folder": folder}


async def read_text(mcp: Client, uri: str) -> str:
    (content,) = (await mcp.read_resource(uri)).contents
    assert isinstance(content, TextResourceContents) and content.mime_type == "text/markdown"
    return content.text


async def error_of(call: Any) -> MCPError:
    try:
        await call
    except MCPError as exc:
        return exc
    raise AssertionError("no error")


def test_a_client_lists_and_reads_resources_and_prompts(
    project: dict[str, Any], isolated_home: Path, tmp_path: Path
) -> None:
    old, new = project["old"], project["new"]

    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with client(project["folder"], stderr) as mcp:
                out["listed"] = [r.uri for r in (await mcp.list_resources()).resources]
                templates = (await mcp.list_resource_templates()).resource_templates
                out["templates"] = sorted(t.uri_template for t in templates)
                out["note"] = await read_text(mcp, f"anamnesis://note/{old}")
                out["recent"] = await read_text(mcp, f"anamnesis://project/{P}/recent")
                out["encoded"] = await read_text(
                    mcp, "anamnesis://project/github.com%2Facme%2Fapi/recent"
                )
                out["block"] = await read_text(mcp, f"anamnesis://project/{P}/session-start")
                out["bad_id"] = await error_of(mcp.read_resource("anamnesis://note/../../x"))
                out["no_note"] = await error_of(
                    mcp.read_resource("anamnesis://note/01ARZ3NDEKTSV4RRFFQ69G5FAV")
                )
                out["prompts"] = [p.name for p in (await mcp.list_prompts()).prompts]
                got = await mcp.get_prompt("recall", {"topic": "API port"})
                out["recall"] = got.messages[0].content
                out["no_topic"] = await error_of(mcp.get_prompt("recall", {}))
                out["tools"] = {t.name: t.annotations for t in (await mcp.list_tools()).tools}
                # The session still serves after the errors.
                out["after"] = await read_text(mcp, f"anamnesis://note/{new}")
        return out

    out = anyio.run(session)
    assert out["listed"][:2] == [
        f"anamnesis://project/{P}/session-start", f"anamnesis://project/{P}/recent",
    ]  # the server's folder is the project  # fmt: skip
    assert f"anamnesis://note/{new}" in out["listed"]
    assert f"anamnesis://note/{old}" not in out["listed"]  # superseded
    assert out["templates"] == [
        "anamnesis://note/{id}", "anamnesis://project/{+project}/recent",
        "anamnesis://project/{+project}/session-start",
    ]  # fmt: skip
    assert "port 8080" in out["note"] and f"replaced by: anamnesis://note/{new}" in out["note"]
    assert "API port" in out["recent"] and "Web port" not in out["recent"]
    assert out["encoded"] == out["recent"]
    assert "Use uv run" in out["block"] and "9443" in out["block"] and "8080" not in out["block"]
    for error in (out["bad_id"], out["no_note"], out["no_topic"]):
        assert error.code == INVALID_PARAMS
    assert "no note has this id" in out["no_note"].message
    assert "topic: is required by recall" in out["no_topic"].message
    assert out["prompts"] == ["recall", "save-session"]
    assert "memory_search" in out["recall"].text
    assert out["tools"]["memory_search"].read_only_hint is True
    assert out["tools"]["memory_write"].destructive_hint is False
    assert out["tools"]["memory_write"].open_world_hint is False
    assert out["tools"]["memory_sync"].open_world_hint is True
    assert "port 9443" in out["after"]
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
    assert not (isolated_home / "logs" / "mcp.log").exists()


@pytest.mark.skipif(
    importlib.util.find_spec("anamnesis.hooks") is None,
    reason="the hooks package is not installed here (the MCP package does not need it)",
)
def test_session_start_is_what_the_inject_hook_prints(
    project: dict[str, Any], tmp_path: Path
) -> None:
    """The resource and the SessionStart hook, each in a process of its own, for the same
    folder: the same block, character for character."""
    folder = project["folder"]
    hook = subprocess.run(
        [sys.executable, "-m", "anamnesis.hooks", "inject", "--no-stdin", "--cwd", str(folder)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip

    async def session() -> str:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with client(folder, stderr) as mcp:
                return await read_text(mcp, f"anamnesis://project/{P}/session-start")

    block = anyio.run(session)
    assert block.startswith("# Anamnesis memory") and "9443" in block
    assert hook.stdout == block + "\n"
