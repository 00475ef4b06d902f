"""Isolation smoke test of `anamnesis-mcp` installed alone (the `isolation` session): the
`anamnesis-mcp` server, driven over stdio by the MCP client, lists its five tools, writes a
note and finds it; and the hooks package was not installed along with it.

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
    from mcp_types import TextContent

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


anyio.run(main)
assert importlib.util.find_spec("anamnesis.hooks") is None
print("mcp smoke ok")
