"""Keyword recall (spec 002): quoted query tokens OR-joined, ranked by FTS5 BM25.

Every ``\\w+`` run of the query becomes a double-quoted FTS5 phrase, so operators and
punctuation in user text (``state-of-the-art``, ``16:9``, ``"``) can never break the
query; the phrases are OR-joined so a note sharing some words is still found; BM25 ranks,
the more recently updated note wins a tie; superseded notes never come back.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+")


def query_tokens(query: str) -> list[str]:
    """The word tokens of a free-text query, in order (repeats kept, as the spec does)."""
    return _TOKEN.findall(query)


def match_expression(tokens: Sequence[str]) -> str:
    """An FTS5 MATCH expression: every token a quoted phrase, joined by OR."""
    return " OR ".join(f'"{token}"' for token in tokens)


@dataclass(frozen=True, slots=True)
class Filters:
    """Exact-match filters shared by search and list. None means "any"."""

    project: str | None = None
    types: tuple[str, ...] | None = None
    scope: str | None = None
    tag: str | None = None

    def sql(self, alias: str = "m") -> tuple[str, list[object]]:
        """``AND ...`` clauses and their parameters (values are always bound, never inlined)."""
        clauses: list[str] = []
        params: list[object] = []
        if self.project is not None:
            clauses.append(f"{alias}.project = ?")
            params.append(self.project)
        if self.types is not None:
            clauses.append(f"{alias}.type IN ({','.join('?' * len(self.types))})")
            params.extend(self.types)
        if self.scope is not None:
            clauses.append(f"{alias}.scope = ?")
            params.append(self.scope)
        if self.tag is not None:
            clauses.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {alias}.id AND t.tag = ?)"
            )
            params.append(self.tag)
        return "".join(f" AND {clause}" for clause in clauses), params


NOT_SUPERSEDED = "m.id NOT IN (SELECT superseded_id FROM memory_supersedes)"


def ranked_ids(
    conn: sqlite3.Connection, tokens: Sequence[str], filters: Filters, k: int
) -> list[tuple[str, float]]:
    """The ids (and BM25 scores) of the best ``k`` notes for the tokens, best first."""
    if not tokens:
        return []
    where, params = filters.sql()
    sql = (
        "SELECT m.id, bm25(memories_fts) AS score FROM memories_fts f"
        " JOIN memories m ON m.seq = f.rowid"
        f" WHERE memories_fts MATCH ?{where} AND {NOT_SUPERSEDED}"
        " ORDER BY score, m.updated_at DESC, m.id DESC LIMIT ?"
    )
    rows = conn.execute(sql, [match_expression(tokens), *params, k]).fetchall()
    return [(memory_id, score) for memory_id, score in rows]
