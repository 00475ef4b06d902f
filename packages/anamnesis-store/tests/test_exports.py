"""Public names declared once: the re-exports of a package's ``__init__`` are its table,
and ``__all__``, ``dir()`` and the lazy loading all derive from it (exports.py)."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from anamnesis_testsupport.public_names import declared_reexports

import anamnesis.store
from anamnesis.store import export_table
from anamnesis.store.exports import _ONLY_AST

# make_package(init, **modules): see the fixture.
MakePackage = Callable[..., ModuleType]


STORE_INIT = Path(anamnesis.store.__file__)


def public_names(package: ModuleType) -> list[str]:
    """A package's ``__all__``, which type checkers do not see (for them the re-exports
    are the declaration), hence the lookup by name."""
    names: list[str] = getattr(package, "__all__")  # noqa: B009
    return names


def test_all_is_the_table_type_checkers_see() -> None:
    table = export_table("anamnesis.store")
    assert public_names(anamnesis.store) == list(table)
    assert sorted(public_names(anamnesis.store)) == sorted(declared_reexports(STORE_INIT))
    assert len(set(public_names(anamnesis.store))) == len(public_names(anamnesis.store))


def test_every_name_is_the_object_its_module_defines() -> None:
    for name, module in export_table("anamnesis.store").items():
        assert module.startswith("anamnesis.store."), (name, module)
        defined = getattr(importlib.import_module(module), name)
        assert getattr(anamnesis.store, name) is defined, name


def test_dir_lists_every_name() -> None:
    listed = dir(anamnesis.store)
    assert set(public_names(anamnesis.store)) <= set(listed)
    assert listed == sorted(listed)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"^module 'anamnesis.store' has no attribute 'nope'$"):
        _ = anamnesis.store.nope  # type: ignore[attr-defined]
    assert not hasattr(anamnesis.store, "index_connection")  # a private module's old name
    assert getattr(anamnesis.store, "nope", None) is None


def test_importing_the_store_loads_no_module_a_name_does_not_need() -> None:
    code = textwrap.dedent(
        """
        import json, sys
        import anamnesis.store
        before = sorted(m for m in sys.modules if m.startswith("anamnesis.store"))
        anamnesis.store.NoteLimits
        after = sorted(m for m in sys.modules if m.startswith("anamnesis.store"))
        print(json.dumps([before, after]))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after = json.loads(done.stdout)
    assert before == ["anamnesis.store", "anamnesis.store.exports"]
    assert set(after) - set(before) == {"anamnesis.store.note", "anamnesis.store.note.limits"}


def test_the_parse_flag_is_the_ast_modules() -> None:
    assert ast.PyCF_ONLY_AST == _ONLY_AST


# -- the helper, on packages of its own --------------------------------------------------------


@pytest.fixture
def make_package(tmp_path: Path) -> Iterator[MakePackage]:
    """``make_package(init, **modules)``: an importable package ``lazypkg<n>`` with this
    ``__init__`` source (``PKG`` stands for its name) and these modules; returns it."""
    made: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def make(init: str, **modules: str) -> ModuleType:
        name = f"lazypkg{len(made)}"
        folder = tmp_path / name
        folder.mkdir()
        (folder / "__init__.py").write_text(textwrap.dedent(init).replace("PKG", name))
        for module, source in modules.items():
            (folder / f"{module}.py").write_text(textwrap.dedent(source))
        made.append(name)
        return importlib.import_module(name)

    yield make
    sys.path.remove(str(tmp_path))
    for name in list(sys.modules):
        if name.split(".")[0] in made:
            del sys.modules[name]


LAZY_INIT = """
    from anamnesis.store import lazy_exports
    import typing
    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import Any
        from PKG.shapes import Square as Square
        from PKG.shapes import Circle as Round
        from .colours import RED as RED
    if typing.TYPE_CHECKING:
        from PKG import colours as colours
    if not TYPE_CHECKING:
        __getattr__, __dir__ = lazy_exports(__name__)
    """
LAZY_MODULES = {
    "shapes": "class Square: ...\nclass Circle: ...\n",
    "colours": "RED = 'red'\n",
}


def test_a_package_gets_its_re_exports_lazily(make_package: MakePackage) -> None:
    package = make_package(LAZY_INIT, **LAZY_MODULES)
    name = package.__name__
    assert f"{name}.shapes" not in sys.modules  # nothing loaded at import
    assert public_names(package) == ["Square", "RED", "colours"]  # Circle as Round is no export
    assert export_table(name) == {
        "Square": f"{name}.shapes",
        "RED": f"{name}.colours",
        "colours": name,
    }
    assert package.Square is sys.modules[f"{name}.shapes"].Square
    assert package.RED == "red"
    assert package.colours is sys.modules[f"{name}.colours"]
    assert "Square" in vars(package)  # set on the package: the next lookup is a plain one
    assert {"Square", "RED", "colours", "lazy_exports"} <= set(dir(package))
    with pytest.raises(AttributeError, match=f"module '{name}' has no attribute 'Round'"):
        _ = package.Round
    namespace: dict[str, object] = {}
    exec(f"from {name} import *", namespace)
    assert {"Square", "RED", "colours"} <= set(namespace)


def test_an_eager_re_export_is_in_the_table_too(make_package: MakePackage) -> None:
    package = make_package(
        """
        from anamnesis.store import lazy_exports as lazy_exports
        TYPE_CHECKING = False
        if not TYPE_CHECKING:
            __getattr__, __dir__ = lazy_exports(__name__)
        """
    )
    assert public_names(package) == ["lazy_exports"]


@pytest.mark.parametrize(
    ("declaration", "problem"),
    [
        ("from PKG.shapes import Square as Square; from PKG.other import Square as Square",
         "'Square' is exported twice"),
        ("from PKG.shapes import *", "a star import exports no names"),
        ("import json as json", "from package import module as module"),
    ],
)  # fmt: skip
def test_a_declaration_that_cannot_be_an_export_is_refused(
    make_package: MakePackage,
    declaration: str,
    problem: str,
) -> None:
    package = make_package(
        f"""
        from anamnesis.store import lazy_exports
        TYPE_CHECKING = False
        if TYPE_CHECKING:
            {declaration}
        if not TYPE_CHECKING:
            __getattr__, __dir__ = lazy_exports(__name__)
        """,
        shapes="class Square: ...\n",
        other="class Square: ...\n",
    )
    with pytest.raises(ValueError, match=problem):
        _ = package.Square
