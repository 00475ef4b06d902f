"""Property tests: the codec round-trips anything valid, and both frontmatter readers agree."""

from __future__ import annotations

import os
import string

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anamnesis.store import Memory, parse_note, serialize_note
from anamnesis.store.note import frontmatter as fm
from anamnesis.store.note.validation import clean_tags

# ANAMNESIS_PROPERTY_SCALE=50 runs a long soak; the default keeps the suite quick.
SCALE = int(os.environ.get("ANAMNESIS_PROPERTY_SCALE", "1"))

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

ulids = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("01234567"),
    st.text(alphabet=CROCKFORD, min_size=25, max_size=25),
)
# Any unicode text UTF-8 can hold (no lone surrogates).
texts = st.text(st.characters(exclude_categories=["Cs"]))
non_blank = texts.filter(lambda s: s.strip() != "")
timestamps = st.datetimes(
    min_value=__import__("datetime").datetime(1970, 1, 1),
    max_value=__import__("datetime").datetime(2999, 12, 31),
).map(lambda d: d.replace(microsecond=0).isoformat() + "+00:00")
bodies = st.one_of(
    texts,
    st.lists(st.sampled_from(["---", "--- ", "...", "", "text", "# h", "  ---"]), max_size=8).map(
        "\n".join
    ),
    texts.map(lambda s: s + "\n\n"),
)


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    own = draw(ulids)
    return Memory(
        id=own,
        type=draw(st.sampled_from(["procedural", "semantic", "episodic"])),
        title=draw(non_blank),
        body=draw(bodies),
        project=draw(non_blank),
        machine_id=draw(non_blank),
        scope=draw(st.sampled_from(["portable", "machine-local"])),
        tags=clean_tags(draw(st.lists(texts, max_size=6))),
        created_at=draw(timestamps),
        updated_at=draw(timestamps),
        prov_source=draw(
            st.sampled_from(["human", "session-end", "reflection", "import", "merge"])
        ),
        prov_model=draw(texts),
        prov_session=draw(texts),
        confidence=draw(st.floats(min_value=0, max_value=1)),
        supersedes=draw(st.lists(ulids.filter(lambda u: u != own), max_size=3, unique=True)),
    )


@settings(max_examples=400 * SCALE, suppress_health_check=[HealthCheck.too_slow])
@given(memories())
def test_round_trip(mem: Memory) -> None:
    text = serialize_note(mem)
    again = parse_note(text)
    assert again == mem
    assert serialize_note(again) == text
    assert text.endswith(mem.body + "\n")


@settings(max_examples=300 * SCALE)
@given(memories())
def test_fast_reader_agrees_with_yaml_on_what_the_store_writes(mem: Memory) -> None:
    front = serialize_note(mem)[4:].split("\n---\n", 1)[0]
    fast = fm.load_fast(front)
    if fast is not None:
        assert fast == fm.load_yaml_frontmatter(front)


def test_fast_reader_takes_the_common_shape() -> None:
    mem = Memory(
        id="01J9Z8YPM7Q3X2V4WT6B5N0KGD",
        type="semantic",
        title="Dashboard grid: minmax convention",
        body="b",
        project="github.com/acme/api",
        tags=["css", "it's"],
        created_at="2026-06-24T18:33:07+00:00",
        updated_at="2026-06-24T18:33:07+00:00",
        supersedes=["01J9ZB0C4F8H2K6M3P9R7S5T1W"],
    )
    front = serialize_note(mem)[4:].split("\n---\n", 1)[0]
    assert fm.load_fast(front) is not None


# Frontmatter a person might type: keys known and unknown, odd values, odd layout.
_keys = st.sampled_from(
    [
        "id",
        "type",
        "title",
        "project",
        "tags",
        "supersedes",
        "confidence",
        "created_at",
        "user_id",
        "custom",
        "prov_model",
    ]
)
_values = st.one_of(
    st.text(alphabet=string.printable, max_size=20),
    st.sampled_from(
        [
            "yes",
            "no",
            "~",
            "null",
            "[]",
            "[a, b]",
            "'q''uote'",
            '"dq"',
            "1.0",
            "- x",
            "a: b",
            "a #c",
            "&anchor",
            "*alias",
            "!!str 5",
            "|",
            ">",
            "2026-01-02",
            "héllo wörld",
            "trailing ",
            "x:",
            "{a: 1}",
            "'",
            "''",
        ]
    ),
    texts.map(lambda s: s[:12]),
)
_lines = st.one_of(
    st.builds(lambda k, v: f"{k}: {v}", _keys, _values),
    st.builds(lambda k: f"{k}:", _keys),
    st.builds(lambda v: f"- {v}", _values),
    st.sampled_from(
        [
            *("", "# comment", "  - indented", "  continued", "key_only", "...", "%YAML 1.1"),
            # shapes the fast reader splits by hand: no space or two after the colon, a
            # dash without its space, a colon in the key
            *("title:x", "tags:[]", "title:  spaced", "-x", "- ", "-", "ti:tle: x", ": x"),
        ]
    ),
)


@settings(
    max_examples=1500 * SCALE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.lists(_lines, max_size=8).map("\n".join))
def test_fast_reader_never_disagrees_with_yaml_on_hand_written_text(front: str) -> None:
    fast = fm.load_fast(front)
    if fast is None:
        return
    try:
        slow = fm.load_yaml_frontmatter(front)
    except fm.FrontmatterError:
        raise AssertionError(f"fast path accepted text YAML rejects: {front!r}") from None
    assert fast == slow, front


def _reference(meta: dict[str, object]) -> str:
    """The writer the spec names: PyYAML's pure SafeDumper (with our NEL/LS/PS fix)."""
    text: str = yaml.dump(meta, Dumper=fm._dumper(), sort_keys=False, allow_unicode=True)
    return text


@settings(max_examples=400 * SCALE)
@given(memories())
def test_fast_writer_matches_the_reference_dumper(mem: Memory) -> None:
    front = serialize_note(mem)[4:].split("\n---\n", 1)[0] + "\n"
    meta = yaml.load(front, Loader=yaml.SafeLoader)
    assert _reference(meta) == front


_scalars = st.one_of(
    texts.map(lambda s: s[:90]),
    st.text(alphabet=string.printable, max_size=90),
    st.sampled_from(
        [
            "yes",
            "No",
            "~",
            "null",
            "1",
            "0123",
            "07",
            "1_000",
            "1:30",
            "1e5",
            ".5",
            "2026-01-02",
            "2026-01-02T03:04:05+00:00",
            "<<",
            "=",
            "- a",
            "-a",
            "? x",
            ":x",
            "a:b",
            "a: b",
            "x #y",
            "x#y",
            "---x",
            "...",
            "'",
            "it's",
            '"q"',
            " lead",
            "trail ",
            "a  b",
            "é",
            "😀 emoji",
            "\u00a0nbsp",
            "tab\there",
            "01J9Z8YPM7Q3X2V4WT6B5N0KGD",
            "01234567012345670123456701",
            "[x]",
            "{y}",
            "a,b",
            "%p",
            "@a",
            "`b",
            "!c",
            "&d",
            "*e",
            "|f",
            ">g",
        ]
    ),
)


@settings(max_examples=1500 * SCALE, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(["id", "title", "tags", "confidence", "custom_key"]),
        st.one_of(
            _scalars, st.lists(_scalars, max_size=3), st.floats(allow_nan=True, allow_infinity=True)
        ),
        max_size=5,
    )
)
def test_fast_writer_never_disagrees_with_the_reference(meta: dict[str, object]) -> None:
    fast = fm.dump_fast(meta)
    if fast is not None:
        assert fast == _reference(meta)
