"""What a review found for each pair of notes last time, kept on this machine so that the
next review compares again only the pairs whose notes changed, and looks for neighbours
again only in the projects where a note changed.

Reading two notes' values and stances and comparing them is most of a review's time in a
fresh process (``anamnesis review`` over 2,000 notes); the answer depends only on the two
notes' titles, bodies and project, and on the finder's rules. So each compared pair is
kept under the hashes of both notes' text, and the whole memo under a hash of the
finder's own source files: a changed note, or a changed rule, is compared afresh. Finding
each note's neighbours is the rest of that time; a project's neighbour pairs are kept under
a hash of every indexed row of the project and which of them are live
(:func:`.neighbours.project_state`): one note written, edited, superseded or expired in a
project, and its neighbours are looked for again.

The memo is derived and rebuildable: ``<store>/cache/review-pairs.json``, machine-local,
never synced, rewritten whole (atomically) when a review compared something new; a memo
that is missing, unreadable, of other rules or malformed is an empty one, and a memo that
cannot be written is no error (the review's answer is the same either way).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from anamnesis.store.review.records import Difference

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any, Final

    from anamnesis.store.note.model import Memory

    # [a project's state, its neighbour pairs' ids, older first], as JSON keeps them
    Neighbours = list[Any]

MEMO_FILE: Final = "review-pairs.json"
# A memo larger than this is not read (a review of 2,000 notes keeps about 600 KB).
_MOST_BYTES: Final = 64 * 1024 * 1024
_RULES: list[str] = []
# Beside the finder's own files, those outside it that say which words a note is looked
# up by (match_text) and which notes may pair (the durable types).
_RULE_FILES_BESIDE: Final = ("note/invisible.py", "note/model.py")


def rules_version() -> str:
    """A hash of the finder's source files: a memo made by other rules is not used."""
    if not _RULES:
        digest = hashlib.blake2b(digest_size=12)
        here = Path(__file__).parent
        beside = [here.parent / name for name in _RULE_FILES_BESIDE]
        for path in [*sorted(here.rglob("*.py")), *beside]:
            digest.update(path.relative_to(path.parents[1]).as_posix().encode())
            digest.update(path.read_bytes())
        _RULES.append(digest.hexdigest())
    return _RULES[0]


def note_hash(memory: Memory) -> str:
    """What a note's comparison depends on, hashed: its title, body and project."""
    digest = hashlib.blake2b(digest_size=10)
    for part in (memory.title, memory.body, memory.project):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class PairMemo:
    """The pairs one review compared, read from and written back to ``path`` (None: kept
    in memory only)."""

    __slots__ = (
        "_changed", "_hashes", "_kept", "_old", "_old_neighbours", "_path", "_used",
        "_used_neighbours",
    )  # fmt: skip

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._old, self._old_neighbours = _read(path) if path is not None else ({}, {})
        self._used: dict[str, list[list[str]]] = {}
        # project -> [its state (neighbours.project_state), its neighbour pairs' ids]
        self._used_neighbours: dict[str, Neighbours] = {}
        self._hashes: dict[str, str] = {}
        self._changed = False
        self._kept = False

    def differences(self, older: Memory, newer: Memory) -> tuple[Difference, ...] | None:
        """What the memo says the pair differs in (None: it was not compared before)."""
        key = self._key(older, newer)
        found = self._used.get(key)
        if found is None:
            found = self._old.get(key)
            if found is None:
                return None
            self._used[key] = found
        return tuple(Difference(*row) for row in found)

    def remember(self, older: Memory, newer: Memory, differs: tuple[Difference, ...]) -> None:
        """Keep what the pair was found to differ in."""
        self._used[self._key(older, newer)] = [[d.kind, d.subject, d.old, d.new] for d in differs]
        self._changed = True

    def neighbour_pairs(self, project: str, state: str) -> list[tuple[str, str]] | None:
        """The ids of the pairs the last review found by title and subject in ``project``,
        older note first, when the project is in ``state`` as it was then (None: not)."""
        kept = self._old_neighbours.get(project)
        if kept is None or kept[0] != state:
            return None
        self._used_neighbours[project] = kept
        return [(older, newer) for older, newer in kept[1]]

    def remember_neighbour_pairs(
        self, project: str, state: str, pairs: list[tuple[str, str]]
    ) -> None:
        """Keep the pairs found by title and subject in ``project`` in ``state``."""
        self._used_neighbours[project] = [state, [[older, newer] for older, newer in pairs]]
        self._changed = True

    def save(self, *, whole: bool) -> None:
        """Write the memo back when this review compared anything new. ``whole``: the
        review covered every project, so pairs it did not meet are gone (else they are
        kept for a review of their project)."""
        if self._path is None:
            return
        pairs = self._used if whole else {**self._old, **self._used}
        neighbours = (
            self._used_neighbours if whole else {**self._old_neighbours, **self._used_neighbours}
        )
        if (
            not self._changed
            and len(pairs) == len(self._old)
            and len(neighbours) == len(self._old_neighbours)
        ):
            return
        data = json.dumps(
            {"rules": rules_version(), "pairs": pairs, "neighbours": neighbours},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        try:
            from anamnesis.store.files.atomic import atomic_write_bytes

            self._path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self._path, data)
        except OSError:
            return  # a cache: the review's answer stands without it

    def _key(self, older: Memory, newer: Memory) -> str:
        return f"{self._hash(older)}:{self._hash(newer)}"

    def _hash(self, memory: Memory) -> str:
        found = self._hashes.get(memory.id)
        if found is None:
            found = self._hashes[memory.id] = note_hash(memory)
        return found


def _read(path: Path) -> tuple[dict[str, list[list[str]]], dict[str, Neighbours]]:
    """The memo's pairs and neighbour pairs; empty when it is missing, too big,
    unreadable, malformed or of other rules."""
    from anamnesis.store.files.safe_files import read_regular  # a regular file, capped

    try:
        raw, _stat = read_regular(path, _MOST_BYTES)
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return {}, {}
    if not isinstance(data, dict) or data.get("rules") != rules_version():
        return {}, {}
    pairs = data.get("pairs")
    if not isinstance(pairs, dict):
        return {}, {}
    return _compared(pairs), _neighbours(data.get("neighbours"))


def _compared(pairs: dict[str, object]) -> dict[str, list[list[str]]]:
    return {
        key: rows
        for key, rows in pairs.items()
        if isinstance(rows, list)
        and all(
            isinstance(row, list) and len(row) == 4 and all(isinstance(v, str) for v in row)
            for row in rows
        )
    }


def _neighbours(found: object) -> dict[str, Neighbours]:
    """The well-formed projects' entries of a memo's neighbour pairs (none if malformed)."""
    if not isinstance(found, dict):
        return {}
    return {
        project: kept
        for project, kept in found.items()
        if isinstance(kept, list)
        and len(kept) == 2
        and isinstance(kept[0], str)
        and isinstance(kept[1], list)
        and all(
            isinstance(ids, list) and len(ids) == 2 and all(isinstance(i, str) for i in ids)
            for ids in kept[1]
        )
    }
