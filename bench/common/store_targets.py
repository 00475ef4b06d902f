"""The store's speed targets: the store bench reports against them, and the search studies
(``bench.studies.search_floor``) explain the 100,000-note figure against the same one."""

from __future__ import annotations

# At 2,000 notes of ~4 KB (milliseconds, or seconds for the reindex).
TARGETS = {
    "write_median_ms": 1.0,
    "search_median_ms": 1.5,
    "list_median_ms": 100.0,
    "reindex_median_s": 0.6,
}
# At 100,000 notes.
BIG_TARGETS = {"search_p95_ms": 20.0, "reindex_median_s": 60.0}
