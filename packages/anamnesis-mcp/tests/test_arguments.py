"""Argument checks: any JSON a client can send gets an accepted value or one of our messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from anamnesis.mcp import InvalidArgument, list_memories, search_memories, write_memory
from anamnesis.mcp.arguments import (
    MAX_QUERY_CHARS,
    REQUIRED,
    TOOL_ARGUMENTS,
    check_call,
    check_force,
    check_k,
    check_mode,
    check_project,
    check_title,
)
from anamnesis.store import MemoryStore
from mcp_testing import BASE, HOSTILE, INTERNALS

ARGUMENTS = [(tool, name) for tool, accepted in TOOL_ARGUMENTS.items() for name in accepted]


def assert_actionable(exc: InvalidArgument, name: str, value: object = None) -> None:
    """One short, sendable sentence about the argument, with nothing internal in it (the
    model's own value, echoed back, may say anything: a value of 'sqlite' is not a leak)."""
    text = str(exc)
    assert exc.name == name
    assert text.startswith(f"{name}: ")
    assert len(text) < 600, text
    text.encode("utf-8")  # a lone surrogate echoed back would break the reply
    assert "\x00" not in text
    ours = text.replace(repr(value), "") if isinstance(value, str) else text
    for internal in INTERNALS:
        assert internal not in ours


def arguments_with(tool: str, name: str, value: object) -> dict[str, object]:
    return {**BASE.get(tool, {}), name: value}


@pytest.mark.parametrize(("tool", "name"), ARGUMENTS)
def test_every_argument_takes_every_hostile_value_without_a_raw_error(tool: str, name: str) -> None:
    for value in HOSTILE:
        try:
            checked = check_call(tool, arguments_with(tool, name, value))
        except InvalidArgument as exc:
            assert_actionable(exc, name)
        else:  # accepted: then it is a value of the right kind, checked again identically
            assert check_call(tool, checked) == checked


# Any JSON value, including the text JSON allows but UTF-8 does not (lone surrogates).
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**18)
    | st.floats()
    | ANY_TEXT
    # (hypothesis prints its strategies, and str() refuses numbers past 4,300 digits)
    | st.sampled_from([v for v in HOSTILE if not isinstance(v, int) or abs(v) < 10**100]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(ANY_TEXT, inner, max_size=3),
    max_leaves=10,
)


@example(where=("memory_write", "type"), value="sqlite")  # echoed back: the model's own word
@given(where=st.sampled_from(ARGUMENTS), value=JSON_VALUES)
@settings(max_examples=400, deadline=None)
def test_check_call_raises_only_actionable_invalid_argument(
    where: tuple[str, str], value: object
) -> None:
    tool, name = where
    try:
        checked = check_call(tool, arguments_with(tool, name, value))
    except InvalidArgument as exc:
        assert_actionable(exc, name, value)
    else:
        assert check_call(tool, checked) == checked


@given(tool=st.sampled_from(sorted(TOOL_ARGUMENTS)), name=ANY_TEXT, value=JSON_VALUES)
@settings(max_examples=150, deadline=None)
def test_unknown_argument_names_are_named_safely(tool: str, name: str, value: object) -> None:
    if name in TOOL_ARGUMENTS[tool]:
        return
    with pytest.raises(InvalidArgument) as caught:
        check_call(tool, {**BASE.get(tool, {}), name: value})
    text = str(caught.value)
    text.encode("utf-8")
    assert "unknown argument" in text
    assert len(text) < 600


# One store for all examples is fine here: each example only adds notes or changes nothing.
FIXTURE_PER_TEST = HealthCheck.function_scoped_fixture
PURE: dict[str, Callable[..., object]] = {
    "memory_search": search_memories,
    "memory_list": list_memories,
}


@given(
    where=st.sampled_from([(t, n) for t, n in ARGUMENTS if t in ("memory_search", "memory_list")]),
    value=JSON_VALUES,
)
@settings(max_examples=200, deadline=None, suppress_health_check=[FIXTURE_PER_TEST])
def test_the_pure_readers_raise_only_invalid_argument(
    store: MemoryStore, where: tuple[str, str], value: object
) -> None:
    tool, name = where
    arguments: dict[str, Any] = arguments_with(tool, name, value)
    try:
        PURE[tool](store, **check_call(tool, arguments))
    except InvalidArgument as exc:
        assert_actionable(exc, name)


@given(
    name=st.sampled_from(sorted(TOOL_ARGUMENTS["memory_write"])),
    value=JSON_VALUES,
)
@settings(max_examples=150, deadline=None, suppress_health_check=[FIXTURE_PER_TEST])
def test_write_raises_only_invalid_argument_and_writes_what_it_accepts(
    store: MemoryStore, name: str, value: object
) -> None:
    before = store.count()
    arguments: dict[str, Any] = arguments_with("memory_write", name, value)
    try:
        note = write_memory(store, **check_call("memory_write", arguments))
    except InvalidArgument as exc:
        assert_actionable(exc, name)
        assert store.count() == before  # a refused write leaves nothing behind
    else:
        assert store.get(note["id"]).title == note["title"]


# Values that must be refused, each with the words that tell the model what to do.
@pytest.mark.parametrize(
    ("tool", "name", "value", "hint"),
    [
        ("memory_search", "k", "\u00b2", "whole number from 1 to 50"),
        ("memory_search", "k", "\u0663", "whole number from 1 to 50"),
        ("memory_search", "k", "9" * 5000, "whole number from 1 to 50"),
        ("memory_search", "k", 10**5000, "from 1 to 50"),
        ("memory_search", "k", float("nan"), "whole number"),
        ("memory_search", "k", 2.5, "whole number"),
        ("memory_search", "k", [5], "whole number"),
        ("memory_search", "query", "hello \ud800", "lone surrogate"),
        ("memory_search", "query", "a\x00b", "NUL"),
        ("memory_search", "query", "x" * (MAX_QUERY_CHARS + 1), "distinctive keywords"),
        ("memory_search", "project", "p\ud800", "lone surrogate"),
        ("memory_list", "project", "p\ud800", "lone surrogate"),
        ("memory_list", "project", "p\x00", "NUL"),
        ("memory_list", "project", "a\tb", "control characters"),
        ("memory_list", "project", "x" * 5000 + "*", "patterns"),
        ("memory_search", "type", ["semantic"], "procedural"),
        ("memory_search", "scope", {"a": 1}, "machine-local"),
        ("memory_search", "mode", "semantic", "'keyword' (exact words"),
        ("memory_search", "mode", "bm25", "leave it out for the default"),
        ("memory_search", "mode", ["hybrid"], "'hybrid' (keywords plus meaning"),
        ("memory_search", "mode", True, "got true"),
        ("memory_search", "mode", "hybrid\ud800", "'vector'"),
        ("memory_write", "title", "\x00", "NUL"),
        ("memory_write", "title", "\x01\x02\x7f", "non-empty line"),
        ("memory_write", "title", "\u200b\u200b", "visible"),
        ("memory_write", "title", "t\ud800", "lone surrogate"),
        ("memory_write", "body", "b\x00", "NUL"),
        ("memory_write", "body", "\udfff", "lone surrogate"),
        ("memory_write", "body", {"text": "b"}, "text (markdown)"),
        ("memory_write", "project", "a\tb", "control characters"),
        ("memory_write", "project", "acme\u202e", "invisible formatting characters"),
        ("memory_write", "project", "a\u00a0b", "memory_status lists it"),
        ("memory_write", "project", "p\ud800", "lone surrogate"),
        ("memory_write", "tags", ["\x00"], "NUL"),
        ("memory_write", "tags", ["a\tb"], "control characters"),
        ("memory_write", "tags", [f"t{i}" for i in range(60)], "at most 50 tags"),
        ("memory_write", "tags", [["a"]], "text"),
        ("memory_sync", "force", "true", "JSON boolean"),
        ("memory_sync", "force", 1, "true or false"),
    ],
    # pytest cannot print a 5,000-digit number as a test id
    ids=lambda value: value if isinstance(value, str) and value.isidentifier() else "value",
)
def test_hostile_values_are_refused_with_a_fix(
    tool: str, name: str, value: object, hint: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_call(tool, arguments_with(tool, name, value))
    assert_actionable(caught.value, name)
    assert hint in str(caught.value)


def test_k_accepts_what_is_plainly_meant() -> None:
    assert check_k(5) == 5
    assert check_k(" 7 ") == 7
    assert check_k("50") == 50
    assert check_k(5.0) == 5
    for bad in ("0050000", "+5", "5 5", "", "1e1"):
        with pytest.raises(InvalidArgument):
            check_k(bad)


def test_mode_accepts_the_three_modes_in_any_case_and_null_for_the_default() -> None:
    assert [check_mode(mode) for mode in ("keyword", "vector", "hybrid")] == [
        "keyword", "vector", "hybrid",
    ]  # fmt: skip
    assert check_mode(" Hybrid ") == "hybrid"
    assert check_mode(None) is None
    assert check_call("memory_search", {"query": "q", "mode": None}) == {"query": "q"}
    assert check_call("memory_search", {"query": "q", "mode": "KEYWORD"})["mode"] == "keyword"


def test_a_new_notes_project_key_is_what_the_store_writes() -> None:
    """The store writes only printable one-line keys: refused here first, in our words."""
    assert check_project("  github.com/acme/api ") == "github.com/acme/api"
    assert check_project("Projekt Übersicht 日本") == "Projekt Übersicht 日本"
    for bad in ("a\u202eb", "a\u200bb", "a\u2028b", "a\u00a0b"):
        with pytest.raises(InvalidArgument, match="invisible formatting"):
            check_project(bad)


def test_titles_become_one_visible_line() -> None:
    assert check_title("  a\tb\x1b[0m  c \u2028 d ") == "a b [0m c d"
    assert check_title("\U0001f469\u200d\U0001f4bb setup") == "\U0001f469\u200d\U0001f4bb setup"


def test_force_takes_only_booleans() -> None:
    assert check_force(True) is True
    assert check_force(False) is False
    with pytest.raises(InvalidArgument, match="left out"):
        check_force("false")


def test_required_arguments_are_checked_too() -> None:
    for tool, names in REQUIRED.items():
        for name in names:
            arguments = dict(BASE[tool])
            arguments[name] = None
            with pytest.raises(InvalidArgument) as caught:
                check_call(tool, arguments)
            assert caught.value.name == name
