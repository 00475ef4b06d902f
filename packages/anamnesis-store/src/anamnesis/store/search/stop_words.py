"""Query-side stop words: the words a query is made of that say nothing about which note
it wants ("how do I", "what is the"). Keyword search drops them from a short query (up to
:data:`SHORT_QUERY` words) when other words remain; a query of stop words alone, or a long
one, is searched as it is. Notes are indexed whole: this is about queries only.

Why only short queries: in a look-up of a few words one stop word weighs as much as the
word that names the note, and dropping them lifts every corpus (devmemory MRR +0.015,
names-and-dates R@1 +0.011). In a long prompt (realmem's conversational turns, 42 words at
the median) they are a small share of the words, and dropping them measured no better than
keeping them: 1 to 4 queries of 717 lost at R@5 and R@8. From 15 to 18 words every corpus
is at or above spec 002's ranking at every k (bench/results/2026-11-28-keyword-stop-words.md).

The list is the common English function words (articles, pronouns, auxiliaries,
prepositions, conjunctions). Measured on the three evaluation corpora with BM25 (see
bench/results/2026-11-28-keyword-stop-words.md), it helps short look-ups and never moved long
conversational prompts by more than noise; a list that adapts to the store (dropping any
word in 15-33% of the notes) and extra conversational filler ("please", "thanks",
"really") were measured too and did worse.
"""

from __future__ import annotations

from collections.abc import Sequence

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves
    """.split()  # noqa: SIM905 - a word list reads best as words
)


# The most words a query may have for its stop words to be left out (see the docstring).
SHORT_QUERY = 17


def content_terms(tokens: Sequence[str]) -> list[str]:
    """``tokens`` without stop words (case-insensitive), in order, repeats kept; all of
    them when nothing else would remain or when there are more than :data:`SHORT_QUERY`."""
    if len(tokens) > SHORT_QUERY:
        return list(tokens)
    kept = [token for token in tokens if token.lower() not in STOP_WORDS]
    return kept if kept else list(tokens)
