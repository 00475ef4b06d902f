"""The vectors extra (``anamnesis-store[vectors]``): the embedder (:mod:`.embedding`), a
long note as overlapping passages (:mod:`.passages`), the passage cache and nearest
neighbours inside index.db (:mod:`.vector_index`), embedding passes
(:mod:`.embedding_pass`), and the extra as one store sees it (:mod:`.store_vectors`).

Nothing here loads unless a search or an embedding pass uses vectors.
"""
