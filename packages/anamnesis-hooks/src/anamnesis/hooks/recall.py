"""UserPromptSubmit: the few notes of this project that the prompt is about.

The prompt's meaningful words (its ``\\w+`` words less English stop words) are searched
for in this project's notes by keyword (BM25; no model is loaded). A hit is added only
above the relevance floor: it shares at least :data:`MIN_SHARED` distinct meaningful words
with the prompt, as the index reads words (porter-stemmed: ``deploys`` and ``deploying``
are one word, counted once).

A note that shares one word with a prompt ("error", "config") is what keyword search finds
for almost any prompt; from two shared words on, hits start to be about the prompt.
Measured on devmemory (coding-agent notes; ``bench/suites/prompt_bench.py --floor``), each prompt
searched in its own project and in three others: without a floor, 87% of prompts in a wrong
project got notes (2.2 each); with this floor 27% (0.37 each). In the right project, 55% of
prompts get a relevant note (66% without a floor), and 35% of the notes added are relevant
(24%). On realmem (long chatty sessions, where every note shares many words with every
prompt) no lexical floor tells right from wrong projects; this one costs next to nothing there.
A floor relative to the best hit's score was measured too and left out: it gained little
(precision 0.35 to 0.38 on devmemory, a loss on realmem), and BM25 scores are unstable in a
small store, where a word in half of all notes counts for nothing (a note sharing four
words with the prompt scored 1e-5 of the best hit in a four-note store).

At most :data:`MAX_NOTES` notes, never one this session was already shown (see
:mod:`.sessions`), never a superseded note or a distilled episode (as inject), rendered by
inject's code (:func:`~anamnesis.ops.render_inject`, each note under its provenance
marker) under its own heading within the budget. Short prompts, slash commands and prompts
of stop words recall nothing.
"""

from __future__ import annotations

import re
import sqlite3

from anamnesis.ops import (
    MARKED_NOTICE,
    MEMORY_NOTICE,
    BlockSelection,
    Viewpoint,
    fit_notes,
    injectable,
    render_inject,
)
from anamnesis.store import STOP_WORDS as QUERY_STOP_WORDS
from anamnesis.store import Memory, MemoryStore, match_text

PROMPT_TITLE = "# Anamnesis memory: notes related to this prompt"
# A session's first block of notes says what their markers mean; a later one does not say
# it again (:func:`recall_header`).
PROMPT_HEADER = f"{PROMPT_TITLE}\n\n{MARKED_NOTICE}"
PROMPT_HEADER_AGAIN = f"{PROMPT_TITLE}\n\n{MEMORY_NOTICE}"

MAX_NOTES = 3
MIN_SHARED = 2
# A prompt shorter than this, or with fewer meaningful words, recalls nothing.
MIN_PROMPT_CHARS = 12
MIN_TERMS = 3
# The words of a long prompt (a pasted log) searched for: the first this many.
MAX_TERMS = 32
# Hits checked against the floor, after leaving out what the session was shown.
MAX_CHECKED = 10
# How deep the search goes: the notes wanted, and room for those already shown.
MIN_DEPTH = 10
MAX_DEPTH = 40
# The tokenizer of the store's index (spec 002), so words are counted as search matched.
TOKENIZER = "porter unicode61"

_WORD = re.compile(r"\w+")

# Beyond the store's query stop words (one list: ``store/search/stop_words.py``), what a prompt is
# full of and a note shares with every prompt: the fillers of a request ("please", "hi",
# "need", "want") and the pieces ``\w+`` makes of contractions (``don``, ``t``, ``ll``).
_REQUEST_WORDS = """
    also aren cannot couldn d didn doesn don either else etc ever every get gets getting got
    hadn hasn haven hello hey hi however isn let lets ll m might mine much must mustn need
    needs o ok okay one please pls re really s shall shan shouldn still t thank thanks us
    use using ve via want wants wasn weren whether whose won wouldn y yes yet
"""
STOP_WORDS = QUERY_STOP_WORDS | frozenset(_REQUEST_WORDS.split())


def is_slash_command(prompt: str) -> bool:
    """``/compact``, ``/review 12``: a command, not a question. A prompt that starts with
    a path (``/etc/hosts is ignored``) is a question."""
    first = prompt.lstrip().split(maxsplit=1)
    return bool(first) and first[0].startswith("/") and "/" not in first[0][1:]


def recall_terms(prompt: str | None) -> list[str]:
    """The prompt's distinct meaningful words (lower case, in order), or [] when the prompt
    should recall nothing: too short, a slash command, or too few meaningful words."""
    if not prompt or len(prompt.strip()) < MIN_PROMPT_CHARS or is_slash_command(prompt):
        return []
    terms: dict[str, None] = {}
    # As search reads words (no zero-width characters); lazily: a pasted log may be long.
    for match in _WORD.finditer(match_text(prompt).lower()):
        word = match.group()
        if len(word) > 1 and word not in STOP_WORDS and word.strip("_"):
            terms[word] = None
            if len(terms) == MAX_TERMS:
                break
    return list(terms) if len(terms) >= MIN_TERMS else []


def select_recall(
    store: MemoryStore,
    *,
    project: str,
    terms: list[str],
    shown: set[str],
    budget: int,
    viewpoint: Viewpoint | None = None,
) -> BlockSelection:
    """The notes to add for a prompt's ``terms`` that fit in ``budget`` characters, leaving
    out the ids this session was already ``shown``; their markers as read from
    ``viewpoint`` (default: this project's, machine and agent unknown)."""
    view = viewpoint if viewpoint is not None else Viewpoint(project=project)
    header = recall_header(shown)
    if not terms:
        return BlockSelection([], [], viewpoint=view)
    depth = min(max(MIN_DEPTH, MAX_NOTES + len(shown)), MAX_DEPTH)
    notes = store.search(" ".join(terms), project=project, k=depth, mode="keyword")
    candidates = [mem for mem in notes if mem.id not in shown and injectable(mem)][:MAX_CHECKED]
    counts = shared_terms(candidates, terms)
    chosen = [mem for mem, count in zip(candidates, counts, strict=True) if count >= MIN_SHARED]
    return fit_notes(chosen[:MAX_NOTES], budget, header=header, viewpoint=view)


def recall_header(shown: set[str]) -> str:
    """The header of a prompt's block, for a session that was ``shown`` these notes.

    Notes shown before came in a block that said what the markers under their titles
    mean (the session start's, or an earlier prompt's): the context holds that line, so
    this block leaves it out and spends its room on notes. (A clear or a compaction starts
    the list afresh with the session start's block: :mod:`.sessions`.)"""
    return PROMPT_HEADER_AGAIN if shown else PROMPT_HEADER


def render_recall(selection: BlockSelection, shown: set[str]) -> str:
    """The block added to the prompt's context for a session that was ``shown`` these
    notes before it (the same set :func:`select_recall` was given), or "" when nothing is."""
    return render_inject(selection, header=recall_header(shown))


def shared_terms(notes: list[Memory], terms: list[str]) -> list[int]:
    """For each note, how many of ``terms`` it holds, as the index reads words: each
    porter stem counted once (``test`` and ``tests`` are one word), title, body and tags.

    An in-memory FTS5 table with the index's tokenizer does the reading, so the count
    agrees with what the search matched."""
    if not notes or not terms:
        return [0] * len(notes)

    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE notes USING fts5(text, tokenize='{TOKENIZER}')")
        conn.execute(f"CREATE VIRTUAL TABLE words USING fts5(text, tokenize='{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, 'instance')")
        conn.executemany("INSERT INTO words(rowid, text) VALUES (?, ?)", list(enumerate(terms)))
        # Words the index reads alike (``test``, ``tests``) are one word: the first stands
        # for them. (A word with ``_`` is a phrase of several to the index, as to search.)
        stems: dict[int, set[str]] = {}
        for stem, row in conn.execute("SELECT term, doc FROM stems"):
            stems.setdefault(row, set()).add(stem)
        words = {frozenset(found): row for row, found in sorted(stems.items(), reverse=True)}
        conn.executemany(
            "INSERT INTO notes(rowid, text) VALUES (?, ?)",
            [
                (row, match_text(f"{mem.title}\n{mem.body}\n{' '.join(mem.tags)}"))
                for row, mem in enumerate(notes)
            ],
        )
        counts = [0] * len(notes)
        for row in words.values():
            phrase = '"' + terms[row] + '"'  # a \w+ word: nothing in it needs escaping
            for (hit,) in conn.execute("SELECT rowid FROM notes WHERE notes MATCH ?", (phrase,)):
                counts[hit] += 1
        return counts
    finally:
        conn.close()
