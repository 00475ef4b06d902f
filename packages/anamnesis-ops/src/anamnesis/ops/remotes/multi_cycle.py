"""The cycle of a home with named remotes: the default remote (memory/.git, owning only
its notes), then each named remote in turn, each with its own lock and its own failure:
one that fails (unreachable, busy, a key missing) is reported and never stops the others.

Every remote goes through the store's one cycle (``anamnesis.store.sync_cycle``: mask,
sync or resolve, reindex): the default through ``ops.sync_with``, a named remote through
its :class:`~anamnesis.ops.remotes.mirror.MirrorSync`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anamnesis.ops.remotes.codec import CodecError, codec_for
from anamnesis.ops.remotes.config import DEFAULT, RemoteSpec
from anamnesis.ops.remotes.mirror import MirrorSync
from anamnesis.ops.remotes.owned import OwnedPaths
from anamnesis.ops.remotes.pins import read_pins, update_pins
from anamnesis.ops.remotes.routing import Router, is_note_path, note_id
from anamnesis.ops.remotes.tombstones import MOVED_DIR, has_target, read_tombstone
from anamnesis.store import MaskedFile, MemoryStore, StoreError, read_regular, sync_cycle

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home
    from anamnesis.sync import Fork, Strategy, SyncResult

_LOCK_WAIT_S = 30.0


@dataclass(frozen=True, slots=True)
class RemoteReport:
    """What one named remote's cycle did (``error``: why it did nothing, or stopped)."""

    name: str
    encrypted: bool
    result: SyncResult | None = None
    error: str = ""
    masked: tuple[MaskedFile, ...] = ()
    indexed: int = 0
    problems: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """As ``sync --json``'s ``remotes`` lists it."""
        result = self.result
        remote_error = self.error or (result.remote_error if result is not None else "")
        return {
            "name": self.name,
            "pushed": result.pushed if result is not None else False,
            "pulled": result.pulled if result is not None else 0,
            "conflicted": result.conflicted if result is not None else False,
            "conflicts": list(result.conflicts) if result is not None else [],
            "detail": result.detail if result is not None else self.error,
            "remote_error": remote_error or None,
            "encrypted": self.encrypted,
        }


def sync_named(
    home: Home,
    store: MemoryStore,
    specs: tuple[RemoteSpec, ...],
    *,
    resolve: Strategy | None,
    fork: Callable[[], Fork] | None,
) -> tuple[RemoteReport, ...]:
    """Each named remote's cycle, in config order; none stops another."""
    return tuple(sync_remote(home, store, spec, resolve=resolve, fork=fork) for spec in specs)


def sync_remote(
    home: Home,
    store: MemoryStore,
    spec: RemoteSpec,
    *,
    resolve: Strategy | None = None,
    fork: Callable[[], Fork] | None = None,
) -> RemoteReport:
    """One named remote's cycle under its own lock (``remotes/<name>.lock``, held from
    the export to the import, beside the mirror's own sync lock)."""
    from anamnesis.sync import SyncError, sync_lock

    try:
        codec = codec_for(home, spec)
        backend = home.mirror_backend(spec)
        mirror = MirrorSync(home, spec, codec, backend)
        lock = home.layout.remotes_dir / f"{spec.name}.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        with sync_lock(lock, wait_s=_LOCK_WAIT_S):
            cycle = sync_cycle(
                store, mirror, resolve=resolve, fork=fork() if fork is not None else None
            )
            indexed = _indexed(cycle)
            if mirror.unblocked:  # let in by that pull: this machine's notes go out now
                first = cycle
                mirror = MirrorSync(home, spec, codec, backend)
                cycle = sync_cycle(store, mirror)
                indexed += _indexed(cycle)
                cycle.result = dataclasses.replace(
                    cycle.result,
                    pulled=first.result.pulled + cycle.result.pulled,
                    changed=tuple(dict.fromkeys((*first.result.changed, *cycle.result.changed))),
                )
                cycle.masked = (*first.masked, *cycle.masked)
    except (SyncError, CodecError, StoreError, OSError) as exc:
        return RemoteReport(spec.name, spec.encrypt, error=str(exc))
    return RemoteReport(
        spec.name,
        spec.encrypt,
        result=cycle.result,
        error=mirror.error,
        masked=cycle.masked,
        indexed=indexed,
        problems=tuple(mirror.problems),
    )


def _indexed(cycle: Any) -> int:
    return cycle.reindexed.indexed + cycle.reindexed.removed if cycle.reindexed else 0


def owns_of(backend: object) -> OwnedPaths | None:
    """The ``OwnedPaths`` of a home's memory/.git backend (None: it owns every path)."""
    owns = getattr(backend, "owns", None)
    return owns if isinstance(owns, OwnedPaths) else None


def after_default(
    home: Home,
    store: MemoryStore,
    owns: OwnedPaths | None,
    old_head: str | None,
    result: SyncResult,
) -> None:
    """After memory/.git's cycle: pin to ``default`` the notes it took for the first time
    (committed or pulled), and follow the tombstones it pulled."""
    router = Router.of(home)
    if owns is not None and router.has_default:
        fresh = set(owns.claimed)
        fresh.update(
            rel
            for rel in result.changed
            if is_note_path(rel) and rel not in router.pins and (home.memory_dir / rel).exists()
        )
        update_pins(home.layout, dict.fromkeys(sorted(fresh), DEFAULT))
    stones = [rel for rel in result.changed if rel.startswith(MOVED_DIR + "/")]
    if stones:
        _follow_tombstones(home, store, stones, old_head)


def _follow_tombstones(
    home: Home, store: MemoryStore, stones: list[str], old_head: str | None
) -> None:
    """A note moved off the default remote: re-pinned where it went (its file restored
    from memory/.git's history when the pull deleted it), or, with no access to where it
    went, left deleted here."""
    router = Router.of(home)
    by_id = {note_id(rel): rel for rel, pin in read_pins(home.layout).items() if pin == DEFAULT}
    pins: dict[str, str | None] = {}
    restored: list[str] = []
    for stone_rel in stones:
        try:
            data = read_regular(home.memory_dir / stone_rel)[0]
        except OSError:
            continue
        stone = read_tombstone(stone_rel, data)
        rel = by_id.get(stone.note_id) if stone is not None else None
        if stone is None or rel is None or stone.moved_to == DEFAULT:
            continue
        if not has_target(home, router, stone):
            pins[rel] = None  # the pull deleted it: this machine has no access any more
            continue
        pins[rel] = stone.moved_to
        target = home.memory_dir / rel
        if not target.exists() and old_head is not None:
            content = _last_content(home, rel, old_head)
            if content is not None:
                from anamnesis.store import atomic_write_bytes

                target.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(target, content)
                restored.append(rel)
    update_pins(home.layout, pins)
    if restored:
        store.reindex_changed(restored)


def _last_content(home: Home, rel: str, head: str, limit: int = 10_000) -> bytes | None:
    """The last content memory/.git's history held for ``rel``, from ``head`` back."""
    from anamnesis.sync import SyncError, new_commits, read_blob

    try:
        for seen, commit in enumerate(new_commits(home.memory_dir, lambda _: False, start=head)):
            if seen >= limit:
                return None
            for changed in commit.files:
                if changed.path == rel:
                    return (
                        None if changed.blob is None else read_blob(home.memory_dir, changed.blob)
                    )
    except SyncError:
        return None
    return None
