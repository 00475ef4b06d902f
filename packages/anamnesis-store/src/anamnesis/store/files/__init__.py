"""Notes as files on disk: where things are (:mod:`.layout`), crash-safe writes
(:mod:`.atomic` with :mod:`.flusher`; :mod:`.batch_journal` for a batch, all or nothing),
reading only regular files (:mod:`.safe_files`), temp files of killed writes
(:mod:`.leftovers`), and hand-written notes without an id (:mod:`.adoption`).

Stands on the note alone: nothing here knows the index.
"""
