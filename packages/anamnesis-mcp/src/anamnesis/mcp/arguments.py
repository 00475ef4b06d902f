"""Checks for tool arguments, with messages a model can act on: the MCP boundary.

The model sends JSON; a wrong shape must come back as one sentence that says what to send
instead, never as a SQLite error or a pydantic dump. The server runs :func:`check_call` on
the raw JSON before the SDK sees it, once per call; the tool functions
(:mod:`.functions`) take the arguments as it leaves them and check nothing again. What a
note may hold is the store's rule, which it applies to every writer: the limits named here
are the store's own (:class:`~anamnesis.store.NoteLimits`), said early in words a model
can act on.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from anamnesis.mcp.descriptions import mode_choices
from anamnesis.store import (
    FROM_TODAY_FORMS,
    NOTE_TYPES,
    SCOPES,
    SEARCH_MODES,
    InvalidNote,
    NoteLimits,
    is_agent_name,
    is_valid_id,
    read_when,
)

# The server's own bounds on a search (the store allows more: a model needs no more).
MAX_K = 50
MAX_QUERY_CHARS = 4_000
_WILDCARDS = frozenset("*?[]%")
# C0 and C1 control characters: never meaningful in a one-line key, title or tag.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class InvalidArgument(ValueError):
    """A tool argument the model must change before calling again."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{_label(name)}: {message}")
        self.name = name


def check_text(name: str, value: str) -> str:
    """Text that can be stored and sent back: valid Unicode, no NUL character.

    JSON lets a client send a lone UTF-16 surrogate (``"\\ud800"``); it cannot be written
    as UTF-8, and SQLite and the files would refuse it later with an unhelpful error.
    """
    _utf8(name, value)
    return value


def _utf8(name: str, value: str) -> bytes:
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidArgument(
            name,
            f"has an invalid character at position {exc.start} (a lone surrogate, "
            f"{value[exc.start]!r}); remove it or send the character it was meant to be",
        ) from None
    nul = value.find("\x00")
    if nul >= 0:
        raise InvalidArgument(
            name, f"has a NUL character (\\u0000) at position {nul}; remove it and send again"
        )
    return encoded


def check_query(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidArgument("query", f"must be text (a few keywords), got {_got(value)}")
    if len(value) > MAX_QUERY_CHARS:
        raise InvalidArgument(
            "query",
            f"is {len(value):,} characters; search with a few distinctive keywords (at most "
            f"{MAX_QUERY_CHARS:,} characters), and run several short searches if needed",
        )
    return check_text("query", value)


def check_k(value: object) -> int:
    # Models sometimes send numbers as text ("5") or as 5.0: the intent is plain. Only ASCII
    # digits, and only a few: int() also reads digits like '\u0663' and refuses very long
    # strings with a raw ValueError.
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit() and len(text) <= 4:
            value = int(text)
    elif isinstance(value, float) and value.is_integer() and abs(value) <= 1e6:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument("k", f"must be a whole number from 1 to {MAX_K}, got {_got(value)}")
    if not 1 <= value <= MAX_K:
        raise InvalidArgument(
            "k",
            f"must be from 1 to {MAX_K}, got {_shown(value)}; ask for fewer and refine the query",
        )
    return value


def check_type(value: object, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or value not in NOTE_TYPES:
        hint = (
            "procedural (how-tos, fixes, decisions), semantic (facts, preferences, "
            "conventions) or episodic (what happened)"
        )
        raise InvalidArgument("type", f"must be one of {hint}; got {_shown(value)}")
    return value


def check_scope(value: object, *, required: bool = False) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or value not in SCOPES:
        raise InvalidArgument(
            "scope",
            "must be 'portable' (synced to the user's other machines) or 'machine-local' "
            f"(kept on this machine only); got {_shown(value)}",
        )
    return value


def check_mode(value: object) -> str | None:
    """A search mode, or None for the store's default (hybrid where vectors run)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in SEARCH_MODES:
        return value.strip().lower()  # "Hybrid" or " keyword": the intent is plain
    raise InvalidArgument(
        "mode", f"must be {mode_choices()}; leave it out for the default; got {_shown(value)}"
    )


def check_agent(value: object) -> str | None:
    """One coding agent's name ("Codex" is plainly codex); None means every agent."""
    if value is None:
        return None
    agent = value.strip().lower() if isinstance(value, str) else value
    if not is_agent_name(agent):
        raise InvalidArgument(
            "agent",
            "must be one coding agent's name, such as claude-code or codex (a note's "
            f"prov_agent); leave it out to cover every agent; got {_shown(value)}",
        )
    assert isinstance(agent, str)
    return agent


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
    project = check_text("project", value).strip()
    if not project:
        raise InvalidArgument(
            "project", "is empty; leave it out to cover every project, or name one project"
        )
    if _WILDCARDS & set(project):
        raise InvalidArgument(
            "project",
            f"matches one project exactly; patterns like {_shown(project)} are not supported. "
            "Leave it out to cover every project, or call memory_status for the project keys",
        )
    return _check_project_text(project)


def check_project(value: object) -> str:
    """The project a new note belongs to."""
    if isinstance(value, str):
        check_text("project", value)
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(
            "project",
            "must be the project key as text (e.g. 'github.com/owner/repo'), or 'global' for "
            f"notes that apply everywhere; got {_shown(value)}",
        )
    project = value.strip()
    # The store writes only printable project keys (one line, no invisible formatting
    # characters such as U+202E): refuse here in words that name the fix.
    if not project.isprintable():
        raise InvalidArgument(
            "project",
            "must be one line without tabs, control characters or invisible formatting "
            f"characters, got {_shown(project)}; use a key as memory_status lists it",
        )
    return _check_project_text(project)


def _check_project_text(project: str) -> str:
    if len(project) > NoteLimits.PROJECT_CHARS or _CONTROL.search(project):
        raise InvalidArgument(
            "project",
            f"must be one line of at most {NoteLimits.PROJECT_CHARS} characters, without tabs or "
            "other control characters; call memory_status to see the project keys",
        )
    return project


def check_title(value: object) -> str:
    if isinstance(value, str):
        check_text("title", value)
    # One line: a title is shown in lists and headings. Control characters become spaces.
    title = " ".join(_CONTROL.sub(" ", value).split()) if isinstance(value, str) else ""
    if not _visible(title):
        raise InvalidArgument(
            "title",
            "must be a short, non-empty line saying what the note is about"
            + (", in visible characters" if isinstance(value, str) and value.strip() else ""),
        )
    if len(title) > NoteLimits.TITLE_CHARS:
        raise InvalidArgument(
            "title",
            f"is {len(title)} characters; keep it under {NoteLimits.TITLE_CHARS} and put details "
            "in the body",
        )
    return title


def _visible(text: str) -> bool:
    """Whether ``text`` shows anything: not only spaces, control or format characters."""
    return any(
        not char.isspace() and unicodedata.category(char) not in ("Cc", "Cf") for char in text
    )


def check_body(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidArgument("body", f"must be text (markdown), got {_kind(value)}")
    size = len(_utf8("body", value))
    if not value.strip():
        raise InvalidArgument("body", "is empty; say what should be remembered")
    limit = NoteLimits.BODY_BYTES
    if size > limit:
        raise InvalidArgument(
            "body",
            f"is {size:,} bytes, over the {limit:,}-byte ({limit / 1e6:g} MB) limit; store a "
            "summary and where the full text lives instead",
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
        cleaned = check_text("tags", tag).strip()
        if _CONTROL.search(cleaned) or len(cleaned) > NoteLimits.TAG_CHARS:
            raise InvalidArgument(
                "tags",
                f"each tag must be one short line (at most {NoteLimits.TAG_CHARS} characters, no "
                f"control characters); got {_shown(cleaned)}",
            )
        if cleaned and cleaned not in tags:
            tags.append(cleaned)
            if len(tags) > NoteLimits.TAGS:
                raise InvalidArgument(
                    "tags", f"at most {NoteLimits.TAGS} tags; keep the few that help search"
                )
    return tags


def check_supersedes(value: object) -> list[str]:
    """The ids of the notes a new note replaces: a list of note ids as memory_search
    returned them (one id, or ids separated by commas, as text too). Whether each names a
    note is the store's to say (:func:`~anamnesis.mcp.functions.write_memory`)."""
    if value is None:
        return []
    if isinstance(value, str):  # "ID" or "ID1, ID2": the intent is plain
        value = [part for part in value.split(",") if part.strip()]
    if not isinstance(value, list | tuple):
        raise InvalidArgument(
            "supersedes", f"must be a list of note ids (from memory_search), got {_kind(value)}"
        )
    if len(value) > NoteLimits.SUPERSEDES:
        raise InvalidArgument(
            "supersedes", f"at most {NoteLimits.SUPERSEDES:,} ids; name the notes this one replaces"
        )
    ids: list[str] = []
    for item in value:
        note_id = item.strip().upper() if isinstance(item, str) else item
        if not is_valid_id(note_id):
            raise InvalidArgument(
                "supersedes",
                f"every item must be a note id (26 characters, as memory_search returns it), "
                f"got {_shown(item)}",
            )
        if note_id not in ids:
            ids.append(note_id)
    return ids


def check_include_superseded(value: object) -> bool:
    return _flag(
        "include_superseded",
        value,
        "true also searches notes that a newer note replaced, leave it out to search "
        "current notes only",
    )


def check_include_expired(value: object) -> bool:
    return _flag(
        "include_expired",
        value,
        "true also searches notes past their valid_until, leave it out to search notes "
        "still valid only",
    )


def _flag(name: str, value: object, meaning: str) -> bool:
    # Models sometimes send booleans as text ("true"): the intent is plain.
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise InvalidArgument(
            name, f"must be true or false (a JSON boolean), got {_got(value)}; {meaning}"
        )
    return value


# What a date argument takes, as the descriptions say it too.
DATE_FORMS = (
    f"a date ('2027-01-31'), an ISO-8601 timestamp ('2027-01-31T18:00:00Z') or a time "
    f"from today ({FROM_TODAY_FORMS})"
)


def check_date(name: str, meaning: str) -> Callable[[object], str]:
    """The check of a date argument (``valid_until``, ``review_after``, ``as_of``): text
    the store reads (:func:`~anamnesis.store.read_when`: a time from today becomes a
    date); "" means none. ``meaning``: what leaving it out does."""

    def check(value: object) -> str:
        if not isinstance(value, str):
            raise InvalidArgument(name, f"must be {DATE_FORMS} as text, got {_got(value)}")
        try:
            return read_when(check_text(name, value), name)
        except InvalidNote as exc:
            raise InvalidArgument(name, f"{exc.reason}; {meaning}") from None

    return check


def check_force(value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidArgument(
            "force",
            f"must be true or false (a JSON boolean, not {_kind(value)}), got {_got(value)}; "
            "it is reserved and changes nothing, so it can be left out",
        )
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
        "mode": check_mode,
        "include_superseded": check_include_superseded,
        "agent": check_agent,
        "include_expired": check_include_expired,
        "as_of": check_date("as_of", "leave it out to search the memory as it is now"),
    },
    "memory_list": {
        "project": check_project_filter,
        "type": check_type,
        "scope": check_scope,
        "agent": check_agent,
    },
    "memory_status": {},
    "memory_write": {
        "type": lambda v: check_type(v, required=True),
        "title": check_title,
        "body": check_body,
        "project": check_project,
        "tags": check_tags,
        "scope": lambda v: check_scope(v, required=True),
        "supersedes": check_supersedes,
        "valid_until": check_date("valid_until", "leave it out for a note that does not expire"),
        "review_after": check_date("review_after", "leave it out for no review date"),
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
            unknown[0],
            f"unknown {noun} {', '.join(_label(name) for name in unknown[:5])}; "
            f"{tool} takes {allowed}",
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
    """A value as the model sent it, short enough for a message and always valid text.

    repr escapes lone surrogates and control characters; containers are named, not dumped,
    and a huge number is not printed (``str()`` refuses past 4,300 digits).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 64 else "a number with over 19 digits"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        text = repr(value[:80])
        return text if len(value) <= 80 and len(text) <= 60 else text[:57] + "..."
    return _kind(value)


def _got(value: object) -> str:
    """What was sent, for "got ...": text is marked as text, so "5" and 5 read differently."""
    return f"text {_shown(value)}" if isinstance(value, str) else _shown(value)


def _label(name: str) -> str:
    """An argument name for a message; a strange one (the model's own key) is escaped."""
    return name if name.isidentifier() and len(name) <= 40 else _shown(name)
