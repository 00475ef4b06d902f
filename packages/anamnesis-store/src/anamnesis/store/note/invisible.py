"""Characters a reader cannot see: left out of what search compares, escaped where shown.

Two rules, one list of characters each, both here:

* :func:`match_text`: the text search compares, a note's and a query's alike. SQLite's
  ``unicode61`` tokenizer reads a zero-width space, a soft hyphen or a direction mark as a
  separator, so ``pass\\u200bword`` in a note was the words ``pass`` and ``word``, and the
  query ``password`` never found it. Without them both sides read ``password``. The file
  keeps its bytes: only the index's full-text table, the vectors' passages and the query
  see the text matched.
* :data:`INVISIBLE_CHARS`: the same characters are read through by secret detection
  (:mod:`.redact`): one inside a token hid it from every pattern.
* :func:`display_safe`: a note's fields as shown to a person or put in an agent's context.
  Direction controls make a title read in another order than it is written in
  (``invoice\\u202efdp.exe`` is shown as ``invoiceexe.pdf``), and control characters act on
  the terminal: both are shown as ``\\uXXXX``. Every character escaped is in the Basic
  Multilingual Plane and is not JSON whitespace, so JSON text stays JSON, with the same
  values, once made safe.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from typing import Final

# The direction controls: embeddings and overrides (U+202A-U+202E), isolates
# (U+2066-U+2069), and the marks (U+200E, U+200F, U+061C), which alone can already turn a
# run of numbers round ("1 2" after a right-to-left mark reads "2 1").
_DIRECTION = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Characters that show nothing and split a word for the tokenizer (Unicode's
# default-ignorable code points in the Basic Multilingual Plane): soft hyphen, zero-width
# space, non-joiner and joiner, word joiner, BOM, the direction controls, combining grapheme
# joiner, the Mongolian format controls, the invisible operators and deprecated format
# controls (U+2061-U+206F), variation selectors, the Hangul and Khmer fillers. Spelled out
# one by one, the commonest first: looking for each (``str.__contains__``) is ten times
# faster than a character class's scan, and a range beyond the Basic Multilingual Plane (the
# tag characters) makes every search through a note's text three to four times slower.
INVISIBLE_CHARS: Final = "".join(
    [
        "\u200b\u200c\u200d\u2060\ufeff\u00ad",  # those a copied token most often holds
        "\u200e\u200f\u034f\u061c\u115f\u1160\u17b4\u17b5\u3164\uffa0",
        *map(chr, range(0x180B, 0x1810)),
        *map(chr, range(0x202A, 0x202F)),
        *map(chr, range(0x2061, 0x2070)),
        *map(chr, range(0xFE00, 0xFE10)),
    ]
)
INVISIBLE: Final = re.compile(f"[{INVISIBLE_CHARS}]")
# Shown escaped: the direction controls and the control characters (C0, DEL, C1) but tab,
# line feed and carriage return, which callers fold into spaces where a field is one line.
_UNSAFE = re.compile(f"[{_DIRECTION}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

# The name :func:`register` gives :func:`match_text` in SQL (the index's full-text view).
SQL_FUNCTION: Final = "match_text"


def match_text(text: str) -> str:
    """``text`` as search compares it: without the invisible characters that would split
    its words (a text without any comes back as it is)."""
    if text.isascii() or INVISIBLE.search(text) is None:  # isascii: no scan at all
        return text
    return INVISIBLE.sub("", text)


def display_safe(text: str) -> str:
    """``text`` with every direction control and control character (tab, line feed and
    carriage return aside) shown as its escape, ``\\u202e``: what a listing, a note's
    header or a hook's block prints. Applied to JSON text it keeps the JSON's values."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escaped, text)


def _escaped(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


def register(conn: sqlite3.Connection) -> None:
    """Make :data:`SQL_FUNCTION` callable on ``conn`` (deterministic: the full-text
    table's content view calls it; NULL stays NULL)."""
    conn.create_function(SQL_FUNCTION, 1, _sql_match_text, deterministic=True)


def _sql_match_text(text: str | None) -> str | None:
    return None if text is None else match_text(text)
