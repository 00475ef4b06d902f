"""Helpers shared by the test suites of several packages.

The pytest fixtures are in :mod:`anamnesis_testsupport.fixtures`; a conftest imports the
ones its suite uses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

# The workspace is installed editable (uv sync), so this file is in the checkout:
# tests-support/src/anamnesis_testsupport/, and ../shared sits beside the checkout.
SHARED = Path(__file__).resolve().parents[4] / "shared"
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
# The offline copy of the vectors extra's default model, and the recall evaluation set.
OFFLINE_MODEL = SHARED / "models" / "all-MiniLM-L6-v2-onnx-int8"
DEVMEMORY = SHARED / "eval" / "devmemory"


def vectors_unavailable_reason() -> str | None:
    """Why vector tests cannot run here (None: they can): the extra, a sqlite3 that loads
    extensions, and the offline model in ../shared are all needed."""
    from anamnesis.store import vector_support

    support = vector_support()
    if not support.available:
        return f"vectors extra unavailable: {support.reason}"
    if not (OFFLINE_MODEL / "model.onnx").is_file():
        return f"no offline embedding model at {OFFLINE_MODEL}"
    return None


_SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"


class CannotLock(Exception):
    """This machine offers no way to make a folder unwritable for the current user."""


@contextmanager
def unwritable_folders() -> Iterator[Callable[[Path], None]]:
    """Make folders refuse new files for real, even for root (which ignores chmod):
    ``chattr +i`` sets the immutable attribute, which binds root too. Undone on exit."""
    locked: list[Path] = []

    def lock(path: Path) -> None:
        if os.geteuid() != 0:
            path.chmod(0o500)
        else:
            chattr = shutil.which("chattr", path=_SYSTEM_PATH)
            if (
                chattr is None
                or subprocess.run(
                    [chattr, "+i", str(path)], capture_output=True, check=False
                ).returncode
                != 0
            ):
                raise CannotLock("cannot make a folder unwritable as root here (no chattr +i)")
        locked.append(path)

    try:
        yield lock
    finally:
        for path in reversed(locked):
            if os.geteuid() == 0:
                chattr = shutil.which("chattr", path=_SYSTEM_PATH)
                if chattr:
                    subprocess.run([chattr, "-i", str(path)], capture_output=True, check=False)
            else:
                path.chmod(0o700)
