"""The public surface is declared once: the ``NAME as NAME`` import lines under ``if
TYPE_CHECKING`` in ``anamnesis.sync``'s ``__init__``. ``__all__`` is exactly those names,
each is the very object its room defines, nothing else public leaks (no room, no helper
import), and the names that need no git load without dulwich."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from types import ModuleType

import anamnesis.sync as sync


def _declared() -> dict[str, object]:
    """What the declarations bind when run as written (as a type checker reads them)."""
    tree = ast.parse(Path(sync.__file__).read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If)]
    assert len(blocks) == 2  # the declarations, and the __getattr__ checkers never see
    namespace: dict[str, object] = {}
    exec(compile(ast.Module(blocks[0].body, type_ignores=[]), sync.__file__, "exec"), namespace)
    del namespace["__builtins__"]
    return namespace


def _modules() -> dict[str, str]:
    """Each declared name, with the module it is imported from."""
    tree = ast.parse(Path(sync.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    return {
        alias.name: str(node.module)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_all_is_the_declarations() -> None:
    assert sync.__all__ == sorted(_declared())
    assert set(_modules()) == set(sync.__all__)


def test_each_name_is_the_object_its_module_defines() -> None:
    declared = _declared()
    for name, module_name in _modules().items():
        value = getattr(sync, name)
        assert value is declared[name] is getattr(import_module(module_name), name), name
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__module__ == module_name, f"{name} is defined elsewhere"


def test_nothing_else_public_leaks() -> None:
    for name in sync.__all__:
        getattr(sync, name)  # every lazy name loaded: the package holds them all now
    public = {
        name
        for name, value in vars(sync).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert public == set(sync.__all__)
    rooms = {
        name
        for name, value in vars(sync).items()
        if not name.startswith("_") and isinstance(value, ModuleType)
    }
    assert rooms <= {"cycle", "model", "objects", "remote", "tree"}
    assert set(sync.__all__) <= set(dir(sync))


def test_a_star_import_gives_the_declarations_and_nothing_else() -> None:
    namespace: dict[str, object] = {}
    exec("from anamnesis.sync import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(_declared())


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert not hasattr(sync, "GitSyncBackEnd")


def test_the_names_that_need_no_git_load_without_dulwich() -> None:
    # What the background worker and the MCP server import at start (see the __init__).
    names = "SyncBusy, SyncError, sync_lock, redact_url, SyncResult, SyncState, Fork, Strategy"
    code = f"import sys\nfrom anamnesis.sync import {names}\nprint('dulwich' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False", done.stdout + done.stderr
