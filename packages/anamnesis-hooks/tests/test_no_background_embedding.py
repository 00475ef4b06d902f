"""No hook starts the background embedder (``anamnesis.ops.start_background_embedding``),
nor waits for it: a session waits on its hooks, and embedding takes minutes of both cores.
What the hooks' sync pulls is embedded by the next `write`, `sync` or search, or by the MCP
server's own thread. Read from the code, so a path no test runs is checked all the same."""

from __future__ import annotations

import ast
from pathlib import Path

HOOKS = Path(__file__).resolve().parents[1] / "src" / "anamnesis" / "hooks"
FORBIDDEN = {"start_background_embedding", "embed_backlog", "background_embedding"}


def names_used(source: str) -> set[str]:
    """Every name, attribute and imported module or name in ``source``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            found.update((node.module or "").split("."))
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(part for alias in node.names for part in alias.name.split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(node.value.split("."))  # a module named to be run: "-m", "x.y"
    return found


def test_no_hook_module_starts_the_background_embedder() -> None:
    modules = sorted(HOOKS.rglob("*.py"))
    assert len(modules) > 10  # the hooks were found
    for path in modules:
        used = names_used(path.read_text(encoding="utf-8")) & FORBIDDEN
        assert not used, f"{path.name} uses {sorted(used)}"


def test_a_module_that_would_start_it_is_found() -> None:
    planted = "from anamnesis.ops import start_background_embedding\n"
    assert names_used(planted) & FORBIDDEN == {"start_background_embedding"}
    assert names_used('run(["-m", "anamnesis.ops.background_embedding"])') & FORBIDDEN
