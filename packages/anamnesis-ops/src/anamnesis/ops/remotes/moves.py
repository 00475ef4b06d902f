"""Moving a note between remotes: the one way a pin changes.

``share`` (``anamnesis share ID --to NAME``) and ``remote check --apply`` move a note:
its pin goes to the new remote (whose next cycle pushes it), and the remote it leaves
gets a tombstone commit (tombstones.py): the note deleted there and
``.anamnesis/moved/<id>`` written, in one commit saying ``moved <id> to <name>``. A note
never pushed anywhere (kept here) is only re-pinned. Ids never change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anamnesis.ops.remotes.codec import codec_for
from anamnesis.ops.remotes.config import DEFAULT, RemoteConfigError, remote_specs
from anamnesis.ops.remotes.pins import read_pins, update_pins
from anamnesis.ops.remotes.routing import Router, is_note_path, note_id, read_facts
from anamnesis.ops.remotes.tombstones import move_message, tombstone_bytes, tombstone_path
from anamnesis.store import StoreLayout, atomic_write_bytes

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home
    from anamnesis.store import MemoryStore

_LOCK_WAIT_S = 30.0


@dataclass(frozen=True, slots=True)
class Move:
    """A note's move: from the remote it is on (None: kept here) to ``to``."""

    rel: str
    note_id: str
    source: str | None
    to: str
    moved: bool = True

    def as_dict(self) -> dict[str, object]:
        return {"id": self.note_id, "path": self.rel, "from": self.source, "to": self.to}


def share(home: Home, store: MemoryStore, memory_id: str, to: str) -> Move:
    """Move the note ``memory_id`` to the remote ``to`` (``default``: the ``remote``
    setting's). Raises :class:`RemoteConfigError` for a remote this home does not have
    or a machine-local note (those go nowhere)."""
    note = store.get(memory_id)
    if note.scope != "portable":
        raise RemoteConfigError(f"{note.id} is machine-local: it never leaves this machine")
    rel = StoreLayout.rel_path(note.type, note.id)
    router = Router.of(home)
    if to not in router.names:
        known = ", ".join(sorted(router.names)) or "none"
        raise RemoteConfigError(f"no remote named {to!r} here (remotes: {known})")
    route = router.route(rel, lambda: read_facts(home.memory_dir / rel))
    if route.remote == to:
        update_pins(home.layout, {rel: to})  # pinned, so a later rule does not move it
        return Move(rel, note.id, to, to, moved=False)
    move_note(home, store, rel, route.remote if route.pinned else None, to)
    return Move(rel, note.id, route.remote, to)


def move_note(home: Home, store: MemoryStore, rel: str, source: str | None, to: str) -> None:
    """Re-pin ``rel`` to ``to``, leaving a tombstone on ``source`` (the remote it was
    pushed to or pulled from; None: it was on none)."""
    update_pins(home.layout, {rel: to})  # first: memory/.git stops owning it at once
    if source == DEFAULT and home.remote is not None:
        _tombstone_default(home, store, rel, to)
    elif source is not None and source != DEFAULT:
        _tombstone_named(home, rel, source, to)


def _tombstone_default(home: Home, store: MemoryStore, rel: str, to: str) -> None:
    from anamnesis.store import commit_outgoing

    ident = note_id(rel)
    stone = home.memory_dir / tombstone_path(ident)
    stone.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(stone, tombstone_bytes(home, to))
    # One commit: the note deleted (memory/.git no longer owns it) and the tombstone,
    # masked first as every commit made for a later sync (ops.commit_for_sync's rule,
    # spelled here as that module stands above this folder).
    commit_outgoing(store, home.sync_backend(), move_message(ident, to))


def _tombstone_named(home: Home, rel: str, source: str, to: str) -> None:
    from anamnesis.sync import sync_lock

    spec = next((s for s in remote_specs(home.config()) if s.name == source), None)
    if spec is None:
        return  # that remote is gone from this home: nothing to leave a trace on
    codec = codec_for(home, spec)
    backend = home.mirror_backend(spec)
    mirror = backend.repo_dir
    lock = home.layout.remotes_dir / f"{spec.name}.lock"
    with sync_lock(lock, wait_s=_LOCK_WAIT_S):
        copy = mirror / codec.mirror_path(rel)
        if not copy.exists():
            return  # never pushed there
        copy.unlink()
        ident = note_id(rel)
        stone = mirror / tombstone_path(ident)
        stone.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(stone, tombstone_bytes(home, to))
        backend.commit_local(move_message(ident, to))


def pending_moves(home: Home) -> list[Move]:
    """Pinned notes whose route the rules now give differently (``remote check``)."""
    router = Router.of(home)
    moves = []
    for rel, pin in sorted(read_pins(home.layout).items()):
        path = home.memory_dir / rel
        if not is_note_path(rel):
            continue
        facts = read_facts(path)
        if facts is None:
            continue
        wanted = router.by_rules(facts).remote
        if wanted is not None and wanted != pin:
            moves.append(Move(rel, note_id(rel), pin, wanted))
    return moves


def apply_moves(home: Home, store: MemoryStore, moves: list[Move]) -> None:
    """Make each move (``remote check --apply``)."""
    for move in moves:
        move_note(home, store, move.rel, move.source, move.to)
