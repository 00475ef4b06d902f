"""The note: the record (:mod:`.model`), its file format (:mod:`.codec` over
:mod:`.frontmatter`), the rules every note obeys (:mod:`.validation`, :mod:`.limits`), its
id (:mod:`.ids`) and timestamps (:mod:`.timestamps`), the characters a reader cannot see
(:mod:`.invisible`), and the ``extra`` keys that say who last wrote its text
(:mod:`.capture_digest`, :mod:`.model_rewrite`).

The bottom room: nothing here knows files on disk, the index or search.
"""
