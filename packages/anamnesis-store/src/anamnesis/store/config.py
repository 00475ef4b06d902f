"""Machine-local settings: the store root, this machine's id, the sync remote.

``<home>/config.json`` lives outside the synced ``memory/`` tree because the remote differs
per machine. Reads are best-effort (a missing or broken file is ``{}``, so resolution never
fails); writes are atomic and private (0600: the remote URL may hold credentials).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any


# Set in the environment of a Claude Code session that reflection starts (the claude-code
# provider): the hooks stand aside there, so a reflection is never captured as a session.
# Here because the hooks and the reflect package both see the store, and not each other.
REFLECTION_ENV_GUARD = "ANAMNESIS_REFLECTING"


def resolve_home() -> Path:
    """The store root: ``ANAMNESIS_HOME`` if set, else ``~/.anamnesis``."""
    raw = os.environ.get("ANAMNESIS_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".anamnesis"


def config_path(home: Path | None = None) -> Path:
    """``<home>/config.json``, where the layout says (it names every path under a home)."""
    # Not at the top: every hook loads this module (REFLECTION_ENV_GUARD), few read config.
    from anamnesis.store.files.layout import StoreLayout

    return StoreLayout(home or resolve_home()).config_path


def read_config(home: Path | None = None) -> dict[str, Any]:
    """The parsed ``config.json`` of a store, or ``{}`` when it is missing or unreadable."""
    path = config_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_config(data: dict[str, Any], home: Path | None = None) -> Path:
    """Replace ``config.json`` atomically with owner-only permissions; return its path."""
    root = home or resolve_home()
    # Here, not at the top: every hook reads the config, and none writes it.
    from anamnesis.store.files.atomic import atomic_write_bytes

    root.mkdir(parents=True, exist_ok=True)
    path = config_path(root)
    atomic_write_bytes(path, json.dumps(data, indent=2, sort_keys=True) + "\n", mode=0o600)
    path.chmod(0o600)  # os.open's mode is filtered by the umask; be explicit
    return path


def _config_str(key: str, home: Path | None) -> str | None:
    value = read_config(home).get(key)
    return value if isinstance(value, str) and value.strip() else None


def resolve_machine_id(home: Path | None = None) -> str:
    """``ANAMNESIS_MACHINE_ID``, else config.json's ``machine_id``, else the hostname."""
    chosen = os.environ.get("ANAMNESIS_MACHINE_ID", "").strip() or _config_str("machine_id", home)
    if chosen:
        return chosen
    import socket  # only when nothing is configured: the import is not free

    return socket.gethostname() or "unknown"


def resolve_remote(home: Path | None = None) -> str | None:
    """``ANAMNESIS_GIT_REMOTE``, else config.json's ``remote``, else None (local only)."""
    return os.environ.get("ANAMNESIS_GIT_REMOTE", "").strip() or _config_str("remote", home)
