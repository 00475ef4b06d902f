"""Notes in and out of a store, built on :class:`~anamnesis.store.MemoryStore`: exports and
imports that keep ids (:mod:`.interchange`), OpenChronicle's files (:mod:`.openchronicle`),
JSON from outside with its nesting bounded (:mod:`.bounded_json`), every note a page at a
time (:mod:`.note_pages`), measuring recall over a set of cases (:mod:`.recall_eval`), and
what this machine used, with its notes (:mod:`.usage_report`).
"""
