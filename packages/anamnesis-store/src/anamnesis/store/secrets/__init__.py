"""Secrets: what one is (:mod:`.redact` with its rules, :mod:`.redact_rules`), masking a
note as it is written and notes on disk before a sync (:mod:`.secret_scan`), and the sync
cycle that masks what goes out (:mod:`.outgoing`).

Stands on the note and its files; the index's writer masks through it.
"""
