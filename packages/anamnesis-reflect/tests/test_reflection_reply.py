"""The reply check on its own: what it accepts, normalises and refuses, note by note."""

from __future__ import annotations

import json

import pytest

from anamnesis.reflect.reflection import ProjectPlan, validate_reply
from anamnesis.reflect.reflection_plan import SentNote
from anamnesis.reflect.reflection_prompt import check_reply
from anamnesis.reflect.replies import InvalidReply

EPISODE = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
DURABLE = "01BX5ZZKBKACTAV9WEVGEMMVRZ"
PLAN = ProjectPlan(
    project="p",
    episodes=(SentNote(EPISODE, "episodic", "session", "did things", "portable"),),
    durable=(SentNote(DURABLE, "semantic", "fact", "a fact", "portable"),),
    left_out=0,
    durable_left_out=0,
    episode_cut=False,
    system="s",
    user="u",
)


def test_a_good_note_is_normalised_and_unknown_keys_are_ignored() -> None:
    raw = {
        "type": "semantic",
        "title": "  Fact  ",
        "body": "\nThe body.\n",
        "tags": ["a", " a ", "", "b"],
        "sources": [EPISODE, EPISODE],
        "supersedes": [DURABLE],
        "confidence": 0.99,  # not the model's to set: ignored
    }
    (note,) = validate_reply(json.dumps({"notes": [raw], "comment": "x"}), PLAN)
    assert (note.type, note.title, note.body) == ("semantic", "Fact", "The body.")
    assert (note.tags, note.sources, note.supersedes) == (("a", "b"), (EPISODE,), (DURABLE,))


def test_tags_and_supersedes_may_be_left_out_or_null() -> None:
    raw = {"type": "procedural", "title": "t", "body": "b", "sources": [EPISODE]}
    (bare,) = validate_reply(json.dumps({"notes": [raw]}), PLAN)
    (nulls,) = validate_reply(
        json.dumps({"notes": [{**raw, "tags": None, "supersedes": None}]}), PLAN
    )
    assert bare == nulls and (bare.tags, bare.supersedes) == ((), ())


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("a string", "is a str, not an object"),
        ({"type": "Procedural", "title": "t", "body": "b", "sources": [EPISODE]}, '"type" is'),
        ({"type": "semantic", "title": 3, "body": "b", "sources": [EPISODE]}, '"title" must'),
        ({"type": "semantic", "title": "t", "body": "b", "sources": EPISODE}, '"sources" must'),
        ({"type": "semantic", "title": "t", "body": "b", "sources": [7]}, "not an id"),
        ({"type": "semantic", "title": "t", "body": "b", "sources": [DURABLE]}, "not an episode"),
        (
            {"type": "semantic", "title": "t", "body": "b", "sources": [EPISODE], "tags": "x"},
            '"tags" must be a list',
        ),
        (
            {
                "type": "semantic",
                "title": "t",
                "body": "b",
                "sources": [EPISODE],
                "supersedes": DURABLE,
            },
            '"supersedes" must be a list',
        ),
    ],
)
def test_a_bad_note_is_refused_with_its_reason(raw: object, why: str) -> None:
    good = {"type": "semantic", "title": "ok", "body": "b", "sources": [EPISODE]}
    checked = check_reply(json.dumps({"notes": [good, raw]}), PLAN)
    assert [note.title for note in checked.accepted] == ["ok"]
    (refused,) = checked.refused
    assert refused.index == 2 and why in refused.reason
    with pytest.raises(InvalidReply, match="no note in the reply can be used: note 1") as caught:
        validate_reply(json.dumps({"notes": [raw]}), PLAN)
    assert why in caught.value.reason


def test_a_refused_note_remembers_the_sent_episodes_it_cited() -> None:
    raw = {"type": "episodic", "title": "t", "body": "b", "sources": [EPISODE, "nope"]}
    good = {"type": "semantic", "title": "ok", "body": "b", "sources": [EPISODE]}
    (refused,) = check_reply(json.dumps({"notes": [raw, good]}), PLAN).refused
    assert refused.cited == (EPISODE,)
    assert (
        refused.describe()
        == 'note 1 (\'t\'): "type" is \'episodic\'; it must be "procedural" or "semantic"'
    )
