"""The doctor's vectors check: can vector and hybrid search run here, and if not, why.

Every step a search would take is tried in order (the extra's packages, sqlite3's extension
loading, sqlite-vec, the configured model, loading that model), and the first one that
fails is reported with its fix. The extra is optional: not installing it is fine (search is
keyword-only); a half-working one is a warning, since searches quietly fall back to keywords.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.cli import installation
from anamnesis.cli.capable_python import find_capable_python
from anamnesis.cli.importable import importable
from anamnesis.ops import OK, WARN, Check
from anamnesis.store import (
    DEFAULT_MODE,
    MODEL_FOLDER_HINT,
    MODEL_PATH_ENV,
    VectorsUnavailable,
    configured_model,
    configured_search_mode,
    default_embedder,
    sqlite_can_load_extensions,
    sqlite_vec_problem,
)


def install_vectors() -> str:
    """The command that adds the vectors extra to this installation."""
    inst = installation.detect()
    return installation.install_command(inst, extras=inst.with_extras("mcp", "vectors"))


def other_python() -> str:
    """What to do when this Python's sqlite3 cannot load extensions: the exact reinstall
    command on a Python that can, when this machine has one."""
    inst = installation.detect()
    python = find_capable_python()
    if python is None:
        return (
            "no Python on this machine can load SQLite extensions; install one (Debian and "
            "Ubuntu: apt install python3; macOS: the python.org installer or Homebrew), "
            "then run `anamnesis doctor` again for the exact command"
        )
    extras = inst.with_extras("mcp", "vectors")
    command = installation.install_command(inst, extras=extras, python=python)
    return f"reinstall on {python}, whose sqlite3 can: {command}"


def vectors_fix(reason: str, fix: str) -> str:
    """The fix to show for a store's "vectors unavailable" ``reason``: the store's own
    ``fix`` knows the model and config, this module knows how this copy is installed."""
    if "cannot load extensions" in reason:
        return other_python()
    if "not installed" in reason:
        return install_vectors()
    return fix


def vectors_check(home: Path, *, offline: bool) -> Check:
    missing = [name for name in ("sqlite_vec", "fastembed") if not importable(name)]
    can_load = sqlite_can_load_extensions()
    if len(missing) == 2:
        detail = "the vectors extra is not installed (it is optional): search is keyword-only"
        if not can_load:
            detail += "; this Python's sqlite3 cannot load extensions, so it needs another Python"
        return Check(
            "vectors", OK, detail,
            f"for search by meaning: {install_vectors() if can_load else other_python()}",
        )  # fmt: skip
    if missing:
        return Check(
            "vectors", WARN,
            f"{missing[0].replace('_', '-')} is missing from the vectors extra: "
            "search is keyword-only",
            install_vectors(),
        )  # fmt: skip
    if not can_load:
        return Check(
            "vectors", WARN,
            "this Python's sqlite3 cannot load extensions, so sqlite-vec cannot run: "
            "search is keyword-only",
            other_python(),
        )  # fmt: skip

    problem = sqlite_vec_problem()
    if problem is not None:
        return Check("vectors", WARN, problem, install_vectors())
    return _model_check(home, offline=offline)


def _model_check(home: Path, *, offline: bool) -> Check:
    name, path = configured_model(home)
    mode = configured_search_mode(home) or DEFAULT_MODE
    try:
        embedder = default_embedder(home)
    except VectorsUnavailable as exc:  # a model folder without a model
        where = (
            f"{MODEL_PATH_ENV} is set in this environment and names that folder: point it "
            "at the model's folder, or unset it"
            if os.environ.get(MODEL_PATH_ENV, "").strip()
            else "`anamnesis config unset embed_model_path` to download the model instead"
        )
        return Check("vectors", WARN, f"{exc}; search is keyword-only", where)
    if offline and path is None:
        return Check(
            "vectors", OK,
            f"sqlite-vec and fastembed work; the model {name} was not loaded "
            f"(--offline, and it may need a download); default search: {mode}",
        )  # fmt: skip
    try:
        dimensions = len(embedder.embed_query("anamnesis doctor"))
    except VectorsUnavailable as exc:
        return Check(
            "vectors", WARN, f"{exc}; search is keyword-only",
            f"connect once so the model downloads, or {MODEL_FOLDER_HINT}",
        )  # fmt: skip
    source = f"from {path}" if path is not None else "(downloaded copy)"
    return Check(
        "vectors", OK,
        f"sqlite-vec and fastembed work; the model {name} {source} loads "
        f"({dimensions} dimensions); default search: {mode}",
    )  # fmt: skip
