"""memory_write records which coding agent the client is (the note's ``prov_agent``), from
the name the client gives when it connects, never from the model's arguments; search and
list show it, and take an ``agent`` filter."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp.client import Client
from mcp_types import Implementation

from anamnesis.mcp import build_server
from anamnesis.mcp.arguments import InvalidArgument, check_agent
from anamnesis.mcp.client_agent import agent_of_client
from anamnesis.store import MemoryStore, is_agent_name
from mcp_testing import WRITE, data, error_text

# The names the agents send in initialize (read in each one's source; see client_agent.py).
AGENTS = {
    "claude-code": "claude-code",
    "codex-mcp-client": "codex",
    "gemini-cli-mcp-client": "gemini",
    "gemini-cli-mcp-client-anamnesis": "gemini",
}
OTHERS = {
    "Cursor": "cursor",
    "Visual Studio Code": "visual-studio-code",
    "mcp": "mcp",  # the Python SDK's client when it is given no name
    "  Zed Editor!! ": "zed-editor",
    "x" * 60: "x" * 40,
    "a/b.c": "a-b.c",
    "": "",
    "***": "",
    "日本": "",
}


@pytest.mark.parametrize(("name", "agent"), {**AGENTS, **OTHERS}.items())
def test_a_client_name_becomes_an_agents_name(name: str, agent: str) -> None:
    assert agent_of_client(name) == agent
    assert agent_of_client(None) == ""


@given(st.text(max_size=80))
def test_whatever_a_client_calls_itself_is_a_name_the_store_takes_or_none(name: str) -> None:
    agent = agent_of_client(name)
    assert agent == "" or is_agent_name(agent)


async def _session(
    server: Any, client_info: Implementation | None, mode: str
) -> tuple[dict[str, Any], list[Any], list[Any], list[Any]]:
    async with Client(server, client_info=client_info, mode=mode) as client:
        written = data(await client.call_tool("memory_write", WRITE))
        found = data(await client.call_tool("memory_search", {"query": "esbuild"}))
        mine = data(await client.call_tool("memory_list", {"agent": written["prov_agent"]}))
        others = data(await client.call_tool("memory_list", {"agent": "someone-else"}))
        return written, found, mine, others


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(("name", "agent"), [("codex-mcp-client", "codex"),
                                             ("claude-code", "claude-code")])  # fmt: skip
def test_a_write_records_the_clients_agent(
    store: MemoryStore, mode: str, name: str, agent: str
) -> None:
    info = Implementation(name=name, version="1.0", title="The agent")
    written, found, mine, others = anyio.run(_session, build_server(store), info, mode)
    assert written["prov_agent"] == agent
    assert store.get(written["id"]).prov_agent == agent
    assert f"prov_agent: {agent}\n" in store.file_of(written["id"]).read_text()
    assert [(hit["id"], hit["prov_agent"]) for hit in found] == [(written["id"], agent)]
    assert [(note["id"], note["prov_agent"]) for note in mine] == [(written["id"], agent)]
    assert others == []


def test_a_client_that_gives_no_name_of_its_own_is_the_sdks(store: MemoryStore) -> None:
    written, *_ = anyio.run(_session, build_server(store), None, "legacy")
    assert written["prov_agent"] == "mcp"


def test_the_model_cannot_choose_the_agent(store: MemoryStore) -> None:
    async def spoof() -> Any:
        async with Client(build_server(store)) as client:
            return await client.call_tool("memory_write", {**WRITE, "prov_agent": "codex"})

    result = anyio.run(spoof)
    assert result.is_error and "prov_agent" in error_text(result)
    assert store.list() == []


def test_the_agent_filter_is_checked_in_words() -> None:
    assert check_agent(" Codex ") == "codex"
    assert check_agent(None) is None
    for bad in ("codex cli", "", 3, ["codex"], "a" * 41):
        with pytest.raises(InvalidArgument, match="agent: must be one coding agent's name"):
            check_agent(bad)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_session_start_block_marks_notes_as_the_clients_agent_reads_them(
    store: MemoryStore, mode: str
) -> None:
    """As the hook's block is read by the agent it runs for: the client's own notes do not
    name it, another agent's and another machine's do; a note read by id names its project."""
    project = "github.com/acme/api"
    mine = store.write(type="semantic", title="Mine", body="b", project=project,
                       machine_id="laptop", prov_agent="codex")  # fmt: skip
    store.write(type="episodic", title="Theirs", body="b", project=project, machine_id="desktop",
                prov_agent="claude-code", prov_source="session-end")  # fmt: skip

    async def scenario() -> tuple[str, str]:
        info = Implementation(name="codex-mcp-client", version="1.0")
        server = build_server(store, machine_id="laptop", project=project)
        async with Client(server, client_info=info, mode=mode) as client:
            block = await client.read_resource(f"anamnesis://project/{project}/session-start")
            one = await client.read_resource(f"anamnesis://note/{mine.id}")
        return block.contents[0].text, one.contents[0].text  # type: ignore[union-attr]

    block, one = anyio.run(scenario)
    assert "## [semantic] Mine\n_you · just now_\n" in block
    theirs = "## [episodic] Theirs\n_captured via claude-code on desktop · just now · unconfirmed_"
    assert theirs in block
    assert f"## [semantic] Mine\n_{project} · you · just now_\n" in one
    assert '"you" is the user' in block and '"you" is the user' in one
