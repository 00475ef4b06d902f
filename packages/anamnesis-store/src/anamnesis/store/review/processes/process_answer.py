"""What a review's second process hands back (:mod:`.pair_batch`'s fork, or
:mod:`.pair_spawn`'s new interpreter): plain data, pickled, read once the process ended."""

from __future__ import annotations

import pickle


def packed(answer: object) -> bytes:
    """The answer as the second process writes it."""
    return pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)


def unpacked(data: bytes, status: int) -> object:
    """The answer a process wrote, or None when it failed (``status`` is not 0) or wrote
    only part of it before it ended."""
    if status != 0:
        return None
    try:
        return pickle.loads(data)  # written by our own child, just now
    except Exception:  # a half-written answer is no answer
        return None
