"""One named remote's cycle, shaped as a backend for the store's one sync cycle.

A named remote has a sync folder of its own, ``<home>/remotes/<name>/`` (a git sync
folder with its own lock and branch state: its mirror). :class:`MirrorSync` is what
``anamnesis.store.sync_cycle`` runs for it, so masking is the cycle's one rule here too:
``local_changes`` names the notes (in memory/) whose mirror copy would change, the cycle
masks their secrets in memory/ and commits, then ``sync``:

1. export: each note routed here is written into the mirror through the remote's
   :class:`~anamnesis.ops.remotes.codec.MirrorCodec` (only when its bytes change); a note
   pinned here and gone from memory/ is deleted from the mirror; a note pinned to another
   remote since is deleted with a tombstone; the codec's meta files are kept;
2. the mirror's own ``sync()`` (or ``resolve()``: keep-both through the codec);
3. import: each mirror file the sync changed is decoded into memory/ and pinned here; a
   deletion applies only to a note pinned here; a tombstone re-pins the note to its new
   remote when this machine has it, else deletes the copy here;

and reports the notes it changed in memory/ (``changed``), which the cycle reindexes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from anamnesis.ops.remotes.codec import CodecError, MirrorCodec
from anamnesis.ops.remotes.export_record import ExportRecord, Stat, stat_of
from anamnesis.ops.remotes.pins import update_pins
from anamnesis.ops.remotes.routing import Router, is_note_path, note_id, read_facts
from anamnesis.ops.remotes.tombstones import (
    MOVED_DIR,
    has_target,
    read_tombstone,
    tombstone_bytes,
    tombstone_path,
)
from anamnesis.store import atomic_write_bytes, read_regular

if TYPE_CHECKING:
    from anamnesis.ops.remotes.config import RemoteSpec
    from anamnesis.ops.remotes.home_view import RemotesHome as Home
    from anamnesis.sync import Fork, GitSyncBackend, Strategy, SyncResult

_SKIPPED_DIRS = frozenset({".git", ".anamnesis"})


@dataclass(slots=True)
class ExportPlan:
    """What an export writes into the mirror (mirror path -> bytes; None: delete)."""

    files: dict[str, bytes | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # memory/ paths whose copy changes
    # memory/ path -> its file's stat when planned (the import overwrites only a file
    # still as it was: one edited meanwhile is sent by the next cycle instead).
    exported: dict[str, Stat | None] = field(default_factory=dict)
    # Unpinned notes routed here (pinned once exported), and deleted ones (None: unpinned).
    pins: dict[str, str | None] = field(default_factory=dict)


class MirrorSync:
    """The cycle of the named remote ``spec``, for ``anamnesis.store.sync_cycle``."""

    def __init__(
        self, home: Home, spec: RemoteSpec, codec: MirrorCodec, backend: GitSyncBackend
    ) -> None:
        self.home = home
        self.spec = spec
        self.codec = codec
        self.backend = backend
        self.mirror = backend.repo_dir
        self.problems: list[str] = []  # mirror files that could not be read back
        # Why nothing was exported (a codec that cannot encode here, e.g. a key that is
        # not a recipient): the mirror still pulls, so a later cycle can work.
        self.error = ""
        self.unblocked = False  # see sync()
        self._plan: ExportPlan | None = None
        self._exported: dict[str, Stat | None] = {}
        self._record = ExportRecord(self.mirror)

    # -- what sync_cycle calls ------------------------------------------------------

    def local_changes(self) -> tuple[str, ...]:
        """The notes (paths in memory/) whose mirror copy the next export changes."""
        self._plan = self.plan()
        return tuple(self._plan.notes)

    def commit_local(self, message: str | None = None) -> str | None:
        # The plan local_changes made was read before the cycle masked those notes:
        # planned again from the masked notes, here and in sync().
        self._plan = None
        self._export(self.plan())
        return self.backend.commit_local(message)

    def sync(self) -> SyncResult:
        plan, self._plan = self._plan, None
        self._export(plan if plan is not None else self.plan())
        blocked = bool(self.error)  # the codec could not encode: nothing went out
        result = self._import(self.backend.sync())
        # The codec could not encode, and the pull brought something that may change
        # that (a member added this machine's key): the caller runs the whole cycle once
        # more, masking first, and reports that one.
        self.unblocked = blocked and bool(result.pulled)
        return result

    def resolve(self, strategy: Strategy, *, fork: Fork | None = None) -> SyncResult:
        from anamnesis.sync import NothingToResolve

        self._plan = None
        self._export(self.plan())
        try:
            result = self.backend.resolve(strategy, fork=self._through_codec(fork))
        except NothingToResolve:  # a resolve of every remote: this one had nothing open
            result = self.backend.sync()
        return self._import(result)

    # -- export -----------------------------------------------------------------------

    def plan(self) -> ExportPlan:
        """What the export would write, read from memory/, the pins and the mirror; an
        empty plan when the codec cannot encode here (:attr:`error` says why)."""
        try:
            return self._planned()
        except CodecError as exc:
            self.error = str(exc)
            return ExportPlan()

    def _planned(self) -> ExportPlan:
        router = Router.of(self.home)
        memory = self.home.memory_dir
        name = self.spec.name
        plan = ExportPlan()
        routed: set[str] = set()
        record = self._record
        metas = self.codec.meta_files()
        record.keep_if(meta_stamp(metas))  # new recipients: every note sealed again
        # Strings, not Paths, for the stats: this runs for every note routed here.
        memory_text, mirror_text = str(memory), str(self.mirror)
        for rel in note_files(memory):
            route = router.route(rel, lambda rel=rel: read_facts(memory / rel))  # type: ignore[misc]
            if route.remote != name:
                continue
            mirror_rel = self.codec.mirror_path(rel)
            note_stat = stat_of(f"{memory_text}/{rel}")
            copy_stat = stat_of(f"{mirror_text}/{mirror_rel}")
            if note_stat is None:
                continue
            routed.add(rel)
            plan.exported[rel] = note_stat
            if not route.pinned:
                plan.pins[rel] = name
            if record.in_step(rel, note_stat, copy_stat):
                continue  # neither changed since they last matched: nothing to read
            plain = _read(memory / rel)
            if plain is None:
                routed.discard(rel)
                continue
            current = _read(self.mirror / mirror_rel)
            data = self.codec.encode(rel, plain, current)
            if data != current:
                plan.files[mirror_rel] = data
                plan.notes.append(rel)
            else:
                record.set(rel, note_stat, copy_stat)
        for mirror_rel in mirror_files(self.mirror):
            kept = self.codec.note_path(mirror_rel)
            if kept is None or kept in routed:
                continue
            pin = router.pins.get(kept)
            if pin == name and not (memory / kept).exists():
                plan.files[mirror_rel] = None  # deleted here: deleted there
                plan.pins[kept] = None
            elif pin is not None and pin != name:
                plan.files[mirror_rel] = None  # it left for another remote
                plan.files[tombstone_path(note_id(kept))] = tombstone_bytes(self.home, pin)
        for meta, data in metas.items():
            if _read(self.mirror / meta) != data:
                plan.files[meta] = data
        return plan

    def _export(self, plan: ExportPlan) -> None:
        for mirror_rel, data in plan.files.items():
            target = _inside(self.mirror, mirror_rel)
            if data is None:
                target.unlink(missing_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(target, data, mode=0o600)
        for rel in plan.notes:  # written from the note as it was planned
            copy = stat_of(self.mirror / self.codec.mirror_path(rel))
            if stat_of(self.home.memory_dir / rel) == plan.exported.get(rel):
                self._record.set(rel, plan.exported.get(rel), copy)
            else:
                self._record.drop(rel)
        self._exported = plan.exported
        self.codec.save()
        # Pinned once committed here: a rule changed later never moves it by itself.
        update_pins(self.home.layout, plan.pins)

    # -- import -----------------------------------------------------------------------

    def _import(self, result: SyncResult) -> SyncResult:
        """Bring what the mirror's sync changed into memory/; the result then names the
        notes changed in memory/ (for the reindex) and the conflicts by note path."""
        router = Router.of(self.home)
        name = self.spec.name
        memory = self.home.memory_dir
        pins: dict[str, str | None] = {}
        changed: list[str] = []
        moved: set[str] = set()
        by_id = {note_id(rel): rel for rel, pin in router.pins.items() if pin == name}
        for mirror_rel in result.changed:
            if not mirror_rel.startswith(MOVED_DIR + "/"):
                continue
            data = _read(self.mirror / mirror_rel)
            stone = read_tombstone(mirror_rel, data) if data is not None else None
            rel = by_id.get(stone.note_id) if stone is not None else None
            if stone is None or rel is None or stone.moved_to == name:
                continue
            moved.add(rel)
            if has_target(self.home, router, stone):
                pins[rel] = stone.moved_to  # re-pinned there; the file stays
            else:  # this machine has no access to where it went: its copy goes
                pins[rel] = None
                (memory / rel).unlink(missing_ok=True)
                changed.append(rel)
        for mirror_rel in dict.fromkeys((*result.changed, *self._never_imported(router))):
            rel = self.codec.note_path(mirror_rel)
            if rel is None or rel in moved:
                continue
            pin = router.pins.get(rel)
            if pin is not None and pin != name:
                continue  # another remote's note here: never written over
            data = _read(self.mirror / mirror_rel)
            target = memory / rel
            if data is None:
                self._record.drop(rel)
                if pin == name:  # deleted there, and it is that remote's note
                    target.unlink(missing_ok=True)
                    pins[rel] = None
                    changed.append(rel)
                continue
            try:
                plain = self.codec.decode(mirror_rel, data)
            except CodecError as exc:
                self.problems.append(str(exc))
                continue
            local = _read(target)
            if local is not None and local != plain and self._exported.get(rel) != stat_of(target):
                continue  # edited here meanwhile (or not ours to overwrite): sent next time
            pins[rel] = name  # pulled from this remote: it stays this remote's
            if local != plain:
                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(target, plain)
                changed.append(rel)
            self._record.set(rel, stat_of(target), stat_of(self.mirror / mirror_rel))
        self.codec.save()
        self._record.save()
        update_pins(self.home.layout, pins)
        if self.problems and not self.error:  # one error for the remote, not one a file
            more = len(self.problems) - 1
            self.error = self.problems[0] + (f" (and {more} more file(s))" if more else "")
        conflicts = tuple(self.codec.note_path(path) or path for path in result.conflicts)
        return dataclasses.replace(result, changed=tuple(changed), conflicts=conflicts)

    def _never_imported(self, router: Router) -> list[str]:
        """Mirror notes this machine has never taken in: no pin and no file in memory/
        (pulled by a sync cut short before its import, by an encrypted remote's set-up,
        or while this machine could not open them). Each sync tries them again, so what
        a pull brought is never left behind in the mirror."""
        memory = self.home.memory_dir
        pending = []
        for mirror_rel in mirror_files(self.mirror):
            rel = self.codec.note_path(mirror_rel)
            if rel is not None and rel not in router.pins and not (memory / rel).exists():
                pending.append(mirror_rel)
        return pending

    def _through_codec(self, fork: Fork | None) -> Fork | None:
        """keep-both on mirror files: both sides decoded, forked as notes, encoded back."""
        if fork is None:
            return None
        from anamnesis.sync import Forked

        codec = self.codec

        def forked(path: str, ours: bytes, theirs: bytes) -> Forked:
            rel = codec.note_path(path)
            if rel is None:
                return fork(path, ours, theirs)
            made = fork(rel, codec.decode(path, ours), codec.decode(path, theirs))
            return Forked(
                codec.mirror_path(made.path),
                codec.encode(made.path, made.ours, None),
                codec.encode(rel, made.theirs, theirs),
            )

        return forked


def meta_stamp(metas: dict[str, bytes]) -> str:
    """A codec's meta files in one digest (the export record holds only under it)."""
    digest = hashlib.sha256()
    for path, data in sorted(metas.items()):
        digest.update(f"{path}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def note_files(folder: Path) -> Iterator[str]:
    """Every note path (``<type>/<id>.md``) in a notes folder."""
    for rel in _files(folder):
        if is_note_path(rel):
            yield rel


def mirror_files(folder: Path) -> Iterator[str]:
    """Every file of a mirror folder but its repository and its ``.anamnesis/`` files."""
    return _files(folder)


def _files(folder: Path, prefix: str = "") -> Iterator[str]:
    """Every regular file's path (``/``-separated) under ``folder``; no link followed."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        # Dot names: the sync lock, temp files of atomic writes; .git and .anamnesis.
        if entry.name.startswith(".") and (
            prefix or entry.name in _SKIPPED_DIRS or not entry.is_dir(follow_symlinks=False)
        ):
            continue
        if entry.is_dir(follow_symlinks=False):
            yield from _files(Path(entry.path), f"{prefix}{entry.name}/")
        elif entry.is_file(follow_symlinks=False):
            yield prefix + entry.name


def _read(path: Path) -> bytes | None:
    """A regular file's bytes; None when absent (or not a regular file: never read)."""
    try:
        return read_regular(path)[0]
    except OSError:
        return None


def _inside(folder: Path, rel: str) -> Path:
    """``folder/rel`` for a path a codec or a tombstone made, checked to stay inside."""
    parts = rel.split("/")
    if any(part in ("", ".", "..", ".git") for part in parts) or "\\" in rel:
        raise CodecError(f"refusing the mirror path {rel!r}")
    return folder.joinpath(*parts)
