"""Writing an agent's configuration file: the previous version saved beside it first, the new
one written atomically, through a link (dotfile managers link these files), with the old
file's mode; a file left with nothing in it removed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from anamnesis.store import atomic_write_bytes


def write_with_backup(path: Path, before: str | None, after: str) -> Path | None:
    """Write ``after`` to ``path`` (``before`` is what it held, None for no file), after
    saving ``before`` as ``NAME.anamnesis-backup-STAMP``; return the backup's path."""
    target = _target(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if before is not None else 0o644
    backup = _backup(target, before, mode) if before is not None else None
    atomic_write_bytes(target, after, mode=mode)
    return backup


def remove_with_backup(path: Path, before: str) -> Path:
    """Remove ``path`` (it holds nothing once ours is gone), after saving ``before`` as its
    backup; return the backup's path."""
    target = _target(path)
    backup = _backup(target, before, target.stat().st_mode & 0o777)
    target.unlink()
    return backup


def _target(path: Path) -> Path:
    return path.resolve() if path.is_symlink() else path


def _backup(target: Path, before: str, mode: int) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    backup = target.with_name(f"{target.name}.anamnesis-backup-{stamp}")
    counter = 1
    while backup.exists():
        counter += 1
        backup = target.with_name(f"{target.name}.anamnesis-backup-{stamp}-{counter}")
    atomic_write_bytes(backup, before, mode=mode)
    return backup
