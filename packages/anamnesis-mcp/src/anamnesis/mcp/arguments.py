"""Checks for tool arguments, with messages a model can act on.

The model sends JSON; a wrong shape must come back as one sentence that says what to send
instead, never as a SQLite error or a pydantic dump. The pure tool functions run these checks
themselves, and the server runs :func:`check_call` on the raw JSON before the SDK sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from anamnesis.store import NOTE_TYPES, SCOPES

MAX_K = 50
MAX_BODY_BYTES = 1_000_000
MAX_TITLE_CHARS = 500
MAX_PROJECT_CHARS = 300
MAX_TAGS = 50
_WILDCARDS = frozenset("*?[]%")


class InvalidArgument(ValueError):
    """A tool argument the model must change before calling again."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name


def check_query(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidArgument("query", f"must be text (a few keywords), got {_kind(value)}")
    return value


def check_k(value: object) -> int:
    # Models sometimes send numbers as strings: "5" is clearly meant as 5.
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument("k", f"must be a whole number from 1 to {MAX_K}, got {_kind(value)}")
    if not 1 <= value <= MAX_K:
        raise InvalidArgument(
            "k", f"must be from 1 to {MAX_K}, got {value}; ask for fewer and refine the query"
        )
    return value


def check_type(value: object, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if value not in NOTE_TYPES:
        hint = (
            "procedural (how-tos, fixes, decisions), semantic (facts, preferences, "
            "conventions) or episodic (what happened)"
        )
        raise InvalidArgument("type", f"must be one of {hint}; got {_shown(value)}")
    assert isinstance(value, str)
    return value


def check_scope(value: object, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if value not in SCOPES:
        raise InvalidArgument(
            "scope",
            "must be 'portable' (synced to the user's other machines) or 'machine-local' "
            f"(kept on this machine only); got {_shown(value)}",
        )
    assert isinstance(value, str)
    return value


def check_project_filter(value: object) -> str | None:
    """One project key, matched exactly; None means every project."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidArgument(
            "project",
            f"must be one project key as text, such as 'github.com/owner/repo' or 'global', "
            f"got {_kind(value)}; leave it out to cover every project, and call memory_status "
            "to see which projects exist",
        )
    project = value.strip()
    if not project:
        raise InvalidArgument(
            "project", "is empty; leave it out to cover every project, or name one project"
        )
    if _WILDCARDS & set(project):
        raise InvalidArgument(
            "project",
            f"matches one project exactly; patterns like {project!r} are not supported. "
            "Leave it out to cover every project, or call memory_status for the project keys",
        )
    return _check_project_text(project)


def check_project(value: object) -> str:
    """The project a new note belongs to."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(
            "project",
            "must be the project key as text (e.g. 'github.com/owner/repo'), or 'global' for "
            f"notes that apply everywhere; got {_shown(value)}",
        )
    return _check_project_text(value.strip())


def _check_project_text(project: str) -> str:
    if len(project) > MAX_PROJECT_CHARS or "\n" in project or "\r" in project:
        raise InvalidArgument(
            "project", f"must be one line of at most {MAX_PROJECT_CHARS} characters"
        )
    return project


def check_title(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(
            "title", "must be a short, non-empty line saying what the note is about"
        )
    title = " ".join(value.split())  # one line: a title is shown in lists and headings
    if len(title) > MAX_TITLE_CHARS:
        raise InvalidArgument(
            "title",
            f"is {len(title)} characters; keep it under {MAX_TITLE_CHARS} and put details "
            "in the body",
        )
    return title


def check_body(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidArgument("body", f"must be text (markdown), got {_kind(value)}")
    if not value.strip():
        raise InvalidArgument("body", "is empty; say what should be remembered")
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_BODY_BYTES:
        raise InvalidArgument(
            "body",
            f"is {size:,} bytes, over the 1 MB limit; store a summary and where the full "
            "text lives instead",
        )
    return value


def check_tags(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):  # "a, b" or "a": the intent is plain
        value = value.split(",")
    if not isinstance(value, list | tuple):
        raise InvalidArgument("tags", f"must be a list of short words, got {_kind(value)}")
    tags: list[str] = []
    for tag in value:
        if not isinstance(tag, str):
            raise InvalidArgument("tags", f"every tag must be text, got {_kind(tag)}")
        cleaned = tag.strip()
        if "\n" in cleaned or len(cleaned) > 100:
            raise InvalidArgument("tags", "each tag must be one short line (at most 100 chars)")
        if cleaned and cleaned not in tags:
            tags.append(cleaned)
    if len(tags) > MAX_TAGS:
        raise InvalidArgument("tags", f"at most {MAX_TAGS} tags, got {len(tags)}")
    return tags


def check_force(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidArgument("force", f"must be true or false, got {_kind(value)}")
    return value


_Check = Callable[[object], object]

# What each tool accepts, and how each argument is checked. The server checks the raw JSON
# with this table before the SDK validates it, so every mistake gets one of our messages.
TOOL_ARGUMENTS: Mapping[str, Mapping[str, _Check]] = {
    "memory_search": {
        "query": check_query,
        "project": check_project_filter,
        "type": check_type,
        "scope": check_scope,
        "k": check_k,
    },
    "memory_list": {
        "project": check_project_filter,
        "type": check_type,
        "scope": check_scope,
    },
    "memory_status": {},
    "memory_write": {
        "type": lambda v: check_type(v, required=True),
        "title": check_title,
        "body": check_body,
        "project": check_project,
        "tags": check_tags,
        "scope": lambda v: check_scope(v, required=True),
    },
    "memory_sync": {"force": check_force},
}

REQUIRED: Mapping[str, tuple[str, ...]] = {
    "memory_search": ("query",),
    "memory_write": ("type", "title", "body"),
}


def check_call(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of one call to ``tool``, checked and normalized."""
    accepted = TOOL_ARGUMENTS[tool]
    unknown = sorted(set(arguments) - set(accepted))
    if unknown:
        allowed = ", ".join(accepted) or "no arguments"
        noun = "argument" if len(unknown) == 1 else "arguments"
        raise InvalidArgument(
            unknown[0], f"unknown {noun} {', '.join(unknown)}; {tool} takes {allowed}"
        )
    for name in REQUIRED.get(tool, ()):
        if name not in arguments:
            raise InvalidArgument(name, f"is required by {tool}")
    checked: dict[str, Any] = {}
    for name, value in arguments.items():
        # JSON null for an optional argument means "not given": let the default apply.
        if value is None and name not in REQUIRED.get(tool, ()):
            continue
        checked[name] = accepted[name](value)
    return checked


def _kind(value: object) -> str:
    names = {
        type(None): "null",
        bool: "true/false",
        int: "a number",
        float: "a number",
        str: "text",
        list: "a list",
        dict: "an object",
    }
    return names.get(type(value), type(value).__name__)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
