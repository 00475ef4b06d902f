"""The markdown format: the spec's files byte for byte, hand edits, older releases."""

from __future__ import annotations

import time

import pytest

from anamnesis.store import MalformedNote, Memory, parse_note, serialize_note

SPEC_SEMANTIC = """---
id: 01J9Z8YPM7Q3X2V4WT6B5N0KGD
type: semantic
title: Dashboard grid minmax convention
project: github.com/oscardvs/anamnesis
machine_id: thinkpad
scope: portable
prov_source: human
confidence: 1.0
created_at: '2026-06-24T18:33:07+00:00'
updated_at: '2026-06-24T18:33:07+00:00'
tags:
- dashboard
- css
---
Wrap every Tailwind grid-cols track in minmax(0, ...) so wide content does not blow out the layout.
"""

SPEC_REFLECTION = """---
id: 01J9ZB0C4F8H2K6M3P9R7S5T1W
type: procedural
title: Run reflect safely
project: github.com/oscardvs/anamnesis
machine_id: thinkpad
scope: portable
prov_source: reflection
confidence: 0.8
prov_model: claude-opus-4-8
prov_session: 3bf75f14-4c3f
supersedes: 01J9Z8YPM7Q3X2V4WT6B5N0KGD
created_at: '2026-06-24T19:01:55+00:00'
updated_at: '2026-06-24T19:01:55+00:00'
tags:
- reflection
---
Commit immediately after reflect, or a concurrent sync can wipe the output.
"""

# What the published release (0.1.3) writes: tenant keys and a list supersedes.
HEAD = "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\n"

PUBLISHED_RELEASE = """---
id: 01J9ZB0C4F8H2K6M3P9R7S5T1W
type: procedural
title: Run reflect safely
project: github.com/oscardvs/anamnesis
machine_id: thinkpad
scope: portable
user_id: self
workspace_id: personal
prov_source: merge
confidence: 0.6
supersedes:
- 01J9Z8YPM7Q3X2V4WT6B5N0KGD
- 01J9Z8YPM7Q3X2V4WT6B5N0KGE
created_at: '2026-06-24T19:01:55+00:00'
updated_at: '2026-06-24T19:01:55+00:00'
tags: []
---
Body.
"""


@pytest.mark.parametrize("text", [SPEC_SEMANTIC, SPEC_REFLECTION])
def test_spec_examples_round_trip_byte_for_byte(text: str) -> None:
    assert serialize_note(parse_note(text)) == text


def test_spec_example_fields() -> None:
    mem = parse_note(SPEC_REFLECTION)
    assert mem.supersedes == ["01J9Z8YPM7Q3X2V4WT6B5N0KGD"]
    assert mem.confidence == 0.8
    assert mem.prov_model == "claude-opus-4-8"
    assert mem.tags == ["reflection"]
    assert mem.body.endswith("wipe the output.")


def test_empty_provenance_keys_are_omitted_and_order_is_fixed() -> None:
    mem = Memory(
        id="01J9Z8YPM7Q3X2V4WT6B5N0KGD",
        type="episodic",
        title="t",
        body="b",
        created_at="2026-06-24T18:33:07+00:00",
        updated_at="2026-06-24T18:33:07+00:00",
    )
    keys = [line.split(":")[0] for line in serialize_note(mem).splitlines()[1:12]]
    assert keys == [
        "id", "type", "title", "project", "machine_id", "scope", "prov_source",
        "confidence", "created_at", "updated_at", "tags",
    ]  # fmt: skip


def test_minimal_hand_written_note_reads_with_defaults() -> None:
    mem = parse_note("---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: Hi\n---\nbody\n")
    assert (mem.project, mem.machine_id, mem.scope, mem.prov_source) == (
        "global", "unknown", "portable", "human",
    )  # fmt: skip
    assert (mem.tags, mem.supersedes, mem.confidence, mem.created_at) == ([], [], 1.0, "")
    assert mem.body == "body"


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("2026-06-24T18:33:07+00:00", "2026-06-24T18:33:07+00:00"),
        ("2026-06-24 18:33:07", "2026-06-24T18:33:07+00:00"),
        ("2026-06-24T18:33:07Z", "2026-06-24T18:33:07+00:00"),
        ("2026-06-24t18:33:07z", "2026-06-24T18:33:07+00:00"),
        ("2026-06-24T20:33:07.123456+02:00", "2026-06-24T18:33:07+00:00"),
        ("2026-06-24", "2026-06-24T00:00:00+00:00"),
        ("'2026-06-24T18:33:07+00:00'", "2026-06-24T18:33:07+00:00"),
    ],
)
def test_unquoted_timestamps_are_normalized(written: str, canonical: str) -> None:
    text = (
        "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: T\n"
        f"created_at: {written}\nupdated_at: {written}\n---\nb\n"
    )
    mem = parse_note(text)
    assert mem.created_at == mem.updated_at == canonical


def test_published_release_note_reads_without_loss_and_keeps_unknown_keys() -> None:
    mem = parse_note(PUBLISHED_RELEASE)
    assert mem.supersedes == ["01J9Z8YPM7Q3X2V4WT6B5N0KGD", "01J9Z8YPM7Q3X2V4WT6B5N0KGE"]
    assert mem.prov_source == "merge"
    assert mem.extra == {"user_id": "self", "workspace_id": "personal"}
    rewritten = serialize_note(mem)
    again = parse_note(rewritten)
    assert again == mem
    assert "user_id: self\n" in rewritten
    assert "workspace_id: personal\n" in rewritten


def test_unknown_keys_keep_their_yaml_types() -> None:
    text = SPEC_SEMANTIC.replace(
        "tags:\n", "priority: 3\nreviewed: true\nwhen: 2026-01-02\nrefs: {a: [1, 2]}\ntags:\n"
    )
    mem = parse_note(text)
    assert mem.extra["priority"] == 3
    assert mem.extra["reviewed"] is True
    assert str(mem.extra["when"]) == "2026-01-02"
    assert mem.extra["refs"] == {"a": [1, 2]}
    assert parse_note(serialize_note(mem)) == mem


def test_known_fields_are_read_as_written_not_as_yaml_1_1() -> None:
    text = (
        "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: yes\nproject: no\n"
        "machine_id: 1.5\ntags:\n- 2024\n- on\n---\nb\n"
    )
    mem = parse_note(text)
    assert (mem.title, mem.project, mem.machine_id) == ("yes", "no", "1.5")
    assert mem.tags == ["2024", "on"]
    # and they are written back quoted, so every YAML reader agrees
    assert parse_note(serialize_note(mem)) == mem
    assert "title: 'yes'" in serialize_note(mem)


def test_scalar_tags_and_supersedes_are_accepted() -> None:
    text = (
        "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: T\n"
        "tags: css, layout\nsupersedes: 01J9ZB0C4F8H2K6M3P9R7S5T1W\n---\nb\n"
    )
    mem = parse_note(text)
    assert mem.tags == ["css", "layout"]
    assert mem.supersedes == ["01J9ZB0C4F8H2K6M3P9R7S5T1W"]


def test_duplicate_and_blank_tags_fold_away() -> None:
    text = f"{HEAD}title: T\ntags: [a, ' a', '', b, a]\n---\n"
    assert parse_note(text).tags == ["a", "b"]


def test_crlf_and_bom_files_read() -> None:
    text = "\ufeff" + SPEC_SEMANTIC.replace("\n", "\r\n")
    assert parse_note(text) == parse_note(SPEC_SEMANTIC)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("no frontmatter here\n", "must start with a line '---'"),
        ("---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\n", "never closed"),
        ("---\n- a\n- b\n---\nbody\n", "'key: value' lines"),
        ("---\ntype: semantic\ntitle: T\n---\n", "has no id"),
        ("---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntitle: T\n---\n", "has no type"),
        ("---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: recipe\ntitle: T\n---\n", "type: 'recipe'"),
        ("---\nid: ../../etc/passwd\ntype: semantic\ntitle: T\n---\n", "not a ULID"),
        ("---\nid: 01j9z8ypm7q3x2v4wt6b5n0kgd\ntype: semantic\ntitle: T\n---\n", "upper case"),
        (
            f"{HEAD}title: T\nconfidence: high\n---\n",
            "confidence",
        ),
        (
            "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: T\nconfidence: 1.5\n---\n",
            "between 0 and 1",
        ),
        (
            "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: [a, b]\n---\n",
            "single value",
        ),
        (
            "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: 'open\n---\n",
            "not valid YAML",
        ),
        (
            f"{HEAD}title: T\ncreated_at: soon\n---\n",
            "ISO-8601",
        ),
    ],
)
def test_malformed_notes_say_what_is_wrong(text: str, reason: str) -> None:
    with pytest.raises(MalformedNote) as caught:
        parse_note(text, "semantic/x.md")
    assert reason in str(caught.value)
    assert "semantic/x.md" in str(caught.value)


def test_yaml_is_loaded_safely() -> None:
    text = (
        "---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: T\n"
        "evil: !!python/object/apply:os.system ['echo pwned']\n---\n"
    )
    with pytest.raises(MalformedNote, match="not valid YAML"):
        parse_note(text)


def _laughs(levels: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return f"{HEAD}title: T\n" + "\n".join(lines) + "\n---\nbody\n"


@pytest.mark.parametrize(
    ("front", "reason"),
    [
        (_laughs(9)[len(HEAD) :].split("---")[0], "aliases (*name) in the frontmatter expand"),
        ("x: &a [*a]\n", "refers to the value that contains it"),
        ("x: &a {k: *a}\n", "refers to the value that contains it"),
        ("a: &a 1\nl: [" + ", ".join(["*a"] * 101) + "]\n", "more than 100 YAML aliases"),
        ("x: " + "[" * 100_000 + "]" * 100_000 + "\n", "more than 32 deep"),
        ("x:\n" + "- " * 100_000 + "y\n", "more than 32 deep"),
    ],
    ids=["billion-laughs", "self-list", "self-map", "many-aliases", "deep-flow", "deep-block"],
)
def test_frontmatter_that_would_explode_is_refused_quickly(front: str, reason: str) -> None:
    # Expanding these used to take seconds and megabytes (aliases), or crash the process
    # outright (deep nesting overflowed the YAML parser's C stack).
    started = time.monotonic()
    with pytest.raises(MalformedNote) as caught:
        parse_note(f"{HEAD}title: T\n{front}---\nbody\n", "semantic/x.md")
    assert reason in caught.value.reason
    assert time.monotonic() - started < 2.0


def test_modest_aliases_and_merge_keys_still_read() -> None:
    text = f"{HEAD}title: T\nbase: &b {{a: 1}}\nderived:\n  <<: *b\n  c: 2\nsame: *b\n---\n"
    mem = parse_note(text)
    assert mem.extra == {"base": {"a": 1}, "derived": {"a": 1, "c": 2}, "same": {"a": 1}}
    assert parse_note(serialize_note(mem)) == mem
    assert parse_note(_laughs(3)).extra["a2"][8][8] == ["x"] * 9  # 729 values: allowed


def test_body_keeps_dashes_and_trailing_newlines() -> None:
    mem = parse_note(SPEC_SEMANTIC)
    body = "---\nnot frontmatter\n---\n\n"
    text = serialize_note(mem.replace(body=body))
    assert parse_note(text).body == body
