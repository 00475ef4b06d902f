"""A note as the contradiction finder reads it: its clauses, and, read on demand, the
values and stances of the clauses that matter for the note it is compared with.

A long note (a session's 4 KB) is compared with another only where they share words: a
clause sharing none with the other note cannot state a value of the same thing, so its
values are never read, nor its words stemmed (:meth:`relevant`); what is read is kept, for
the next comparison of the same note.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from anamnesis.store.note.invisible import match_text
from anamnesis.store.review.reading.commands import retiring_clauses
from anamnesis.store.review.reading.stances import Stance, clause_stances, is_negated
from anamnesis.store.review.reading.text import (
    CAMEL_CUT,
    CODE_SPAN,
    MAX_CHARS,
    Clause,
    ClauseReader,
    content_stems,
    plain_words,
    scopes,
    subject_stems,
)
from anamnesis.store.review.reading.value import Value
from anamnesis.store.review.reading.values import KEY_ALONE, clause_values, keyed_by

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.note.model import Memory

# The most clauses of a note read for one comparison: the title, then those holding the
# most of the other note's subject words, so a long note costs no more than a short one.
MOST_CLAUSES: Final = 6
# Of two long notes, how much of each is read: its title and first sentences.
LEAD_CLAUSES: Final = 5
# How much of a note's start names its subject (with its title): what the other note's
# clauses are searched for.
PROBE_CHARS: Final = 800
_PORTS = re.compile(r"\b(?:port|listen|publish|expos|bind|localhost|sshd|udp|tcp|firewall)")


class NoteFacts:
    """What one note states. ``title_stems``: its title's words' stems; ``lower``: its
    text in lower case, for "does the other note mention this at all" (``healthz``
    mentions ``health``)."""

    __slots__ = (
        "_clauses", "_code", "_joined", "_negated", "_pattern", "_probe", "_prose", "_reader",
        "_retiring", "_said", "_scopes", "_stances", "_subject", "_values", "about_ports",
        "lower", "memory", "title_stems",
    )  # fmt: skip

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        # The clauses are read as far as needed: a long note compared with another long
        # one is read to its lead only.
        self._reader = ClauseReader(memory.title, memory.body)
        self._clauses = self._reader.read(MOST_CLAUSES + 1)
        self.lower = match_text(f"{memory.title}\n{memory.body[:MAX_CHARS]}").lower()
        first = self._clauses[0] if self._clauses else None
        self.title_stems: frozenset[str] = (
            first.stems if first is not None and first.is_title else frozenset()
        )
        self.about_ports = _PORTS.search(self.lower) is not None
        self._probe: frozenset[str] | None = None
        self._values: dict[int, list[Value]] = {}
        self._stances: dict[int, list[Stance]] = {}
        self._pattern: re.Pattern[str] | None = None
        self._scopes: frozenset[str] | None = None
        self._joined: tuple[str, list[int]] | None = None
        self._negated: dict[int, bool] = {}
        self._code: dict[int, list[str]] = {}
        self._subject: tuple[frozenset[str], frozenset[str]] | None = None
        self._retiring: dict[int, bool] = {}
        self._prose: frozenset[str] | None = None
        self._said: frozenset[str] | None = None

    @property
    def clauses(self) -> list[Clause]:
        """Every clause of the note (read now if only its lead was)."""
        return self._reader.read(None)

    @property
    def title(self) -> str:
        """The title clause's text ("" for a note without a title)."""
        first = self._clauses[0] if self._clauses else None
        return first.text if first is not None and first.is_title else ""

    @property
    def subject_stems(self) -> frozenset[str]:
        """The title's words that say which task or thing the note is about: its stems,
        without the words that only say what kind of value it holds (``file``)."""
        return self._subject_and_tools()[0]

    @property
    def tool_stems(self) -> frozenset[str]:
        """Those of :attr:`subject_stems` that name the project or a tool the note runs
        or names: two notes on ``terraform`` may be about two tasks of it."""
        return self._subject_and_tools()[1]

    def _subject_and_tools(self) -> tuple[frozenset[str], frozenset[str]]:
        if self._subject is None:
            self._subject = subject_stems(self.title, self.memory.body, self.memory.project)
        return self._subject

    def retiring(self, chosen: list[Clause]) -> list[str]:
        """The texts of those of ``chosen`` (its clauses compared with another note's)
        that say something fails, is of the past or is no longer run
        (:func:`.commands.retiring_clauses`): each clause read once a note, not once a
        pair."""
        out = []
        for clause in chosen:
            said = self._retiring.get(clause.index)
            if said is None:
                said = self._retiring[clause.index] = bool(retiring_clauses([clause.text]))
            if said:
                out.append(clause.text)
        return out

    @property
    def prose_stems(self) -> frozenset[str]:
        """The stems of the note's words outside its code (its whole body): read once a
        note, not once a pair of values."""
        if self._prose is None:
            text = CODE_SPAN.sub(" ", f"{self.title} {self.memory.body}")
            self._prose = frozenset(content_stems(text))
        return self._prose

    def mentions(self, word: str) -> bool:
        """Whether the note says ``word`` (lower case) anywhere, as text or as the stem of
        a word it says: a stem is not always the start of its word ("retries" holds no
        ``retry``)."""
        if word in self.lower:
            return True
        if self._said is None:
            text = f"{self.memory.title}\n{self.memory.body[:MAX_CHARS]}"
            self._said = frozenset(content_stems(match_text(text)))
        return word in self._said

    def clause(self, index: int) -> Clause:
        """The clause with this index."""
        if index < len(self._clauses):
            return self._clauses[index]
        return self.clauses[index]

    @property
    def scopes(self) -> frozenset[str]:
        """The scope words the note mentions anywhere (:func:`.text.scopes`)."""
        if self._scopes is None:
            self._scopes = scopes(self.lower, mentions=True)
        return self._scopes

    def negated(self, clause: Clause) -> bool:
        """Whether the clause says not to do what it names (:func:`.stances.is_negated`)."""
        found = self._negated.get(clause.index)
        if found is None:
            found = self._negated[clause.index] = is_negated(clause.text)
        return found

    def avoids(self, value: Value) -> bool:
        """Whether the note names ``value`` only as one to avoid: in a clause that says not
        to, or in what its clause says is for ("so it does not clash with 6379")."""
        text = self.clause(value.clause).text
        at = text.find(value.shown)
        return self.negated(self.clause(value.clause)) if at <= 0 else is_negated(text, at)

    def code(self, clause: Clause) -> list[str]:
        """The clause's spans in backquotes, in lower case."""
        found = self._code.get(clause.index)
        if found is None:
            found = self._code[clause.index] = [
                span.lower() for span in CODE_SPAN.findall(clause.text)
            ]
        return found

    def probe(self) -> frozenset[str]:
        """The words that name this note's subject: its title's and its start's
        (:func:`.text.plain_words`)."""
        if self._probe is None:
            self._probe = plain_words(self.lower[: len(self.title) + PROBE_CHARS])
        return self._probe

    @property
    def long(self) -> bool:
        """Whether the note has more clauses than one comparison reads."""
        return len(self._clauses) > MOST_CLAUSES

    def relevant(self, other: NoteFacts, most: int = MOST_CLAUSES) -> list[Clause]:
        """The clauses worth reading against ``other``: all of a short note. Of a long
        one against a short one, the title and the ``most`` - 1 holding the most of the
        short one's subject words (at least one), in the note's order. Of two long notes,
        each one's start, where a note says what it is about: reading every clause of
        both is what made a review of long notes slow (each note's clauses are read
        once a review, whatever the other)."""
        if not self.long:
            return self._clauses
        if other.long:
            return self._clauses[:LEAD_CLAUSES]
        pattern = other.pattern()
        if pattern is None:
            return self._clauses[:1]
        if self._joined is None:
            starts, offset = [], 0
            # a subject word inside a camelCase key counts: ``poolSize`` holds "pool"
            texts = [CAMEL_CUT.sub(" ", clause.text) for clause in self.clauses]
            for text in texts:
                starts.append(offset)
                offset += len(text) + 1
            self._joined = ("\n".join(texts).lower(), starts)
        joined, starts = self._joined
        counts: dict[int, int] = {}
        for match in pattern.finditer(joined):
            index = bisect_right(starts, match.start()) - 1
            counts[index] = counts.get(index, 0) + 1
        counts.pop(0, None)
        best = sorted(counts, key=lambda index: (-counts[index], index))[: most - 1]
        return [self.clauses[0], *(self.clauses[index] for index in sorted(best))]

    def pattern(self) -> re.Pattern[str] | None:
        """:meth:`probe` as a pattern, to find a long note's clauses that share its words
        (a plural's ``s`` allowed); None when the note names no subject."""
        if self._pattern is None:
            words = sorted(self.probe(), key=lambda word: (-len(word), word))
            if not words:
                return None
            alternatives = "|".join(re.escape(word) for word in words)
            # a word inside a key counts: ``ingestion`` in ``ingestion_rate_mb``
            self._pattern = re.compile(rf"(?<![a-z0-9])(?:{alternatives})s?(?![a-z0-9])")
        return self._pattern

    def values(self, chosen: list[Clause]) -> list[Value]:
        """The values these clauses state, in order."""
        out: list[Value] = []
        for clause in chosen:
            found = self._values.get(clause.index)
            if found is None:
                found = clause_values(clause, self.about_ports)
                key = self._key_alone(clause.index + 1) if found else None
                if key:
                    found = [*found, *keyed_by(found, clause.text, key)]
                self._values[clause.index] = found
                if CODE_SPAN.fullmatch(clause.text):
                    # a line of code alone (a setting in a config block) says nothing of
                    # what it is for: the note's title does
                    for value in found:
                        value.stems |= self.title_stems
            out.extend(found)
        return out

    def _key_alone(self, index: int) -> str | None:
        """The setting's key a clause is alone made of ("(`endTime`)", "(config
        `WAVE_MAX_ORDERS`)": a parenthesis names the key of the number before it), else
        None."""
        # read only as far as that clause: reading every clause of a long note for it is
        # what a review of many notes paid for most
        if index >= len(self._reader.read(index + 1)):
            return None
        alone = KEY_ALONE.fullmatch(self.clause(index).text.strip())
        return alone.group(1) if alone else None

    def stances(self, chosen: list[Clause]) -> list[Stance]:
        """The negations and replacements these clauses state, in order."""
        out: list[Stance] = []
        for clause in chosen:
            found = self._stances.get(clause.index)
            if found is None:
                found = self._stances[clause.index] = clause_stances(clause)
            out.extend(found)
        return out


def read_once(cache: dict[str, NoteFacts], mem: Memory) -> NoteFacts:
    """``mem`` read, once for all the pairs it is in (``cache``: by note id)."""
    found = cache.get(mem.id)
    if found is None:
        found = cache[mem.id] = NoteFacts(mem)
    return found
