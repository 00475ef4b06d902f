"""Whether a captured session note is still capture's own: a digest of what capture wrote.

Capture records a digest of the title and body it wrote (``extra.capture_digest``). A note
whose text no longer matches was edited by hand, and capture leaves it alone (it writes a
follow-up note instead). Anything else that rewrites a captured note on capture's behalf
(the LLM session summary) moves the digest along with the text. Here, in the store, because
the hooks and the reflect package both need it and see each other not at all.
"""

from __future__ import annotations

import hashlib

from anamnesis.store.note.model import Memory

CAPTURE_DIGEST_KEY = "capture_digest"


def content_digest(title: str, body: str) -> str:
    """A short digest of a note's title and body, blind to whitespace (an editor that
    re-wraps lines or trims trailing spaces has not changed what the note says)."""
    text = " ".join(title.split()) + "\n" + " ".join(body.split())
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def is_capture_owned(note: Memory) -> bool:
    """True while a note is capture's to rewrite: an episodic note whose title and body are
    what its digest says. A note without a digest (written before digests existed) cannot
    tell, and counts as capture's own; a durable note never is."""
    if note.type != "episodic":
        return False
    recorded = note.extra.get(CAPTURE_DIGEST_KEY)
    if not isinstance(recorded, str) or not recorded:
        return True
    return recorded == content_digest(note.title, note.body)
