"""The Memory record: one note, exactly as its markdown file describes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

# The constrained string fields. They stay plain ``str`` in the dataclass because values
# arrive from files, the CLI and MCP as text; ``validation`` enforces these sets.
MemoryType = str  # "procedural" | "semantic" | "episodic"
Scope = str  # "portable" | "machine-local"
ProvSource = str  # "human" | "session-end" | "reflection" | "import" | "merge"

NOTE_TYPES: Final = ("procedural", "semantic", "episodic")
DURABLE_TYPES: Final = ("procedural", "semantic")
SCOPES: Final = ("portable", "machine-local")
PROV_SOURCES: Final = ("human", "session-end", "reflection", "import", "merge")

GLOBAL_PROJECT: Final = "global"


@dataclass(slots=True)
class Memory:
    """A single memory note. Mirrors the markdown frontmatter plus the body.

    ``supersedes`` lists the ids this note replaces (a file holding a single id as a scalar
    still reads). ``extra`` keeps frontmatter keys the store does not know, so notes written
    by other tools or older releases survive a rewrite unchanged.
    """

    id: str
    type: MemoryType
    title: str
    body: str
    project: str = GLOBAL_PROJECT
    machine_id: str = "unknown"
    scope: Scope = "portable"
    tags: list[str] = field(default_factory=list)
    created_at: str = ""
    updated_at: str = ""
    prov_source: ProvSource = "human"
    prov_model: str = ""
    prov_session: str = ""
    confidence: float = 1.0
    supersedes: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, *, include_body: bool = True) -> dict[str, Any]:
        """A JSON-ready dict of the note (what the CLI's --json and the MCP tools return)."""
        out: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "project": self.project,
            "machine_id": self.machine_id,
            "scope": self.scope,
            "tags": list(self.tags),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "prov_source": self.prov_source,
            "prov_model": self.prov_model,
            "prov_session": self.prov_session,
            "confidence": self.confidence,
            "supersedes": list(self.supersedes),
        }
        if include_body:
            out["body"] = self.body
        return out


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Counts over the index, for status reports."""

    total: int
    by_type: dict[str, int]
    by_project: dict[str, int]
    by_scope: dict[str, int]
    superseded: int = 0


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file reindex could not index, and why."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class ReindexReport:
    """What a (full or partial) reindex did: notes indexed, removed, and files skipped."""

    indexed: int
    removed: int = 0
    skipped: tuple[SkippedFile, ...] = ()

    @property
    def skipped_count(self) -> int:
        return len(self.skipped)
