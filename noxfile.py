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
    "dashboard",
    "isolation",
    "vectors_fallback",
    "install",
    "e2e",
]
nox.options.error_on_external_run = True

ROOT = Path(__file__).parent
# The shared test helpers (tests-support/): a workspace member only for development.
TESTSUPPORT = "anamnesis_testsupport"
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
    "anamnesis-ops": {"anamnesis-store", "anamnesis-sync", "pyrage"},
    "anamnesis-hooks": {"anamnesis-store", "anamnesis-sync", "anamnesis-ops"},
    "anamnesis-mcp": {"anamnesis-store", "anamnesis-sync", "anamnesis-ops", "mcp"},
    "anamnesis-reflect": {"anamnesis-store"},
    "anamnesis-dashboard": {
        "anamnesis-store",
        "anamnesis-sync",
        "anamnesis-ops",
        "starlette",
        "uvicorn",
        "jinja2",
        "markdown-it-py",
        "pygments",
    },
    "anamnesis-memory": {
        "anamnesis-store",
        "anamnesis-sync",
        "anamnesis-ops",
        "anamnesis-hooks",
        "anamnesis-reflect",
        "tomli-w",  # Codex's config.toml, as `init --agent codex` writes it
        "typer",
    },
}
# Distributions that must never be installed alongside a package, even indirectly.
FORBIDDEN: dict[str, set[str]] = {
    "anamnesis-store": {"mcp", "dulwich", "typer", "rich"},
    "anamnesis-sync": {"anamnesis-store", "mcp", "pyyaml", "python-ulid", "typer", "rich"},
    "anamnesis-ops": {"mcp", "typer", "rich", "click", "anamnesis-hooks", "anamnesis-reflect"},
    "anamnesis-hooks": {"mcp", "typer", "rich", "click"},
    "anamnesis-mcp": {"anamnesis-hooks", "typer", "rich"},
    "anamnesis-reflect": {"mcp", "dulwich", "typer", "rich", "anamnesis-sync", "anamnesis-hooks"},
    "anamnesis-dashboard": {
        "mcp",
        "typer",
        "rich",
        "anamnesis-hooks",
        "anamnesis-mcp",
        "anamnesis-reflect",
        "anamnesis-memory",
    },
    "anamnesis-memory": {"anamnesis-mcp", "mcp", "anamnesis-dashboard", "starlette"},  # extras
}
# The programs the sessions run in the venvs they make (plain scripts: stdlib plus what that
# venv holds), kept as files so that ruff and mypy check them; see each file's docstring.
PROGRAMS = ROOT / "nox_programs"
# The isolation session's smoke test of each distribution, installed alone.
SMOKE = {
    "anamnesis-store": PROGRAMS / "smoke_store.py",
    "anamnesis-sync": PROGRAMS / "smoke_sync.py",
    "anamnesis-ops": PROGRAMS / "smoke_ops.py",
    "anamnesis-hooks": PROGRAMS / "smoke_hooks.py",
    "anamnesis-mcp": PROGRAMS / "smoke_mcp.py",
    "anamnesis-reflect": PROGRAMS / "smoke_reflect.py",
    "anamnesis-dashboard": PROGRAMS / "smoke_dashboard.py",
    "anamnesis-memory": PROGRAMS / "smoke_cli.py",
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
    """mypy --strict over every package, its tests, the benchmarks, the shared test
    support and the programs the sessions run (nox_programs/)."""
    _sync(session)
    # One run per package: each has its own tests/conftest.py, which one run cannot hold.
    for name in PACKAGES:
        session.run("mypy", str(ROOT / "packages" / name))
    session.run("mypy", "bench", "noxfile.py", "tests-support", "tests-e2e", "nox_programs")


@nox.session(python=PYTHON)
@nox.parametrize("package", PACKAGES)
def tests(session: nox.Session, package: str) -> None:
    """Each package's own test suite, but the browser tests (run once, in `dashboard`)."""
    _sync(session)
    session.run("pytest", f"packages/{package}/tests", "-m", "not browser", *session.posargs)


@nox.session(python=PYTHON)
def dashboard(session: nox.Session) -> None:
    """The dashboard's browser tests: Playwright driving the system's headless Chromium.
    Where there is none they skip, saying how to get one."""
    _sync(session)
    session.run("pytest", "packages/anamnesis-dashboard/tests", "-m", "browser", *session.posargs)


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
    session.run(python, str(SMOKE[package]), external=True)
    report = subprocess.run(
        [python, str(PROGRAMS / "dependency_report.py"), package],
        capture_output=True,
        text=True,
        check=True,
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
    session.run(target, str(PROGRAMS / "vectors_fallback.py"), external=True)
    shutil.rmtree(venv, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)


@nox.session(python=PYTHON)
def install(session: nox.Session) -> None:
    """Install the tool as users do: `uv tool install` from the built wheels, offline, with
    and without the `mcp` and `dashboard` extras, then use it."""
    wheels = Path(tempfile.mkdtemp(prefix="anamnesis-wheels-"))
    session.run("uv", "build", "--all-packages", "--wheel", "-o", str(wheels), external=True)
    # --all-packages builds every workspace member: the test-support one too (never installed).
    built = sorted(
        path.name.split("-")[0]
        for path in wheels.glob("*.whl")
        if not path.name.startswith(f"{TESTSUPPORT}-")
    )
    if len(built) != len(PACKAGES):
        session.error(f"expected {len(PACKAGES)} wheels, built {built}")
    for extra in ("[mcp,dashboard]", ""):
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
        # What a new user does after installing: run with this Python (it has the MCP client).
        tour = [tool, str(root)] if extra else [tool, str(root), "--without-mcp"]
        session.run(sys.executable, str(PROGRAMS / "user_tour.py"), *tour, external=True)
        shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)


@nox.session(python=PYTHON)
def e2e(session: nox.Session) -> None:
    """The whole system as people run it (tests-e2e/): two machines sharing one bare remote,
    driven only through the installed `anamnesis` command and the MCP server over stdio,
    with no git binary on their PATH."""
    _sync(session)
    session.run("pytest", "tests-e2e", *session.posargs)
    # The benchmarks' own tests (a corpus generator's determinism and answers): not a
    # package's, so no tests session runs them; they read ../shared and skip without it.
    session.run("pytest", "bench/tests", *session.posargs)


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
    # bench.suites only: the studies and the runs at scale (bench.scale: minutes to an hour,
    # options of their own, no --quick) are run by hand (bench/README.md). Each suite runs
    # as `python -m` from the checkout's root, the folder where it finds the bench package.
    session.chdir(ROOT)
    for suite in sorted((ROOT / "bench" / "suites").glob("*_bench.py")):
        session.run("python", "-m", f"bench.suites.{suite.stem}", *session.posargs, env=env)


if __name__ == "__main__":  # pragma: no cover - convenience for `python noxfile.py`
    sys.exit(subprocess.call([sys.executable, "-m", "nox", *sys.argv[1:]]))
