"""JSON from outside (a model's reply, an import, another tool's file), its nesting bounded
before it is parsed.

Python's parser recurses once per level: JSON nested 100,000 deep ends in a RecursionError,
not a ValueError, so every handler that expects a bad parse to be a ValueError lets it
through as a crash (and data a few hundred levels deep can crash the code that prints it).
Real data nests a few levels (an API's envelope, then the object a prompt asked for; a note
whose ``extra`` may nest 31), so anything deeper than :data:`MAX_DEPTH` is refused unparsed.
The scan costs about twice the parse: a hook's hot path that reads megabytes (the
transcript reader) catches the parser's RecursionError instead.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate, count
from operator import sub
from typing import Any

MAX_DEPTH = 64
# A JSON string, escapes included (the unrolled form: a long string is one fast run):
# brackets inside one are text, not nesting.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
# An opening bracket counts 2 and a closing one 0, so that after n brackets the running sum
# minus n is the depth: the sums run in C, not a Python loop over megabytes.
_STEPS = str.maketrans("[{]}", "\x02\x02\x00\x00")


class JsonTooDeep(ValueError):
    """JSON nested deeper than :data:`MAX_DEPTH` (a ValueError, as any unparsable JSON)."""


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of ``text`` nest (0 for a scalar), counted without
    parsing: brackets inside strings do not count."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub('""', text))
    steps = brackets.translate(_STEPS).encode("latin-1")
    return max(map(sub, accumulate(steps), count(1)), default=0)


def load_json(text: str) -> Any:
    """``json.loads(text)``, refusing JSON nested deeper than :data:`MAX_DEPTH` with
    :class:`JsonTooDeep`. Raises ValueError for anything that is not JSON."""
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise JsonTooDeep(f"JSON nested {depth} levels deep, more than the {MAX_DEPTH} allowed")
    return json.loads(text)
