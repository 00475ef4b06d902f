"""Rules every note obeys, checked before anything touches disk."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import date, datetime

from anamnesis.store.errors import InvalidNote
from anamnesis.store.note.frontmatter import LIST_FIELDS, SCALAR_FIELDS
from anamnesis.store.note.ids import check_id
from anamnesis.store.note.limits import NoteLimits
from anamnesis.store.note.model import NOTE_TYPES, PROV_SOURCES, SCOPES, Memory
from anamnesis.store.note.timestamps import normalize_timestamp
from anamnesis.store.note.validity import check_when

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any

# What ``extra`` may hold: the plain data YAML's safe loader gives and safe dumper writes
# back. Exact types: a subclass (an enum, a str subclass) would make the dumper fail.
_EXTRA_SCALARS = (str, int, float, bool, type(None), bytes, date, datetime)
_EXTRA_CONTAINERS = (list, tuple, dict, set)
# Nesting allowed inside ``extra`` (the frontmatter mapping itself is one more level).
_EXTRA_DEPTH = 31
# An agent's name (``prov_agent``): short, lowercase, one word as a command line or a config
# key would spell it ("claude-code", "codex", "gemini"). Shown in headers and in the
# SessionStart block, so nothing a terminal or a model could read as more than a name.
AGENT_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")


def is_agent_name(text: object) -> bool:
    """Whether ``text`` is a name ``prov_agent`` may hold (:data:`AGENT_NAME`)."""
    return isinstance(text, str) and AGENT_NAME.fullmatch(text) is not None


def clean_tags(tags: Iterable[object] | None) -> list[str]:
    """Tags stripped, empty ones dropped, duplicates removed (first spelling wins).

    A duplicate tag used to make the published release lose the whole note; here it is
    simply folded away.
    """
    if isinstance(tags, str):  # one tag given as a plain string, not its characters
        tags = [tags]
    out: list[str] = []
    seen: set[str] = set()
    for raw in tags or ():
        if not isinstance(raw, str):
            raise InvalidNote("tags", f"every tag must be text, got {type(raw).__name__} {raw!r}")
        tag = raw.strip()
        if tag and tag not in seen:
            _check_text("tags", tag)
            seen.add(tag)
            out.append(tag)
    return out


def validate_note(mem: Memory) -> Memory:
    """Return a normalized copy of ``mem`` or raise :class:`InvalidNote` naming the field.

    Stricter than reading: what the store writes has one-line project and machine names
    (a machine id is shown in headers and commit authors, so no path separators either),
    and stays within :class:`~.limits.NoteLimits`. Files written by hand or by other tools
    are read even when they break these rules.
    """
    checked = normalize_in_place(mem.replace())
    check_limits(checked)
    for field in ("project", "machine_id"):
        value = getattr(checked, field)
        if not value.isprintable():
            raise InvalidNote(field, f"{value!r} must be one line without control characters")
    if any(separator in checked.machine_id for separator in "/\\"):
        raise InvalidNote("machine_id", f"{checked.machine_id!r} must not contain / or \\")
    return checked


def check_limits(mem: Memory, *, masked: bool = False) -> None:
    """Raise :class:`InvalidNote` (the field, its limit, its size) when a field of the
    (normalized) note is over :class:`~.limits.NoteLimits`. ``masked``: the note is the
    one the store will write, secrets masked, which the message then says."""
    why = " once its secrets are masked" if masked else ""
    for field, limit in (
        ("title", NoteLimits.TITLE_CHARS),
        ("project", NoteLimits.PROJECT_CHARS),
        ("machine_id", NoteLimits.MACHINE_ID_CHARS),
        ("prov_model", NoteLimits.PROVENANCE_CHARS),
        ("prov_session", NoteLimits.PROVENANCE_CHARS),
    ):
        size = len(getattr(mem, field))
        if size > limit:
            raise InvalidNote(field, f"is {size:,} characters{why}, over the limit of {limit:,}")
    # Four bytes a character at most: only a body that might be over is encoded.
    if len(mem.body) * 4 > NoteLimits.BODY_BYTES:
        size = len(mem.body.encode("utf-8"))
        if size > NoteLimits.BODY_BYTES:
            raise InvalidNote(
                "body",
                f"is {size:,} bytes{why}, over the limit of {NoteLimits.BODY_BYTES:,} bytes; "
                "keep a summary, and say where the full text lives",
            )
    _check_count("tags", mem.tags, NoteLimits.TAGS)
    for tag in mem.tags:
        if len(tag) > NoteLimits.TAG_CHARS:
            raise InvalidNote(
                "tags",
                f"the tag {tag[:40]!r}... is {len(tag):,} characters{why}, over the limit of "
                f"{NoteLimits.TAG_CHARS:,}",
            )
    _check_count("supersedes", mem.supersedes, NoteLimits.SUPERSEDES)
    size = _extra_size(mem.extra, 0) if mem.extra else 0
    if size > NoteLimits.EXTRA_CHARS:
        raise InvalidNote(
            "extra",
            f"holds {size:,} characters{why}, over the limit of "
            f"{NoteLimits.EXTRA_CHARS:,} (keys and values, each also counting how deep it is "
            "nested)",
        )


def _check_count(field: str, values: list[str], limit: int) -> None:
    if len(values) > limit:
        raise InvalidNote(field, f"holds {len(values):,} entries, over the limit of {limit:,}")


def _extra_size(value: object, depth: int) -> int:
    """How many characters ``value`` counts for :data:`~.limits.NoteLimits.EXTRA_CHARS`:
    its text, plus its nesting depth (YAML indents it). The value is already known to be
    of a kind, and a depth, that :func:`_check_extra_value` allows."""
    if isinstance(value, str):
        return len(value) + depth
    if isinstance(value, dict):
        items: Iterable[object] = (part for pair in value.items() for part in pair)
    elif isinstance(value, list | tuple | set):
        items = value
    elif isinstance(value, bytes):
        return 2 * len(value) + depth  # written as base64, in lines
    elif isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() // 3 + 2 + depth  # at least its decimal digits
    else:
        return 32 + depth  # a float, true/false, null or a date: short
    return depth + sum(_extra_size(item, depth + 1) for item in items)


def normalize_in_place(mem: Memory) -> Memory:
    """Check ``mem`` and normalize its fields in place (for notes the caller just built)."""
    check_id(mem.id)
    _check_choice("type", mem.type, NOTE_TYPES)
    _check_choice("scope", mem.scope, SCOPES)
    _check_choice("prov_source", mem.prov_source, PROV_SOURCES)
    mem.title = _required_text("title", mem.title)
    mem.project = _required_text("project", mem.project)
    mem.machine_id = _required_text("machine_id", mem.machine_id)
    if not isinstance(mem.body, str):
        raise InvalidNote("body", f"must be text, got {type(mem.body).__name__}")
    _check_text("body", mem.body)
    for name in ("prov_model", "prov_session"):
        value = getattr(mem, name)
        if not isinstance(value, str):
            raise InvalidNote(name, f"must be text, got {type(value).__name__}")
        _check_text(name, value)
    _check_agent(mem.prov_agent)
    mem.confidence = _check_confidence(mem.confidence)
    mem.supersedes = _clean_ids("supersedes", mem.id, mem.supersedes)
    mem.compatible_with = _clean_ids("compatible_with", mem.id, mem.compatible_with)
    mem.valid_until = check_when(mem.valid_until, "valid_until")
    mem.review_after = check_when(mem.review_after, "review_after")
    mem.reviewed_at = normalize_timestamp(mem.reviewed_at, "reviewed_at")
    mem.extra = _checked_extra(mem.extra)
    mem.tags = clean_tags(mem.tags)
    mem.created_at = normalize_timestamp(mem.created_at, "created_at")
    mem.updated_at = normalize_timestamp(mem.updated_at, "updated_at")
    return mem


def _checked_extra(extra: object) -> dict[str, Any]:
    """A copy of ``extra`` once it is known to round-trip through the note's frontmatter.

    Checked here, not when the file is written: an object YAML cannot represent, a lone
    surrogate or a key the store writes itself (which the file would drop while the index
    kept it) used to fail halfway through a write, or silently disagree with the file.
    """
    if not isinstance(extra, dict):
        raise InvalidNote("extra", f"must be a mapping with text keys, got {type(extra).__name__}")
    for key, value in extra.items():
        if not isinstance(key, str):
            raise InvalidNote("extra", f"keys must be text, got {type(key).__name__} {key!r}")
        _check_text("extra", key)
        if key in SCALAR_FIELDS or key in LIST_FIELDS:
            raise InvalidNote(
                "extra", f"{key!r} is a field of the note: set it directly, not through extra"
            )
        _check_extra_value(f"extra[{key!r}]", value, 1)
    return dict(extra)


def _check_extra_value(field: str, value: object, depth: int) -> None:
    kind = type(value)
    if kind in _EXTRA_SCALARS:
        if kind is str:
            assert isinstance(value, str)
            _check_text(field, value)
        return
    if kind not in _EXTRA_CONTAINERS:
        raise InvalidNote(
            field,
            f"a {kind.__name__} cannot be stored in a note; use text, numbers, true/false,"
            " null, dates, lists and mappings",
        )
    if depth > _EXTRA_DEPTH:
        raise InvalidNote(
            field, f"nests more than {_EXTRA_DEPTH} levels deep (or refers to itself)"
        )
    if isinstance(value, dict):
        for key, item in value.items():
            _check_extra_key(field, key)
            _check_extra_value(field, item, depth + 1)
    else:
        assert isinstance(value, list | tuple | set)
        for item in value:
            if isinstance(value, set):
                _check_extra_key(field, item)
            _check_extra_value(field, item, depth + 1)


def _check_extra_key(field: str, key: object) -> None:
    # A nested key must read back as a key: a scalar (YAML cannot load a list as a key).
    if type(key) not in _EXTRA_SCALARS or type(key) is bytes:
        raise InvalidNote(field, f"a mapping key must be text, a number or a date, got {key!r}")


def _check_choice(field: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidNote(field, f"{value!r} is not one of {', '.join(allowed)}")


def _check_agent(value: object) -> None:
    if value == "" or is_agent_name(value):
        return
    if not isinstance(value, str):
        raise InvalidNote("prov_agent", f"must be text, got {type(value).__name__}")
    raise InvalidNote(
        "prov_agent",
        f"{value[:60]!r} is not an agent's name: up to 40 lowercase letters, digits, '.', '_'"
        " or '-', starting with a letter or digit (e.g. claude-code, codex)",
    )


def _required_text(field: str, value: object) -> str:
    if not isinstance(value, str):
        raise InvalidNote(field, f"must be text, got {type(value).__name__}")
    if not value.strip():
        raise InvalidNote(field, "must not be empty")
    _check_text(field, value)
    return value


def _check_text(field: str, value: str) -> None:
    # Lone surrogates cannot be written as UTF-8: catch them here, not halfway through a write.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidNote(field, "contains characters that cannot be stored as UTF-8") from None


def _check_confidence(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidNote("confidence", f"must be a number between 0 and 1, got {value!r}")
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise InvalidNote("confidence", f"must be between 0 and 1, got {value!r}")
    return number


def _clean_ids(field: str, own_id: str, ids: Iterable[object] | None) -> list[str]:
    """Other notes' ids (``supersedes``, ``compatible_with``): checked, each once, never
    the note's own."""
    if isinstance(ids, str):  # a caller passing one id as a plain string
        ids = [ids]
    out: list[str] = []
    for raw in ids or ():
        sid = raw.strip() if isinstance(raw, str) else raw
        if sid == "":
            continue
        check_id(sid, field)
        assert isinstance(sid, str)
        if sid == own_id:
            what = "supersede itself" if field == "supersedes" else f"list itself in {field}"
            raise InvalidNote(field, f"a note cannot {what}")
        if sid not in out:
            out.append(sid)
    return out
