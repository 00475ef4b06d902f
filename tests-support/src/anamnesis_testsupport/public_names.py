"""The check each package's suite runs on its public names: declared once, as re-exports
in its ``__init__`` (the store's ``lazy_exports``), from which ``__all__`` derives."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

from anamnesis.store import export_table


def declared_reexports(path: Path) -> list[str]:
    """The names type checkers see re-exported by this ``__init__`` (``X as X``, at the top
    level or under ``if TYPE_CHECKING:``), read with the ast module: a second reader of the
    declarations, to check the one the package runs."""
    tree = ast.parse(path.read_text())
    body = list(tree.body)
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            body.extend(node.body)
    return [
        alias.name
        for node in body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name
    ]


def check_public_names(package: str) -> None:
    """``package``'s ``__all__`` is its table of re-exports (as the ast module reads them
    too), each name is the object its module defines, ``dir()`` lists them all, and an
    unknown name is an AttributeError as on any module."""
    module = importlib.import_module(package)
    table = export_table(package)
    names: list[str] = getattr(module, "__all__")  # noqa: B009 (checkers see no __all__)
    assert names == list(table)
    assert sorted(names) == sorted(declared_reexports(Path(str(module.__file__))))
    for name, origin in table.items():
        assert origin == package or origin.startswith(f"{package}."), (name, origin)
        defining = importlib.import_module(origin)
        # a name its module defines, else a submodule (``from package import module as module``)
        expected = getattr(defining, name, sys.modules.get(f"{origin}.{name}"))
        assert expected is not None, f"{origin} defines no {name}"
        assert getattr(module, name) is expected, name
    assert set(names) <= set(dir(module))
    with pytest.raises(AttributeError, match=rf"^module '{package}' has no attribute 'nope'$"):
        getattr(module, "nope")  # noqa: B009 (a name no checker would let through)
