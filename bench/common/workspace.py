"""Where a run at scale keeps its machines: a folder the user names (kept afterwards, for
a look) or a temporary one."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def workspace(root: Path | None) -> Iterator[Path]:
    """``root`` when given (kept afterwards, for a look), else a temp dir removed after."""
    if root is not None:
        root.mkdir(parents=True, exist_ok=False)
        yield root
        return
    with tempfile.TemporaryDirectory(prefix="anamnesis-fleet-") as tmp:
        yield Path(tmp)
