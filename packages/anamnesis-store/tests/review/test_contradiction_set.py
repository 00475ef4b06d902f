"""The contradiction finder's measured set (bench/contradictions/pairs.jsonl) is well formed:
every pair has its fields, a valid label, kind and split, notes the store takes as they are,
unique ids, at least 160 pairs, and every kind in every split (the finder is tuned on dev
and reported on held_out and the fresh splits too, so a kind missing from one would go
unmeasured).

The label rules are in bench/contradictions/README.md; the kinds below are the same words.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from anamnesis.store import Memory, MemoryStore, new_id

PAIRS = Path(__file__).resolve().parents[4] / "bench" / "contradictions" / "pairs.jsonl"
KINDS = {
    # What differs (the store's Difference kinds).
    "contradicts": {
        "number", "version", "port", "path", "flag", "command", "name", "url", "negation",
        "replacement",
    },
    # Why two look-alike notes both hold.
    "compatible": {
        "restated", "elaborated", "different_subject", "both_hold", "units", "scope",
        "agreeing_negation",
    },
}  # fmt: skip
FIELDS = {"id", "split", "label", "kind", "project", "older", "newer", "source"}
SIDE_FIELDS = {"type", "title", "body", "tags"}
SPLITS = {
    "dev", "held_out", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7",
    "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15",
    "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23",
    "fresh24",
}  # fmt: skip
# A project key as a git remote gives it (host/owner/name: github.com, gitlab.com, ...).
PROJECT_KEY = re.compile(r"[a-z0-9.-]+\.[a-z]+/[^/\s]+/[^/\s]+")
TYPES = {"semantic", "procedural", "episodic"}


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(PAIRS.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        assert isinstance(row, dict), f"line {number} is not an object"
        rows.append(row)
    return rows


def test_every_pair_has_its_fields_and_valid_words(pairs: list[dict[str, Any]]) -> None:
    for row in pairs:
        where = row.get("id", row)
        assert set(row) == FIELDS, where
        assert row["label"] in KINDS, where
        assert row["kind"] in KINDS[row["label"]], where
        assert row["split"] in SPLITS, where
        assert isinstance(row["source"], str) and row["source"].strip(), where
        assert row["project"] == "global" or PROJECT_KEY.fullmatch(row["project"]), where
        for side in ("older", "newer"):
            note = row[side]
            assert set(note) == SIDE_FIELDS, (where, side)
            assert note["type"] in TYPES, (where, side)
            assert note["title"].strip() and note["body"].strip(), (where, side)
            assert isinstance(note["tags"], list), (where, side)
            assert all(isinstance(tag, str) and tag for tag in note["tags"]), (where, side)
        # The store never pairs two episodic notes; the set holds no pair it could not find.
        assert not (row["older"]["type"] == row["newer"]["type"] == "episodic"), where
        # Two different notes, worded apart: never one note copied.
        assert row["older"]["title"] != row["newer"]["title"], where
        assert row["older"]["body"] != row["newer"]["body"], where


def test_ids_are_unique_and_the_set_is_big_enough(pairs: list[dict[str, Any]]) -> None:
    ids = Counter(row["id"] for row in pairs)
    assert [name for name, count in ids.items() if count > 1] == []
    assert len(pairs) >= 160
    labels = Counter(row["label"] for row in pairs)
    # About as many look-alikes as contradictions, so a finder that proposes everything
    # scores no better than one that proposes nothing.
    assert min(labels.values()) >= 0.4 * len(pairs), labels


def test_every_kind_has_a_fair_share_in_every_split(pairs: list[dict[str, Any]]) -> None:
    by_kind = Counter((row["kind"], row["split"]) for row in pairs)
    for kinds in KINDS.values():
        for kind in kinds:
            for split in SPLITS:
                assert by_kind[kind, split] >= 3, (kind, split, by_kind[kind, split])
    splits = Counter(row["split"] for row in pairs)
    assert abs(splits["dev"] - splits["held_out"]) <= 0.05 * len(pairs), splits


def test_the_store_takes_every_note_as_written(
    pairs: list[dict[str, Any]], store: MemoryStore
) -> None:
    """Nothing validated away or masked as a secret: the bench measures the notes as the set
    has them."""
    for row in pairs:
        for side in ("older", "newer"):
            note = row[side]
            written = store.as_written(
                Memory(
                    id=new_id(), type=note["type"], title=note["title"], body=note["body"],
                    project=row["project"], tags=note["tags"],
                )
            )  # fmt: skip
            got = (written.title, written.body, list(written.tags), written.project)
            assert got == (note["title"], note["body"], note["tags"], row["project"]), row["id"]
