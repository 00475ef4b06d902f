"""The README's install, run verbatim as a new user runs it: the first shell block of
README.md, in an empty HOME, with no `claude` on PATH, against this checkout. Then what
that user meets in the first hour, point by point (issue 22's twelve problems)."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
OFFLINE_MODEL = SHARED / "models" / "all-MiniLM-L6-v2-onnx-int8"
INSTALL_TIMEOUT_S = 900
TIMEOUT_S = 180


def readme_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)


def new_user_environment(home: Path) -> dict[str, str]:
    """An empty HOME; this machine's PATH without any folder that holds a `claude`; none of
    our variables; uv's download cache kept (a fresh HOME would otherwise fetch every
    dependency again: slow, and not what is under test)."""
    uv = shutil.which("uv")
    assert uv is not None
    cache = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=True)
    path = [
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and not (Path(entry) / "claude").exists()
    ]
    if str(Path(uv).parent) not in path:
        path.append(str(Path(uv).parent))
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ANAMNESIS_", "CLAUDE_", "UV_", "XDG_", "VIRTUAL_ENV", "NOX"))
    }
    environment.update(HOME=str(home), PATH=os.pathsep.join(path))
    environment["UV_CACHE_DIR"] = cache.stdout.strip()
    return environment


class NewUser:
    """One person on a fresh account: runs shell lines and the installed `anamnesis`."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.environment = new_user_environment(home)
        self.bin = home / ".local" / "bin"

    def shell(self, script: str, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=ROOT,
            env=self.environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def anamnesis(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.bin / "anamnesis"), *args],
            cwd=self.home,
            env=self.environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
        if ok:
            assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done

    def json(self, *args: str) -> Any:
        return json.loads(self.anamnesis(*args, "--json").stdout)


@pytest.fixture(scope="module")
def user(tmp_path_factory: pytest.TempPathFactory) -> NewUser:
    if shutil.which("uv") is None:
        pytest.skip("uv is not on PATH: the README's install needs it")
    person = NewUser(tmp_path_factory.mktemp("new-user"))
    assert shutil.which("claude", path=person.environment["PATH"]) is None
    # The first block is the plugin's (test_claude_plugin.py installs it with the real
    # `claude`); the first one with the installer is everything else's.
    install = next(block for block in readme_blocks() if "scripts/install.py" in block)
    assert "anamnesis init" in install
    assert "--remote" not in install  # the install block keeps notes on this machine
    done = person.shell(install, timeout=INSTALL_TIMEOUT_S)
    assert done.returncode == 0, (done.stdout, done.stderr)
    person.install_output = done.stdout + done.stderr  # type: ignore[attr-defined]
    # The block's `export PATH=...` holds for the rest of that user's shell session.
    person.environment["PATH"] = f"{person.bin}{os.pathsep}{person.environment['PATH']}"
    return person


def test_the_readme_installs_this_checkout_not_the_index_release(user: NewUser) -> None:
    # 1, 3: this version, from this folder, rebuilt (--reinstall) every time.
    version = user.anamnesis("--version").stdout
    checkout = tomllib.loads((ROOT / "packages" / "anamnesis-cli" / "pyproject.toml").read_text())
    assert version.startswith(f"anamnesis {checkout['project']['version']} "), version
    assert not version.startswith("anamnesis 0.1."), version  # never the index's 0.1.3
    doctor = {c["name"]: c for c in user.json("doctor", "--offline")["checks"]}
    assert "from the checkout" in doctor["install"]["detail"]
    assert str(ROOT / "packages" / "anamnesis-cli") in doctor["install"]["detail"]
    assert "uv tool install --reinstall" in doctor["install"]["fix"]
    # 2: no fix hint anywhere names the index's package.
    for check in doctor.values():
        assert "'anamnesis-memory[" not in check["fix"], check
    # 4: without `claude`, a warning with the line to run later; no failure, no loop.
    assert doctor["mcp"]["status"] == "warn"
    assert doctor["mcp"]["fix"].startswith("once Claude Code is installed, run: `claude mcp add")
    assert [c["name"] for c in doctor.values() if c["status"] == "fail"] == []
    hooks = json.loads((user.home / ".claude" / "settings.json").read_text())["hooks"]
    assert {"SessionStart", "SessionEnd", "PreCompact"} <= set(hooks)


def test_vectors_are_installed_exactly_where_the_python_can_run_them(user: NewUser) -> None:
    # 7: the installer chose a capable Python when there is one, and said what it did.
    from anamnesis.cli.capable_python import find_capable_python

    capable = find_capable_python()
    doctor = {c["name"]: c for c in user.json("doctor", "--offline")["checks"]}
    if capable is None:
        assert "search by meaning (the vectors extra) is left out" in user.install_output  # type: ignore[attr-defined]
        assert "extras: mcp, dashboard)" in doctor["install"]["detail"]
        return
    assert "extras: mcp, dashboard, vectors" in doctor["install"]["detail"]
    assert f"Python {capable}" in doctor["install"]["detail"]
    # 7: the model cannot be downloaded here; init said once how to give a local copy.
    assert "`anamnesis config set embed_model_path FOLDER`" in user.install_output  # type: ignore[attr-defined]
    if not (OFFLINE_MODEL / "model.onnx").is_file():
        pytest.skip(f"no offline model at {OFFLINE_MODEL}")
    user.anamnesis("init", "--embed-model-path", str(OFFLINE_MODEL))
    vectors = {c["name"]: c for c in user.json("doctor", "--offline")["checks"]}["vectors"]
    assert vectors["status"] == "ok", vectors
    user.anamnesis("write", "--title", "Restore tmux sessions after a reboot",
                   "Install tmux-resurrect; prefix + Ctrl-r restores panes")  # fmt: skip
    found = user.anamnesis(
        "search", "my shell multiplexer layout is gone after I power-cycle", "--json"
    )
    hits = json.loads(found.stdout)
    assert hits and hits[0]["mode"] == "hybrid" and 0 < hits[0]["score"] <= 1
    assert "hybrid search" in found.stderr


def test_the_readme_tour_finds_its_note_whatever_the_search_mode(user: NewUser) -> None:
    # 6: the tour's write and search, verbatim; keyword search alone must find it.
    tour = next(block for block in readme_blocks() if "anamnesis write" in block)
    write = re.search(r"anamnesis write .*?\n(?!\s)", tour, flags=re.DOTALL)
    search = re.search(r"anamnesis search \"[^\"]+\"", tour)
    assert write is not None and search is not None
    project = user.home / "project"
    project.mkdir(exist_ok=True)
    wrote = user.shell(f"cd {project}\n{write.group(0)}")
    assert wrote.returncode == 0 and wrote.stdout.startswith("wrote "), wrote.stderr
    done = user.shell(f"cd {project}\n{search.group(0)} --mode keyword --json")
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)
    assert hits and "locked" in hits[0]["title"].lower() and hits[0]["mode"] == "keyword"
    # 5: scores in the table, and a query about nothing finds nothing in every mode.
    table = user.anamnesis("search", "sqlite locked").stdout.splitlines()
    assert table[0].split()[:2] == ["id", "score"]
    for mode in ("keyword", "vector", "hybrid"):
        assert user.json("search", "qzxv blorft wugglepox", "--mode", mode) == [], mode


def test_ids_by_prefix_and_hand_written_notes(user: NewUser) -> None:
    # 9: a unique prefix of 6+ characters, any case.
    written = user.json("write", "--title", "Prefix note", "reachable by a short id")
    shown = user.anamnesis("show", written["id"][:14].lower())
    assert shown.stdout.startswith("# Prefix note")
    # 10: a hand-written note without an id is adopted by reindex.
    path = user.home / ".anamnesis" / "memory" / "semantic" / "deploys.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\ntitle: Deploys run on Fridays\n---\nNever on Monday.\n")
    (adopted,) = user.json("reindex")["adopted"]
    assert adopted["path"] == str(path)
    assert path.read_text().startswith(f"---\nid: {adopted['id']}\n")


def test_a_bare_anamnesis_on_a_terminal_prints_help(user: NewUser) -> None:
    # 8: a person typing `anamnesis` gets the help at once, not a silent server.
    controller, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [str(user.bin / "anamnesis")],
            stdin=terminal,
            capture_output=True,
            env=user.environment,
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert done.returncode == 0 and b"Usage: anamnesis" in done.stdout


def test_the_docs_the_readme_points_to_exist_and_cover_every_setting() -> None:
    # 11: configuration reference, troubleshooting, notes format; every key documented.
    from anamnesis.cli.config_file import config_keys

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for link in re.findall(r"\]\((docs/[^)]+)\)", readme):
        doc, _, anchor = link.partition("#")
        assert (ROOT / doc).is_file(), doc
        if anchor:  # a section of it: a heading whose anchor (GitHub's slug) is this one
            headings = re.findall(r"^#+ (.+)$", (ROOT / doc).read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w -]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, link
    configuration = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for key in config_keys():
        assert f"`{key}`" in configuration, key
    variables = set(re.findall(r"ANAMNESIS_[A-Z_]+", _source_text()))
    assert variables, "the code names no variables: the pattern is wrong"
    for variable in variables:
        assert variable in configuration, variable
    for section in ("## Update", "## Uninstall", "anamnesis-hook", "anamnesis-mcp", "logs"):
        assert section in readme, section


def _source_text() -> str:
    return "\n".join(
        path.read_text(encoding="utf-8") for path in (ROOT / "packages").glob("*/src/**/*.py")
    )
