"""Reading and writing the YAML frontmatter of a note.

Two rules shape this module:

* YAML is only ever loaded with the safe loader. Known fields are read *as written*: a
  hand-edited ``title: yes`` is the word "yes", not ``True``, an unquoted timestamp is its
  text (normalized later), ``- 2024`` in tags is the tag "2024". Keys the store does not
  know are constructed normally, so they round-trip with their YAML types.
* The frontmatter the store itself writes is a handful of ``key: value`` lines. A small
  line parser reads that shape without importing PyYAML (~30-80 ms) or running it
  (~0.2-1 ms a note); anything it is not certain about goes to the YAML path. A property
  test holds the two paths to the same answers.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from types import ModuleType

from anamnesis.store.errors import StoreError
from anamnesis.store.note.yaml_errors import yaml_problem

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any


class FrontmatterError(StoreError):
    """The frontmatter is not a YAML mapping the store can read."""


# Known fields whose value is a single scalar, read as written.
SCALAR_FIELDS = frozenset(
    {
        "id",
        "type",
        "title",
        "project",
        "machine_id",
        "scope",
        "prov_source",
        "prov_model",
        "prov_session",
        "prov_agent",
        "confidence",
        "created_at",
        "updated_at",
        "valid_until",
        "review_after",
        "reviewed_at",
    }
)
# Known fields holding a list of scalars (a lone scalar is accepted too).
LIST_FIELDS = frozenset({"tags", "supersedes", "compatible_with"})
# Every key the store writes; anything else in a file is kept in Memory.extra.
KNOWN_KEYS = SCALAR_FIELDS | LIST_FIELDS

# YAML 1.1 plain scalars that mean null; a known field written this way is "not set".
_NULL_WORDS = frozenset({"", "~", "null", "Null", "NULL"})
_NULL_TAG = "tag:yaml.org,2002:null"
# Plain words PyYAML resolves to bool or null: an unknown key holding one of them is not a
# string, so the fast path leaves such notes to YAML.
_BOOL_WORDS = ("yes", "no", "true", "false", "on", "off")
_NON_STRING_WORDS = _NULL_WORDS | frozenset(
    spelling for word in _BOOL_WORDS for spelling in (word, word.capitalize(), word.upper())
)


@cache
def _yaml() -> ModuleType:
    import yaml  # only for what the fast reader cannot read, or writing: PyYAML is not cheap

    return yaml


def load(text: str, first_line: int = 1) -> dict[str, Any]:
    """Parse frontmatter text (without the ``---`` lines) into a dict.

    Known scalar fields map to ``str`` (or ``None`` when written as null); ``tags`` and
    ``supersedes`` map to ``list[str]`` (or a ``str`` when written as a scalar); unknown
    keys map to their YAML values. ``first_line``: the line of the file ``text`` starts
    on, so that a YAML error names the file's line.
    """
    fast = load_fast(text)
    if fast is not None:
        return fast
    return load_yaml_frontmatter(text, first_line)


# Bounds on what hand-written frontmatter may make the YAML loader build. Aliases let a few
# hundred bytes stand for gigabytes ("billion laughs"); deep nesting overflows the parser's
# C stack (a crash, not an exception) and costs libyaml quadratic time before that.
MAX_DEPTH = 32
MAX_ALIASES = 100
MAX_ALIAS_GROWTH = 10_000  # values and characters that aliases may add to what is written


def load_yaml_frontmatter(text: str, first_line: int = 1) -> dict[str, Any]:
    """The general path: PyYAML's safe loader (its C version when available). A YAML
    error is said as the line (counted from ``first_line``) and what to change there."""
    yaml = _yaml()
    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        aliases = _check_shape(yaml, loader_class, text)
    except yaml.YAMLError as exc:
        raise _not_yaml(exc, text, first_line) from None
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}
        if not isinstance(node, yaml.MappingNode):
            raise FrontmatterError("the frontmatter must be 'key: value' lines")
        if aliases:
            _check_expansion(yaml, node)
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise FrontmatterError(f"frontmatter keys must be text, got {key!r}")
            if key in SCALAR_FIELDS:
                out[key] = _raw_scalar(yaml, key, value_node)
            elif key in LIST_FIELDS:
                out[key] = _raw_list(yaml, key, value_node)
            else:
                out[key] = _constructed(loader, key, value_node)
        return out
    except yaml.YAMLError as exc:
        raise _not_yaml(exc, text, first_line) from None
    finally:
        loader.dispose()


def _not_yaml(exc: BaseException, text: str, first_line: int) -> FrontmatterError:
    return FrontmatterError(
        f"the frontmatter is not valid YAML: {yaml_problem(exc, text, first_line)}"
    )


def _constructed(loader: Any, key: str, node: Any) -> Any:
    """The value of a key the store does not know, as YAML types it. A plain scalar that
    looks like a date but names none (``2024-02-30``, ``0000-01-01``, hour 25) makes the
    safe loader's date constructor raise ``ValueError`` (an offset past a day too), not a
    YAML error: the note is broken, said so, never a crash of whatever read it."""
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, OverflowError) as exc:
        raise FrontmatterError(
            f"{key}: a value looks like a date but is none ({_one_line(exc)});"
            " quote it to keep it as text"
        ) from None


def _check_shape(yaml: ModuleType, loader_class: Any, text: str) -> int:
    """Walk the YAML events (no nodes built yet): refuse nesting deeper than
    :data:`MAX_DEPTH` or more than :data:`MAX_ALIASES` aliases; return the alias count."""
    depth = aliases = 0
    opening = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    closing = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    for event in yaml.parse(text, Loader=loader_class):
        if isinstance(event, opening):
            depth += 1
            if depth > MAX_DEPTH:
                raise FrontmatterError(
                    f"the frontmatter nests lists or mappings more than {MAX_DEPTH} deep"
                )
        elif isinstance(event, closing):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise FrontmatterError(
                    f"the frontmatter uses more than {MAX_ALIASES} YAML aliases (*name);"
                    " write the values out instead"
                )
    return aliases


def _check_expansion(yaml: ModuleType, root: Any) -> None:
    """Refuse aliases that refer to their own container or that expand the data by more
    than :data:`MAX_ALIAS_GROWTH` values and characters (each node is sized once)."""
    sizes: dict[int, int] = {}
    own: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Any) -> int:  # depth is bounded by MAX_DEPTH: recursion is safe
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise FrontmatterError("a YAML alias (*name) refers to the value that contains it")
        active.add(key)
        if isinstance(node, yaml.ScalarNode):
            own[key] = 1 + len(node.value)
            total = own[key]
        elif isinstance(node, yaml.SequenceNode):
            own[key] = 1
            total = 1 + sum(size(item) for item in node.value)
        else:
            own[key] = 1
            total = 1 + sum(size(k) + size(v) for k, v in node.value)
        active.discard(key)
        sizes[key] = total
        return total

    growth = size(root) - sum(own.values())
    if growth > MAX_ALIAS_GROWTH:
        raise FrontmatterError(
            f"YAML aliases (*name) in the frontmatter expand to {growth:,} more values and"
            f" characters than are written (at most {MAX_ALIAS_GROWTH:,}); write them out"
        )


def dump(meta: dict[str, Any]) -> str:
    """Emit frontmatter exactly as the spec's writer does (safe_dump, insertion order).

    PyYAML's pure-Python SafeDumper is the reference: its C twin escapes characters outside
    the Basic Multilingual Plane (emoji become "\\U0001F600"), so files would differ by
    machine. The reference costs ~0.8 ms a note, so :func:`dump_fast` writes the common
    shape itself; a property test holds it to the reference byte for byte.
    """
    fast = dump_fast(meta)
    if fast is not None:
        return fast
    text: str = _yaml().dump(meta, Dumper=_dumper(), sort_keys=False, allow_unicode=True)
    return text


# YAML 1.1 line breaks besides \n and \r. PyYAML writes them raw inside single quotes and
# then reads them back as spaces; double quotes escape them (\N, \L, \P) and round-trip.
_UNICODE_BREAKS = re.compile("[\x85\u2028\u2029]")


@cache
def _dumper() -> Any:
    """SafeDumper, except that strings holding Unicode line breaks are double-quoted."""
    yaml = _yaml()

    class NoteDumper(yaml.SafeDumper):  # type: ignore[name-defined,misc]
        pass

    def represent_str(dumper: Any, data: str) -> Any:
        style = '"' if _UNICODE_BREAKS.search(data) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    NoteDumper.add_representer(str, represent_str)
    return NoteDumper


def _raw_scalar(yaml: ModuleType, key: str, node: Any) -> str | None:
    if not isinstance(node, yaml.ScalarNode):
        raise FrontmatterError(f"{key} must be a single value, not a list or mapping")
    if node.tag == _NULL_TAG:  # what YAML itself resolved as null: "", "~", "null", ...
        return None
    value: str = node.value
    return value


def _raw_list(yaml: ModuleType, key: str, node: Any) -> list[str] | str | None:
    if isinstance(node, yaml.ScalarNode):
        return _raw_scalar(yaml, key, node)
    if not isinstance(node, yaml.SequenceNode):
        raise FrontmatterError(f"{key} must be a list of values")
    items: list[str] = []
    for item in node.value:
        value = _raw_scalar(yaml, key, item)
        if value is not None:
            items.append(value)
    return items


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


# --- the fast path ---------------------------------------------------------------------

# A frontmatter line is "key:" or "key: value"; a list item is "- value".
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SINGLE_QUOTED = re.compile(r"'((?:[^'\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]|'')*)'")
# Characters PyYAML reads inside a plain scalar without any special meaning: printable,
# not a line break (PyYAML also breaks lines at NEL, LS and PS), not a BOM.
_PLAIN_CHAR = r"[^\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]"
# A plain scalar we are sure about: no leading indicator, no leading/trailing space.
_SAFE_PLAIN = re.compile(
    rf"[^\s\-?:,\[\]{{}}#&*!|>'\"%@`\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]"
    rf"(?:{_PLAIN_CHAR}*[^\s\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff])?"
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def load_fast(text: str) -> dict[str, Any] | None:
    """Parse the simple shape the store writes, or return None to defer to YAML.

    Returns None on anything unusual: quoting styles other than single quotes, folded or
    multi-line values, indentation, flow collections, comments after values, anchors,
    unknown keys whose values are not plain identifiers.
    """
    out: dict[str, Any] = {}
    list_key: str | None = None  # set while reading the "- item" lines under "key:"
    for line in text.split("\n"):
        if list_key is not None:
            if line.startswith("- "):  # a list item; the split lines hold no "\n"
                value = _fast_scalar(line[2:])
                if value is None:  # a null or unusual item: let YAML decide
                    return None
                out[list_key].append(value)
                continue
            _close_list(out, list_key)
            list_key = None
        if not line or line.startswith("#"):
            continue
        # String operations for "key:" and "key: value" lines (a reindex parses thousands
        # of notes); the regex still judges any key the store does not know.
        key, colon, rest = line.partition(":")
        if not colon or (key not in KNOWN_KEYS and _KEY.fullmatch(key) is None):
            return None
        if rest.startswith(" "):
            raw = rest[1:]
        elif rest:
            return None
        else:
            raw = ""
        if key in out:
            return None
        if key in SCALAR_FIELDS:
            if raw in _NULL_WORDS:
                out[key] = None
                continue
            value = _fast_scalar(raw)
            if value is None:
                return None
            out[key] = value
        elif key in LIST_FIELDS:
            if raw == "":
                out[key] = []
                list_key = key
            elif raw == "[]":
                out[key] = []
            else:
                value = _fast_scalar(raw)
                if value is None:
                    return None
                out[key] = value
        else:
            extra = _fast_extra(raw)
            if extra is None:
                return None
            out[key] = extra
    if list_key is not None:
        _close_list(out, list_key)
    return out


def _close_list(out: dict[str, Any], key: str) -> None:
    # "key:" followed by no items is null in YAML, not an empty list.
    if not out[key]:
        out[key] = None


# Most values recur from note to note (type, project, machine, tags, the confidence), so
# a reindex judges each spelling once.
@lru_cache(maxsize=4096)
def _fast_scalar(raw: str) -> str | None:
    """The text of a single-quoted or safe plain scalar, or None when unsure."""
    if raw.startswith("'"):
        quoted = _SINGLE_QUOTED.fullmatch(raw)
        return quoted.group(1).replace("''", "'") if quoted is not None else None
    if raw in _NULL_WORDS or _SAFE_PLAIN.fullmatch(raw) is None:
        return None
    if ": " in raw or " #" in raw or raw.endswith(":"):
        return None
    return raw


def _fast_extra(raw: str) -> str | None:
    """An unknown key's value, only when YAML would certainly read it as this string."""
    if raw.startswith("'"):
        return _fast_scalar(raw)
    if _IDENTIFIER.fullmatch(raw) is not None and raw not in _NON_STRING_WORDS:
        return raw
    return None


# --- the fast writer ---------------------------------------------------------------------

# The column past which PyYAML folds a long scalar onto the next line.
_BEST_WIDTH = 80
# Characters PyYAML writes as they are with allow_unicode (no escaping, no line break).
_VERBATIM = re.compile(
    r"[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe]*"
)
_FLOAT_REPR = re.compile(r"-?[0-9]+\.[0-9]+")


@cache
def _resolver() -> Any:
    return _yaml().resolver.Resolver()


def dump_fast(meta: dict[str, Any]) -> str | None:
    """The reference dumper's output for flat metadata of short, printable strings, a
    float and lists of those; None for anything else."""
    if not meta:
        return None
    lines: list[str] = []
    for key, value in meta.items():
        if not _IDENTIFIER.fullmatch(key) or key in _NON_STRING_WORDS:
            return None
        if isinstance(value, list):
            if not value:
                lines.append(f"{key}: []")
                continue
            lines.append(f"{key}:")
            for item in value:
                scalar = _emit_scalar(item, 2) if isinstance(item, str) else None
                if scalar is None:
                    return None
                lines.append(f"- {scalar}")
        elif isinstance(value, str):
            scalar = _emit_scalar(value, len(key) + 2)
            if scalar is None:
                return None
            lines.append(f"{key}: {scalar}")
        elif isinstance(value, float) and not isinstance(value, bool):
            text = repr(value)
            if _FLOAT_REPR.fullmatch(text) is None:
                return None
            lines.append(f"{key}: {text}")
        else:
            return None
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=4096)  # types, scopes, projects, machines, tags repeat across notes
def _emit_scalar(value: str, column: int) -> str | None:
    """``value`` as PyYAML would write it at ``column``: plain, or single-quoted."""
    if not value or _VERBATIM.fullmatch(value) is None:
        return None
    emitted = value if _plain_allowed(value) else "'" + value.replace("'", "''") + "'"
    if column + len(emitted) > _BEST_WIDTH and " " in value:
        return None  # PyYAML would fold it across lines: leave that to PyYAML
    return emitted


def _plain_allowed(value: str) -> bool:
    if value[0] == " " or value[-1] == " ":
        return False
    if value[0] in "#,[]{}&*!|>'\"%@`":
        return False
    if value[0] in "?:-" and (len(value) == 1 or value[1] == " "):
        return False
    if value.startswith(("---", "...")):
        return False
    if ": " in value or value.endswith(":") or " #" in value:
        return False
    # The plain text must read back as a string, not a bool, number, date or null.
    resolved: str = _resolver().resolve(_yaml().ScalarNode, value, (True, False))
    return resolved == "tag:yaml.org,2002:str"
