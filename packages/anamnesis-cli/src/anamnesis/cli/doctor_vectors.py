"""The doctor's vectors check: can vector and hybrid search run here, and if not, why;
and the lines `status` says about search and vectors.

Every step a search would take is tried in order (the extra's packages, sqlite3's extension
loading, sqlite-vec, the configured model, loading that model), and the first one that
fails is reported with its fix. The extra is optional: not installing it is fine (search is
keyword-only); a half-working one is a warning, since searches quietly fall back to keywords.
Doctor tries a model download that failed a moment ago at once (searches wait a few
minutes: ``anamnesis.store.RETRY_AFTER_S``). Notes still waiting for their vectors are a
warning too, naming the background process embedding them, if one is.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from anamnesis.cli import installation
from anamnesis.cli.capable_python import find_capable_python
from anamnesis.cli.errors import backquoted
from anamnesis.cli.importable import importable
from anamnesis.ops import OK, WARN, Check, embedder_pid
from anamnesis.store import (
    DEFAULT_MODE,
    MODEL_FOLDER_HINT,
    MODEL_PATH_ENV,
    SEARCH_MODES,
    MemoryStore,
    StoreError,
    StoreLayout,
    VectorsUnavailable,
    configured_model,
    configured_search_mode,
    default_embedder,
    forget_unreachable_model,
    sqlite_can_load_extensions,
    sqlite_vec_problem,
    unreachable_model,
)


def install_vectors() -> str:
    """The command that adds the vectors extra to this installation, in backticks (a fix
    says it)."""
    inst = installation.detect()
    return backquoted(installation.install_command(inst, extras=inst.with_extras("mcp", "vectors")))


def other_python() -> str:
    """What to do when this Python's sqlite3 cannot load extensions: the exact reinstall
    command on a Python that can, when this machine has one."""
    inst = installation.detect()
    python = find_capable_python()
    if python is None:
        return (
            "no Python on this machine can load SQLite extensions; install one (Debian and "
            "Ubuntu: `apt install python3`; macOS: the python.org installer or Homebrew), "
            "then run `anamnesis doctor` again for the exact command"
        )
    extras = inst.with_extras("mcp", "vectors")
    command = installation.install_command(inst, extras=extras, python=python)
    return f"reinstall on {python}, whose sqlite3 can: {backquoted(command)}"


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
    if path is None and not offline:
        forget_unreachable_model(home)  # a person asks: try the download now
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
        blocked = unreachable_model(home)
        if blocked is not None:
            return Check(
                "vectors", WARN,
                f"{blocked.reason} (found at {_clock(blocked.checked_at)}): search runs "
                f"keyword-only; searches try again after {blocked.retry_clock()}",
                f"`anamnesis doctor` without --offline tries now; {MODEL_FOLDER_HINT}",
            )  # fmt: skip
        return Check(
            "vectors", OK,
            f"sqlite-vec and fastembed work; the model {name} was not loaded "
            f"(--offline, and it may need a download); default search: {mode}",
        )  # fmt: skip
    try:
        dimensions = len(embedder.embed_query("anamnesis doctor"))
    except VectorsUnavailable as exc:
        what = str(exc).partition("; ")[0]
        blocked = unreachable_model(home) if path is None else None
        again = f"; searches try again after {blocked.retry_clock()}" if blocked else ""
        return Check(
            "vectors", WARN, f"{what}: search runs keyword-only{again}",
            f"connect once so the model downloads, or {MODEL_FOLDER_HINT}",
        )  # fmt: skip
    source = f"from {path}" if path is not None else "(downloaded copy)"
    detail = (
        f"sqlite-vec and fastembed work; the model {name} {source} loads "
        f"({dimensions} dimensions); default search: {mode}"
    )
    waiting = _waiting(home) if SEARCH_MODES[mode].needs_vectors else None
    if waiting is None:
        return Check("vectors", OK, detail)
    words, pid = waiting  # the news first: until embedded, those notes miss searches by meaning
    return Check("vectors", WARN, f"{words}; {detail}", "" if pid is not None else _EMBED_NOW)


_EMBED_NOW = (
    "the next `anamnesis write`, `sync` or search starts embedding them in the background; "
    "`anamnesis reindex` embeds them now, in the foreground"
)


def _waiting(home: Path) -> tuple[str, int | None] | None:
    """What doctor says of notes waiting for vectors, and the pid of the process embedding
    them (None: none wait, or no store)."""
    layout = StoreLayout(home)
    if not layout.has_notes():
        return None
    try:
        with MemoryStore(home) as store:
            vectors = store.embedding_status()
    except StoreError:  # the store's own checks say what is wrong with it
        return None
    if not vectors.get("pending"):
        return None
    pid = embedder_pid(layout)
    return backlog_words(vectors["pending"], pid), pid


def backlog_words(waiting: int, pid: int | None) -> str:
    """``N notes waiting to be embedded``, and whether a background process is at it."""
    notes = f"{waiting} {'note' if waiting == 1 else 'notes'} waiting to be embedded"
    if pid is None:
        return f"{notes}; nothing is embedding them now"
    return f"{notes}; embedding in the background (pid {pid})"


def search_words(vectors: dict[str, Any]) -> str:
    """What `status` says of search: the mode a search without --mode runs, and why it is
    not the default when vectors cannot run (``vectors``: the status's vectors part)."""
    default = str(vectors["default_mode"])
    if vectors["available"] or not SEARCH_MODES[default].needs_vectors:
        return f"{default} by default"
    blocked = vectors.get("model_unreachable")
    if blocked:
        retry = datetime.fromisoformat(str(blocked["retry_at"])).timestamp()
        return (
            f"keyword (vector model unavailable: {blocked['reason']}; retry after "
            f"{_clock(retry)} or run `anamnesis doctor`)"
        )
    return f"keyword ({default} is configured, but vector search cannot run here: see vectors)"


def _clock(seconds: float) -> str:
    """A time of today as this machine's clock shows it: ``12:05``."""
    return time.strftime("%H:%M", time.localtime(seconds))
