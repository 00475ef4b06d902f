"""Text embeddings for the vectors extra (``anamnesis-store[vectors]``).

The store asks an :class:`Embedder` for vectors; the default one runs
``sentence-transformers/all-MiniLM-L6-v2`` through fastembed (ONNX Runtime, no torch).
Nothing here is imported unless vector or hybrid search is used: embedding costs about
1 s of imports and 0.2 s to load the model, so it never sits on the write path or a hook.

Configuration, most specific first:

* ``ANAMNESIS_EMBED_MODEL`` / config.json ``embed_model``: the fastembed model name.
* ``ANAMNESIS_EMBED_MODEL_PATH`` / config.json ``embed_model_path``: a local folder with
  the model files (fastembed's layout), used instead of downloading. Offline machines
  and the tests use this.
* Otherwise the model is downloaded on first use into ``<store>/models`` (machine-local,
  never synced). A download that cannot happen is remembered for a few minutes
  (:mod:`.model_download`): searches meanwhile cost what a keyword search costs.
"""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import threading
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from anamnesis.store.config import read_config
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.record import Record
from anamnesis.store.vectors.model_download import (
    MODEL_FOLDER_HINT,
    DownloadMemo,
    ModelUnreachable,
    download_memo,
    host_name,
    host_reachable,
)


class Embedder(Protocol):
    """Turns text into vectors.

    ``model_id`` names the model *and* its weights: embeddings are cached under it, so one
    id must always give the same vector for a text, and a new id re-embeds everything.
    """

    @property
    def model_id(self) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        """One vector per text (notes), in order."""
        ...

    def embed_query(self, text: str) -> Sequence[float]:
        """The vector of a search query."""
        ...


DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_ENV = "ANAMNESIS_EMBED_MODEL"
MODEL_PATH_ENV = "ANAMNESIS_EMBED_MODEL_PATH"

# Every message about a model that cannot be had (not downloaded, unreachable, a folder
# without one) ends with this: one command, and the one place that explains the folder and
# the other ways to name it (init --embed-model-path, ANAMNESIS_EMBED_MODEL_PATH).

# The store does not know how it was installed (a checkout, wheels, an index); the CLI's
# `anamnesis doctor` does, and prints the exact command.
_INSTALL_HINT = (
    "install the vectors extra (anamnesis-store[vectors]); `anamnesis doctor` prints the "
    "exact command for this installation"
)


class VectorsUnavailable(Exception):
    """Vector search cannot run here; ``str()`` says why and how to fix it."""


class VectorsUnavailableWarning(UserWarning):
    """Hybrid or vector search was asked for but runs keyword-only; the message says why."""


class NotesNotEmbeddedWarning(VectorsUnavailableWarning):
    """A search ran with vectors, but ``missing`` notes have none yet: those are found by
    keywords only until an embedding pass gives them theirs."""

    def __init__(self, message: str, missing: int) -> None:
        super().__init__(message)
        self.missing = missing


class VectorSupport(Record):
    """Whether vector search can run in this Python, and if not why and how to fix it."""

    __slots__ = ("available", "fix", "reason")

    def __init__(self, available: bool, reason: str = "", fix: str = "") -> None:
        self.available = available
        self.reason = reason
        self.fix = fix


def sqlite_can_load_extensions() -> bool:
    """True when this Python's sqlite3 module can load extensions (sqlite-vec needs it).

    Many Python builds (pyenv's by default, some macOS ones) are compiled without it.
    """
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        return False
    conn = sqlite3.connect(":memory:")
    try:
        conn.enable_load_extension(True)
        conn.enable_load_extension(False)
        return True
    except (AttributeError, sqlite3.Error):
        return False
    finally:
        conn.close()


def load_sqlite_vec(conn: sqlite3.Connection) -> None:
    """Load sqlite-vec into ``conn``; raise :class:`VectorsUnavailable` saying why not."""
    if not sqlite_can_load_extensions():
        raise VectorsUnavailable(
            "this Python's sqlite3 cannot load extensions, so sqlite-vec cannot run; "
            "use a Python built with loadable SQLite extensions (e.g. Debian's python3, "
            "python.org installers) for the vectors extra"
        )
    library = _sqlite_vec_library()
    if library is None:
        raise VectorsUnavailable(f"sqlite-vec is not installed; {_INSTALL_HINT}")
    try:
        conn.enable_load_extension(True)
        try:
            conn.load_extension(library)
        finally:
            conn.enable_load_extension(False)
    except sqlite3.Error as exc:
        raise VectorsUnavailable(f"sqlite-vec failed to load: {exc}") from None


def _sqlite_vec_library() -> str | None:
    """Where sqlite-vec's loadable library is, found without importing the sqlite_vec
    module (which imports numpy: 0.3 s for what is one file path)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    # SQLite adds the platform's suffix (.so, .dylib, .dll) itself.
    return str(Path(next(iter(spec.submodule_search_locations))) / "vec0")


def vector_support() -> VectorSupport:
    """Check, without loading any model, that the vectors extra can work here."""
    if importlib.util.find_spec("sqlite_vec") is None:
        return VectorSupport(False, "sqlite-vec is not installed", _INSTALL_HINT)
    if importlib.util.find_spec("fastembed") is None:
        return VectorSupport(False, "fastembed is not installed", _INSTALL_HINT)
    problem = sqlite_vec_problem()
    if problem is not None:
        return VectorSupport(
            False,
            problem.split(";")[0],
            "install Anamnesis with a Python whose sqlite3 can load extensions (Debian's "
            "/usr/bin/python3, python.org builds); `anamnesis doctor` names one if this "
            "machine has it",
        )
    return VectorSupport(True)


def sqlite_vec_problem() -> str | None:
    """Why sqlite-vec cannot run in this Python (None: it can), tried on a scratch database."""
    conn = sqlite3.connect(":memory:")
    try:
        load_sqlite_vec(conn)
    except VectorsUnavailable as exc:
        return str(exc)
    finally:
        conn.close()
    return None


def configured_model(home: Path | None = None) -> tuple[str, Path | None]:
    """The model name and local model folder (None: download) from env and config."""
    config = read_config(home)
    name = os.environ.get(MODEL_ENV, "").strip() or str(config.get("embed_model") or "").strip()
    raw_path = (
        os.environ.get(MODEL_PATH_ENV, "").strip()
        or str(config.get("embed_model_path") or "").strip()
    )
    return name or DEFAULT_MODEL, Path(raw_path).expanduser() if raw_path else None


# How documents are embedded (measured on 2 cores, 632 passages of realmem's first 60
# notes, about 280 tokens each):
# * One text a call. The model is quantized to int8 dynamically: each call's activations
#   are scaled by that call's own range, so a text batched with others got a vector that
#   depended on its batch-mates (the same note in two batches: cosine 0.990-0.996). Alone,
#   a text always gets the same vector, whatever else is embedded, on every machine.
# * WORKERS sessions side by side, each with its share of the cores (here one each): 42.7
#   passages/s at 260 MB peak, against one session using both cores at 25.2 (one text a
#   call, 187 MB) or 30.9 (8 a batch, 539 MB: ONNX Runtime keeps its largest batch's
#   buffers). Each session holds its own copy of the model, so more cost memory.
# * Checked again for issue 29 (one session, one thread, CPU time, so that the other
#   work on this shared machine does not count): a passage of about 270 tokens costs
#   7,000 tokens per CPU-second, 128 tokens 8,700-9,500; batching does not help on CPU
#   (batches of 4 and 8 of 272 tokens: 6,600 and 6,000), and even texts of exactly the same
#   token count batched together get other vectors (worst cosine 0.992 in 20 texts), so
#   there is nothing to batch. fastembed's default graph optimization (all) is the fastest
#   level within the noise (5%); turning the memory arena or memory patterns off saves no
#   time and no memory worth having (one session's process: 120-180 MB either way).
#   Tokenizing is 0.4 ms a passage, 1% of its embedding.
WORKERS = 2


class FastEmbedEmbedder:
    """The default embedder: a fastembed ONNX model, loaded on first use (thread-safe).

    ``model_path`` loads a local copy instead of downloading (nothing is fetched then);
    ``cache_dir`` is where downloads go. ``threads``: one ONNX session with this many
    threads; by default :data:`WORKERS` sessions embed documents side by side, each with its
    share of the cores (the second is loaded only when a call has more than one text).
    ``memo`` remembers a download that could not happen, so that the next uses within a
    few minutes give up at once (:mod:`.model_download`).

    Before a download the host is probed, so that an offline machine gets one clear
    message at once instead of fastembed's retries (40 s of sleeps), and before fastembed
    is imported (1.7 s), which a model that cannot be had does not need.
    """

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        *,
        model_path: Path | str | None = None,
        cache_dir: Path | str | None = None,
        threads: int | None = None,
        memo: DownloadMemo | None = None,
    ) -> None:
        self.model_name = model_name
        self.memo = memo
        self.model_path = Path(model_path) if model_path is not None else None
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.threads = threads
        self._model: Any = None  # the first session (queries use it)
        self._more: list[Any] = []  # the other sessions, for documents
        self._lock = threading.Lock()
        if self.model_path is not None and not self._onnx_files():
            raise VectorsUnavailable(f"no ONNX model in {self.model_path}; {MODEL_FOLDER_HINT}")

    def needs_download(self) -> bool:
        """True when using the model means downloading it first: no local copy is set and
        none was downloaded before (cheap: looks for files, loads nothing)."""
        if self.model_path is not None:
            return False
        if self.cache_dir is None or not self.cache_dir.is_dir():
            return True
        return next(self.cache_dir.rglob("*.onnx"), None) is None

    def download_blocked(self) -> ModelUnreachable | None:
        """The remembered failure to download the model, while searches should not try
        again (cheap: a file read; None when the model is here or nothing is remembered)."""
        if self.memo is None or not self.needs_download():
            return None
        return self.memo.in_force(self.model_name)

    def _onnx_files(self) -> list[Path]:
        if self.model_path is None or not self.model_path.is_dir():
            return []
        return sorted(self.model_path.glob("*.onnx"))

    @property
    def model_id(self) -> str:
        # A local copy may be quantized differently from the download: its vectors are
        # not interchangeable, so its size goes into the id that keys the cache.
        if self.model_path is None:
            return self.model_name
        size = sum(path.stat().st_size for path in self._onnx_files())
        return f"{self.model_name}@local-{size}"

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        """Each text alone, spread over the sessions (see :data:`WORKERS`)."""
        out: list[Sequence[float]] = [()] * len(texts)
        # Longest first, dealt out in turn: the sessions finish together.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))

        def run(model: Any, share: list[int]) -> None:
            for i in share:
                out[i] = next(iter(model.embed([texts[i]], batch_size=1)))

        sessions = self._sessions(min(len(texts), self._workers()))
        if len(sessions) == 1:
            run(sessions[0], order)
            return out

        # ONNX Runtime lets go of the GIL while it runs: the sessions work in parallel.
        # (Imported here: a search that never embeds, e.g. offline, does not pay for it.)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(sessions), thread_name_prefix="anamnesis-embed") as pool:
            running = [
                pool.submit(run, model, order[n :: len(sessions)])
                for n, model in enumerate(sessions)
            ]
            for future in running:
                future.result()
        return out

    def embed_query(self, text: str) -> Sequence[float]:
        vectors: list[Sequence[float]] = list(self._loaded().query_embed([text]))
        return vectors[0]

    def _workers(self) -> int:
        return 1 if self.threads is not None else WORKERS

    def _session_threads(self) -> int:
        if self.threads is not None:
            return self.threads
        return max(1, (os.cpu_count() or 1) // WORKERS)

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    def _sessions(self, count: int) -> list[Any]:
        """The first ``max(count, 1)`` sessions, loading the ones not loaded yet."""
        first = self._loaded()
        with self._lock:
            while len(self._more) < count - 1:
                self._more.append(self._load())
            return [first, *self._more[: max(0, count - 1)]]

    def _load(self) -> Any:
        probed = self.model_path is None and self.needs_download()
        if probed:
            self._check_download()  # before fastembed's imports: no model, no need for them
        try:
            from fastembed import TextEmbedding
        except ImportError:
            raise VectorsUnavailable(f"fastembed is not installed; {_INSTALL_HINT}") from None
        except Exception as exc:  # a broken install fails in its own ways
            raise VectorsUnavailable(
                f"fastembed failed to import ({type(exc).__name__}: {exc}); reinstall the extra"
            ) from None
        _quiet_fastembed()

        def load(**options: Any) -> Any:
            return TextEmbedding(
                model_name=self.model_name,
                cache_dir=str(self.cache_dir) if self.cache_dir else None,
                threads=self._session_threads(),
                **options,
            )

        if self.model_path is not None:
            return self._attempt(
                load, specific_model_path=str(self.model_path), local_files_only=True
            )
        try:
            return load(local_files_only=True)  # downloaded before: no network needed
        except Exception:  # fastembed raises many kinds: missing files, bad names, ...
            pass
        if not probed:
            self._check_download()
        try:
            model = self._attempt(load)
        except VectorsUnavailable as exc:  # remembered: the next searches do not wait for it
            if self.memo is not None:
                failed = self.memo.remember(self.model_name, str(exc).partition("; ")[0])
                raise VectorsUnavailable(f"{failed.reason}; {failed.fix()}") from None
            raise
        if self.memo is not None:
            self.memo.forget()
        return model

    def _check_download(self) -> None:
        """Raise :class:`VectorsUnavailable` when the model cannot be downloaded now: a
        failure remembered a moment ago, or a host that does not answer (remembered)."""
        if self.memo is not None:
            blocked = self.memo.in_force(self.model_name)
            if blocked is not None:
                raise VectorsUnavailable(f"{blocked.reason}; {blocked.fix()}")
        if host_reachable():
            return
        reason = (
            f"the embedding model {self.model_name} is not downloaded yet and "
            f"{host_name()} cannot be reached"
        )
        if self.memo is not None:
            raise VectorsUnavailable(
                f"{reason}; {self.memo.remember(self.model_name, reason).fix()}"
            )
        raise VectorsUnavailable(
            f"{reason}; connect once, or set {MODEL_PATH_ENV} to a local copy of the model"
        )

    def _attempt(self, load: Any, **options: Any) -> Any:
        try:
            return load(**options)
        except Exception as exc:  # fastembed raises many kinds: network, files, names
            where = f"from {self.model_path}" if self.model_path else "(download)"
            raise VectorsUnavailable(
                f"cannot load the embedding model {self.model_name} {where}: {exc}; "
                f"if this machine is offline, {MODEL_FOLDER_HINT}"
            ) from None


def _quiet_fastembed() -> None:
    """fastembed logs its own errors to stderr through loguru; we report them ourselves."""
    try:
        from loguru import logger
    except ImportError:
        return
    logger.disable("fastembed")


def default_embedder(home: Path | None = None) -> FastEmbedEmbedder:
    """The embedder the configuration asks for (no model is loaded yet)."""
    name, path = configured_model(home)
    # Downloads go beside the store, and a failed one is remembered there; a local copy
    # needs neither.
    if home is None or path is not None:
        return FastEmbedEmbedder(name, model_path=path)
    return FastEmbedEmbedder(name, cache_dir=StoreLayout(home).models_dir, memo=download_memo(home))


def unreachable_model(home: Path) -> ModelUnreachable | None:
    """The remembered failure to download the model configured at ``home``, while searches
    skip it (None: nothing remembered, or the model needs no download)."""
    try:
        return default_embedder(home).download_blocked()
    except VectorsUnavailable:  # a model folder without a model: no download either way
        return None


def as_blob(vector: Sequence[float]) -> bytes:
    """A vector as sqlite-vec's float32 blob (native byte order, as sqlite-vec reads it)."""
    astype = getattr(vector, "astype", None)
    if astype is not None:  # numpy: no per-element Python loop
        data: bytes = astype("float32").tobytes()
        return data

    packed = array("f", vector)
    if packed.itemsize != 4:  # pragma: no cover - no such platform in practice
        raise VectorsUnavailable("this platform's C float is not 32 bits")
    return packed.tobytes()
