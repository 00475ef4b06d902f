"""Isolation smoke test of `anamnesis-mcp` installed alone (the `isolation` session): the
`anamnesis-mcp` server, driven over stdio by the MCP client, lists its five tools, writes a
note and finds it, serves the session-start block and lists its prompts; and the hooks
package was not installed along with it.

Runs as a plain script in the isolated venv: stdlib and `anamnesis-mcp` (with the MCP SDK).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, cast

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

if TYPE_CHECKING:
    from mcp_types import TextContent, TextResourceContents

home = tempfile.mkdtemp()
script = shutil.which("anamnesis-mcp", path=str(pathlib.Path(sys.executable).parent))
assert script is not None  # for the type checker: the wheel installs this script
params = StdioServerParameters(command=script, env={**os.environ, "ANAMNESIS_HOME": home})


async def main() -> None:
    async with Client(params, mode="legacy") as client:
        assert len((await client.list_tools()).tools) == 5
        note = {"type": "semantic", "title": "MCP smoke", "body": "installed alone"}
        assert not (await client.call_tool("memory_write", note)).is_error
        found = await client.call_tool("memory_search", {"query": "smoke"})
        text = cast("TextContent", found.content[0]).text
        assert json.loads(text)[0]["title"] == "MCP smoke", found
        # The session-start block is served without the hooks package (ops renders it).
        block = await client.read_resource("anamnesis://project/global/session-start")
        assert "MCP smoke" in cast("TextResourceContents", block.contents[0]).text, block
        assert [p.name for p in (await client.list_prompts()).prompts] == [
            "recall",
            "save-session",
        ]


anyio.run(main)
assert importlib.util.find_spec("anamnesis.hooks") is None
print("mcp smoke ok")
