"""Folders that show the rooms: no source folder of any package holds more than 20
modules. Past that a folder is a list, not a room: split it by what its modules are about
(the import-linter layers in pyproject.toml then say which room stands on which)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

PACKAGES = Path(__file__).resolve().parents[2]  # packages/, beside anamnesis-ops
MOST = 20


def crowded(sources: list[Path]) -> dict[Path, int]:
    """Each folder holding more than ``MOST`` modules (``__init__`` included), and how many."""
    counts = Counter(path.parent for path in sources)
    return {folder: count for folder, count in counts.items() if count > MOST}


def source_modules() -> list[Path]:
    return [
        path for path in PACKAGES.glob("*/src/anamnesis/**/*.py") if "__pycache__" not in path.parts
    ]


def test_no_source_folder_holds_more_than_twenty_modules() -> None:
    modules = source_modules()
    assert len(modules) > 100  # the packages were found
    assert crowded(modules) == {}


def test_a_crowded_folder_is_found(tmp_path: Path) -> None:
    planted = [tmp_path / "room" / f"m{n}.py" for n in range(MOST + 1)]
    planted += [tmp_path / "other" / "m.py"]
    assert crowded(planted) == {tmp_path / "room": MOST + 1}
