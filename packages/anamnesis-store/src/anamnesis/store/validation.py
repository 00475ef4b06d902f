"""Rules every note obeys, checked before anything touches disk."""

from __future__ import annotations

import math
from collections.abc import Iterable

from anamnesis.store.errors import InvalidNote
from anamnesis.store.ids import check_id
from anamnesis.store.model import NOTE_TYPES, PROV_SOURCES, SCOPES, Memory
from anamnesis.store.timestamps import normalize_timestamp


def clean_tags(tags: Iterable[object] | None) -> list[str]:
    """Tags stripped, empty ones dropped, duplicates removed (first spelling wins).

    A duplicate tag used to make the published release lose the whole note; here it is
    simply folded away.
    """
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
    """Return a normalized copy of ``mem`` or raise :class:`InvalidNote` naming the field."""
    return normalize_in_place(mem.replace())


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
    if not isinstance(mem.extra, dict) or not all(isinstance(k, str) for k in mem.extra):
        raise InvalidNote("extra", "must be a mapping with text keys")
    mem.tags = clean_tags(mem.tags)
    mem.created_at = normalize_timestamp(mem.created_at, "created_at")
    mem.updated_at = normalize_timestamp(mem.updated_at, "updated_at")
    mem.extra = dict(mem.extra)
    return mem


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
