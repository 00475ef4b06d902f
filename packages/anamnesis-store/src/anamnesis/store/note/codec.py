"""A note as a markdown file: YAML frontmatter between ``---`` lines, then the body.

The format is the spec's, byte for byte: keys in a fixed order, empty provenance keys
omitted, one trailing newline after the body. ``parse(serialize(m)) == m`` for every
valid note and ``serialize(parse(text)) == text`` for every file this module wrote.
"""

from __future__ import annotations

from anamnesis.store.errors import InvalidNote, MalformedNote
from anamnesis.store.note import frontmatter
from anamnesis.store.note.model import GLOBAL_PROJECT, Memory
from anamnesis.store.note.validation import normalize_in_place

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any

DELIMITER = "---\n"
FRONTMATTER_LINE = 2  # the file's line the frontmatter starts on: after the opening "---"


def serialize_note(mem: Memory) -> str:
    """Render a (validated) note as the text of its markdown file."""
    meta: dict[str, Any] = {
        "id": mem.id,
        "type": mem.type,
        "title": mem.title,
        "project": mem.project,
        "machine_id": mem.machine_id,
        "scope": mem.scope,
        "prov_source": mem.prov_source,
        "confidence": mem.confidence,
    }
    if mem.prov_model:
        meta["prov_model"] = mem.prov_model
    if mem.prov_session:
        meta["prov_session"] = mem.prov_session
    if mem.prov_agent:
        meta["prov_agent"] = mem.prov_agent
    if mem.supersedes:
        # One id is written as a scalar, as the spec shows and as older readers expect;
        # several as a list.
        meta["supersedes"] = mem.supersedes[0] if len(mem.supersedes) == 1 else mem.supersedes
    # Time and review: written only when set, so a note without them reads as before (and
    # an older reader keeps them among the keys it does not know).
    for key in ("valid_until", "review_after", "reviewed_at"):
        if getattr(mem, key):
            meta[key] = getattr(mem, key)
    if mem.compatible_with:
        meta["compatible_with"] = mem.compatible_with
    meta["created_at"] = mem.created_at
    meta["updated_at"] = mem.updated_at
    meta["tags"] = mem.tags
    for key, value in mem.extra.items():
        if key not in frontmatter.KNOWN_KEYS:
            meta[key] = value
    return f"{DELIMITER}{frontmatter.dump(meta)}{DELIMITER}{mem.body}\n"


def split(text: str, path: str = "<note>") -> tuple[str, str]:
    """Split file text into (frontmatter text, body), undoing the writer's trailing newline."""
    if text.startswith("\ufeff"):  # editors on Windows like to add a BOM
        text = text[1:]
    if text.startswith("---\r\n"):
        text = text.replace("\r\n", "\n")
    if not text.startswith(DELIMITER):
        raise MalformedNote(path, "missing YAML frontmatter: a note must start with a line '---'")
    rest = text[len(DELIMITER) :]
    if rest.startswith(DELIMITER) or rest == "---":
        front, body = "", rest[len(DELIMITER) :]
    else:
        front, found, body = rest.partition("\n" + DELIMITER)
        if not found:
            if not rest.endswith("\n---"):
                raise MalformedNote(
                    path, "the frontmatter is never closed: add a line '---' after it"
                )
            front, body = rest[: -len("\n---")], ""
    if body.endswith("\n"):
        body = body[:-1]
    return front, body


def parse_note(text: str, path: str = "<note>", scope: str | None = None) -> Memory:
    """Parse file text into a validated note; raise :class:`MalformedNote` saying why not.

    ``scope`` overrides the frontmatter: the tree a file sits in decides its scope.
    """
    front, body = split(text, path)
    try:
        meta = frontmatter.load(front, FRONTMATTER_LINE)
    except frontmatter.FrontmatterError as exc:
        raise MalformedNote(path, str(exc)) from None
    missing = [key for key in ("id", "type", "title") if not meta.get(key)]
    if missing:
        adopt = " (a full reindex gives a hand-written note an id)" if "id" in missing else ""
        raise MalformedNote(path, f"the frontmatter has no {', '.join(missing)}{adopt}")
    try:
        mem = Memory(
            id=meta["id"],
            type=meta["type"],
            title=meta["title"],
            body=body,
            project=meta.get("project") or GLOBAL_PROJECT,
            machine_id=meta.get("machine_id") or "unknown",
            scope=scope or meta.get("scope") or "portable",
            tags=_as_list(meta.get("tags"), split_commas=True),
            created_at=meta.get("created_at") or "",
            updated_at=meta.get("updated_at") or "",
            prov_source=meta.get("prov_source") or "human",
            prov_model=meta.get("prov_model") or "",
            prov_session=meta.get("prov_session") or "",
            prov_agent=meta.get("prov_agent") or "",
            confidence=_as_confidence(meta.get("confidence")),
            supersedes=_as_list(meta.get("supersedes"), split_commas=False),
            valid_until=meta.get("valid_until") or "",
            review_after=meta.get("review_after") or "",
            reviewed_at=meta.get("reviewed_at") or "",
            compatible_with=_as_list(meta.get("compatible_with"), split_commas=False),
            extra={key: value for key, value in meta.items() if key not in frontmatter.KNOWN_KEYS},
        )
        return normalize_in_place(mem)
    except InvalidNote as exc:
        raise MalformedNote(path, str(exc)) from None


def _as_list(value: list[str] | str | None, *, split_commas: bool) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        # A hand-written "tags: css, layout" means two tags.
        return value.split(",") if split_commas else [value]
    return value


def _as_confidence(raw: str | None) -> float:
    if raw is None:
        return 1.0
    try:
        return float(raw)
    except ValueError:
        raise InvalidNote("confidence", f"{raw!r} is not a number between 0 and 1") from None
