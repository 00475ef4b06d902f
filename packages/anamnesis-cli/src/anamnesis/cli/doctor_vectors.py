"""The doctor's vectors check: can vector and hybrid search run here, and if not, why.

Every step a search would take is tried in order (the extra's packages, sqlite3's extension
loading, sqlite-vec, the configured model, loading that model), and the first one that
fails is reported with its fix. The extra is optional: not installing it is fine (search is
keyword-only); a half-working one is a warning, since searches quietly fall back to keywords.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from anamnesis.cli.doctor import OK, WARN, Check

INSTALL = "uv tool install --force 'anamnesis-memory[mcp,vectors]'"
OTHER_PYTHON = (
    "reinstall with a Python whose sqlite3 can load extensions, e.g. "
    "`uv tool install --force --python /usr/bin/python3 'anamnesis-memory[mcp,vectors]'`"
)


def vectors_check(home: Path, *, offline: bool) -> Check:
    from anamnesis.store.embedding import sqlite_can_load_extensions

    missing = [name for name in ("sqlite_vec", "fastembed") if not _importable(name)]
    can_load = sqlite_can_load_extensions()
    if len(missing) == 2:
        detail = "the vectors extra is not installed (it is optional): search is keyword-only"
        if not can_load:
            detail += "; this Python's sqlite3 cannot load extensions, so it needs another Python"
        return Check(
            "vectors", OK, detail,
            f"for search by meaning: {INSTALL if can_load else OTHER_PYTHON}",
        )  # fmt: skip
    if missing:
        return Check(
            "vectors", WARN,
            f"{missing[0].replace('_', '-')} is missing from the vectors extra: "
            "search is keyword-only",
            INSTALL,
        )  # fmt: skip
    if not can_load:
        return Check(
            "vectors", WARN,
            "this Python's sqlite3 cannot load extensions, so sqlite-vec cannot run: "
            "search is keyword-only",
            OTHER_PYTHON,
        )  # fmt: skip
    from anamnesis.store.embedding import sqlite_vec_problem

    problem = sqlite_vec_problem()
    if problem is not None:
        return Check("vectors", WARN, problem, INSTALL)
    return _model_check(home, offline=offline)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _model_check(home: Path, *, offline: bool) -> Check:
    from anamnesis.store.embedding import (
        MODEL_PATH_ENV,
        VectorsUnavailable,
        configured_model,
        default_embedder,
    )
    from anamnesis.store.store import configured_search_mode

    name, path = configured_model(home)
    mode = configured_search_mode(home) or "hybrid"
    try:
        embedder = default_embedder(home)
    except VectorsUnavailable as exc:  # a model folder without a model
        where = (
            f"set {MODEL_PATH_ENV} to a folder with model.onnx and its tokenizer files"
            if os.environ.get(MODEL_PATH_ENV, "").strip()
            else "`anamnesis config set embed_model_path FOLDER` (a folder with model.onnx "
            "and its tokenizer files), or `anamnesis config unset embed_model_path`"
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
            "connect once so the model downloads, or point "
            "`anamnesis config set embed_model_path FOLDER` at a local copy",
        )  # fmt: skip
    source = f"from {path}" if path is not None else "(downloaded copy)"
    return Check(
        "vectors", OK,
        f"sqlite-vec and fastembed work; the model {name} {source} loads "
        f"({dimensions} dimensions); default search: {mode}",
    )  # fmt: skip
