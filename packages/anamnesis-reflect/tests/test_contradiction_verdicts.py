"""Model verdicts on contradiction candidates, as kept on this machine: read like input from
outside (a damaged or planted file is no verdict, never an error), found for either order of
a pair, stale after an edit by hand, and ordered for review. And the rule they stand on:
no hook can ask a model about them."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from anamnesis.reflect import (
    by_verdict,
    confirmed_wider,
    review_verdicts,
    verdicts_for,
    verdicts_path,
)
from anamnesis.reflect.contradiction_check import INVALID, parse_verdicts
from anamnesis.reflect.contradiction_verdicts import (
    MAX_VERDICTS,
    clean_reason,
    pair_key,
    record_verdicts,
)
from anamnesis.store import Contradiction, MemoryStore, StoreLayout
from contradiction_testing import three_pairs

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        yield opened


@pytest.fixture
def pairs(store: MemoryStore) -> list[Contradiction]:
    return three_pairs(store)


def keep(store: MemoryStore, pair: Contradiction, word: str, reason: str = "") -> None:
    record_verdicts(store, [(pair, word, reason)], provider="openai", model="m")


def test_a_pair_is_found_in_either_order_and_a_swap_is_the_same_entry(
    store: MemoryStore, pairs: list[Contradiction]
) -> None:
    keep(store, pairs[0], "compatible", "different servers")
    swapped = Contradiction(pairs[0].newer, pairs[0].older, pairs[0].differs)
    assert verdicts_for(store, [swapped])[swapped.ids].verdict == "compatible"
    keep(store, swapped, "contradicts")
    data = json.loads(verdicts_path(store.root).read_text())
    assert list(data["verdicts"]) == [pair_key(*pairs[0].ids)]
    assert verdicts_for(store, [pairs[0]])[pairs[0].ids].verdict == "contradicts"


def test_an_edit_by_hand_that_keeps_updated_at_still_makes_the_pair_unchecked(
    store: MemoryStore, pairs: list[Contradiction]
) -> None:
    keep(store, pairs[2], "compatible")
    path = store.path_of(pairs[2].newer)
    path.write_text(path.read_text().replace("8080", "8081"))  # an editor: frontmatter kept
    store.reindex()
    edited = store.get(pairs[2].newer.id)
    assert edited.updated_at == pairs[2].newer.updated_at and "8081" in edited.body
    assert verdicts_for(store, [Contradiction(pairs[2].older, edited, pairs[2].differs)]) == {}


def test_review_order_puts_confirmed_pairs_first_and_dismissed_ones_last(
    store: MemoryStore, pairs: list[Contradiction]
) -> None:
    keep(store, pairs[0], "compatible")
    keep(store, pairs[2], "contradicts")
    found = verdicts_for(store, pairs)
    assert by_verdict(pairs, found) == [pairs[2], pairs[1], pairs[0]]
    keep(store, pairs[1], "unsure")
    assert by_verdict(pairs, verdicts_for(store, pairs)) == [pairs[2], pairs[1], pairs[0]]
    assert by_verdict(pairs, {}) == pairs  # none checked: the finder's order


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[]",
        b'{"verdicts": []}',
        b'{"verdicts": ' + b"[" * 100 + b"]" * 100 + b"}",
    ],
)
def test_a_damaged_file_counts_as_no_verdict_and_is_replaced_by_the_next_run(
    store: MemoryStore, pairs: list[Contradiction], content: bytes
) -> None:
    path = verdicts_path(store.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    assert verdicts_for(store, pairs) == {}
    keep(store, pairs[0], "unsure")
    assert verdicts_for(store, pairs)[pairs[0].ids].verdict == "unsure"


def test_entries_that_do_not_fit_are_skipped_one_by_one(
    store: MemoryStore, pairs: list[Contradiction]
) -> None:
    keep(store, pairs[0], "compatible", "fine")
    keep(store, pairs[1], "contradicts", "changed")
    keep(store, pairs[2], "unsure", "hard to say")
    path = verdicts_path(store.root)
    data = json.loads(path.read_text())
    entries = data["verdicts"]
    entries[pair_key(*pairs[0].ids)]["verdict"] = "delete both"
    entries[pair_key(*pairs[1].ids)]["reason"] = "line one\nline two \x1b[2J"  # not as kept
    entries["someone+else"] = entries[pair_key(*pairs[2].ids)]  # a key that is not its pair
    path.write_text(json.dumps(data))
    assert set(verdicts_for(store, pairs)) == {pairs[2].ids}


def test_a_link_in_place_of_the_file_is_not_followed(
    store: MemoryStore, pairs: list[Contradiction], tmp_path: Path
) -> None:
    keep(store, pairs[0], "compatible")
    path = verdicts_path(store.root)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)
    assert verdicts_for(store, pairs) == {}


def test_the_file_keeps_at_most_the_newest_verdicts(
    store: MemoryStore, pairs: list[Contradiction], monkeypatch: pytest.MonkeyPatch
) -> None:
    from anamnesis.reflect import contradiction_verdicts

    monkeypatch.setattr(contradiction_verdicts, "MAX_VERDICTS", 2)
    moments = iter(
        ["2025-01-01T00:00:01+00:00", "2025-01-01T00:00:02+00:00", "2025-01-01T00:00:03+00:00"]
    )
    monkeypatch.setattr(contradiction_verdicts, "utc_now", lambda: next(moments))
    for pair in pairs:
        keep(store, pair, "unsure")
    assert set(verdicts_for(store, pairs)) == {pairs[1].ids, pairs[2].ids}
    assert MAX_VERDICTS >= 1000


def test_a_reason_is_one_masked_display_safe_line() -> None:
    assert clean_reason("  two\n lines\t") == "two lines"
    assert clean_reason("\u202eexe.txt") == "\\u202eexe.txt"
    assert clean_reason("x" * 500) == "x" * 199 + "…"
    assert "ghp_" not in clean_reason("token ghp_16C7e42F292c6912E7710c838347Ae178B4a")


def test_an_entry_whose_reason_is_not_text_is_invalid(pairs: list[Contradiction]) -> None:
    answers, ignored = parse_verdicts(
        '{"verdicts": [{"pair": "p1", "verdict": "compatible", "reason": {"a": 1}}]}',
        {"p1": pairs[0]},
    )
    assert answers == {} and ignored[INVALID] == 1
    answers, _ignored = parse_verdicts(
        '{"verdicts": [{"pair": "p1", "verdict": "unsure"}]}', {"p1": pairs[0]}
    )
    assert answers == {"p1": ("unsure", "")}  # a reason is asked for, not required


def test_verdicts_live_in_the_machine_local_cache(store: MemoryStore) -> None:
    path = verdicts_path(store.root)
    assert path.parent == StoreLayout(store.root).cache_dir
    assert all(not path.is_relative_to(tree) for tree, _scope in StoreLayout(store.root).trees())


# -- never on a hook ---------------------------------------------------------------------------


def test_no_hook_can_reach_the_model_confirmation() -> None:
    """The hooks may not import this package (an import-linter contract the lint session
    enforces), and no hook starts it as a process of its own either (as capture starts
    session summaries): no hook's source names it."""
    pyproject = REPO / "pyproject.toml"
    hooks_src = REPO / "packages" / "anamnesis-hooks" / "src"
    if not pyproject.is_file() or not hooks_src.is_dir():
        pytest.skip("not run from the workspace: the hooks' sources are not beside it")
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    guarding = [
        c
        for c in contracts
        if c["type"] == "forbidden"
        and c["source_modules"] == ["anamnesis.hooks"]
        and "anamnesis.reflect" in c["forbidden_modules"]
    ]
    assert guarding and not any(c.get("ignore_imports") for c in guarding)
    named = [
        path
        for path in sorted(hooks_src.rglob("*.py"))
        for word in ("contradiction_check", "confirm_contradictions", "contradiction_verdicts")
        if word in path.read_text(encoding="utf-8")
    ]
    assert named == []


def test_a_confirmed_pair_of_the_wider_net_is_listed_only_while_it_holds(
    store: MemoryStore, pairs: list[Contradiction]
) -> None:
    api_admin, deploy, port = pairs  # the first: two services' ports, no rules' pair
    wider = store.contradiction_between(*api_admin.ids, wider=True)
    assert wider is not None and store.contradiction_between(*api_admin.ids) is None
    keep(store, wider, "contradicts", "one port")
    keep(store, deploy, "contradicts", "changed")  # a rules' pair: listed by the rules
    keep(store, port, "compatible", "fine")

    assert [pair.ids for pair in confirmed_wider(store, [deploy, port])] == [wider.ids]
    assert confirmed_wider(store, [deploy, port], project="another/project") == []
    assert confirmed_wider(store, [wider, deploy, port]) == []  # listed already
    # a review's one read of the file: the same pairs, and the verdicts of both
    confirmed, verdicts = review_verdicts(store, [deploy, port])
    assert [pair.ids for pair in confirmed] == [wider.ids]
    assert verdicts == verdicts_for(store, [wider, deploy, port])
    assert {v.verdict for v in verdicts.values()} == {"contradicts", "compatible"}
    store.update(api_admin.newer.id, body="The admin server listens on port 9200.")
    assert confirmed_wider(store, [deploy, port]) == []  # the verdict no longer holds


def test_entries_naming_notes_that_are_gone_or_no_notes_list_nothing(
    store: MemoryStore, pairs: list[Contradiction]
) -> None:
    keep(store, pairs[0], "contradicts", "one port")
    path = verdicts_path(store.root)
    data = json.loads(path.read_text())
    (entry,) = data["verdicts"].values()
    for notes in (["not-an-id", pairs[0].older.id], ["01JQ8N00000000000000000000", "x"]):
        data["verdicts"][pair_key(*notes)] = {**entry, "notes": notes}
    path.write_text(json.dumps(data))
    assert len(confirmed_wider(store, [])) == 1
    store.delete(pairs[0].older.id)
    assert confirmed_wider(store, []) == []
