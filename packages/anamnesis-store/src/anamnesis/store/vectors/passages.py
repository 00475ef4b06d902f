"""A note as passages: overlapping windows of it, each short enough for the embedding model
to read whole.

The model (all-MiniLM-L6-v2) was trained on texts of up to 256 word pieces (fastembed cuts
its input at 512), so a long note embedded whole was its first screenful: a session note's
decision in the middle never reached its vector. A note longer than one window is
therefore embedded as several passages, and a query's similarity to the note is its best
passage's (:mod:`.vector_index`).

Windows are counted in *pieces*: runs of letters and digits, and single other characters
(``\\w+|[^\\w\\s]``), which is how the model's tokenizer splits text before it cuts long
words into word pieces. A window of :data:`WINDOW` pieces is about 240 of the model's
tokens in prose and up to 330 in commands and paths. Counting pieces rather than the
model's own tokens makes passages a function of the text alone: the same for every
embedder, on every machine, with no model loaded to split a note.

* A body of :data:`WINDOW` pieces or fewer is one passage, ``title + "\\n" + body``.
* A longer body is cut into windows of :data:`WINDOW` pieces, each starting
  :data:`OVERLAP` pieces before the previous one ended (a sentence cut by one window is
  whole in the next); the last window ends with the body (it overlaps the one before it by
  :data:`OVERLAP` pieces or more). The first passage is ``title + "\\n"`` + its window (it
  starts with the body); every later one is ``title + "\\n" + header + "\\n"`` + its window,
  where the header is the body's first line when it is short (:data:`HEADER_MAX` pieces or
  fewer: a session's name and date, a capture's ask), so each passage keeps the note's
  context.
* At most :data:`MAX_PASSAGES` windows, from the start (about 10,800 pieces: a pasted log
  or dump beyond that is found by keywords only), so one note never costs minutes.

The numbers were chosen on bench/suites/recall_bench.py's realmem corpus (631 session notes of
about 1,700 tokens); see the README's vectors section.
"""

from __future__ import annotations

import re

WINDOW = 224
OVERLAP = 56
HEADER_MAX = 32
MAX_PASSAGES = 64
# Part of every note's content hash (vector_index.content_hash): other numbers, other
# passages, so a change here re-embeds every note instead of mixing two schemes.
SCHEME = f"passages-1 window={WINDOW} overlap={OVERLAP} header={HEADER_MAX} max={MAX_PASSAGES}"

_PIECE = re.compile(r"\w+|[^\w\s]")


def passages(title: str, body: str) -> list[str]:
    """The texts embedded for a note, first passage first (see the module docstring)."""
    spans = [match.span() for match in _PIECE.finditer(body)]
    if len(spans) <= WINDOW:
        return [f"{title}\n{body}"]
    first_line = body.split("\n", 1)[0].strip()
    header = first_line if len(_PIECE.findall(first_line)) <= HEADER_MAX else ""
    context = f"{title}\n{header}\n" if header else f"{title}\n"
    out: list[str] = []
    for number, start in enumerate(window_starts(len(spans))):
        window = body[spans[start][0] : spans[start + WINDOW - 1][1]]
        out.append(f"{title}\n{window}" if number == 0 else context + window)
    return out


def window_starts(pieces: int) -> list[int]:
    """Where each window of a body of ``pieces`` pieces starts (in pieces)."""
    if pieces <= WINDOW:
        return [0]
    step = WINDOW - OVERLAP
    starts = list(range(0, pieces - WINDOW, step))
    if len(starts) >= MAX_PASSAGES:
        return starts[:MAX_PASSAGES]
    return [*starts, pieces - WINDOW]
