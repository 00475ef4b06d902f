"""The query classifier: lexical queries (an exact anchor few notes share, or a keyword hit
far above the rest) against paraphrases, read from the text, document frequencies and the
keyword ranking alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from anamnesis.store.search.query import query_tokens
from anamnesis.store.search.query_kind import (
    INFORMATIVE,
    LEXICAL,
    MIN_COVERAGE,
    PARAPHRASE,
    QueryKind,
    classify,
    idf,
    idf_share,
    typed_anchors,
)
from anamnesis.store.search.stop_words import content_terms

NOTES = 1000
# Two keyword hits of about the same score: no hit stands out.
FLAT = [("a", -4.0), ("b", -3.9), ("c", -3.8)]


def held_by(counts: dict[str, int], default: int) -> Callable[[str], int]:
    """How many notes hold a word: ``counts`` (case-insensitive), else ``default``."""
    folded = {word.casefold(): n for word, n in counts.items()}
    return lambda token: folded.get(token.casefold(), default)


def kind_of(
    query: str,
    counts: dict[str, int] | None = None,
    default: int = 200,
    keyword: list[tuple[str, float]] | None = None,
    coverage: float = 1.0,
) -> QueryKind:
    tokens = content_terms(query_tokens(query))
    ranking = FLAT if keyword is None else keyword
    found = classify(query, tokens, held_by(counts or {}, default), NOTES, ranking, coverage)
    again = classify(query, tokens, held_by(counts or {}, default), NOTES, ranking, coverage)
    assert found == again  # deterministic: the same inputs, the same answer
    return found


@pytest.mark.parametrize(
    ("query", "anchor", "why"),
    [
        ("INC-2200", "INC-2200", "identifier"),
        ("what happened on 2026-10-21", "2026-10-21", "date"),
        ("when did we move the standup to March 3rd", "March 3rd", "date"),
        ("webhooks incident Sven Lindqvist was commander of", "Sven Lindqvist", "name"),
        ("how much was the loan of 75,000", "75,000", "number"),
        ("which service sets max_connections", "max_connections", "identifier"),
    ],
)
def test_an_exact_anchor_few_notes_hold_makes_a_query_lexical(
    query: str, anchor: str, why: str
) -> None:
    # Every word in a fifth of the notes, but the anchor's in two.
    counts = dict.fromkeys(query_tokens(anchor), 2)
    found = kind_of(query, counts)
    assert found.kind == LEXICAL
    assert [(a.text, a.why) for a in found.anchors] == [(anchor, why)]
    assert found.anchors[0].notes == 2


def test_a_rare_word_is_an_anchor_a_common_one_is_not() -> None:
    found = kind_of("the flaky kubelet restarts again", {"kubelet": 1})
    assert found.kind == LEXICAL
    assert [(a.text, a.why, a.notes) for a in found.anchors] == [("kubelet", "rare", 1)]
    # Rare is relative to the store: 10 of 1,000 notes is rare, 11 is not.
    assert kind_of("the flaky kubelet restarts again", {"kubelet": 10}).kind == LEXICAL
    assert kind_of("the flaky kubelet restarts again", {"kubelet": 11}).kind == PARAPHRASE


def test_an_anchor_the_best_keyword_hit_barely_covers_leaves_a_paraphrase() -> None:
    # The anchor found a note sharing one word of five: the words do not describe it.
    found = kind_of("INC-2200 broke the nightly export", {"INC": 1, "2200": 1}, coverage=0.3)
    assert found.kind == PARAPHRASE
    assert [a.text for a in found.anchors] == ["INC-2200"]  # still said: it was there
    assert kind_of("INC-2200 broke the nightly export", {"INC": 1, "2200": 1}).kind == LEXICAL


def test_a_long_prompt_is_a_paraphrase_whatever_names_it_holds() -> None:
    prompt = (
        "Regarding the plan we made with Tunde last time, I have already sent you the numbers"
        " and the list, so what do you still need from me before we can move forward on it"
    )
    found = kind_of(prompt, {"Tunde": 1})
    assert [a.text for a in found.anchors] == ["Tunde"]
    assert found.kind == PARAPHRASE
    assert kind_of("what did Tunde send about the plan", {"Tunde": 1}).kind == LEXICAL
    # The line is LONGEST words, counted as search counts them ("75,000" is two).
    assert kind_of("what did Tunde send about the plan on 12 May", {"Tunde": 1}).kind == LEXICAL
    assert kind_of("so what did Tunde send about the plan on 12 May", {"Tunde": 1}).kind == (
        PARAPHRASE
    )


def test_a_paraphrase_of_common_words_is_a_paraphrase() -> None:
    found = kind_of("bring back my terminal layout when the machine boots again")
    assert found.kind == PARAPHRASE
    assert found.anchors == ()


def test_an_anchor_no_note_holds_or_most_notes_hold_is_no_evidence() -> None:
    # A ticket nobody wrote down, and the project's own name, found in every other note.
    assert kind_of("status of INC-9999", {"INC": 0, "9999": 0}).kind == PARAPHRASE
    assert kind_of("what did we decide about Acme billing", {"Acme": 500}).kind == PARAPHRASE


def test_a_sentence_s_first_word_is_no_name() -> None:
    assert typed_anchors("Deploy the service after lunch") == []
    assert typed_anchors("we deploy. Then Tunde checks it") == [("Tunde", "name")]


def test_a_keyword_hit_far_above_the_rest_makes_a_query_lexical() -> None:
    standing_out = [("a", -12.0), ("b", -3.0), ("c", -2.9)]
    found = kind_of("bring back my terminal layout", keyword=standing_out)
    assert found.kind == LEXICAL and found.anchors == ()
    assert found.standout == pytest.approx(0.25)
    assert kind_of("bring back my terminal layout", keyword=FLAT).kind == PARAPHRASE


def test_information_weighs_a_query_s_words_by_how_few_notes_hold_them() -> None:
    counts = {"talk": 900, "about": 900, "gathered": 40, "easy": 60}
    tokens = ["talk", "gathered", "easy"]
    held = held_by(counts, 200)
    # A note holding the two rare words holds most of the query's information, though
    # only two of its three words; one holding the template word alone holds little.
    assert idf_share(tokens, {"gathered", "easy"}, held, NOTES) > 0.9
    assert idf_share(tokens, {"talk"}, held, NOTES) < 0.1
    assert idf_share(tokens, set(), held, NOTES) == 0.0
    assert idf_share(tokens, {"talk", "gathered", "easy"}, held, NOTES) == pytest.approx(1.0)
    assert idf(1, NOTES) > idf(40, NOTES) > idf(900, NOTES) > 0


def test_a_best_hit_holding_most_of_the_information_makes_a_look_up_lexical() -> None:
    # No typed anchor, no rare word by the store's counts, no standout hit, and the best
    # hit holds only half the words: by words a paraphrase; by information a look-up.
    query = "when did we talk about gathered and easy"
    counts = {"talk": 900, "gathered": 40, "easy": 60}
    tokens = content_terms(query_tokens(query))
    doc_freq = held_by(counts, 200)
    by_words = classify(query, tokens, doc_freq, NOTES, FLAT, 0.5)
    assert by_words.kind == PARAPHRASE and by_words.anchors == ()
    found = classify(query, tokens, doc_freq, NOTES, FLAT, 0.5, best_holds={"gathered", "easy"})
    assert found.kind == LEXICAL and found.anchors == ()
    assert found.information >= INFORMATIVE and found.coverage == 0.5
    # A best hit holding the template word alone: not enough.
    weak = classify(query, tokens, doc_freq, NOTES, FLAT, 0.34, best_holds={"talk"})
    assert weak.kind == PARAPHRASE and weak.information < INFORMATIVE


def test_the_coverage_test_counts_information_not_words() -> None:
    # A rare anchor the best hit lacks: holding the three common words (three of four)
    # is under half the information, so the anchor found no note the query describes.
    query = "INC-2200 broke the nightly export"
    counts = {"INC": 1, "2200": 1}
    tokens = content_terms(query_tokens(query))
    doc_freq = held_by(counts, 200)
    common = {t.casefold() for t in tokens if t not in ("INC", "2200")}
    missed = classify(query, tokens, doc_freq, NOTES, FLAT, 0.6, best_holds=common)
    assert missed.kind == PARAPHRASE and missed.information < MIN_COVERAGE
    held = {"inc", "2200"}
    found = classify(query, tokens, doc_freq, NOTES, FLAT, 0.4, best_holds=held)
    assert found.kind == LEXICAL and found.information >= MIN_COVERAGE
