"""Prompt text: secrets masked before anything else, and texts fitted to a token budget."""

from __future__ import annotations

import pytest
from anamnesis_testsupport.fake_llm import AWS_KEY_ID, GITHUB_TOKEN
from hypothesis import given, settings
from hypothesis import strategies as st

from anamnesis.reflect import CUT_MARKER, estimate_tokens, fit_to_budget, redact_prompt
from anamnesis.reflect.prompting import MIN_CUT_CHARS, SEPARATOR


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_tokens_are_estimated_as_four_characters_each(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_items_that_fit_are_kept_whole() -> None:
    window = fit_to_budget(["first note", "second note"], 100)
    assert window.items == ("first note", "second note")
    assert (window.left_out, window.cut) == (0, False)
    assert window.text == "first note\n\nsecond note"
    assert window.tokens == estimate_tokens(window.text)


def test_the_item_that_overflows_is_cut_at_a_word_and_the_rest_counted() -> None:
    first = "a" * 100
    second = " ".join(f"word{i}" for i in range(200))
    window = fit_to_budget([first, second, "third", "fourth"], 100)  # 400 characters
    assert window.items[0] == first
    kept = window.items[1]
    assert kept.endswith(" " + CUT_MARKER)
    head = kept.removesuffix(" " + CUT_MARKER)
    assert second.startswith(head + " ")  # ends on a whole word
    assert (window.left_out, window.cut) == (2, True)
    assert len(window.text) <= 400 and window.tokens <= 100


def test_a_long_token_without_spaces_is_cut_where_it_stands() -> None:
    url = "https://example.com/" + "x" * 1000
    window = fit_to_budget([f"see {url}"], 50)
    assert window.cut
    assert window.items[0].startswith("see https://example.com/xxx")
    assert window.tokens <= 50


def test_no_stub_is_kept_when_little_room_is_left() -> None:
    first = "a" * (400 - MIN_CUT_CHARS)
    window = fit_to_budget([first, "b " * 200], 100)
    assert window.items == (first,)
    assert (window.left_out, window.cut) == (1, False)


def test_a_first_item_over_a_tiny_budget_is_still_cut_not_dropped() -> None:
    window = fit_to_budget(["word " * 100], 15)  # 60 characters: room for 23 of text
    assert window.cut and window.left_out == 0
    assert window.items[0].startswith("word word")
    assert window.tokens <= 15


def test_order_is_priority_a_shorter_later_item_does_not_jump_the_queue() -> None:
    window = fit_to_budget(["x" * 40, "y" * 2000, "short"], 50)
    assert "short" not in window.text
    assert window.left_out == 1 and window.cut


def test_secrets_are_masked_before_anything_is_cut() -> None:
    note = f"push with {GITHUB_TOKEN} and aws_access_key_id={AWS_KEY_ID} " + "filler " * 100
    for budget in (10, 20, 40, 1000):
        text = fit_to_budget([note], budget).text
        assert GITHUB_TOKEN[:12] not in text and AWS_KEY_ID[:8] not in text
    assert "[REDACTED]" in fit_to_budget([note], 1000).text
    assert redact_prompt(f"token {GITHUB_TOKEN}") == "token [REDACTED]"


def test_the_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_tokens must be positive"):
        fit_to_budget(["x"], 0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(st.characters(codec="utf-8"), max_size=300), max_size=8),
    st.integers(1, 200),
)
def test_a_window_never_exceeds_its_budget_and_accounts_for_every_item(
    items: list[str], budget: int
) -> None:
    window = fit_to_budget(items, budget)
    assert window.tokens <= budget
    assert len(window.items) + window.left_out == len(items)
    whole = window.items[:-1] if window.cut else window.items
    assert list(whole) == [redact_prompt(item) for item in items[: len(whole)]]
    assert SEPARATOR.join(window.items) == window.text
