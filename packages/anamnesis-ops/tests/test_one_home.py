"""One home: only :class:`~anamnesis.ops.Home` makes a sync backend, and only the store's
layout spells a path under the home.

The secret that leaked through `sync --resolve` came from a caller that had assembled its
own sync; seven spellings of ``home / "memory"`` in four packages could each drift from the
layout. This walks the syntax tree of every source module of every package and names each
place that does either. It reads code, never runs it: a call that is never reached in a test
is found all the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PACKAGES = Path(__file__).resolve().parents[2]  # packages/, beside anamnesis-ops
BACKEND = "GitSyncBackend"
# The names of what a home holds (StoreLayout's properties name them), and the constant
# the store once joined to a home itself.
HOME_NAMES = frozenset({
    "memory", "local", "logs", "queue", "cache", "models", "eval", "index.db", "usage.db",
    "config.json", "remotes", "routes.json", "keys",
})  # fmt: skip
NAME_CONSTANTS = frozenset({"CONFIG_FILE"})
PATH_TYPES = frozenset({"Path", "PurePath", "PurePosixPath"})
# (module, name) -> why it is not a path under the home. Each must still be found: an
# allowance nothing needs any more is itself reported, so none outlives its reason.
ALLOWED: dict[tuple[str, str], str] = {
    ("anamnesis/ops/native.py", "memory"): (
        "Claude Code's own folder, ~/.claude/projects/<slug>/memory, not the home"
    ),
}


@dataclass(frozen=True, slots=True)
class Finding:
    module: str  # the module's path under its package's src/, e.g. anamnesis/cli/doctor.py
    line: int
    what: str  # GitSyncBackend, or the name the path is built from
    code: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.code}"


@dataclass(frozen=True, slots=True)
class Module:
    name: str
    tree: ast.Module

    def defines(self, class_name: str) -> bool:
        return any(isinstance(n, ast.ClassDef) and n.name == class_name for n in self.tree.body)


def parse(source: str, name: str = "planted.py") -> Module:
    return Module(name, ast.parse(source, filename=name))


def source_modules() -> list[Module]:
    """Every module under packages/*/src (tests build fixture homes by hand: not these)."""
    modules = []
    for path in sorted(PACKAGES.glob("*/src/**/*.py")):
        src = next(parent for parent in path.parents if parent.name == "src")
        name = path.relative_to(src).as_posix()
        modules.append(Module(name, ast.parse(path.read_text(encoding="utf-8"), filename=name)))
    return modules


def home_constants(modules: Iterable[Module]) -> frozenset[str]:
    """Module-level names bound to a home name (``QUEUE_DIR = "queue"``, ``DIRS = ("cache",
    "sessions")``, ``CACHE = Path("cache") / "x.db"``), in any module: one is often
    imported by another, and joined to the home there."""
    names = set(NAME_CONSTANTS)
    for module in modules:
        for node in module.tree.body:
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            if targets and _home_name(value, frozenset()) is not None:
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


def backends_made(module: Module) -> Iterator[Finding]:
    """Each call of GitSyncBackend, under any name it was imported as."""
    aliases = {BACKEND} | {
        alias.asname
        for node in ast.walk(module.tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name == BACKEND and alias.asname
    }
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id in aliases) or (
                isinstance(func, ast.Attribute) and func.attr == BACKEND
            ):
                yield Finding(module.name, node.lineno, BACKEND, ast.unparse(node))


def home_paths(module: Module, constants: frozenset[str]) -> Iterator[Finding]:
    """Each path built from a home name: ``x / "memory"``, ``x / CONFIG_FILE``,
    ``x.joinpath("cache", ...)``, ``os.path.join(x, "logs")``."""
    for node in ast.walk(module.tree):
        joined: ast.expr | None = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            joined = node.right
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "joinpath" and node.args:
                joined = node.args[0]
            elif _dotted(node.func) == "os.path.join" and len(node.args) > 1:
                joined = node.args[1]
        name = None if joined is None else _home_name(joined, constants)
        if name is not None:
            yield Finding(module.name, getattr(node, "lineno", 0), name, ast.unparse(node))


def _home_name(node: ast.expr, constants: frozenset[str]) -> str | None:
    """The home name ``node`` stands for (a literal's first path segment, or a constant's
    name), if any."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        first = node.value.split("/", 1)[0]
        return first if first in HOME_NAMES else None
    if isinstance(node, ast.Name):
        return node.id if node.id in constants else None
    if isinstance(node, ast.Attribute):  # store.CONFIG_FILE
        return node.attr if node.attr in constants else None
    if isinstance(node, ast.Starred):
        return _home_name(node.value, constants)
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        return _home_name(node.elts[0], constants)
    if isinstance(node, ast.Call) and node.args and _dotted(node.func).split(".")[-1] in PATH_TYPES:
        return _home_name(node.args[0], constants)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):  # Path("cache") / "x"
        return _home_name(node.left, constants)
    return None


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def only(modules: list[Module], class_name: str, under: str) -> str:
    """The one module under ``under`` that defines ``class_name`` (found by what it defines,
    so that moving it to another folder keeps it the exception)."""
    found = [m.name for m in modules if m.name.startswith(under) and m.defines(class_name)]
    assert len(found) == 1, f"{class_name} is defined in {found or 'no module'}"
    return found[0]


def leaks(modules: list[Module]) -> tuple[list[Finding], list[Finding]]:
    """(backends made outside the home, home paths built outside the layout)."""
    home = only(modules, "Home", "anamnesis/ops/")
    layout = only(modules, "StoreLayout", "anamnesis/store/")
    constants = home_constants(modules)
    made = [f for m in modules if m.name != home for f in backends_made(m)]
    paths = [f for m in modules if m.name != layout for f in home_paths(m, constants)]
    return made, paths


# -- the checker can fail --------------------------------------------------------------------

# Each line the checker must name says so: ``# backend`` or ``# path: <name>``.
PLANTED = """\
import os
from pathlib import Path

from anamnesis import sync
from anamnesis.store import CONFIG_FILE
from anamnesis.sync import GitSyncBackend
from anamnesis.sync import GitSyncBackend as Backend

QUEUE_DIR = "queue"
SESSIONS = ("cache", "sessions")
HISTORY = Path("cache") / "history.db"
SCOPES = ("memory", "all")  # a CLI choice, never joined to a path: nothing to find


def leaky(home: Path, layout) -> None:
    GitSyncBackend(home / "memory", remote=None, machine_id="m")  # backend # path: memory
    Backend(layout.memory_dir, remote=None, machine_id="m").state()  # backend
    sync.GitSyncBackend(layout.memory_dir, remote=None, machine_id="m")  # backend
    (home / "logs" / "hooks.log").touch()  # path: logs
    Path(str(home)) / "index.db"  # path: index.db
    home / CONFIG_FILE  # path: CONFIG_FILE
    home / QUEUE_DIR / "captures"  # path: QUEUE_DIR
    home.joinpath(*SESSIONS)  # path: SESSIONS
    home.joinpath("models")  # path: models
    os.path.join(home, "eval/cases.jsonl")  # path: eval
    home / HISTORY  # path: HISTORY


def clean(layout, tree: Path, names: list[str]) -> None:
    layout.memory_dir / "semantic" / "x.md"
    tree / "notes.md"
    "memory" in names
    layout.cache_dir / "sessions"
"""


def planted_marks(kind: str) -> set[tuple[int, str]]:
    """(line, name) of each line of PLANTED marked ``# <kind>``."""
    marks = set()
    for number, line in enumerate(PLANTED.splitlines(), start=1):
        for mark in line.split("# ")[1:]:
            if mark.startswith(kind):
                marks.add((number, mark.partition(": ")[2].strip() or BACKEND))
    return marks


def test_the_checker_finds_every_planted_leak() -> None:
    planted = parse(PLANTED)
    constants = home_constants([planted])
    assert constants == {"QUEUE_DIR", "SESSIONS", "HISTORY", "SCOPES", "CONFIG_FILE"}
    made = {(f.line, f.what) for f in backends_made(planted)}
    assert made == planted_marks("backend")
    paths = {(f.line, f.what) for f in home_paths(planted, constants)}
    assert paths == planted_marks("path")
    assert len(made) == 3 and len(paths) == 9  # the marks were read, too


def test_the_exceptions_are_found_by_what_they_define() -> None:
    home = parse("class Home:\n    def sync_backend(self):\n        return GitSyncBackend(1)\n",
                 "anamnesis/ops/home.py")  # fmt: skip
    layout = parse('class StoreLayout:\n    memory_dir = root / "memory"\n',
                   "anamnesis/store/files/layout.py")  # fmt: skip
    other = parse('GitSyncBackend(root / "memory")\n', "anamnesis/cli/x.py")
    made, paths = leaks([home, layout, other])
    assert [(f.module, f.what) for f in made] == [("anamnesis/cli/x.py", BACKEND)]
    assert [(f.module, f.what) for f in paths] == [("anamnesis/cli/x.py", "memory")]


# -- the packages ----------------------------------------------------------------------------


def test_only_the_home_makes_a_sync_backend() -> None:
    made, _paths = leaks(walked())
    why = "a sync backend made outside anamnesis.ops.Home (use home.sync_backend())"
    assert made == [], "\n".join([why, *map(str, made)])


def test_only_the_layout_spells_a_path_under_the_home() -> None:
    _made, paths = leaks(walked())
    unexplained = [f for f in paths if (f.module, f.what) not in ALLOWED]
    why = "a path under the home built by hand (use the StoreLayout's)"
    assert unexplained == [], "\n".join([why, *map(str, unexplained)])
    used = {(f.module, f.what) for f in paths}
    stale = sorted(set(ALLOWED) - used)
    assert stale == [], f"allowances nothing needs any more (remove them): {stale}"


@cache
def walked() -> list[Module]:
    modules = source_modules()
    # Every package is read (an empty walk would pass every check).
    packages = {m.name.split("/")[1] for m in modules if m.name.count("/") > 1}
    assert {"store", "sync", "ops", "hooks", "mcp", "reflect", "cli", "dashboard"} <= packages
    return modules
