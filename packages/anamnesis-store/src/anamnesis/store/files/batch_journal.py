"""All or nothing for a batch of note files: a journal of renames, rolled forward.

A batch (:meth:`MemoryStore.put_many`) stages every file as a flushed temp file first. Only
then is the journal written: the list of (temp file, target) renames. The renames follow,
and the journal is removed. A crash before the journal exists leaves only temp files (swept
later, see :mod:`.leftovers`): nothing of the batch is visible. A crash after it leaves the
journal, and the next store to open the folder finishes the renames: all of the batch is
visible. The journal is in the store's root, which a sync never sends.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from anamnesis.store.files.atomic import atomic_write_bytes
from anamnesis.store.files.layout import StoreLayout


def write_journal(layout: StoreLayout, renames: list[tuple[Path, Path]]) -> None:
    """Record the renames a batch is about to make (flushed before it returns)."""
    entries = [[str(tmp), str(target)] for tmp, target in renames]
    atomic_write_bytes(layout.batch_journal, json.dumps({"renames": entries}), mode=0o600)
    _sync_folder(layout.root)


def finish(layout: StoreLayout) -> int:
    """Make the renames a journal lists (those not made yet), then remove it; how many
    were made. A journal that cannot be read names nothing and is removed: its batch
    never started renaming (the journal is written whole or not at all)."""
    path = layout.batch_journal
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        renames = [(Path(tmp), Path(target)) for tmp, target in data["renames"]]
    except FileNotFoundError:
        return 0
    except (OSError, ValueError, KeyError, TypeError):
        renames = []
    made = 0
    for tmp, target in renames:
        if not _is_staged_note(tmp, target, layout):
            continue  # the journal is never trusted to move any other file
        try:
            tmp.replace(target)
            made += 1
        except FileNotFoundError:
            continue  # made before the crash
    path.unlink(missing_ok=True)
    return made


def _is_staged_note(tmp: Path, target: Path, layout: StoreLayout) -> bool:
    """A note file in the trees, and a temp file beside it named as :func:`.atomic.stage`
    names them."""
    staged_name = re.fullmatch(rf"\.{re.escape(target.name)}\.[0-9a-f]{{8}}\.tmp", tmp.name)
    return (
        staged_name is not None
        and tmp.parent == target.parent
        and target.suffix == ".md"
        and layout.locate(target) is not None
    )


def _sync_folder(folder: Path) -> None:
    """Flush the folder entry, so the journal's name survives a power cut."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
