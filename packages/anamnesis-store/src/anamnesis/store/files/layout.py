"""Where a store keeps things on disk. Paths for notes are built only from validated ids."""

from __future__ import annotations

from pathlib import Path

from anamnesis.store.record import Record


class StoreLayout(Record):
    """The files and folders under a store root (``~/.anamnesis`` by default).

    ``memory/`` is the portable, git-synced tree; ``local/`` the machine-local tree that is
    never synced; ``index.db`` the derived SQLite index; ``usage.db`` what this machine's
    sessions used; ``config.json`` machine config.
    """

    __slots__ = ("root",)

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def local_dir(self) -> Path:
        return self.root / "local"

    @property
    def db_path(self) -> Path:
        return self.root / "index.db"

    @property
    def usage_path(self) -> Path:
        """Which notes this machine's sessions were shown and fetched (:mod:`.usage_log`):
        beside the trees, so never synced, and not the index, which is rebuilt at will
        from the notes (what was used cannot be)."""
        return self.root / "usage.db"

    @property
    def config_path(self) -> Path:
        return self.root / "config.json"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def batch_journal(self) -> Path:
        """The renames of a batch being made (:mod:`.batch_journal`): there only while a
        batch renames its files, or after a crash in the middle."""
        return self.root / ".batch-journal.json"

    @property
    def queue_dir(self) -> Path:
        """What the hooks hand to the background worker (captures, sync requests)."""
        return self.root / "queue"

    @property
    def cache_dir(self) -> Path:
        """Derived, rebuildable state: the hooks' session records, the dashboard's history."""
        return self.root / "cache"

    @property
    def model_download_state(self) -> Path:
        """When the embedding model's download host was last found unreachable (searches
        do not try again before a few minutes have passed: :mod:`.model_download`)."""
        return self.cache_dir / "model-download.json"

    @property
    def embedding_lock(self) -> Path:
        """Held by whoever embeds notes in the background (one at a time), holding its
        pid."""
        return self.cache_dir / "embedding.lock"

    @property
    def models_dir(self) -> Path:
        """Downloaded embedding models (no note: a copy of a public model)."""
        return self.root / "models"

    @property
    def remotes_dir(self) -> Path:
        """The named remotes' machine-local state (never synced): each one's mirror folder
        ``remotes/<name>/`` (a sync folder of its own) and the pins (``routes.json``)."""
        return self.root / "remotes"

    @property
    def routes_path(self) -> Path:
        """Which remote each note is pinned to (``{path in memory/: remote name}``)."""
        return self.remotes_dir / "routes.json"

    def mirror_dir(self, name: str) -> Path:
        """The sync folder of the named remote ``name`` (a checked name: no path in it)."""
        if not name or "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"not a remote name: {name!r}")
        return self.remotes_dir / name

    def remote_manifest(self, name: str) -> Path:
        """What this machine last sealed for the encrypted remote ``name`` (the no-op
        manifest: hashes, never text), beside its mirror folder, never inside it."""
        return self.mirror_dir(name).with_name(f"{name}.manifest.json")

    @property
    def keys_dir(self) -> Path:
        """This machine's own keys (0700): machine-local, never synced, never in a note
        tree."""
        return self.root / "keys"

    @property
    def age_identity(self) -> Path:
        """This machine's age identity (0600), generated the first time an encrypted
        remote needs it; its public key is what a member adds as a recipient."""
        return self.keys_dir / "age.key"

    @property
    def eval_dir(self) -> Path:
        """The store's retrieval eval cases."""
        return self.root / "eval"

    def trees(self) -> tuple[tuple[Path, str], ...]:
        """Each note tree with the scope it stands for; the tree decides a note's scope."""
        return ((self.memory_dir, "portable"), (self.local_dir, "machine-local"))

    def has_notes(self) -> bool:
        """Whether a store was ever set up here: either note tree exists (a hook asks this
        before it opens anything, so that it never creates a store)."""
        return any(tree.is_dir() for tree, _scope in self.trees())

    def tree(self, scope: str) -> Path:
        if scope == "portable":  # the scopes of trees(), without building both paths
            return self.memory_dir
        if scope == "machine-local":
            return self.local_dir
        raise ValueError(f"unknown scope {scope!r}")

    @staticmethod
    def rel_path(note_type: str, memory_id: str) -> str:
        """``<type>/<id>.md``: the path of a note inside its tree."""
        # Here, not at the top: a hook that only needs the home's folders (capture, its
        # queue) loads this module and not the note rules (the hooks' import budget).
        from anamnesis.store.note.ids import check_id
        from anamnesis.store.note.model import NOTE_TYPES

        if note_type not in NOTE_TYPES:
            raise ValueError(f"unknown note type {note_type!r}")
        return f"{note_type}/{check_id(memory_id)}.md"

    def note_path(self, scope: str, note_type: str, memory_id: str) -> Path:
        return self.tree(scope) / self.rel_path(note_type, memory_id)

    def locate(self, path: Path) -> tuple[str, str] | None:
        """(scope, path relative to its tree) for a file inside a note tree, else None."""
        resolved = path if path.is_absolute() else self.root / path
        for tree, scope in self.trees():
            try:
                rel = resolved.relative_to(tree)
            except ValueError:
                continue
            if rel.parts and ".." not in rel.parts:
                return scope, rel.as_posix()
        return None
