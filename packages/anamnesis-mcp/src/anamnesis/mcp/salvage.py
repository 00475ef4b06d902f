"""Reading a line the SDK's JSON parser refused, far enough to answer it.

pydantic-core refuses a whole message for a lone surrogate escape (``"\\ud800"``: valid JSON
text, not valid Unicode) or for nesting past its limit of about 200 levels, and the SDK then
drops it without a word. Python's own parser accepts lone surrogates; nesting is cut here at
:data:`MAX_NESTING` levels first (Python's parser would hit the recursion limit, and no tool
argument is more than two levels deep). What is cut and where a surrogate sits come back as
a :class:`Flaw`, so the answer can name the field.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Literal

MAX_NESTING = 100

# A cut container becomes this text, then an empty container again once parsed. The random
# part keeps a client's own text from ever being taken for a cut.
_NONCE = os.urandom(8).hex()
_CUT_MARK = {"[": f"\x00cut-list-{_NONCE}", "{": f"\x00cut-object-{_NONCE}"}
_CUT_EMPTY: dict[str, type[list[Any]] | type[dict[str, Any]]] = {
    _CUT_MARK["["]: list,
    _CUT_MARK["{"]: dict,
}
# A JSON string (escapes included) or one bracket: enough to track nesting outside strings.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
# Where an id sits in a message too broken to parse: first (after "jsonrpc" or "method"), as
# Python clients write it, or last, as the TypeScript SDK writes it.
_ID = r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")'
_ID_FIRST = re.compile(
    r'\A\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.){0,200}"\s*,\s*)*' + _ID
)
_ID_LAST = re.compile(r"[{,]\s*" + _ID + r"\s*\}\s*\Z")

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Flaw:
    """The first unusable part of a value: a lone surrogate, or nesting that was cut."""

    path: Path
    kind: Literal["surrogate", "surrogate-key", "too-deep"]
    text: str = ""

    def describe(self) -> str:
        """What is wrong and what to send instead, for "<where> ..."."""
        if self.kind == "too-deep":
            return (
                f"is nested more than {MAX_NESTING} levels deep; send flat values (text, "
                "numbers, true/false, or a list of text)"
            )
        at = _SURROGATE.search(self.text)
        position = at.start() if at else 0
        what = "has a name with" if self.kind == "surrogate-key" else "has"
        return (
            f"{what} an invalid character at position {position} (a lone surrogate, "
            f"{self.text[position]!r}); remove it or send the character it was meant to be"
        )


def loads_leniently(text: str) -> Any:
    """``text`` parsed as JSON, containers deeper than :data:`MAX_NESTING` cut to markers.

    Raises ``ValueError`` saying why when it is not JSON even so.
    """
    cut = _cut_deep(text)
    try:
        return json.loads(cut)
    except json.JSONDecodeError as exc:
        # A position in the cut text would point at the wrong place in the client's.
        where = f" at character {exc.pos:,}" if cut is text else ""
        raise ValueError(f"{exc.msg}{where}") from None


def mend(value: Any, path: Path = ()) -> tuple[Any, Flaw | None]:
    """``value`` with cut containers empty again, and its first flaw (None: nothing wrong)."""
    flaws: list[Flaw] = []
    return _mend(value, path, flaws), (flaws[0] if flaws else None)


def _mend(value: Any, path: Path, flaws: list[Flaw]) -> Any:
    # Recursion is bounded: loads_leniently cut everything below MAX_NESTING levels.
    if isinstance(value, str):
        empty = _CUT_EMPTY.get(value)
        if empty is not None:
            flaws.append(Flaw(path, "too-deep"))
            return empty()
        if has_surrogate(value):
            flaws.append(Flaw(path, "surrogate", value))
        return value
    if isinstance(value, list):
        return [_mend(item, (*path, index), flaws) for index, item in enumerate(value)]
    if isinstance(value, dict):
        mended: dict[str, Any] = {}
        for key, item in value.items():
            if has_surrogate(key):
                flaws.append(Flaw((*path, key), "surrogate-key", key))
            mended[key] = _mend(item, (*path, key), flaws)
        return mended
    return value


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate: not Unicode, cannot be written as UTF-8."""
    return _SURROGATE.search(text) is not None


def find_id(text: str) -> int | str | None:
    """The request id of a message that cannot be parsed, when it can be found for sure.

    Only an id first or last in the top-level object counts: anywhere else it could be part
    of the arguments. An id that could not be sent back (a lone surrogate) is not found.
    """
    found = _ID_FIRST.search(text[:4096]) or _ID_LAST.search(text[-4096:])
    if found is None:
        return None
    try:
        request_id = json.loads(found.group(1))
    except ValueError:
        return None
    if isinstance(request_id, str) and has_surrogate(request_id):
        return None
    return request_id if isinstance(request_id, int | str) else None


def _cut_deep(text: str) -> str:
    """``text`` with every container opened below :data:`MAX_NESTING` levels replaced by a
    marker string. Unbalanced brackets mean it is not JSON: the parser refuses it later."""
    pieces: list[str] = []
    depth = 0
    kept_from = 0
    cut_from: int | None = None
    cut_kind = ""
    for token in _TOKENS.finditer(text):
        char = token.group()[0]
        if char == '"':
            continue
        if char in "[{":
            depth += 1
            if depth == MAX_NESTING + 1:
                cut_from, cut_kind = token.start(), char
        else:
            if depth == MAX_NESTING + 1 and cut_from is not None:
                pieces.append(text[kept_from:cut_from])
                pieces.append(json.dumps(_CUT_MARK[cut_kind]))
                kept_from, cut_from = token.end(), None
            depth -= 1
    if cut_from is not None:
        # Never closed: the text is not JSON. Drop the rest rather than hand the parser
        # thousands of levels; what is left is refused just the same, quickly.
        pieces.append(text[kept_from:cut_from])
        pieces.append(json.dumps(_CUT_MARK[cut_kind]))
        return "".join(pieces)
    if not pieces:
        return text
    pieces.append(text[kept_from:])
    return "".join(pieces)
