"""Whether a model rewrote a note's text: marked by whoever lets one (``anamnesis compact``),
read by whatever shows notes as knowledge (the SessionStart block).

A rewrite keeps its note's provenance (``prov_source`` still says who first wrote it down)
and gains ``extra.rewritten_by``: the model whose words these now are. Here, in the store,
because the reflect package writes the mark and the hooks read it, and neither sees the
other. The mark stays until someone removes it: an edit by hand does not mean the rest of
the text was checked.
"""

from __future__ import annotations

from anamnesis.store.note.model import Memory

REWRITTEN_BY_KEY = "rewritten_by"


def rewritten_by(note: Memory) -> str:
    """The model that rewrote ``note``'s text, or "" when none did."""
    model = note.extra.get(REWRITTEN_BY_KEY)
    return model.strip() if isinstance(model, str) else ""
