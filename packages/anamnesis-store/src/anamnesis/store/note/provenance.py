"""Who a note comes from, in the words people and agents read: the one place that names a
note's source (the SessionStart block, prompt recall, ``review``, the dashboard).

``prov_source`` says how the note was written; :func:`source_word` says it in a word;
:func:`is_unconfirmed` says whether a model's words still stand without a person having
kept them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.note.model import Memory

SOURCE_WORDS: Final = {
    "human": "you",
    "session-end": "captured",
    "reflection": "reflected",
    "import": "imported",
    "merge": "merged",
}
# Sources whose words a model wrote (a captured session's summary, a reflection, a merge):
# a person has not said them. An import carries what its source said.
MODEL_SOURCES: Final = frozenset({"session-end", "reflection", "merge"})


def source_word(mem: Memory) -> str:
    """How ``mem`` came to be, in one word: you, captured, reflected, imported, merged."""
    return SOURCE_WORDS.get(mem.prov_source, mem.prov_source)


def is_unconfirmed(mem: Memory) -> bool:
    """Whether a model wrote ``mem`` (or rewrote it: ``model_rewrite``) and no person has
    confirmed it since (``reviewed_at``: a review, a hand edit)."""
    from anamnesis.store.note.model_rewrite import rewritten_by

    written_by_model = mem.prov_source in MODEL_SOURCES or bool(rewritten_by(mem))
    return written_by_model and not mem.reviewed_at
