"""Whether a rewrite of a note kept its facts: checked mechanically, never by a model.

Every fact of the old text must still be in the new one, and, checked both ways (a model's
rewrite), the new text may hold no fact the old one did not: a model can drop a fact, and
it can add one (a ``curl ... | sh`` line) that would then pass for what the note said.
The facts:

* **numbers**: ``8080``, ``3.11``, ``10.0.0.1``, ``1,500`` (read as ``1500``): digits that do
  not hang on to a letter or an underscore (``v2``, ``ERR_123`` and ``sha256`` are
  identifiers);
* **urls**: ``scheme://...`` up to a space, a quote, a bracket or a closing parenthesis;
  trailing punctuation is not part of it;
* **paths**: any other run of characters with a ``/`` in it (``src/app.py:42``, ``~/.ssh``,
  ``/etc/hosts``, and also ``and/or``: better a rewrite refused than a path lost);
* **identifiers**: ``snake_case`` and ``ERR_123`` (an underscore between letters or digits),
  ``camelCase`` and ``MemoryStore`` (a lower-case letter before an upper-case one),
  ``dotted.names`` and ``file.ext`` (a segment of two characters or more: ``e.g`` is not one),
  versions (``v1.2.3``, ``1.2.3-rc1``), words mixing letters and digits (``x86``, ``a1b2c3d``)
  and ``--flags``;
* **code**: the text of every inline code span (`` `...` ``) outside fenced blocks;
* **commands**: every line starting with ``$ ``, and every line (comments aside) of a
  fenced ``sh``, ``bash``, ``shell``, ``zsh`` or ``fish`` block (a ``console`` block: its
  ``$`` lines).

Numbers, URLs, paths and identifiers are compared as sets extracted the same way from both
texts. Code spans and commands, whitespace collapsed, must occur in the new text (with
whitespace collapsed) where no letter, digit, ``_``, ``-`` or ``/`` touches either end:
markup may change around them (a span may become a ``$`` line), their text may not. The
number of an ordered list item (``1.`` at the start of a line) is markup, not a fact.
Additions are found the same way, the other way round.

And at least :data:`MIN_WORDS_KEPT` (95%) of the old text's other distinct content words
must be there: words of two letters or more, lowercased, minus :data:`STOP_WORDS`. Nothing
is stemmed: ``tests`` and ``test`` are two words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

MIN_WORDS_KEPT = 0.95
# How many missing items of each kind a description names.
SHOWN = 3
# The kinds, in the order a report names them; every one but words must be kept whole.
KINDS = ("numbers", "urls", "paths", "identifiers", "code", "commands", "words")
STRICT_KINDS = KINDS[:-1]
# Words are the one kind a rewrite may add: saying the same thing differently takes some.
SPAN_KINDS = ("code", "commands")

_STOP_WORD_TEXT = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can cannot could did do does doing done down
    during each either else etc even ever every few for from further get gets got had has
    have having he her here hers him his how however i if in into is it its itself just
    let like may me might more most much must my no nor not now of off on once one only or
    other our ours out over own per quite rather really same she should since so some such
    than that the their theirs them then there these they this those though through thus
    to too under until up upon us very via was we well were what when where whether which
    while who whom whose why will with within without would yet you your yours
    aren't can't couldn't didn't doesn't don't hadn't hasn't haven't i'd i'll i'm i've
    isn't it'd it'll it's let's shouldn't that's there's they're wasn't we'd we'll we're
    we've weren't what's won't wouldn't you'd you'll you're you've
"""
STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())

_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`()\[\]]+")
_TRAILING = ".,;:!?*"
_NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?![\w,]|\.\d)|\d+(?:\.\d+)*(?!\w))")
_PATH_TOKEN = re.compile(r"[^\s()\[\]<>\"'`,;|{}]+")
_TOKEN = re.compile(r"\w(?:[\w.+-]*\w)?")
_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")
_VERSION = re.compile(
    r"v\d+(?:\.\d+)*(?:[-+][0-9A-Za-z.]+)?|\d+(?:\.\d+){2,}(?:[-+][0-9A-Za-z.]+)?"
)
_DOTTED = re.compile(r"[A-Za-z_][\w-]*(?:\.[\w-]+)+")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LIST_NUMBER = re.compile(r"^([ \t]*)\d{1,3}[.)](?=[ \t])", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")
_SHELLS = frozenset({"sh", "bash", "shell", "zsh", "fish"})
_SESSIONS = frozenset({"console", "shell-session", "shellsession"})


@dataclass(frozen=True)
class Facts:
    """The facts of one text, each kind in order of first appearance, without repeats."""

    numbers: tuple[str, ...]
    urls: tuple[str, ...]
    paths: tuple[str, ...]
    identifiers: tuple[str, ...]
    code: tuple[str, ...]
    commands: tuple[str, ...]
    words: tuple[str, ...]

    def of(self, kind: str) -> tuple[str, ...]:
        values: tuple[str, ...] = getattr(self, kind)
        return values


@dataclass(frozen=True)
class FactCheck:
    """What a rewrite lost: the missing items of each kind (in the old text's order), and
    how many of the old text's distinct content words it kept; checked both ways, what it
    added too (``added``: items of the strict kinds the old text did not have)."""

    missing: Mapping[str, tuple[str, ...]]
    words: int
    words_kept: int
    min_words_kept: float = MIN_WORDS_KEPT
    added: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def word_share(self) -> float:
        """The share of the old text's content words still there (1.0 when it had none)."""
        return self.words_kept / self.words if self.words else 1.0

    @property
    def failed_kinds(self) -> tuple[str, ...]:
        """The kinds that make the rewrite fail: a strict kind with anything missing, and
        ``words`` when too few were kept."""
        failed = [kind for kind in STRICT_KINDS if self.missing.get(kind)]
        if self.word_share < self.min_words_kept - 1e-9:
            failed.append("words")
        return tuple(failed)

    @property
    def added_kinds(self) -> tuple[str, ...]:
        """The kinds of which the rewrite added an item (checked both ways only)."""
        return tuple(kind for kind in STRICT_KINDS if self.added.get(kind))

    @property
    def ok(self) -> bool:
        return not self.failed_kinds and not self.added_kinds

    def shown(self, limit: int = SHOWN) -> dict[str, list[str]]:
        """The first ``limit`` missing items of each failed kind."""
        return {kind: list(self.missing.get(kind, ())[:limit]) for kind in self.failed_kinds}

    def shown_added(self, limit: int = SHOWN) -> dict[str, list[str]]:
        """The first ``limit`` added items of each kind with any."""
        return {kind: list(self.added[kind][:limit]) for kind in self.added_kinds}

    def describe(self, limit: int = SHOWN) -> str:
        """One line: what is missing and what was added, the first ``limit`` items of each
        kind."""
        parts = []
        for kind in self.failed_kinds:
            named = _named(self.missing.get(kind, ()), limit)
            if kind == "words":
                parts.append(
                    f"words: {self.word_share:.1%} kept, under {self.min_words_kept:.0%} "
                    f"(lost {named})"
                )
            else:
                parts.append(f"{kind}: {named}")
        said = ["missing " + "; ".join(parts)] if parts else []
        said += [self.describe_added(limit)] if self.added_kinds else []
        return "; and ".join(said) or "every fact kept"

    def describe_added(self, limit: int = SHOWN) -> str:
        """One line: what was added, the first ``limit`` items of each kind ("" for none)."""
        added = [f"{kind}: {_named(self.added[kind], limit)}" for kind in self.added_kinds]
        return "adds " + "; ".join(added) if added else ""

    def to_dict(self, limit: int = SHOWN) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "missing": self.shown(limit),
            "missing_counts": {kind: len(self.missing.get(kind, ())) for kind in KINDS},
            "added": self.shown_added(limit),
            "words": self.words,
            "words_kept": self.words_kept,
        }


def _named(items: tuple[str, ...], limit: int) -> str:
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def note_text(title: str, body: str) -> str:
    """A note as it is measured, checked and sent: its title as a heading, then its body."""
    return f"# {title}\n\n{body}"


def extract_facts(text: str) -> Facts:
    """Every fact of ``text`` the check looks for (see the module doc)."""
    prose, blocks = _split_fences(text)
    urls = [url.rstrip(_TRAILING) for url in _URL.findall(text)]
    rest = _LIST_NUMBER.sub(r"\1", _URL.sub(" ", text))
    code = [_squash(span) for line in prose for span in _CODE_SPAN.findall(line)]
    commands = [*_dollar_lines(prose), *(c for lang, body in blocks for c in _commands(lang, body))]
    return Facts(
        numbers=_unique(number.replace(",", "") for number in _NUMBER.findall(rest)),
        urls=_unique(urls),
        paths=_unique(_paths(rest)),
        identifiers=_unique(_identifiers(rest)),
        code=_unique(span for span in code if span),
        commands=_unique(command for command in commands if command),
        words=_unique(_words(rest)),
    )


def check_facts(
    old: str, new: str, *, min_words_kept: float = MIN_WORDS_KEPT, both_ways: bool = False
) -> FactCheck:
    """What of ``old``'s facts ``new`` lost and, ``both_ways``, which facts it added that
    ``old`` does not have (see the module doc); ``.ok`` when nothing that matters did.
    ``min_words_kept=0`` checks the strict kinds alone."""
    before, after = extract_facts(old), extract_facts(new)
    missing = _missing(before, after, _squash(new), KINDS)
    added = _missing(after, before, _squash(old), STRICT_KINDS) if both_ways else {}
    words = len(before.words)
    return FactCheck(missing, words, words - len(missing["words"]), min_words_kept, added)


def _missing(
    before: Facts, after: Facts, flat_after: str, kinds: tuple[str, ...]
) -> dict[str, tuple[str, ...]]:
    """The items of ``before`` (each of ``kinds``) that ``after`` lacks; code spans and
    commands are looked for in ``flat_after``, the whole text ``after`` came from."""
    missing: dict[str, tuple[str, ...]] = {}
    for kind in kinds:
        if kind in SPAN_KINDS:
            missing[kind] = tuple(i for i in before.of(kind) if not _occurs(i, flat_after))
        else:
            kept = set(after.of(kind))
            missing[kind] = tuple(item for item in before.of(kind) if item not in kept)
    return missing


def _occurs(item: str, flat: str) -> bool:
    pattern = r"(?<![\w/-])" + re.escape(item) + r"(?![\w/-])"
    return re.search(pattern, flat) is not None


def _squash(text: str) -> str:
    return " ".join(text.split())


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def fence_opening(line: str) -> tuple[str, str] | None:
    """The fence (```` ``` ```` or ``~~~``, as long as written) and the language a line
    opens a fenced code block with, or None."""
    opening = _FENCE.match(line)
    return (opening.group(1), opening.group(2).lower()) if opening else None


def closes_fence(line: str, fence: str) -> bool:
    """Whether ``line`` closes the block ``fence`` opened."""
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.strip(fence[0])


def _split_fences(text: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The lines outside fenced code blocks, and each block's language and lines."""
    prose: list[str] = []
    blocks: list[tuple[str, list[str]]] = []
    fence = ""
    for line in text.splitlines():
        if fence:
            if closes_fence(line, fence):
                fence = ""
            else:
                blocks[-1][1].append(line)
            continue
        opening = fence_opening(line)
        if opening:
            fence = opening[0]
            blocks.append((opening[1], []))
        else:
            prose.append(line)
    return prose, blocks


def _dollar_lines(lines: Iterable[str]) -> Iterator[str]:
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("$ "):
            yield _squash(stripped[2:])


def _commands(lang: str, lines: list[str]) -> Iterator[str]:
    if lang not in _SHELLS:
        yield from _dollar_lines(lines)
        return
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield _squash(stripped[2:] if stripped.startswith("$ ") else stripped)


def _paths(text: str) -> Iterator[str]:
    for token in _PATH_TOKEN.findall(text):
        token = token.strip("*").rstrip(_TRAILING)
        if "/" in token and any(char.isalnum() for char in token):
            yield token


def _identifiers(text: str) -> Iterator[str]:
    yield from _FLAG.findall(text)
    for token in _TOKEN.findall(text):
        if _is_identifier(token, whole=True):
            yield token
            continue
        for part in re.split(r"[.+-]", token):
            if part and _is_identifier(part, whole=False):
                yield part


def _is_identifier(token: str, *, whole: bool) -> bool:
    if whole and _VERSION.fullmatch(token):
        return True
    if whole and _DOTTED.fullmatch(token):
        return any(len(segment) >= 2 for segment in token.split("."))
    if "." in token:
        return False
    return bool(
        re.search(r"[A-Za-z0-9]_+[A-Za-z0-9]", token)
        or re.search(r"[a-z][A-Z]", token)
        or (re.search(r"[A-Za-z]", token) and re.search(r"\d", token))
    )


def _words(text: str) -> Iterator[str]:
    for match in _WORD.findall(text):
        word = match.lower().replace("’", "'")
        if len(word) >= 2 and word not in STOP_WORDS:
            yield word
