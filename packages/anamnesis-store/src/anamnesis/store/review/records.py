"""What the contradiction finder reports: a pair of notes and how they differ.

``Contradiction.to_dict()`` is the one shape a pair is shown in: ``anamnesis review
--json``, the MCP server and the dashboard print it as it is.
"""

from __future__ import annotations

from anamnesis.store.note.provenance import is_unconfirmed, source_word
from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any, Final

    from anamnesis.store.note.model import Memory

# The kinds of difference, in the order a pair lists them when it has several.
DIFFERENCE_KINDS: Final = (
    "replacement",
    "negation",
    "version",
    "port",
    "number",
    "flag",
    "path",
    "url",
    "command",
    "name",
)


class Difference(Record):
    """One way two notes disagree.

    ``kind``: number, version, port, path, flag, command, name, url, negation or
    replacement (the newer note retires what the older states: "no longer", "moved to",
    "replaced by", "deprecated"). ``subject``: the words the two notes share around the
    value ("dev server port"). ``old`` / ``new``: what the older and the newer note say
    ("" where one of them says nothing: a flag dropped, a negation's other side).
    """

    __slots__ = ("kind", "subject", "old", "new")

    def __init__(self, kind: str, subject: str, old: str, new: str) -> None:
        self.kind = kind
        self.subject = subject
        self.old = old
        self.new = new

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "subject": self.subject, "old": self.old, "new": self.new}


class Contradiction(Record):
    """Two live notes that may contradict each other: the ``older`` one (created first),
    the ``newer`` one, and how they differ (``differs``, at least one)."""

    __slots__ = ("older", "newer", "differs")

    def __init__(self, older: Memory, newer: Memory, differs: tuple[Difference, ...]) -> None:
        self.older = older
        self.newer = newer
        self.differs = differs

    @property
    def ids(self) -> tuple[str, str]:
        """The two notes' ids, the older first."""
        return (self.older.id, self.newer.id)

    def to_dict(self) -> dict[str, Any]:
        """``{"notes": [older, newer], "newer": id, "differs": [...], "sides": [...]}``:
        each side with its provenance (who wrote it, where, when, whether a person has
        confirmed a model's words)."""
        return {
            "notes": [self.older.id, self.newer.id],
            "newer": self.newer.id,
            "differs": [difference.to_dict() for difference in self.differs],
            "sides": [side(self.older), side(self.newer)],
        }


def side(mem: Memory) -> dict[str, Any]:
    """One note of a pair as a review shows it: what it is and where it came from."""
    return {
        "id": mem.id,
        "title": mem.title,
        "project": mem.project,
        "type": mem.type,
        "source": source_word(mem),
        "prov_source": mem.prov_source,
        "agent": mem.prov_agent,
        "machine": mem.machine_id,
        "created_at": mem.created_at,
        "updated_at": mem.updated_at,
        "unconfirmed": is_unconfirmed(mem),
    }


def ordered(first: Memory, second: Memory) -> tuple[Memory, Memory]:
    """The two notes, the older first: by ``created_at``, then ``updated_at``, then id."""
    if (first.created_at, first.updated_at, first.id) <= (
        second.created_at,
        second.updated_at,
        second.id,
    ):
        return first, second
    return second, first
