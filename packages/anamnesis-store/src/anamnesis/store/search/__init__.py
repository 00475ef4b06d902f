"""Search: the modes and which ranking each runs (:mod:`.search_modes`), spec 002's keyword
ranking (:mod:`.query`, made fast by :mod:`.rare_first` and :mod:`.exact_bm25`), a query's
stop words (:mod:`.stop_words`), and vector and hybrid ranking (:mod:`.hybrid`, fused by
:mod:`.fusion`).
"""
