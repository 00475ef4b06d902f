"""Checks for the whole workspace. `uv run nox` runs the default sessions; see README.md.

Sessions install from the committed uv.lock (`uv sync --frozen`) into nox's own venvs, so a
run tests exactly what is locked. `bench` runs only when asked: `uv run nox -s bench`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from types import ModuleType

import nox

nox.options.default_venv_backend = "uv"
nox.options.sessions = [
    "lint",
    "typecheck",
    "tests",
    "isolation",
    "vectors_fallback",
    "install",
    "e2e",
]
nox.options.error_on_external_run = True

ROOT = Path(__file__).parent
PACKAGES = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())
# Distribution names (the CLI's folder is anamnesis-cli, its distribution anamnesis-memory).
DISTRIBUTIONS = sorted(
    tomllib.loads((ROOT / "packages" / p / "pyproject.toml").read_text())["project"]["name"]
    for p in PACKAGES
)

# What each distribution may pull in directly; the isolation session installs each wheel
# alone and fails on anything else (their own dependencies' dependencies are allowed).
DIRECT_DEPENDENCIES: dict[str, set[str]] = {
    "anamnesis-store": {"pyyaml", "python-ulid"},
    "anamnesis-sync": {"dulwich"},
    "anamnesis-hooks": {"anamnesis-store", "anamnesis-sync"},
    "anamnesis-mcp": {"anamnesis-store", "anamnesis-sync", "mcp"},
    "anamnesis-memory": {"anamnesis-store", "anamnesis-sync", "anamnesis-hooks", "typer"},
}
# Distributions that must never be installed alongside a package, even indirectly.
FORBIDDEN: dict[str, set[str]] = {
    "anamnesis-store": {"mcp", "dulwich", "typer", "rich"},
    "anamnesis-sync": {"anamnesis-store", "mcp", "pyyaml", "python-ulid", "typer", "rich"},
    "anamnesis-hooks": {"mcp", "typer", "rich", "click"},
    "anamnesis-mcp": {"anamnesis-hooks", "typer", "rich"},
    "anamnesis-memory": {"anamnesis-mcp", "mcp"},  # the MCP server is the `mcp` extra
}
SMOKE = {
    "anamnesis-store": """
import tempfile
from anamnesis.store import MemoryStore
with MemoryStore(tempfile.mkdtemp()) as store:
    note = store.write(type="semantic", title="Isolation smoke", body="installed alone")
    assert [m.id for m in store.search("isolation")] == [note.id]
print("store smoke ok")
""",
    "anamnesis-sync": """
import pathlib, tempfile
from dulwich.repo import Repo
from anamnesis.sync import GitSyncBackend
root = pathlib.Path(tempfile.mkdtemp())
(root / "remote.git").mkdir()
Repo.init_bare(str(root / "remote.git")).close()
a = GitSyncBackend(root / "a", remote=str(root / "remote.git"), machine_id="a")
b = GitSyncBackend(root / "b", remote=str(root / "remote.git"), machine_id="b")
(root / "a" / "semantic").mkdir(parents=True)
(root / "a" / "semantic" / "n.md").write_text("smoke")
assert a.sync().pushed and b.sync().pulled == 1
assert (root / "b" / "semantic" / "n.md").read_text() == "smoke"
print("sync smoke ok")
""",
    "anamnesis-hooks": """
import json, os, pathlib, subprocess, sys, tempfile
home = pathlib.Path(tempfile.mkdtemp())
env = {**os.environ, "ANAMNESIS_HOME": str(home), "ANAMNESIS_MACHINE_ID": "smoke"}
from anamnesis.store import MemoryStore
with MemoryStore(home) as store:
    store.write(type="semantic", title="Hooks smoke note", body="injected", project="global")
done = subprocess.run([sys.executable, "-m", "anamnesis.hooks", "inject"], env=env,
                      input=json.dumps({"cwd": str(home)}), capture_output=True, text=True)
assert done.returncode == 0 and "Hooks smoke note" in done.stdout, done
transcript = home / "t.jsonl"
transcript.write_text(json.dumps({"type": "user", "message": {"content": "smoke ask"}}) + "\\n")
done = subprocess.run([sys.executable, "-m", "anamnesis.hooks", "capture", "--no-sync"], env=env,
                      input=json.dumps({"transcript_path": str(transcript), "session_id": "s"}),
                      capture_output=True, text=True)
assert done.returncode == 0, done
with MemoryStore(home) as store:
    assert any(m.prov_session == "s" for m in store.list()), store.list()
import importlib.util
assert importlib.util.find_spec("mcp") is None
print("hooks smoke ok")
""",
    "anamnesis-mcp": """
import json, os, pathlib, shutil, sys, tempfile
import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
home = tempfile.mkdtemp()
script = shutil.which("anamnesis-mcp", path=str(pathlib.Path(sys.executable).parent))
params = StdioServerParameters(command=script, env={**os.environ, "ANAMNESIS_HOME": home})
async def main():
    async with Client(params, mode="legacy") as client:
        assert len((await client.list_tools()).tools) == 5
        note = {"type": "semantic", "title": "MCP smoke", "body": "installed alone"}
        assert not (await client.call_tool("memory_write", note)).is_error
        found = await client.call_tool("memory_search", {"query": "smoke"})
        assert json.loads(found.content[0].text)[0]["title"] == "MCP smoke", found
anyio.run(main)
import importlib.util
assert importlib.util.find_spec("anamnesis.hooks") is None
print("mcp smoke ok")
""",
    "anamnesis-memory": """
import json, os, pathlib, shutil, subprocess, sys, tempfile
root = pathlib.Path(tempfile.mkdtemp())
env = {**os.environ, "ANAMNESIS_HOME": str(root / "home"), "CLAUDE_CONFIG_DIR": str(root / "c")}
tool = shutil.which("anamnesis", path=str(pathlib.Path(sys.executable).parent))
def run(*args, stdin=""):
    done = subprocess.run([tool, *args], input=stdin, capture_output=True, text=True, env=env)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout
run("init", "--yes", "--local-only")
run("write", "--title", "CLI smoke", "installed alone")
assert json.loads(run("search", "smoke", "--json"))[0]["title"] == "CLI smoke"
served = subprocess.run([tool, "serve"], capture_output=True, text=True, env=env)
assert served.returncode == 1 and "anamnesis-memory[mcp]" in served.stderr, served
print("cli smoke ok")
""",
}


def _capable_python_module() -> ModuleType:
    """The finder the installer and `anamnesis doctor` use (one rule, one place), loaded
    from its file: it needs nothing installed."""
    path = ROOT / "packages" / "anamnesis-cli" / "src" / "anamnesis" / "cli" / "capable_python.py"
    spec = importlib.util.spec_from_file_location("anamnesis_capable_python", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CAPABLE = _capable_python_module()


def _can_load_extensions(python: str) -> bool:
    return bool(CAPABLE.can_load_extensions(python))


def _pick_python() -> str:
    """A Python whose sqlite3 can load extensions (the vectors extra needs it), if any.

    The pyenv builds here cannot; Debian's own python3.11 can. ANAMNESIS_NOX_PYTHON wins.
    """
    override = os.environ.get("ANAMNESIS_NOX_PYTHON")
    if override:
        return override
    found = CAPABLE.find_capable_python()
    return str(found) if found else "3.11"


PYTHON = _pick_python()


def _python_without_extensions() -> str | None:
    """A Python 3.11+ whose sqlite3 cannot load extensions (pyenv's default builds), if any:
    the vectors extra must fall back to keyword search there."""
    candidates = sorted((Path.home() / ".pyenv" / "versions").glob("3.1[1-9]*/bin/python3"))
    for name in ("python3.13", "python3.12", "python3.11"):
        found = shutil.which(name)
        if found:
            candidates.append(Path(found))
    for candidate in candidates:
        probe = subprocess.run(
            [str(candidate), "-c", "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)"],
            capture_output=True,
            check=False,
        )
        if probe.returncode == 0 and not _can_load_extensions(str(candidate)):
            return str(candidate)
    return None


def _sync(session: nox.Session, *args: str) -> None:
    """Install the locked workspace (all members, dev tools) into the session's venv."""
    session.run_install(
        "uv",
        "sync",
        "--frozen",
        "--all-packages",
        "--group",
        "dev",
        *args,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        external=True,
    )


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff (lint and format) and the import-linter contracts for dependency direction."""
    _sync(session)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("lint-imports")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over every package, its tests and the benchmarks."""
    _sync(session)
    # One run per package: each has its own tests/conftest.py, which one run cannot hold.
    for name in PACKAGES:
        session.run("mypy", str(ROOT / "packages" / name))
    session.run("mypy", "bench", "noxfile.py", "tests-support", "tests-e2e")


@nox.session(python=PYTHON)
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """Each package's own test suite."""
    _sync(session)
    session.run("pytest", f"packages/{package}/tests", *session.posargs)


@nox.session(python=PYTHON)
@nox.parametrize("package", DISTRIBUTIONS)
def isolation(session: nox.Session, package: str) -> None:
    """Build the wheels, install one package alone in a fresh venv, smoke-test it, and check
    that nothing beyond its declared dependencies (and theirs) was installed."""
    wheels = Path(tempfile.mkdtemp(prefix="anamnesis-wheels-"))
    session.run("uv", "build", "--all-packages", "--wheel", "-o", str(wheels), external=True)
    venv = Path(tempfile.mkdtemp(prefix=f"isolated-{package}-"))
    session.run("uv", "venv", "--python", PYTHON, str(venv), external=True)
    python = str(venv / "bin" / "python")
    # --reinstall (here and below): uv reuses its cached copy of a wheel with the same name
    # and version from a --find-links folder even when the folder holds a new build, so a
    # run could otherwise test an earlier build of the same version.
    session.run(
        "uv", "pip", "install", "--reinstall", "--python", python, "--find-links", str(wheels),
        package, external=True,
    )  # fmt: skip
    session.run(python, "-c", SMOKE[package], external=True)
    report = subprocess.run(
        [python, "-c", _DEPENDENCY_REPORT, package], capture_output=True, text=True, check=True
    )
    found = json.loads(report.stdout)
    direct = set(found["direct"])
    if direct != DIRECT_DEPENDENCIES[package]:
        expected = sorted(DIRECT_DEPENDENCIES[package])
        session.error(f"{package} depends on {sorted(direct)}, expected {expected}")
    unexpected = set(found["installed"]) - set(found["closure"]) - {package}
    if unexpected:
        session.error(f"installing {package} also installed {sorted(unexpected)}")
    forbidden = set(found["installed"]) & FORBIDDEN.get(package, set())
    if forbidden:
        session.error(f"installing {package} pulled in {sorted(forbidden)}")
    session.log(f"{package} installs alone with: {sorted(set(found['installed']) - {package})}")
    shutil.rmtree(venv, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)


# Run inside the isolated venv: the package's direct requirements (no extras), the closure of
# those requirements over what is installed (a requirement a marker excludes is simply not
# installed), and every distribution that is installed.
_DEPENDENCY_REPORT = r"""
import json, re, sys
from importlib import metadata

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

installed = {norm(d.metadata["Name"]) for d in metadata.distributions()}

def requirements(name, extras=()):
    # (name, extras) pairs; requirements behind an extra count only when it was asked for.
    out = []
    for raw in metadata.distribution(name).requires or []:
        marker = raw.split(";", 1)[1] if ";" in raw else ""
        wanted = re.findall(r"\bextra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if wanted and not set(map(norm, wanted)) & set(extras):
            continue
        match = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:\[([^\]]*)\])?", raw)
        asked = tuple(norm(e) for e in (match.group(2) or "").split(",") if e.strip())
        out.append((norm(match.group(1)), asked))
    return out

package = sys.argv[1]
direct = [name for name, _ in requirements(package)]
closure, todo = set(), [req for req in requirements(package) if req[0] in installed]
seen = set()
while todo:
    name, extras = todo.pop()
    if (name, extras) in seen:
        continue
    seen.add((name, extras))
    closure.add(name)
    todo.extend(r for r in requirements(name, extras) if r[0] in installed)
report = {"direct": direct, "closure": closure, "installed": installed}
print(json.dumps({key: sorted(value) for key, value in report.items()}))
"""


@nox.session(python=PYTHON)
def vectors_fallback(session: nox.Session) -> None:
    """`anamnesis-store[vectors]` on a Python whose sqlite3 cannot load extensions: search
    stays keyword-only, with one clear warning, and nothing crashes."""
    python = _python_without_extensions()
    if python is None:
        session.skip("every Python here can load SQLite extensions")
    wheels = Path(tempfile.mkdtemp(prefix="anamnesis-wheels-"))
    session.run("uv", "build", "--package", "anamnesis-store", "--wheel", "-o", str(wheels),
                external=True)  # fmt: skip
    venv = Path(tempfile.mkdtemp(prefix="vectors-fallback-"))
    session.run("uv", "venv", "--python", python, str(venv), external=True)
    target = str(venv / "bin" / "python")
    session.run("uv", "pip", "install", "--reinstall", "--python", target, "--find-links",
                str(wheels), "anamnesis-store[vectors]", external=True)  # fmt: skip
    session.run(target, "-c", _VECTORS_FALLBACK, external=True)
    shutil.rmtree(venv, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)


_VECTORS_FALLBACK = r"""
import tempfile, warnings
import fastembed, sqlite_vec  # the extra really is installed
from anamnesis.store import MemoryStore, VectorsUnavailableWarning
from anamnesis.store.embedding import sqlite_can_load_extensions, vector_support
assert not sqlite_can_load_extensions()
support = vector_support()
assert not support.available and "cannot load extensions" in support.reason, support
with MemoryStore(tempfile.mkdtemp()) as store:
    note = store.write(type="semantic", title="Fallback smoke", body="keyword search works")
    assert store.default_search_mode() == "keyword"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for mode in ("hybrid", "vector", None):
            assert [m.id for m in store.search("fallback", mode=mode)] == [note.id]
    messages = [str(w.message) for w in caught if w.category is VectorsUnavailableWarning]
    assert len(messages) == 1 and "cannot load extensions" in messages[0], messages
    status = store.embedding_status()
    assert status["available"] is False and status["fix"], status
    assert store.reindex().indexed == 1
print("vectors fallback ok:", messages[0])
"""


@nox.session(python=PYTHON)
def install(session: nox.Session) -> None:
    """Install the tool as users do: `uv tool install` from the five built wheels, offline,
    with and without the `mcp` extra, then use it."""
    wheels = Path(tempfile.mkdtemp(prefix="anamnesis-wheels-"))
    session.run("uv", "build", "--all-packages", "--wheel", "-o", str(wheels), external=True)
    built = sorted(path.name.split("-")[0] for path in wheels.glob("*.whl"))
    if len(built) != len(PACKAGES):
        session.error(f"expected {len(PACKAGES)} wheels, built {built}")
    for extra in ("[mcp]", ""):
        root = Path(tempfile.mkdtemp(prefix="anamnesis-tool-"))
        env = {
            "UV_TOOL_DIR": str(root / "tools"),
            "UV_TOOL_BIN_DIR": str(root / "bin"),
            "UV_OFFLINE": "1",  # third-party wheels come from uv's cache, ours from `wheels`
            "UV_PYTHON": PYTHON,
        }
        session.run(
            "uv", "tool", "install", "--reinstall", "--find-links", str(wheels),
            f"anamnesis-memory{extra}",
            env=env, external=True,
        )  # fmt: skip
        tool = str(root / "bin" / "anamnesis")
        script = _USER_TOUR if extra else _USER_TOUR_WITHOUT_MCP
        session.run(sys.executable, "-c", script, tool, str(root), external=True)
        shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)


# What a new user does after installing: runs as a plain script with the tool's path.
_USER_TOUR_COMMON = r"""
import json, os, pathlib, subprocess, sys
tool, root = sys.argv[1], pathlib.Path(sys.argv[2])
env = {k: v for k, v in os.environ.items() if not k.startswith(("ANAMNESIS_", "CLAUDE_"))}
env.update(ANAMNESIS_HOME=str(root / "home"), CLAUDE_CONFIG_DIR=str(root / "claude"),
           ANAMNESIS_MACHINE_ID="tour", HOME=str(root))
def run(*args, stdin="", ok=True):
    done = subprocess.run([tool, *args], input=stdin, capture_output=True, text=True, env=env)
    if ok:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done
print(run("--version").stdout.strip())
plan = run("init", "--print").stdout
assert "inject --format json" in plan and not (root / "home").exists(), plan
run("init", "--yes", "--local-only")
run("write", "--title", "Tour note", "--project", "global", "-", stdin="Use uv for everything")
assert json.loads(run("search", "uv", "--json").stdout)[0]["title"] == "Tour note"
out = run("inject", stdin=json.dumps({"cwd": str(root)})).stdout
assert "Tour note" in out, out
doctor = json.loads(run("doctor", "--offline", "--json", ok=False).stdout)
install = {c["name"]: c for c in doctor["checks"]}["install"]
assert "from wheels in" in install["detail"] and "--find-links" in install["fix"], install
"""
_USER_TOUR = (
    _USER_TOUR_COMMON
    + r"""
import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
async def tools():
    params = StdioServerParameters(command=tool, args=[], env=env)
    async with Client(params, mode="legacy") as client:
        return sorted(t.name for t in (await client.list_tools()).tools)
assert len(anyio.run(tools)) == 5
print("tour with [mcp] ok")
"""
)
_USER_TOUR_WITHOUT_MCP = (
    _USER_TOUR_COMMON
    + r"""
venv_python = pathlib.Path(tool).resolve().parent / "python"
probe = subprocess.run([str(venv_python), "-c", "import mcp"], capture_output=True)
assert probe.returncode != 0, "the MCP SDK is installed without the [mcp] extra"
served = run("serve", ok=False)
assert served.returncode == 1 and "anamnesis-memory[mcp]" in served.stderr, served.stderr
print("tour without [mcp] ok")
"""
)


@nox.session(python=PYTHON)
def e2e(session: nox.Session) -> None:
    """The whole system as people run it (tests-e2e/): two machines sharing one bare remote,
    driven only through the installed `anamnesis` command and the MCP server over stdio,
    with no git binary on their PATH."""
    _sync(session)
    session.run("pytest", "tests-e2e", *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks against the published release (0.1.3) in a separate venv. Not run by
    default: `uv run nox -s bench -- --quick` for a short run."""
    _sync(session)
    published = ROOT / ".nox" / "published-0.1.3"
    if not (published / "bin" / "python").exists():
        session.run("uv", "venv", "--python", PYTHON, str(published), external=True)
        session.run(
            "uv", "pip", "install", "--python", str(published / "bin" / "python"),
            "anamnesis-memory[mcp]==0.1.3", external=True,
        )  # fmt: skip
    env = {"ANAMNESIS_PUBLISHED_PYTHON": str(published / "bin" / "python")}
    for script in sorted((ROOT / "bench").glob("*_bench.py")):
        session.run("python", str(script), *session.posargs, env=env)


if __name__ == "__main__":  # pragma: no cover - convenience for `python noxfile.py`
    sys.exit(subprocess.call([sys.executable, "-m", "nox", *sys.argv[1:]]))
