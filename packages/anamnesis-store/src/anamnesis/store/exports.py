"""A package's public names, declared once and loaded on first use.

A package declares each public name once, in the form type checkers read as a re-export
(PEP 484; mypy's ``--no-implicit-reexport``): ``from module import Name as Name``. Only
that form: type checkers export nothing imported under another name, so a name is
published as its module calls it. Those written under ``if TYPE_CHECKING:`` are the
package's lazy exports; :func:`lazy_exports` gives it the ``__getattr__`` and ``__dir__``
that serve them::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from anamnesis.store.store import MemoryStore as MemoryStore

    if not TYPE_CHECKING:
        __getattr__, __dir__ = lazy_exports(__name__)

``__all__`` and ``dir()`` derive from the same declarations; type checkers see exactly the
re-exports, and no ``__getattr__`` that would let a misspelt name through.

Why this shape: a session hook imports a package for a name or two, and importing every
module a package exports costs it tens of milliseconds (YAML, ULID, the redaction rules,
the vectors extra). So the names must load lazily, and what loads them must not be a
second list beside the imports (with a third for ``__all__``): lists kept in step by hand
drift apart. The table is read from the package's own source on the first attribute
asked for, parsed by the compiler's own parser (:func:`compile` to a syntax tree: 0.5 ms
for the store's ``__init__`` on a busy 2-core machine) rather than the :mod:`ast` module,
whose import would cost the hooks more than the parse. A name's module is imported when
the name is first used, and the name is then set on the package, so later lookups never
come here.
The package's ``__init__.py`` must be installed as source, as every wheel installs it.
"""

from __future__ import annotations

import sys
from importlib import import_module
from pathlib import Path

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import ast
    from collections.abc import Callable, Iterator
    from typing import TypeGuard

# ast.PyCF_ONLY_AST: compile() returns the syntax tree instead of code.
_ONLY_AST = 0x400


def export_table(package: str) -> dict[str, str]:
    """The public names that ``package`` (an imported module) declares, in the order it
    declares them, each with the module that defines it.

    Every ``from module import Name as Name`` at the top level of its source is one,
    inside ``if TYPE_CHECKING:`` (loaded on first use) or not (loaded with the package).
    Any other import is no export, as type checkers see it: a type a signature uses, or
    a name imported under another name. Raises ValueError for a name declared twice, a
    star import, or ``import module as module`` (write ``from package import module as
    module``).
    """
    module = sys.modules[package]
    path = module.__file__
    if path is None:
        raise ValueError(f"{package} has no source file to read its exports from")
    tree: ast.Module = compile(Path(path).read_bytes(), path, "exec", _ONLY_AST, dont_inherit=True)
    table: dict[str, str] = {}
    for name, origin in _reexports(tree.body, package, path):
        if name in table:
            raise ValueError(f"{path}: {name!r} is exported twice")
        table[name] = origin
    return table


def lazy_exports(package: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` (its ``__name__``), serving the names
    :func:`export_table` finds in its source, and ``__all__`` (those names).

    Nothing is read until the first attribute the package lacks is asked for. A name
    loads its module on first use and is then set on the package. An unknown name raises
    AttributeError as a module without ``__getattr__`` would.
    """
    found: dict[str, str] = {}

    def table() -> dict[str, str]:
        if not found:
            found.update(export_table(package))
        return found

    def get_attribute(name: str) -> object:
        value: object
        if name == "__all__":
            value = list(table())
        elif name in table():
            value = _load(table()[name], name, package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # later lookups skip this function
        return value

    def names() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table()})

    return get_attribute, names


def _reexports(
    body: list[ast.stmt], package: str, path: str, *, top: bool = True
) -> Iterator[tuple[str, str]]:
    """(name, module) for each re-export among these statements, and among those of the
    top level's ``if TYPE_CHECKING:`` blocks."""
    for node in body:
        if _is_if(node) and top and _is_type_checking(node.test):
            yield from _reexports(node.body, package, path, top=False)
        elif _is_import_from(node):
            origin = _absolute(node.module or "", node.level, package)
            for alias in node.names:
                if alias.name == "*":
                    raise ValueError(f"{path}:{node.lineno}: a star import exports no names")
                if alias.asname == alias.name:
                    yield alias.name, origin
        elif _is_import(node) and any(alias.asname == alias.name for alias in node.names):
            raise ValueError(
                f"{path}:{node.lineno}: 'import module as module' is not loaded lazily; "
                "export a module as 'from package import module as module'"
            )


def _load(origin: str, name: str, package: str) -> object:
    """What ``from origin import name`` gives: the module's attribute, else its submodule
    (never the package's own attribute: that lookup is the one being answered)."""
    if origin != package:
        module = import_module(origin)
        if hasattr(module, name):
            return getattr(module, name)
    return import_module(f"{origin}.{name}")


def _absolute(module: str, level: int, package: str) -> str:
    """The module a ``from`` import names, relative imports resolved against ``package``
    (a package's ``__init__``: level 1 is the package itself)."""
    if level == 0:
        return module
    base = package.rsplit(".", level - 1)[0] if level > 1 else package
    return f"{base}.{module}" if module else base


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    if _is_name(test):
        return test.id == "TYPE_CHECKING"
    return _is_attribute(test) and test.attr == "TYPE_CHECKING"


# The syntax tree's classes are those of the ast module, which is not imported here (see
# the module's docstring): nodes are told apart by their class's name.


def _is_if(node: ast.stmt) -> TypeGuard[ast.If]:
    return type(node).__name__ == "If"


def _is_import_from(node: ast.stmt) -> TypeGuard[ast.ImportFrom]:
    return type(node).__name__ == "ImportFrom"


def _is_import(node: ast.stmt) -> TypeGuard[ast.Import]:
    return type(node).__name__ == "Import"


def _is_name(node: ast.expr) -> TypeGuard[ast.Name]:
    return type(node).__name__ == "Name"


def _is_attribute(node: ast.expr) -> TypeGuard[ast.Attribute]:
    return type(node).__name__ == "Attribute"
