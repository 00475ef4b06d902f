"""Every failure inside a tool, a resource or a prompt, turned into words a model can act on.

Expected failures (bad arguments, a busy index, an unreachable remote, an unknown note) keep
their own words. Anything else is logged with its traceback under ``<home>/logs/mcp.log``
and reported without internals. Tools answer with a tool error (``ToolError``: the model
reads it); resources and prompts with a JSON-RPC error (``ResourceError``, ``MCPError``).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from anamnesis.mcp.arguments import TOOL_ARGUMENTS, InvalidArgument
from anamnesis.store import (
    IndexUnavailable,
    InvalidNote,
    MemoryStore,
    NoteNotFound,
    StoreBusy,
    StoreError,
)
from anamnesis.sync import SyncBusy, SyncError
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError

log = logging.getLogger("anamnesis.mcp")


class ToolGuard:
    """Turns every failure inside a tool into a message the model can act on."""

    def __init__(self, store: MemoryStore) -> None:
        self.log_path = store.layout.logs_dir / "mcp.log"

    @contextmanager
    def __call__(self, tool: str) -> Iterator[None]:
        try:
            yield
        except InvalidArgument as exc:
            raise ToolError(f"invalid argument for {tool}: {exc}") from None
        except InvalidNote as exc:
            # A store rule an argument broke (the store may be stricter than our checks):
            # the model's mistake, in the store's words, which name the field.
            if exc.field in TOOL_ARGUMENTS.get(tool, {}):
                raise ToolError(f"invalid argument for {tool}: {exc}") from None
            raise ToolError(str(exc)) from None
        except (StoreBusy, SyncBusy) as exc:
            raise ToolError(busy(exc)) from None
        except IndexUnavailable as exc:
            raise ToolError(index_unavailable(exc)) from None
        except (StoreError, SyncError) as exc:
            raise ToolError(str(exc)) from None
        except Exception:
            crash_log(self.log_path).exception("%s raised", tool)
            raise ToolError(unexpected(tool, self.log_path)) from None

    @contextmanager
    def resource(self, uri: str) -> Iterator[None]:
        """The same for reading a resource: a resource that is not there (an unknown or
        malformed note id, a bad project key) is the SDK's "not found" (-32602, the
        client's mistake), with our reason; a store failure is a resource error (-32603)."""
        try:
            yield
        except (InvalidArgument, InvalidNote, NoteNotFound) as exc:
            raise ResourceNotFoundError(f"{uri}: {not_found(exc)}") from None
        except StoreBusy as exc:
            raise ResourceError(busy(exc)) from None
        except IndexUnavailable as exc:
            raise ResourceError(index_unavailable(exc)) from None
        except StoreError as exc:
            raise ResourceError(str(exc)) from None
        except Exception:
            crash_log(self.log_path).exception("reading %s raised", uri)
            raise ResourceError(unexpected(f"reading {uri}", self.log_path)) from None


def not_found(exc: Exception) -> str:
    if isinstance(exc, NoteNotFound):
        return "no note has this id (memory_search finds notes by their words)"
    return str(exc)


def busy(exc: Exception) -> str:
    return f"{exc}. Another process holds the lock; try again shortly."


def index_unavailable(exc: Exception) -> str:
    return (
        f"the search index is unavailable: {exc}. The notes themselves are safe; "
        "`anamnesis doctor` says how to fix it."
    )


def unexpected(what: str, log_path: Path) -> str:
    return (
        f"{what} failed unexpectedly; the details are in {log_path}. "
        "Run `anamnesis doctor` to check the store."
    )


_crash_log_lock = threading.Lock()


def crash_log(path: Path) -> logging.Logger:
    """The logger that writes to the ``mcp.log`` at ``path`` (and, through its parents, to
    stderr, which Claude Code keeps in its MCP log).

    One logger and one file handler per log file, however many servers are built over the
    store: loggers live for the whole process, so a handler added per server would repeat
    every record, and a shared logger would write one store's crashes into another's log.
    """
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    logger = log.getChild(f"crash.{digest}")
    with _crash_log_lock:
        if not logger.handlers:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handler = logging.FileHandler(path, encoding="utf-8")
            except OSError:
                return logger  # stderr still gets the record; the next crash tries again
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            logger.addHandler(handler)
    return logger
