"""The index schema. Everything here is derived from the markdown and rebuilt at will."""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

# Bumped whenever the schema or what the index stores changes. Any other value (including
# the published release's 1-3) makes the store drop the tables and rebuild from markdown.
SCHEMA_VERSION: Final = 112
# 'ANMS': marks the file as an Anamnesis index, so a stray SQLite file is never trusted.
APPLICATION_ID: Final = 0x414E4D53

SCHEMA: Final = """
CREATE TABLE memories (
  seq             INTEGER PRIMARY KEY,  -- the note's rowid in memories_fts, in its project's
                                        -- range (project_seq.py)
  id              TEXT NOT NULL UNIQUE,
  type            TEXT NOT NULL CHECK (type IN ('procedural','semantic','episodic')),
  title           TEXT NOT NULL,
  body_path       TEXT NOT NULL,        -- relative to the tree of the note's scope
  project         TEXT NOT NULL DEFAULT 'global',
  machine_id      TEXT NOT NULL,
  scope           TEXT NOT NULL DEFAULT 'portable' CHECK (scope IN ('portable','machine-local')),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  ranked_at       TEXT NOT NULL,        -- updated_at, never later than when this store wrote
                                        -- the file or indexed it (timestamps.ranking_time):
                                        -- what "newest first" orders by
  prov_source     TEXT NOT NULL DEFAULT 'human'
                  CHECK (prov_source IN ('human','session-end','reflection','import','merge')),
  prov_model      TEXT,
  prov_session    TEXT,
  prov_agent      TEXT,                 -- which coding agent wrote the note; NULL: none
  confidence      REAL NOT NULL DEFAULT 1.0,
  supersedes      TEXT,                 -- first superseded id, as in the spec's schema
  tags_json       TEXT NOT NULL DEFAULT '[]',
  supersedes_json TEXT NOT NULL DEFAULT '[]',
  extra_json      TEXT NOT NULL DEFAULT '{}',
  valid_until     TEXT,                 -- as written (a date or a timestamp); NULL: none
  expires_at      TEXT,                 -- validity.expiry_bound: first moment it is expired
  review_after    TEXT,                 -- as written; NULL: none
  due_at          TEXT,                 -- validity.due_bound: first moment it is due
  reviewed_at     TEXT,                 -- when a person last confirmed it; NULL: never
  compatible_json TEXT NOT NULL DEFAULT '[]',  -- ids a person said it does not contradict
  complete        INTEGER NOT NULL DEFAULT 1,  -- 0: extras not JSON-exact, read the file
  file_size       INTEGER NOT NULL,
  file_mtime_ns   INTEGER NOT NULL,
  embed_hash      TEXT,                 -- hash of the embedded text; NULL after each write
  tags            TEXT NOT NULL DEFAULT '',    -- space-joined, what full-text search sees
  body_z          BLOB NOT NULL                -- the body, deflated (stored_text.py); last:
                                               -- metadata reads never load it
);

-- Each project's slot: its notes' rowids are the slot's range (project_seq.py).
CREATE TABLE project_slots (
  slot    INTEGER PRIMARY KEY,
  project TEXT NOT NULL UNIQUE
);

-- What full-text search sees of each note: the body as text again, and every field as
-- search compares it (invisible.py: no zero-width characters; index.upsert inserts the same).
CREATE VIEW memories_text AS
  SELECT seq, match_text(title) AS title, match_text(note_text(body_z)) AS body,
         match_text(tags) AS tags
  FROM memories;

-- By the note's rowid, not its 26-character id: a tenth of the index's size at 2,000 notes.
CREATE TABLE memory_tags (
  seq INTEGER NOT NULL,  -- memories.seq
  tag TEXT NOT NULL,
  PRIMARY KEY (seq, tag)
) WITHOUT ROWID;

CREATE TABLE memory_supersedes (
  memory_id     TEXT NOT NULL,
  superseded_id TEXT NOT NULL,
  PRIMARY KEY (memory_id, superseded_id)
) WITHOUT ROWID;

-- The spec's full-text table (title, body, tags; porter unicode61), reading its text from
-- memories (external content, through memories_text) so every note's text is stored once.
-- detail=full (the default) on purpose: with less detail FTS5's bm25 tokenizes every
-- scored note again to count its phrases, some 30 us a note instead of 1.5.
CREATE VIRTUAL TABLE memories_fts USING fts5(
  title, body, tags, content='memories_text', content_rowid='seq', tokenize='porter unicode61'
);

-- The vectors extra: each note's passages' embeddings (for the model named), by the note's
-- rowid (see passages.py: a note longer than one window is embedded as several passages).
-- Narrow on purpose: a nearest-neighbour scan reads only this, not the 4 KB note rows.
-- Emptied for a note whenever its row is rewritten; refilled from passage_cache (kept
-- across rebuilds, see vector_index) or by embedding the new text.
CREATE TABLE note_passages (
  seq     INTEGER NOT NULL,  -- memories.seq
  model   TEXT NOT NULL,
  passage INTEGER NOT NULL,  -- 0: the note's start
  vector  BLOB NOT NULL      -- float32, as sqlite-vec reads it
);
CREATE UNIQUE INDEX idx_passages_note ON note_passages(seq, model, passage);

-- Bookkeeping: folder mtimes seen at the last scan, files that failed to parse.
CREATE TABLE index_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
"""

# Secondary indexes, created after a full rebuild has filled the tables (cheaper than
# maintaining them row by row).
INDEXES: Final = """
-- Per project, newest first: list() and inject walk it and stop at their LIMIT instead
-- of sorting every note of a project (bodies included).
CREATE INDEX idx_mem_project_recency
  ON memories(project, ranked_at DESC, confidence DESC, id DESC);
CREATE INDEX idx_mem_recency ON memories(ranked_at DESC, confidence DESC, id DESC);
-- Notes dated past the moment they were indexed (a machine whose clock runs ahead): the
-- doctor names them without reading every row. Notes whose dates are sane are not in it.
CREATE INDEX idx_mem_dated_ahead ON memories(updated_at)
  WHERE updated_at > ranked_at OR created_at > ranked_at;
CREATE INDEX idx_mem_path    ON memories(scope, body_path);
-- The spec's two other indexes: counts and filters by project, type and scope (without an
-- ORDER BY ... LIMIT, where the recency index above stays the planner's choice), and by
-- provenance. About 10 us more per written row, out of a write's 1-4 ms.
CREATE INDEX idx_mem_scope   ON memories(project, type, scope);
CREATE INDEX idx_mem_prov    ON memories(prov_source);
-- Notes whose text has not been hashed for embedding yet (every write resets the hash).
CREATE INDEX idx_mem_unhashed ON memories(seq) WHERE embed_hash IS NULL;
CREATE INDEX idx_tags_tag    ON memory_tags(tag);
CREATE INDEX idx_supersedes_target ON memory_supersedes(superseded_id);
-- The few notes that carry a date: expiry and review questions never visit the others.
CREATE INDEX idx_mem_expires ON memories(expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX idx_mem_due ON memories(due_at) WHERE due_at IS NOT NULL;
"""

# The vectors extra's cache: passage vectors by the note text's hash and the model. Not in
# SCHEMA: made on first use, and kept by a rebuild (``db.recreate_schema``) when its
# columns are these, so a reindex re-embeds nothing. Another layout (the single-vector
# ``embedding_cache`` of schema 107 and before) is dropped like any other table.
PASSAGE_CACHE_TABLE: Final = "passage_cache"
PASSAGE_CACHE_COLUMNS: Final = ("content_hash", "model", "passage", "vector")
PASSAGE_CACHE: Final = f"""
CREATE TABLE IF NOT EXISTS {PASSAGE_CACHE_TABLE} (
  content_hash TEXT NOT NULL,     -- vector_index.content_hash: the note's text and the scheme
  model        TEXT NOT NULL,
  passage      INTEGER NOT NULL,  -- 0: the note's start
  vector       BLOB NOT NULL,     -- float32, as sqlite-vec reads it
  PRIMARY KEY (content_hash, model, passage)
)
"""
