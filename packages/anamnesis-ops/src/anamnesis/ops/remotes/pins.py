"""Pins: which remote a note belongs to once it has been on one.

``<home>/remotes/routes.json`` (machine-local, never synced) maps a note's path in
``memory/`` to a remote's name. A note is pinned when it is first pushed to a remote or
pulled from one, and then keeps that remote when edited, whatever the rules say: a note
pulled from the team's remote stays the team's. Only ``share`` and ``remote check
--apply`` move a pin (moves.py). Unpinned notes are routed by the rules (routing.py).

Every change is a read-modify-write under a lock of its own, so two processes syncing
different remotes at once never drop each other's pins.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from anamnesis.store import StoreLayout, atomic_write_bytes, load_json

_LOCK_WAIT_S = 30.0


# The last reading of each pins file, by its stat: a cycle reads them several times.
_READ: dict[Path, tuple[tuple[int, int, int], dict[str, str]]] = {}


def read_pins(layout: StoreLayout) -> dict[str, str]:
    """The pins as they are now (``{}`` when there are none or the file is unreadable:
    the rules then route every note, as on a machine that never pinned one). A copy:
    the caller may change it."""
    path = layout.routes_path
    try:
        info = path.stat()
    except OSError:
        return {}
    mark = (info.st_mtime_ns, info.st_size, info.st_ino)
    known = _READ.get(path)
    if known is not None and known[0] == mark:
        return dict(known[1])
    try:
        data = load_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    pins = {
        rel: name for rel, name in data.items() if isinstance(rel, str) and isinstance(name, str)
    }
    _READ[path] = (mark, pins)
    return dict(pins)


def update_pins(layout: StoreLayout, changes: Mapping[str, str | None]) -> None:
    """Pin each path of ``changes`` to its remote (None: unpin it)."""
    if not changes:
        return
    from anamnesis.sync import sync_lock  # the same lock the sync folders use

    layout.remotes_dir.mkdir(parents=True, exist_ok=True)
    with sync_lock(_lock_path(layout), wait_s=_LOCK_WAIT_S):
        pins = read_pins(layout)
        before = dict(pins)
        for rel, name in changes.items():
            if name is None:
                pins.pop(rel, None)
            else:
                pins[rel] = name
        if pins != before:
            text = json.dumps(pins, indent=1, sort_keys=True) + "\n"
            atomic_write_bytes(layout.routes_path, text, mode=0o600)


def _lock_path(layout: StoreLayout) -> Path:
    return layout.routes_path.with_name(layout.routes_path.name + ".lock")
