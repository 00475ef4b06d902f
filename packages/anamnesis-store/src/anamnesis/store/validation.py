"""Rules every note obeys, checked before anything touches disk."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date, datetime

from anamnesis.store.errors import InvalidNote
from anamnesis.store.frontmatter import LIST_FIELDS, SCALAR_FIELDS
from anamnesis.store.ids import check_id
from anamnesis.store.model import NOTE_TYPES, PROV_SOURCES, SCOPES, Memory
from anamnesis.store.timestamps import normalize_timestamp

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What ``extra`` may hold: the plain data YAML's safe loader gives and safe dumper writes
# back. Exact types: a subclass (an enum, a str subclass) would make the dumper fail.
_EXTRA_SCALARS = (str, int, float, bool, type(None), bytes, date, datetime)
_EXTRA_CONTAINERS = (list, tuple, dict, set)
# Nesting allowed inside ``extra`` (the frontmatter mapping itself is one more level).
_EXTRA_DEPTH = 31


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


def validate(mem: Memory) -> Memory:
    """Return a normalized copy of ``mem`` or raise :class:`InvalidNote` naming the field.

    Stricter than reading: what the store writes has one-line project and machine names
    (a machine id is shown in headers and commit authors, so no path separators either).
    Files written by hand or by other tools are read even when they break these rules.
    """
    checked = normalize_in_place(mem.replace())
    _check_one_line("project", checked.project, 300)
    _check_one_line("machine_id", checked.machine_id, 128)
    if any(separator in checked.machine_id for separator in "/\\"):
        raise InvalidNote("machine_id", f"{checked.machine_id!r} must not contain / or \\")
    return checked


def _check_one_line(field: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise InvalidNote(field, f"must be at most {limit} characters, got {len(value)}")
    if not value.isprintable():
        raise InvalidNote(field, f"{value!r} must be one line without control characters")


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
    mem.confidence = _check_confidence(mem.confidence)
    mem.supersedes = _clean_supersedes(mem.id, mem.supersedes)
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


def _clean_supersedes(own_id: str, ids: Iterable[object] | None) -> list[str]:
    if isinstance(ids, str):  # a caller passing one id as a plain string
        ids = [ids]
    out: list[str] = []
    for raw in ids or ():
        sid = raw.strip() if isinstance(raw, str) else raw
        if sid == "":
            continue
        check_id(sid, "supersedes")
        assert isinstance(sid, str)
        if sid == own_id:
            raise InvalidNote("supersedes", "a note cannot supersede itself")
        if sid not in out:
            out.append(sid)
    return out
