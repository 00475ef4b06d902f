"""A note as the contradiction finder reads it: its clauses, and, read on demand, the
values and stances of the clauses that matter for the note it is compared with.

A long note (a session's 4 KB) is compared with another only where they share words: a
clause sharing none with the other note cannot state a value of the same thing, so its
values are never read. What is read is kept, for the next comparison of the same note.
"""

from __future__ import annotations

import re

from anamnesis.store.review.stances import Stance, clause_stances
from anamnesis.store.review.text import Clause, clauses, content_stems
from anamnesis.store.review.values import Value, clause_values

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.note.model import Memory

# The most clauses of a note read for one comparison: those sharing the most words with
# the other note (the title always), so a long note costs no more than a short one.
MOST_CLAUSES: Final = 12
_PORTS = re.compile(r"\b(?:ports?|listen\w*|publish\w*|expos\w*|bind\w*|localhost|sshd)\b", re.I)


class NoteFacts:
    """What one note states. ``stems``: every content word's stem (title and body);
    ``title_stems``: the title's; ``lower``: the text in lower case, for "does the other
    note mention this at all" (``healthz`` mentions ``health``)."""

    __slots__ = (
        "_stances", "_values", "about_ports", "clauses", "lower", "memory", "stems",
        "title_stems",
    )  # fmt: skip

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.clauses: list[Clause] = clauses(memory.title, memory.body)
        self.lower = " ".join(clause.text for clause in self.clauses).lower()
        self.stems: frozenset[str] = frozenset(content_stems(self.lower))
        self.title_stems: frozenset[str] = (
            self.clauses[0].stems if self.clauses and self.clauses[0].is_title else frozenset()
        )
        self.about_ports = _PORTS.search(self.lower) is not None
        self._values: dict[int, list[Value]] = {}
        self._stances: dict[int, list[Stance]] = {}

    def clause(self, index: int) -> Clause:
        """The clause with this index."""
        return self.clauses[index]

    def relevant(self, other: NoteFacts) -> list[Clause]:
        """The clauses that share a word with ``other``: the title, then the
        :data:`MOST_CLAUSES` sharing the most, in the note's order."""
        scored = []
        for clause in self.clauses:
            shared = len(clause.stems & other.stems)
            if shared or clause.is_title:
                scored.append((-shared - 1000 * clause.is_title, clause.index, clause))
        scored.sort(key=lambda item: item[:2])
        chosen = [clause for _score, _index, clause in scored[:MOST_CLAUSES]]
        return sorted(chosen, key=lambda clause: clause.index)

    def values(self, chosen: list[Clause]) -> list[Value]:
        """The values these clauses state, in order."""
        out: list[Value] = []
        for clause in chosen:
            found = self._values.get(clause.index)
            if found is None:
                found = self._values[clause.index] = clause_values(clause, self.about_ports)
            out.extend(found)
        return out

    def stances(self, chosen: list[Clause]) -> list[Stance]:
        """The negations and replacements these clauses state, in order."""
        out: list[Stance] = []
        for clause in chosen:
            found = self._stances.get(clause.index)
            if found is None:
                found = self._stances[clause.index] = clause_stances(clause)
            out.extend(found)
        return out
