"""Helpers for the MCP tests: a bare remote, and tool results decoded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dulwich.repo import Repo
from mcp_types import CallToolResult, TextContent


def bare_remote(path: Path) -> Path:
    path.mkdir(parents=True)
    Repo.init_bare(str(path), default_branch=b"main").close()
    return path


def data(result: CallToolResult) -> Any:
    """What a successful tool call returned, read from the text the model sees.

    Also checks that the structured copy says the same thing.
    """
    assert not result.is_error, error_text(result)
    assert len(result.content) == 1
    shown = json.loads(text_of(result))
    structured = result.structured_content
    assert structured is not None
    assert structured.get("result", structured) == shown
    return shown


def error_text(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def text_of(result: CallToolResult) -> str:
    """The one text block of a result."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text
