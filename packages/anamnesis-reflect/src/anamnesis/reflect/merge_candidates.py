"""Which durable notes look redundant: candidate groups for a merge, found without an LLM.

Two notes are linked when they share a project and a type and either

* their word sets (title and body, lowercased, short and common words dropped, a plural
  ``s`` folded) have a Jaccard similarity of at least :data:`LEXICAL_THRESHOLD`; or
* vectors can run here and the note's nearest neighbour search (its title and the start of
  its body, vector mode, within its project and type) gives the other a cosine similarity
  of at least :data:`VECTOR_THRESHOLD`.

A candidate group is a connected set of linked notes. Links chain (A~B, B~C, A and C far
apart): that is fine, the model only proposes merges, it may split a group, and every merge
is gated by recall before anything is written. Everything is sorted (groups by project,
type and first id; ids within a group), so the same store always gives the same groups
and the same prompt.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from anamnesis.store import DURABLE_TYPES, Memory, MemoryStore, VectorsUnavailableWarning

# Jaccard over normalized word sets. Measured on shared/eval/devmemory (300 notes): no two
# distinct notes of one project and type reach 0.22 (99% stay under 0.13), and a note with
# the one that supersedes it (same subject, changed facts) 0.18-0.38; a note restated with
# its facts reordered measures about 0.8, reworded loosely about 0.38. Looser paraphrases
# are left to vectors. A false candidate costs tokens only: the model decides.
LEXICAL_THRESHOLD = 0.35
# Cosine of the query "title + body start" against whole notes, all-MiniLM-L6-v2, on the
# same set: distinct notes of one project and type reach 0.66 at most, a note and its
# superseder 0.52-0.80, the restatements above (reordered, reworded) 0.88-0.94, a note
# against itself 0.99.
VECTOR_THRESHOLD = 0.85
VECTOR_NEIGHBOURS = 5
VECTOR_QUERY_CHARS = 400

_WORD = re.compile(r"\w+")
# Words that say nothing about a note's subject: they would make every pair look alike.
_STOPWORD_TEXT = """
    about after again all also and any are because been before being but can cannot could
    did does doing done each either for from had has have having here how into its just
    may more most must not now off once only other our out over own same should since
    some such than that the their them then there these they this those through too under
    until use used uses using very was were what when where which while who why will with
    would you your yes
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class CandidateGroup:
    """Notes of one project and type that look redundant, and the strongest link found
    between two of them (``similarity``: Jaccard or cosine, whichever was higher)."""

    project: str
    type: str
    notes: tuple[Memory, ...]
    similarity: float

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(note.id for note in self.notes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "type": self.type,
            "ids": list(self.ids),
            "titles": [note.title for note in self.notes],
            "similarity": round(self.similarity, 3),
        }


def raw_words(text: str) -> set[str]:
    """The distinct lowercased words of ``text`` (what a keyword probe may search for)."""
    return {word.lower() for word in _WORD.findall(text)}


def similarity_words(note: Memory) -> frozenset[str]:
    """The words two notes are compared on: title and body, lowercased, words under three
    characters and :data:`STOPWORDS` dropped, a final plural ``s`` folded ("writers" and
    "writer" are one word here; "class" keeps its "ss")."""
    words: set[str] = set()
    for word in raw_words(f"{note.title}\n{note.body}"):
        if len(word) < 3 or word in STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return frozenset(words)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def lexical_links(
    words: Sequence[frozenset[str]], threshold: float = LEXICAL_THRESHOLD
) -> dict[tuple[int, int], float]:
    """Every pair of indexes whose word sets reach ``threshold``, with its Jaccard.

    Prefix filtering keeps this far from quadratic: with each set's words in one global
    order (rarest first), two sets with Jaccard >= t must share a word among the first
    ``len - ceil(t * len) + 1`` of each, so only pairs sharing such a word are measured.
    """
    frequency = Counter(word for group in words for word in group)
    posting: dict[str, list[int]] = defaultdict(list)
    links: dict[tuple[int, int], float] = {}
    for index, group in enumerate(words):
        ordered = sorted(group, key=lambda word: (frequency[word], word))
        prefix = ordered[: len(ordered) - math.ceil(threshold * len(ordered)) + 1]
        seen: set[int] = set()
        for word in prefix:
            for other in posting[word]:
                if other in seen:
                    continue
                seen.add(other)
                score = jaccard(words[other], group)
                if score >= threshold:
                    links[(other, index)] = score
            posting[word].append(index)
    return links


def vector_links(
    store: MemoryStore, notes: Sequence[Memory], threshold: float = VECTOR_THRESHOLD
) -> tuple[dict[tuple[int, int], float], str]:
    """Pairs of indexes (notes of one project and type) whose vectors are close, and ""
    or why vectors were not used. The first search that falls back to keywords (no model,
    say) ends the pass: vectors only ever add links, so the lexical ones stand alone."""
    if not notes:
        return {}, ""
    position = {note.id: index for index, note in enumerate(notes)}
    links: dict[tuple[int, int], float] = {}
    with warnings.catch_warnings():
        # The fallback is reported once, in the merge report, not warned per note.
        warnings.simplefilter("ignore", VectorsUnavailableWarning)
        for index, note in enumerate(notes):
            query = f"{note.title}\n{note.body[:VECTOR_QUERY_CHARS]}"
            result = store.search_scored(
                query,
                project=note.project,
                type=note.type,
                k=VECTOR_NEIGHBOURS + 1,
                mode="vector",
            )
            if result.mode != "vector":
                return {}, result.fallback or "vector search is unavailable"
            for hit in result.hits:
                other = position.get(hit.note.id)
                if other is None or other == index or hit.score < threshold:
                    continue
                pair = (min(index, other), max(index, other))
                links[pair] = max(links.get(pair, 0.0), hit.score)
    return links, ""


def find_candidates(
    store: MemoryStore,
    notes: Iterable[Memory],
    *,
    use_vectors: bool,
) -> tuple[list[CandidateGroup], str]:
    """The candidate groups among ``notes`` (the caller's durable, not superseded notes;
    others are ignored), and "" or why vectors were not used."""
    buckets: dict[tuple[str, str], list[Memory]] = defaultdict(list)
    for note in notes:
        if note.type in DURABLE_TYPES:
            buckets[(note.project, note.type)].append(note)
    groups: list[CandidateGroup] = []
    vectors_problem = "" if use_vectors else "vectors are not available here"
    for (project, note_type), members in sorted(buckets.items()):
        members.sort(key=lambda note: note.id)
        links = lexical_links([similarity_words(note) for note in members])
        if use_vectors and not vectors_problem and len(members) > 1:
            close, vectors_problem = vector_links(store, members)
            for pair, score in close.items():
                links[pair] = max(links.get(pair, 0.0), score)
        for component, strongest in _components(len(members), links):
            groups.append(
                CandidateGroup(project, note_type, tuple(members[i] for i in component), strongest)
            )
    return groups, vectors_problem


def _components(size: int, links: dict[tuple[int, int], float]) -> list[tuple[list[int], float]]:
    """Connected sets of two or more indexes (sorted, by first index), each with its
    strongest link (union-find)."""
    parent = list(range(size))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for a, b in links:
        parent[root(a)] = root(b)
    members: dict[int, list[int]] = defaultdict(list)
    for index in range(size):
        members[root(index)].append(index)
    strongest: dict[int, float] = defaultdict(float)
    for (a, _b), score in links.items():
        strongest[root(a)] = max(strongest[root(a)], score)
    found = [(sorted(group), strongest[top]) for top, group in members.items() if len(group) > 1]
    return sorted(found, key=lambda item: item[0][0])


def document_frequencies(notes: Iterable[Memory]) -> Counter[str]:
    """In how many of ``notes`` each lowercased word appears (title, body and tags)."""
    frequency: Counter[str] = Counter()
    for note in notes:
        frequency.update(raw_words(f"{note.title}\n{note.body}\n{' '.join(note.tags)}"))
    return frequency


def rarest_terms(text: str, frequency: Counter[str], count: int = 3) -> list[str]:
    """The ``count`` words of ``text`` (a note's title and body) found in the fewest notes
    (ties: alphabetical), leaving out words under three characters and
    :data:`STOPWORDS`, which say little of what a note is about."""
    words = [word for word in raw_words(text) if len(word) >= 3 and word not in STOPWORDS]
    words.sort(key=lambda word: (frequency.get(word, 0), word))
    return words[:count]
