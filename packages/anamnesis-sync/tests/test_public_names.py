"""The public surface is declared once: the ``NAME as NAME`` import lines of
``anamnesis.sync``'s ``__init__``. ``__all__`` is exactly those names, each is the very
object its room defines, and nothing else public leaks (no room, no helper import)."""

from __future__ import annotations

import ast
import inspect
from importlib import import_module
from pathlib import Path
from types import ModuleType

import anamnesis.sync as sync


def _table() -> dict[str, str]:
    """Each name the ``__init__`` re-exports, with the module it is imported from, read
    from the source as a type checker reads it."""
    tree = ast.parse(Path(sync.__file__).read_text(encoding="utf-8"))
    table: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module != "types":
            assert node.module is not None and node.module.startswith("anamnesis.sync.")
            for alias in node.names:
                assert alias.asname == alias.name, f"{alias.name}: not a re-export"
                assert alias.name not in table, f"{alias.name} imported twice"
                table[alias.name] = node.module
    return table


def test_all_is_the_table() -> None:
    assert sync.__all__ == sorted(_table())


def test_each_name_is_the_object_its_module_defines() -> None:
    for name, module_name in _table().items():
        module = import_module(module_name)
        value = getattr(sync, name)
        assert value is getattr(module, name), name
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__module__ == module_name, f"{name} is defined elsewhere"


def test_nothing_else_public_leaks() -> None:
    public = {
        name
        for name, value in vars(sync).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert public == set(sync.__all__)
    rooms = {name for name, value in vars(sync).items() if isinstance(value, ModuleType)}
    assert rooms <= {"cycle", "model", "objects", "remote", "tree"}
    assert not rooms & set(sync.__all__)


def test_a_star_import_gives_the_table_and_nothing_else() -> None:
    namespace: dict[str, object] = {}
    exec("from anamnesis.sync import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(_table())
