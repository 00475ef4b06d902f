"""Hybrid ranking: keyword (BM25) and vector (cosine) evidence fused into one order.

Every candidate (the best keyword hits and the nearest vectors) is scored on both signals,
with the weight of the query's kind (:func:`weight_for`, :mod:`.query_kind`):

    score = w * coverage ** e * keyword_evidence + (1 - w) * cosine
    keyword_evidence = (bm25 / best_bm25) ** (1 - i) * held_information ** i

    paraphrase (vectors lead): w, e, i = PARAPHRASE_WEIGHT = 0.4, 2, 0
    lexical (keywords lead):   w, e, i = LEXICAL_WEIGHT    = 0.7, 1, 0.7

A lexical query is a look-up: its best keyword hit holds at least 0.35 of the query's
information (its words weighed by IDF, so a name or a rare word counts for much and a
template word for little), and it has at most 10 words (:mod:`.query_kind`; the anchors it
names say why). For a look-up, a keyword hit's evidence is not its BM25 alone but a
weighted geometric mean of its relative BM25 and ``held_information``, the share of the
query's information *that note* holds (:func:`.query_kind.idf_shares`): of two notes
sharing the rare name, the one that also holds the query's subject word ranks above the
one holding the name and a template word ("talk", "remind"), however BM25's length
normalisation scores them. Why: on short conversational notes (realmem-turns) fusion by
relative BM25 let vector-favoured hits holding the name alone push the note holding the
name *and* the subject out of the top 5 or 8, where keyword search had it
(``bench/results/2026-11-29-fusion-by-held-information.md``); the note's own information
share keeps it up, and the vectors still break BM25's near-ties.

The weights and the classifier's thresholds come from one grid over devmemory,
names-and-dates, realmem and realmem-turns (``bench/studies/query_fusion.py``): of the rules
that keep hybrid at or above keyword search at every k on all four and devmemory and realmem
at or above 7be1448's hybrid (R@8 and MRR), the best mean MRR. It takes realmem-turns from
R@1/3/5/8 0.485/0.710/0.792/0.854, MRR 0.608 (under keyword search's 0.800 / 0.867 at R@5 and
R@8) to 0.569/0.774/0.851/0.885, 0.683, and names-and-dates' R@1 from 0.976 to 0.994. The
paraphrase weight is the one chosen before (below).

``bm25 / best_bm25`` is the keyword evidence relative to the best keyword hit (1.0 for it,
0.0 for a note that shares no word with the query). ``coverage`` is the share of the
query's distinct words (the words keywords rank by: a short query's stop words left out)
that the best keyword hit contains: it says how much the keyword ranking knows. A query
that names an error code, a ticket or a person is covered whole by its best hit, and
keywords count fully; a paraphrase shares a word or two with any note, and then the keyword
order, however relative scores come out, says little. The vector part is the raw cosine
similarity, so a flat, uninformative vector ranking (every note about as near as the next)
moves the order little, while a confident one lifts a paraphrase over word-overlap hits.

Exact keyword matches stay in play: a keyword hit that contains every word of the query
and scores within ``STRONG_KEYWORD`` of the best BM25 is never pushed out of the top k by
vector evidence (it takes the place of the weakest result that is not such a hit).

Why the paraphrase numbers: Recall@1/3/5/8 and MRR of hybrid search (every query weighed
alike then), keywords ranked over content
words, from one grid run over the same keyword and vector rankings
(``bench/results/2026-11-25-fusion-weights.md``); single modes from
``bench/suites/recall_bench.py``:

=============================  ===============================  ===============================
fusion                         devmemory                        names-and-dates
=============================  ===============================  ===============================
keyword only                   0.495/0.650/0.695/0.745 0.581    0.970/1.000/1.000/1.000 0.985
vectors only                   0.615/0.775/0.835/0.865 0.704    0.598/0.710/0.757/0.787 0.664
0.4 kw x coverage / 0.6 vec    0.615/0.810/0.870/0.920 0.720    0.982/1.000/1.000/1.000 0.990
0.4 kw x coverage^2 (chosen)   0.655/0.805/0.875/0.935 0.745    0.982/1.000/1.000/1.000 0.990
0.45 kw x coverage^2           0.655/0.805/0.875/0.930 0.744    0.988/1.000/1.000/1.000 0.994
0.35 kw x coverage^2           0.640/0.800/0.870/0.935 0.737    0.982/0.994/1.000/1.000 0.990
=============================  ===============================  ===============================

devmemory (../shared/eval/devmemory) is paraphrase recall, where vectors shine; the
names-and-dates corpus (bench/common/corpora/namesdates) is decided by exact error codes, config
keys, people, tickets and dates, where they do not. Squaring the coverage lets a paraphrase
(its best keyword hit holding a third of its words) count its keywords at a ninth, while
a query its best hit covers whole keeps them at full weight. Below 0.4 the keyword side is
too weak for names-and-dates (R@3 under keyword search's); from 0.4 to 0.5 with the square
every number stays within a point of the chosen row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from anamnesis.store.search.query_kind import QueryKind


class Weight(Record):
    """How much keyword evidence counts: ``keyword`` times the best keyword hit's coverage
    to the power ``exponent``; vector evidence counts ``1 - keyword``. ``information``: the
    share a note's own hold on the query's information takes in its keyword evidence
    (:func:`keyword_evidence`; 0: relative BM25 alone)."""

    __slots__ = ("keyword", "exponent", "information")

    def __init__(self, keyword: float, exponent: float, information: float = 0.0) -> None:
        self.keyword = keyword
        self.exponent = exponent
        self.information = information


# A paraphrase (vectors lead): keyword evidence at 0.4, times the best keyword hit's
# coverage of the query squared (see the docstring).
PARAPHRASE_WEIGHT = Weight(0.4, 2)
# A lexical query (a look-up: :mod:`.query_kind`): keyword evidence leads, and a keyword
# hit counts by its relative BM25 and the share of the query's information it holds.
LEXICAL_WEIGHT = Weight(0.7, 1, 0.7)
KEYWORD_WEIGHT = PARAPHRASE_WEIGHT.keyword
VECTOR_WEIGHT = 1 - KEYWORD_WEIGHT
COVERAGE_EXPONENT = PARAPHRASE_WEIGHT.exponent
# An exact keyword hit scoring at least this share of the best BM25 is never pushed out.
STRONG_KEYWORD = 0.9
# Relevance floors of vector evidence. Any embedding puts every text at some angle to every
# other, so without a floor a query about nothing still "finds" the nearest notes. A note
# that shares no word with the query is a result only when its cosine similarity reaches
# VECTOR_FLOOR; when the query shares no word with any eligible note at all (a typo, a
# random string, a topic the store never heard of), only UNSHARED_FLOOR counts: the model
# reads unknown strings as subword fragments that sit at 0.25-0.39 from everything.
# Chosen on evidence (bench/studies/relevance_floor.py; bench/results/*relevance-floor*): off-topic
# queries stay below the first, random strings below the second, and hybrid Recall@8 on
# devmemory and names-and-dates does not move.
VECTOR_FLOOR = 0.25
UNSHARED_FLOOR = 0.45


def vector_floor(shares_a_word: bool) -> float:
    """The cosine a note needs on vector evidence alone (see the constants above)."""
    return VECTOR_FLOOR if shares_a_word else UNSHARED_FLOOR


def weight_for(kind: QueryKind) -> Weight:
    """The weight of a query of this kind: keywords lead a lexical one, vectors the rest."""
    return LEXICAL_WEIGHT if kind.lexical else PARAPHRASE_WEIGHT


def keyword_share(
    keyword: Sequence[tuple[str, float]], coverage: Mapping[str, float], weight: Weight
) -> float:
    """What relative BM25 is multiplied by: the weight's keyword part times the best
    keyword hit's coverage to its exponent."""
    best_id = keyword[0][0] if keyword else ""
    return float(weight.keyword * coverage.get(best_id, 1.0) ** weight.exponent)


def keyword_evidence(relative: float, held_information: float, weight: Weight) -> float:
    """A candidate's keyword evidence: its relative BM25 and its share of the query's
    information (``held_information``), as a geometric mean weighted ``1 - i`` and ``i``
    (``i``: ``weight.information``; 0 leaves relative BM25 alone). A note sharing no word
    has none, whatever it holds."""
    i = weight.information
    if i <= 0 or relative <= 0:
        return relative
    return float(relative ** (1 - i) * max(held_information, 0.0) ** i)


def fused_score(
    keyword: Sequence[tuple[str, float]],
    cosine: Mapping[str, float],
    coverage: Mapping[str, float],
    memory_id: str,
    bm25: Mapping[str, float],
    weight: Weight = PARAPHRASE_WEIGHT,
    information: Mapping[str, float] | None = None,
) -> float:
    """One candidate's fused score (see the module docstring for the formula).
    ``information``: each keyword hit's share of the query's information (missing: 1.0,
    the most it could hold; only read when the weight counts it)."""
    best = keyword[0][1] if keyword else 0.0
    relative = relative_bm25(bm25.get(memory_id), best)
    held = (information or {}).get(memory_id, 1.0)
    return keyword_share(keyword, coverage, weight) * keyword_evidence(relative, held, weight) + (
        1 - weight.keyword
    ) * cosine.get(memory_id, 0.0)


def relative_bm25(score: float | None, best: float) -> float:
    """BM25 relative to the best hit's (FTS5 scores are negative; no match: 0)."""
    if score is None or best >= 0:
        return 0.0
    return max(0.0, score / best)


def exact_hits(
    keyword: Sequence[tuple[str, float]], bm25: Mapping[str, float], coverage: Mapping[str, float]
) -> list[str]:
    """The keyword hits that hold every word of the query and score within
    :data:`STRONG_KEYWORD` of the best BM25, best first: never pushed out of the top k."""
    best = keyword[0][1] if keyword else 0.0
    return [
        memory_id
        for memory_id, _score in keyword
        if relative_bm25(bm25.get(memory_id), best) >= STRONG_KEYWORD
        and coverage.get(memory_id, 1.0) >= 1.0
    ]


def fuse(
    keyword: Sequence[tuple[str, float]],
    bm25: Mapping[str, float],
    cosine: Mapping[str, float],
    k: int,
    coverage: Mapping[str, float] | None = None,
    weight: Weight = PARAPHRASE_WEIGHT,
    information: Mapping[str, float] | None = None,
) -> list[str]:
    """The best ``k`` ids, best first.

    ``keyword`` is the keyword ranking (id, BM25; lower is better, as FTS5 gives it), best
    first. ``bm25`` and ``cosine`` hold each candidate's score on either signal where it
    has one (a note sharing no word with the query has no BM25). ``coverage`` maps keyword
    hits to the share of the query's distinct words they contain (at least the best hit's;
    missing means 1.0). ``weight``: how the two count (:func:`weight_for` the query's
    kind). ``information``: each keyword hit's share of the query's information (read
    when the weight counts it; missing means 1.0). Candidates are the union of the ids
    given. Ties go to the keyword order, then the id.
    """
    coverage = coverage or {}
    keyword_rank = {memory_id: rank for rank, (memory_id, _score) in enumerate(keyword)}
    candidates = set(bm25) | set(cosine) | set(keyword_rank)
    scores = {
        memory_id: fused_score(keyword, cosine, coverage, memory_id, bm25, weight, information)
        for memory_id in candidates
    }

    def order(memory_id: str) -> tuple[float, int, str]:
        return (-scores[memory_id], keyword_rank.get(memory_id, len(keyword_rank)), memory_id)

    ranked = sorted(candidates, key=order)
    top = ranked[:k]
    strong = exact_hits(keyword, bm25, coverage)[:k]
    missing = [memory_id for memory_id in strong if memory_id not in top]
    if missing:
        strong_set = set(strong)
        weak = [memory_id for memory_id in top if memory_id not in strong_set]
        # The weakest results that are not exact keyword hits make room, lowest first.
        dropped = set(weak[len(weak) - len(missing) :])
        top = sorted([m for m in top if m not in dropped] + missing, key=order)
    return top
