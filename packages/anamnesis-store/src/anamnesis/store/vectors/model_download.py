"""Where the embedding model is downloaded from, whether that host answers, and the
memory of when it did not.

An offline machine without the model used to pay for finding that out on every search:
fastembed's imports (1.7 s) and a connection attempt to the download host (up to 3 s),
before searching by keywords anyway. Now the first failed attempt is written down
(:class:`DownloadMemo`, a small file in the store's cache folder) and searches skip the
model, at the cost of a keyword search, until :data:`RETRY_AFTER_S` has passed. A command
a person runs to set things right (``doctor``, ``reindex``, ``init``) forgets the memo first
(:func:`forget_unreachable_model`) and tries at once.

The host is fastembed's: Hugging Face's hub, or the mirror ``HF_ENDPOINT`` names (the hub
library reads the same variable). Tests and the benchmarks point it at a closed port on
127.0.0.1 to be offline deterministically.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from anamnesis.store.files.atomic import atomic_write_bytes
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.files.safe_files import read_regular
from anamnesis.store.record import Record

# The one explanation of a model folder (docs/configuration.md has the section it names):
# every message about a model that cannot be had ends with it.
MODEL_FOLDER_HINT = (
    "use a local copy of the model: `anamnesis config set embed_model_path FOLDER`, FOLDER "
    'holding model.onnx and its tokenizer files (docs/configuration.md: "A local copy of '
    'the embedding model")'
)

ENDPOINT_ENV = "HF_ENDPOINT"
DEFAULT_ENDPOINT = "https://huggingface.co"
# How long searches go on without trying the download again: a few minutes, so a machine
# that comes back online gets vector search soon, and an offline one pays one connection
# attempt every few minutes at most.
RETRY_AFTER_S = 300.0
# A connection that takes longer than this is as good as none (a firewall that drops).
PROBE_TIMEOUT_S = 3.0
_MAX_STATE_BYTES = 4096


def download_host() -> tuple[str, int]:
    """The host and port the model would be downloaded from (``HF_ENDPOINT`` or the hub)."""
    from urllib.parse import urlsplit  # here: a search that skips the model never asks

    endpoint = os.environ.get(ENDPOINT_ENV, "").strip() or DEFAULT_ENDPOINT
    parts = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
    default_port = 80 if parts.scheme == "http" else 443
    try:
        port = parts.port or default_port
    except ValueError:  # a port that is not a number: the download would fail as well
        port = default_port
    return parts.hostname or endpoint, port


def host_name() -> str:
    """The download host as a person reads it: ``huggingface.co``, ``127.0.0.1:9``."""
    host, port = download_host()
    return host if port in (80, 443) else f"{host}:{port}"


def host_reachable(timeout_s: float = PROBE_TIMEOUT_S) -> bool:
    """Whether a connection to the download host opens (no request is sent)."""
    import socket  # here: a search that skips the model never connects

    try:
        socket.create_connection(download_host(), timeout=timeout_s).close()
    except OSError:
        return False
    return True


class ModelUnreachable(Record):
    """The model ``model`` could not be downloaded at ``checked_at`` (seconds since the
    epoch), for ``reason``; searches try again from ``retry_at``."""

    __slots__ = ("model", "reason", "checked_at", "retry_at")

    def __init__(self, model: str, reason: str, checked_at: float, retry_at: float) -> None:
        self.model = model
        self.reason = reason
        self.checked_at = checked_at
        self.retry_at = retry_at

    def retry_clock(self) -> str:
        """When searches try again, as this machine's clock shows it (``12:05``)."""
        return time.strftime("%H:%M", time.localtime(self.retry_at))

    def fix(self) -> str:
        """What to do about it, the store's way (``reason; fix``)."""
        return (
            f"searches try again after {self.retry_clock()}, `anamnesis doctor` at once; "
            f"on a machine that stays offline, {MODEL_FOLDER_HINT}"
        )

    def as_dict(self) -> dict[str, str]:
        return {
            "model": self.model,
            "reason": self.reason,
            "checked_at": _iso(self.checked_at),
            "retry_at": _iso(self.retry_at),
        }


class DownloadMemo:
    """The file that remembers a failed download (``StoreLayout.model_download_state``).

    ``clock`` gives the time (seconds since the epoch); tests pass their own. Reading or
    writing the file never fails a search: an unreadable memo is no memo (the download is
    tried), and one that cannot be written means trying again next time.
    """

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock

    def in_force(self, model: str) -> ModelUnreachable | None:
        """The failure remembered for ``model`` if searches should not try again yet.

        A memo written in the future (the clock was turned back) is not in force: waiting
        for the clock to catch up could take any time."""
        try:
            data, _info = read_regular(self.path, _MAX_STATE_BYTES)
            saved = json.loads(data)
            checked_at = float(saved["checked_at"])
            reason = str(saved["reason"])
            if saved["model"] != model:
                return None
        # Whatever else the file holds (hand-edited, cut short, nested past the parser's
        # recursion) is no memo: the search tries the model, and a failure writes a new one.
        except (OSError, ValueError, TypeError, KeyError, RecursionError):
            return None
        now = self._clock()
        if not checked_at <= now < checked_at + RETRY_AFTER_S:
            return None
        return ModelUnreachable(model, reason, checked_at, checked_at + RETRY_AFTER_S)

    def remember(self, model: str, reason: str) -> ModelUnreachable:
        """Write down that ``model`` could not be downloaded now, and why."""
        now = self._clock()
        data = {"model": model, "reason": reason, "checked_at": now}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path, json.dumps(data) + "\n")
        except OSError:  # a read-only store: the next search tries again, that is all
            pass
        return ModelUnreachable(model, reason, now, now + RETRY_AFTER_S)

    def forget(self) -> None:
        """The next use of the model tries the download again."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass


def download_memo(home: Path) -> DownloadMemo:
    """The memo of the store at ``home``."""
    return DownloadMemo(StoreLayout(home).model_download_state)


def forget_unreachable_model(home: Path) -> None:
    """Make the next use of the model at ``home`` try the download at once, whatever was
    remembered: for commands a person runs to check or repair (doctor, reindex, init)."""
    download_memo(home).forget()


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
