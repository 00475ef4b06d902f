"""Helpers of the contradiction-confirmation tests (no tests here): a store holding
candidate pairs and the pairs themselves (the store's own records, so that a test can
state exactly what a model is asked about), replies a model might send, and a snapshot of the
note trees (which no confirmation may change)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from anamnesis.reflect import LlmSettings
from anamnesis.reflect.contradiction_check import build_prompt
from anamnesis.store import Contradiction, Difference, Memory, MemoryStore

# Calls answer at once in these tests: a short timeout keeps a mistake short.
SETTINGS = LlmSettings(timeout_s=5.0)
SENT_PAIR = re.compile(r"=== pair (p\d+)(?: \(wider net\))? ===")


def note(store: MemoryStore, title: str, body: str, **fields: Any) -> Memory:
    fields.setdefault("type", "procedural")
    fields.setdefault("project", "app")
    return store.write(title=title, body=body, **fields)


def three_pairs(store: MemoryStore) -> list[Contradiction]:
    """A port that moved, a deploy command that changed, and two look-alikes about
    different services: newest first, as the finder lists them."""
    port_old = note(store, "Dev server port", "The dev server listens on port 3000.")
    port_new = note(store, "Dev server port", "The dev server listens on port 8080 now.")
    deploy_old = note(store, "Deploy", "Deploy with `make deploy-2`.")
    deploy_new = note(store, "Deploy", "Deploy with `make deploy-3`; deploy-2 is gone.")
    api = note(store, "API port", "The API server listens on port 9000.")
    admin = note(store, "Admin port", "The admin server listens on port 9100.")
    return [
        Contradiction(api, admin, (Difference("port", "server listens on port", "9000", "9100"),)),
        Contradiction(
            deploy_old, deploy_new, (Difference("command", "deploy", "deploy-2", "deploy-3"),)
        ),
        Contradiction(port_old, port_new, (Difference("port", "dev server port", "3000", "8080"),)),
    ]


def one_pair_a_call(pairs: Sequence[Contradiction]) -> LlmSettings:
    """Settings whose budget holds any one of ``pairs`` but no two of them."""
    biggest = max(build_prompt([pair], 10**6).tokens for pair in pairs)
    return LlmSettings(timeout_s=5.0, max_input_tokens=biggest)


def verdicts_reply(*entries: Any, fence: bool = True, **extra: Any) -> str:
    """A reply holding ``entries`` (and any other top-level keys), fenced as models like."""
    text = json.dumps({"verdicts": list(entries), **extra})
    return f"Here is my answer:\n```json\n{text}\n```" if fence else text


def verdict(pair: str, word: str, reason: str = "", **extra: Any) -> dict[str, Any]:
    return {"pair": pair, "verdict": word, "reason": reason, **extra}


def answer_every_pair(word: str) -> Any:
    """A reply function: ``word`` for every pair the prompt holds."""

    def reply(user: str) -> str:
        return verdicts_reply(*(verdict(p, word, f"{p} checked") for p in SENT_PAIR.findall(user)))

    return reply


def note_trees(store: MemoryStore) -> dict[str, tuple[bytes, int]]:
    """Every file of both note trees, with its bytes and mtime."""
    found: dict[str, tuple[bytes, int]] = {}
    for tree in (store.memory_dir, store.local_dir):
        for path in sorted(tree.rglob("*")) if tree.is_dir() else ():
            if path.is_file():
                found[str(path.relative_to(store.root))] = (
                    path.read_bytes(),
                    path.stat().st_mtime_ns,
                )
    return found


def sent_pairs(prompts: Sequence[tuple[str, str]]) -> Iterator[list[str]]:
    """The pair ids each prompt held, call by call."""
    for _system, user in prompts:
        yield SENT_PAIR.findall(user)
